/**
 * Turning raw terminal output into plain text for agents: escape sequences (CSI, OSC, DCS, SOS,
 * PM, APC, two-char ESC sequences, their 8-bit C1 forms) and stray control chars are removed;
 * text, tab, LF and CR stay.
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

export function stripAnsi(text: string): string {
  // Most output holds only well-formed CSI (colours): a native replace does those, and gives the
  // state machine's result whenever nothing else that is special remains.
  const withoutCsi = text.replace(wellFormedCsi, '');
  return otherControl.test(withoutCsi) ? new AnsiStripper().push(text) : withoutCsi;
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

/** Plain text of raw output: stripped, with LF line ends. */
export function plainText(text: string): string {
  return normalizeNewlines(stripAnsi(text));
}
