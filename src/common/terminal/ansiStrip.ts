/**
 * Turning raw terminal output into plain text for agents: escape sequences (CSI, OSC, DCS, SOS,
 * PM, APC, two-char ESC sequences, their 8-bit C1 forms) and stray control chars are removed;
 * text, tab and line ends stay. The one home of that for `exec`, `poll`, `readLog` and
 * `history.read`: `stripAnsi` and `plainText` also apply a line's in-line redraws (see
 * renderLineEdits), so text a program erased on screen — npm's spinner glyph — is not read back.
 * (`AnsiStripper` only strips: streaming readers that match patterns use it.)
 *
 * Written here rather than taken from `strip-ansi`: that package is not a dependency of ours
 * (node_modules only has an old copy pulled in by build tools, which the packaged app would not
 * ship), and its regex does not remove OSC strings whose payload holds spaces or other punctuation
 * or ends in ESC \ — exactly the shell-integration marks (OSC 633;E;<command line>) our terminals
 * are full of. A state machine also strips streams correctly when a sequence is split across
 * chunks, which `wait` needs.
 */
import { maxOscPayloadChars } from './oscParser.ts';

const GROUND = 0;
const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI = 3;
/** OSC, DCS, SOS, PM, APC: everything up to BEL or ST is dropped. */
const STRING = 4;
const STRING_ESCAPE = 5;

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;

/** A streaming stripper: feed chunks in order; sequences split across chunks are handled. */
export class AnsiStripper {
  #state = GROUND;
  #stringLength = 0;
  #openedAt = -1;

  push(text: string): string {
    let out = '';
    let runStart = -1;
    this.#openedAt = -1;
    const length = text.length;
    for (let index = 0; index < length; index++) {
      const code = text.charCodeAt(index);
      if (this.#state === GROUND) {
        if (isPlain(code)) {
          if (runStart === -1) runStart = index;
          continue;
        }
        if (runStart !== -1) {
          out += text.substring(runStart, index);
          runStart = -1;
        }
        this.#ground(code);
        if (this.#state !== GROUND) this.#openedAt = index;
        continue;
      }
      this.#inSequence(code);
    }
    if (runStart !== -1) out += text.substring(runStart);
    return out;
  }

  /** Whether the text pushed so far ends inside an escape sequence. */
  get inSequence(): boolean {
    return this.#state !== GROUND;
  }

  /**
   * Where, in the text of the last push, the sequence still open at its end began: -1 when none
   * is open or it began in an earlier push. A reader that cuts output there never ends a slice
   * with part of a sequence.
   */
  get openSequenceStart(): number {
    return this.#state === GROUND ? -1 : this.#openedAt;
  }

  /**
   * Consume `text` only as far as the sequence in progress goes: how many of its chars finish
   * that sequence; 0 when none is in progress, `text.length` when it does not end within `text`.
   * A reader whose slice starts inside a sequence skips these.
   */
  finishSequence(text: string): number {
    let index = 0;
    while (this.#state !== GROUND && index < text.length) this.#inSequence(text.charCodeAt(index++));
    return index;
  }

  /** Forget a partial sequence (e.g. before stripping an unrelated piece of output). */
  reset(): void {
    this.#state = GROUND;
    this.#stringLength = 0;
  }

  /** A non-plain char in ground state. Kept chars (\t \n \r) are re-added here. */
  #ground(code: number): void {
    this.#stringLength = 0;
    if (code === ESC) this.#state = ESCAPE;
    else if (code === 0x9b) this.#state = CSI;
    else if (code === 0x9d || code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f) this.#state = STRING;
    // Anything else (C0 controls, DEL, other C1) is dropped.
  }

  #inSequence(code: number): void {
    switch (this.#state) {
      case ESCAPE:
        if (code === 0x5b) this.#state = CSI;
        else if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) {
          this.#state = STRING;
          // Count each string's own length (an ESC may have ended a previous one just before).
          this.#stringLength = 0;
        }
        else if (code >= 0x20 && code <= 0x2f) this.#state = ESCAPE_INTERMEDIATE;
        else if (code === ESC) this.#state = ESCAPE;
        else this.#state = GROUND; // final byte of a two-char sequence, or garbage: dropped either way
        return;
      case ESCAPE_INTERMEDIATE:
        if (code >= 0x20 && code <= 0x2f) return;
        this.#state = code === ESC ? ESCAPE : GROUND;
        return;
      case CSI:
        if (code >= 0x20 && code <= 0x3f) return; // parameters and intermediates
        if (code === ESC) this.#state = ESCAPE;
        else if (code < 0x20 && code !== CAN && code !== SUB) return; // C0 inside CSI: executed by terminals, not text
        else this.#state = GROUND; // final byte (or an abort)
        return;
      case STRING:
        if (code === BEL || code === 0x9c || code === CAN || code === SUB) this.#state = GROUND;
        else if (code === ESC) this.#state = STRING_ESCAPE;
        else if (++this.#stringLength > maxOscPayloadChars) this.#state = GROUND; // runaway: give the output back
        return;
      case STRING_ESCAPE:
        if (code === 0x5c) {
          this.#state = GROUND;
        } else {
          // ESC followed by something else: the string was abandoned and a new sequence starts.
          this.#state = ESCAPE;
          this.#inSequence(code);
        }
        return;
    }
  }
}

/** Printable text and the kept controls (tab, LF, CR). */
function isPlain(code: number): boolean {
  if (code >= 0x20) return code < 0x7f || code > 0x9f;
  return code === 0x09 || code === 0x0a || code === 0x0d;
}

/** Well-formed CSI sequences (parameters, intermediates, final): almost all escapes in real output. */
const wellFormedCsi = /\x1b\[[\x20-\x3f]*[\x40-\x7e]/g;
/** Anything the state machine treats specially besides those: ESC, other C0 controls, DEL, C1. */
const otherControl = /[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]/;

/** Escape sequences and control chars other than tab, LF and CR removed; nothing else changed. */
export function stripEscapes(text: string): string {
  // Most output holds only well-formed CSI (colours): a native replace does those, and gives the
  // state machine's result whenever nothing else that is special remains.
  const withoutCsi = text.replace(wellFormedCsi, '');
  return otherControl.test(withoutCsi) ? new AnsiStripper().push(text) : withoutCsi;
}

/**
 * Raw output as plain text, each line as the terminal shows it after its in-line redraws (see
 * renderLineEdits); line ends as they were sent (CR LF stays CR LF). What a stripped `readLog`
 * and `history.read` return.
 */
export function stripAnsi(text: string): string {
  if (!hasLineRedraw.test(text)) return stripEscapes(text);
  return renderLineEdits(stripMarkingLineEdits(text));
}

/**
 * The in-line redraws plain text acts on, besides CR: CHA to column 1 (`ESC[G`, `ESC[1G`), EL
 * (`ESC[K`/`ESC[0K` to the end of the line, `ESC[1K` to its start, `ESC[2K` all of it) and ED
 * from the cursor on (`ESC[J`/`ESC[0J`, zsh's way to clear before a prompt: on a line, the same as
 * erasing to its end). Other cursor moves (`ESC[5G`, up, down, forward) are stripped, not played:
 * plain text is not a terminal emulator. Whether raw output holds any, or a CR not ending a line:
 */
const hasLineRedraw = /\r(?![\r\n])|\x1b\[(?:[01]?G|0?[KJ]|[12]K)/;

/**
 * Marks standing for the erasing line edits in stripped text until it is rendered: lone low
 * surrogates, which text decoded from bytes never holds (a bad sequence decodes as U+FFFD), and
 * which the stripper keeps as printable. CHA to column 1 becomes a CR: the same move.
 */
const eraseToEnd = '\udff0';
const eraseToStart = '\udff1';
const eraseLine = '\udff2';

/**
 * The line edits of raw output replaced by their marks, each after `prefix`. Those with other
 * parameters (`ESC[2G`, `ESC[1J`) are left to be stripped as any CSI.
 */
function markLineEdits(text: string, prefix: string): string {
  return text.replace(lineEdit, (sequence) => {
    const final = sequence.charCodeAt(sequence.length - 1);
    const parameter = sequence.charCodeAt(sequence.length - 2);
    if (final === 0x47) return prefix + '\r'; // G
    if (final === 0x4a || parameter !== 0x31 && parameter !== 0x32) return prefix + eraseToEnd; // J, K, 0K
    return prefix + (parameter === 0x31 ? eraseToStart : eraseLine);
  });
}
const lineEdit = /\x1b\[(?:[01]?G|0?[KJ]|[12]K)/g;
const hasLineEdit = /\x1b\[(?:[01]?G|0?[KJ]|[12]K)/;

/** Stripped text with the line edits left as marks (a CR, or one of the erase marks). */
function stripMarkingLineEdits(text: string): string {
  if (!hasLineEdit.test(text)) return stripEscapes(text);
  // Usually only well-formed CSI is there besides: mark, then strip those at once.
  const withoutCsi = markLineEdits(text, '').replace(wellFormedCsi, '');
  if (!otherControl.test(withoutCsi)) return withoutCsi;
  // Otherwise the state machine strips it all, each mark after an ST: an edit's ESC ends any
  // sequence still open before it (as in a terminal), and ST does the same without leaving text.
  return new AnsiStripper().push(markLineEdits(text, '\x1b\\'));
}

const hasEraseMark = /[\udff0-\udff2]/;
/** A CR that does not end a line, or an erase mark: where a line is redrawn. */
const lineRedraw = /\r(?![\r\n])|[\udff0-\udff2]/g;

/**
 * Stripped (and marked) text with each line as the terminal leaves it: a CR (or CHA to column 1)
 * takes the cursor back to the line's start and what follows overwrites what was there; the
 * erase marks blank the line from the cursor on, up to it, or all of it. Lines without any of
 * these are not touched; the CRs ending a line (CR LF, CR CR LF) stay. The line is not wrapped at
 * the terminal's width, which plain text does not know: a CR goes back to the start of the line
 * as written. Columns count UTF-16 units (a wide char counts once, as in the text export).
 */
export function renderLineEdits(text: string): string {
  lineRedraw.lastIndex = 0;
  let match = lineRedraw.exec(text);
  if (!match) return text;
  let out = '';
  let done = 0;
  while (match) {
    const lineStart = text.lastIndexOf('\n', match.index) + 1;
    let lineEnd = text.indexOf('\n', match.index);
    if (lineEnd === -1) lineEnd = text.length;
    let contentEnd = lineEnd;
    if (lineEnd < text.length) while (contentEnd > lineStart && text.charCodeAt(contentEnd - 1) === 0x0d) contentEnd--;
    out += text.substring(done, lineStart) + renderLine(text.substring(lineStart, contentEnd));
    done = contentEnd;
    lineRedraw.lastIndex = lineEnd;
    match = lineRedraw.exec(text);
  }
  return out + text.substring(done);
}

/** One line (no LF) with its redraws played. */
function renderLine(line: string): string {
  if (!hasEraseMark.test(line)) {
    // Only CRs (progress lines): each column shows the last piece that reached it.
    const pieces = line.split('\r');
    let shown = pieces[pieces.length - 1]!;
    for (let index = pieces.length - 2; index >= 0; index--) {
      const piece = pieces[index]!;
      if (piece.length > shown.length) shown += piece.substring(shown.length);
    }
    return shown;
  }
  let shown = '';
  let column = 0;
  let from = 0;
  const put = (text: string) => {
    if (column === shown.length) shown += text;
    else if (column > shown.length) shown = shown.padEnd(column) + text;
    else shown = shown.substring(0, column) + text + shown.substring(column + text.length);
    column += text.length;
  };
  for (let index = 0; index < line.length; index++) {
    const code = line.charCodeAt(index);
    if (code !== 0x0d && (code < 0xdff0 || code > 0xdff2)) continue;
    if (index > from) put(line.substring(from, index));
    from = index + 1;
    if (code === 0x0d) column = 0;
    else if (code === 0xdff0) shown = shown.substring(0, column);
    else if (code === 0xdff1) shown = ' '.repeat(Math.min(column + 1, shown.length)) + shown.substring(column + 1);
    else shown = '';
  }
  if (from < line.length) put(line.substring(from));
  return shown;
}

/**
 * How many chars at the start of `text` are the rest of an escape sequence that `before` (the
 * output just ahead of it) leaves open. Only `before`'s last ESC matters: from any ESC on, the
 * stripper's state no longer depends on what came earlier (an ESC ends a CSI, and inside a string
 * it is either the start of ST or the start of a new sequence, which continue alike), so the
 * caller need not find where the output's sequences began. Without an ESC in `before`, the text
 * is taken to start outside any sequence; a caller that holds less than `maxOscPayloadChars`
 * before it cannot know better.
 */
export function openSequenceTail(before: string, text: string): number {
  const lastEsc = before.lastIndexOf('\x1b');
  if (lastEsc === -1) return 0;
  const stripper = new AnsiStripper();
  stripper.push(before.substring(lastEsc));
  return stripper.finishSequence(text);
}

/** CR LF (and the CR CR LF some line editors emit) → LF: what a reader of command output expects. */
export function normalizeNewlines(text: string): string {
  return text.indexOf('\r') === -1 ? text : text.replace(/\r+\n/g, '\n');
}

/**
 * Plain text of raw output before its redraws are played: stripped, LF line ends, the line edits
 * left as marks. A reader that trims what shells draw around a command's output does it on this
 * (zsh's PROMPT_SP line relies on the terminal wrapping it), then renders with renderLineEdits.
 */
export function markedPlainText(text: string): string {
  return normalizeNewlines(hasLineRedraw.test(text) ? stripMarkingLineEdits(text) : stripEscapes(text));
}

/** Plain text of raw output: stripped, with LF line ends, each line as the terminal shows it (`exec`'s output). */
export function plainText(text: string): string {
  // Most output redraws nothing in a line: one test, then only what stripping always cost.
  if (!hasLineRedraw.test(text)) return normalizeNewlines(stripEscapes(text));
  return renderLineEdits(normalizeNewlines(stripMarkingLineEdits(text)));
}
