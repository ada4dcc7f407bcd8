/**
 * The part of a terminal's output that a `wait` pattern may match: escape sequences stripped, and
 * the echo of input an agent sent skipped — from the write on, output does not count until the
 * input's text has appeared (docs/protocol.md#wait).
 *
 * Why "from the write until the echo" and not just the echoed text: shells draw a typed line in
 * several passes (fish first draws it plain, then again highlighted; zsh redraws what wraps), and
 * the earlier passes hold the same words in pieces.
 *
 * How the skipping ends, first one wins:
 * - every piece of the sent text was found, in order, in the plain output (see echoPieces), and
 *   when the text ended with Enter, a line break follows the last one: shells that draw the line
 *   more than once (bash draws a paste highlighted, then plain; fish draws it plain, then
 *   highlighted) move to the next line only after the last draw;
 * - the shell reported that it started the command (shell integration: OSC 633;C, after an
 *   OSC 633;E naming a command line that holds the sent text, or OSC 133;C): what follows is the
 *   command's output, even when the echo was drawn in a way we did not recognise (zsh redrawing
 *   a line wider than the terminal). A command start naming another line is the previous
 *   command's, still starting as the text arrives: it ends nothing;
 * - ControlConstants.echoWaitMs passed since the write, or echoSearchMaxChars of output came,
 *   without either: the program does not echo (`stty -echo`, a password prompt, a TUI that draws
 *   the text elsewhere). Then everything from the write on counts after all — except, at the time
 *   limit, the text itself when all of it was drawn and only its line break is missing (echo was
 *   turned off before the Enter arrived).
 *
 * Typed ahead: text sent while a command still runs is echoed by the kernel at once and drawn
 * again by the shell when it reads the line. In a shell with integration that second echo follows
 * a prompt mark (OSC 633;A or 133;A) that came after the first echo but before the sent command
 * started, and is skipped too. Text that arrives while the terminal does not echo (the shell still
 * leaving its line editor for the previous command, or a program that turned echo off) gets no
 * first echo at all: when the time for the echo runs out and the text was typed ahead (sent while
 * the shell was not at its prompt, or another command started since), the echo is still expected
 * at the next prompt. Without integration, nothing tells these apart.
 */
import { ControlConstants } from '../../common/constants.ts';
import { OscParser } from '../../common/terminal/oscParser.ts';
import { parseTerminalMark, type TerminalMark } from '../../common/terminal/terminalMarks.ts';
import { AnsiStripper } from '../../common/terminal/ansiStrip.ts';
import type { SentInput } from './sentInput.ts';

/** What ends the echo of a line typed with Enter: maybe spaces and CRs (zsh clears the line's end), then LF. */
const lineBreak = /[ \r]*\n/y;
/** Only the start of such a break so far: the LF may still come. */
const lineBreakSoFar = /[ \r]*$/y;

type Phase =
  /** No sent input pending: output counts. */
  | 'open'
  /** Output is held while the echo is looked for. */
  | 'searching'
  /** The echo was found; a prompt mark before any command start means it is drawn again (typed ahead). */
  | 'echoed';

export class EchoGate {
  readonly #now: () => number;
  readonly #stripper = new AnsiStripper();
  /** Finds the shell-integration marks in the raw output; push() collects them per chunk. */
  readonly #osc = new OscParser({
    onOsc: (payload, endIndex) => {
      const mark = parseTerminalMark(payload);
      if (mark) this.#marks.push({ endIndex, mark });
    },
    onBell: () => {},
  });
  #marks: Array<{ endIndex: number; mark: TerminalMark }> = [];
  /** The command line the shell last named (OSC 633;E) and has not started yet. */
  #namedLine: string | null = null;
  #phase: Phase = 'open';
  /** Plain chars the stripper has produced so far. */
  #position = 0;
  /** Released text before this position is not counted: it came before the wait's window. */
  #countFrom = 0;

  #pieces: string[] = [];
  /** The input ended with Enter: the echo ends with a line break. */
  #enter = false;
  #nextPiece = 0;
  #deadline = 0;
  #rearmed = false;
  /** What is looked for was typed ahead (SentInput.typedAhead), or the shell started another command since. */
  #typedAhead = false;
  /** Plain output held while searching, and the position it starts at. */
  #held = '';
  #heldStart = 0;
  /** Where, in #held, the next piece may start (just after the previous one). */
  #searchFrom = 0;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** When the search for an echo gives up, or null when none is going on. */
  get deadline(): number | null {
    return this.#phase === 'searching' ? this.#deadline : null;
  }

  /** Everything pushed so far lies before the window that counts (and so does what is held of it). */
  discardBefore(): void {
    this.#countFrom = this.#position;
  }

  /** `input` was written just now, at the current position: skip its echo. */
  expect(input: SentInput): void {
    const deadline = input.at + ControlConstants.echoWaitMs;
    if (this.#phase === 'searching') {
      // Sent before the previous echo came: its echo follows that one, so look for both in turn.
      this.#pieces.push(...input.pieces);
      this.#enter = input.enter;
      this.#deadline = Math.max(this.#deadline, deadline);
      this.#typedAhead ||= input.typedAhead === true;
      return;
    }
    this.#search([...input.pieces], input.enter, deadline);
    this.#rearmed = false;
    this.#typedAhead = input.typedAhead === true;
  }

  /**
   * Raw output (decoded text), in order: returns the plain text of it that counts. The echo is
   * looked for in it before the time limit is checked (that is expire()'s job): output that came
   * in time but is read late (a wait that starts after the send) is still judged by its content.
   */
  push(raw: string): string {
    this.#marks = [];
    this.#osc.feed(raw);
    let out = '';
    let from = 0;
    for (const { endIndex, mark } of this.#marks) {
      // Up to the end of the mark: the stripper drops the mark itself, so it sits exactly here in the plain text.
      out += this.#take(this.#stripper.push(raw.substring(from, endIndex)));
      from = endIndex;
      this.#mark(mark);
    }
    out += this.#take(this.#stripper.push(raw.substring(from)));
    return out;
  }

  /** If the search for an echo ran out of time: stop skipping, and return the held output, which counts. */
  expire(): string {
    if (this.#phase !== 'searching' || this.#now() < this.#deadline) return '';
    if (this.#nextPiece >= this.#pieces.length) {
      // Every piece was drawn and only the line break never came (echo turned off before the
      // Enter arrived): that was the echo; what follows it counts.
      const after = this.#held.substring(this.#searchFrom);
      const afterStart = this.#heldStart + this.#searchFrom;
      this.#held = '';
      this.#phase = 'echoed';
      return this.#counted(after, afterStart);
    }
    if (this.#typedAhead && !this.#rearmed) {
      // Typed ahead while nothing echoed it: the shell draws it when it reads it, after its next
      // prompt. What was held counts (the running command's output); that echo will not.
      const held = this.#giveUp();
      this.#phase = 'echoed';
      return held;
    }
    return this.#giveUp();
  }

  #take(plain: string): string {
    if (plain.length === 0) return '';
    const start = this.#position;
    this.#position += plain.length;
    if (this.#phase !== 'searching') return this.#counted(plain, start);
    this.#held += plain;
    let end = -1;
    while (end === -1) {
      while (this.#nextPiece < this.#pieces.length) {
        const piece = this.#pieces[this.#nextPiece]!;
        const found = this.#held.indexOf(piece, this.#searchFrom);
        if (found === -1) {
          if (this.#held.length > ControlConstants.echoSearchMaxChars + piece.length) return this.#giveUp();
          // Not in what is held, so it cannot start before its last piece.length - 1 chars.
          this.#searchFrom = Math.max(this.#searchFrom, this.#held.length - piece.length + 1);
          return '';
        }
        this.#searchFrom = found + piece.length;
        this.#nextPiece++;
      }
      if (!this.#enter) {
        end = this.#searchFrom;
        break;
      }
      lineBreak.lastIndex = lineBreakSoFar.lastIndex = this.#searchFrom;
      if (lineBreak.test(this.#held)) end = lineBreak.lastIndex;
      else if (lineBreakSoFar.test(this.#held)) return '';
      else this.#nextPiece--; // a draw of the line that does not end it: look for a later one
    }
    // The whole echo is there: skip up to its end, the rest counts.
    const after = this.#held.substring(end);
    const afterStart = this.#heldStart + end;
    this.#phase = 'echoed';
    this.#held = '';
    return this.#counted(after, afterStart);
  }

  #mark(mark: TerminalMark): void {
    if (mark.kind === 'commandLine') {
      this.#namedLine = mark.commandLine;
      return;
    }
    if (mark.kind === 'commandStart') {
      const named = this.#namedLine;
      this.#namedLine = null;
      if (this.#phase === 'open') return;
      // Not named (OSC 133, or bash naming a line left out of history only after it starts): take it as ours.
      const last = this.#pieces[this.#pieces.length - 1]!;
      if (named !== null && !named.includes(last)) {
        this.#typedAhead = true;
        return;
      }
      // Our command starts: what was held was its echo (however it was drawn); its output follows.
      this.#held = '';
      this.#phase = 'open';
      return;
    }
    if (mark.kind === 'promptStart' && this.#phase === 'searching' && this.#typedAhead && !this.#rearmed) {
      // Typed ahead and not echoed yet: the shell draws it now, after this prompt; the time to find it counts from here.
      this.#rearmed = true;
      this.#deadline = Math.max(this.#deadline, this.#now() + ControlConstants.echoWaitMs);
      return;
    }
    if (mark.kind === 'promptStart' && this.#phase === 'echoed' && !this.#rearmed) {
      // Echoed, then a prompt without the command starting: the line was typed ahead and the shell
      // reads (and draws) it now. The time to find that second echo counts from here.
      this.#rearmed = true;
      this.#search(this.#pieces, this.#enter, this.#now() + ControlConstants.echoWaitMs);
    }
  }

  #search(pieces: string[], enter: boolean, deadline: number): void {
    this.#phase = 'searching';
    this.#pieces = pieces;
    this.#enter = enter;
    this.#nextPiece = 0;
    this.#deadline = deadline;
    this.#held = '';
    this.#heldStart = this.#position;
    this.#searchFrom = 0;
  }

  #giveUp(): string {
    const held = this.#held;
    this.#phase = 'open';
    this.#held = '';
    return this.#counted(held, this.#heldStart);
  }

  #counted(text: string, start: number): string {
    const skip = this.#countFrom - start;
    return skip <= 0 ? text : text.substring(skip);
  }
}
