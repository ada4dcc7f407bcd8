/**
 * Feeds a terminal's headless mirror without letting it throttle the terminal.
 *
 * `@xterm/headless` parses slower than a PTY can produce (`cat` of a big log), and the mirror
 * only has to be right when someone looks: an attaching pane's snapshot, `readScreen`, `wait`.
 * So instead of pausing the PTY until the mirror catches up, a mirror that falls more than
 * `skipAboveChars` behind stops being fed; once it has drained (or as soon as someone asks it
 * for the screen) it is fed the last `resyncTailBytes` of the raw ring, starting on a line, which
 * rebuilds the screen the skipped output left. Terminal modes that the skipped part switched
 * (alternate screen, bracketed paste, cursor keys, mouse reporting…) are replayed first, so the
 * mirror's modes stay right. What a skip loses is scrollback in the mirror — never output: the
 * ring and every pane's stream are lossless and untouched.
 */
import type { FlowAccount } from './flowControl.ts';
import type { ITerminalMirror } from './terminalMirror.ts';

export interface MirrorFeedOptions {
  mirror: ITerminalMirror;
  /** A lossy account: the mirror's debt, for deciding when to skip (it never pauses the PTY). */
  account: FlowAccount;
  /** Raw output bytes from `from` up to the newest byte, as far as the ring still holds them; `start` is where they begin. */
  readRing: (from: number) => { data: Buffer; start: number };
  skipAboveChars: number;
  resyncBelowChars: number;
  resyncTailBytes: number;
}

/**
 * DEC private modes whose last setting inside skipped output is replayed before the tail: the
 * screen buffer, cursor keys and visibility, bracketed paste, mouse reporting and its encoding,
 * focus events, synchronized output.
 */
const replayedPrivateModes = [1049, 1047, 47, 1, 25, 2004, 9, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 2026] as const;

export class MirrorFeed {
  readonly #options: MirrorFeedOptions;
  /** Byte offset where skipping began; null while the mirror is fed everything. */
  #skippingFrom: number | null = null;
  #endOffset = 0;
  #skips = 0;

  constructor(options: MirrorFeedOptions) {
    this.#options = options;
  }

  /** How many times the mirror skipped ahead (for tests and diagnostics). */
  get skips(): number {
    return this.#skips;
  }

  get skipping(): boolean {
    return this.#skippingFrom !== null;
  }

  /** One batch of output, `bytes` being `text` as UTF-8 (valid during the call only). */
  write(text: string, bytes: Uint8Array, startOffset: number, endOffset: number): void {
    this.#endOffset = endOffset;
    if (this.#skippingFrom !== null) return;
    if (this.#options.account.unacknowledged > this.#options.skipAboveChars) {
      this.#skippingFrom = startOffset;
      this.#skips++;
      return;
    }
    this.#send(text, bytes);
  }

  /** The mirror parsed `chars`: once a skipping mirror has drained, feed it the tail. */
  parsed(chars: number): void {
    this.#options.account.ack(chars);
    if (this.#skippingFrom !== null && this.#options.account.unacknowledged < this.#options.resyncBelowChars) this.catchUp();
  }

  /** Someone needs the mirror's screen now: if it is skipping, feed it the tail at once. */
  catchUp(): void {
    const from = this.#skippingFrom;
    if (from === null) return;
    this.#skippingFrom = null;
    const tailFrom = Math.max(from, this.#endOffset - this.#options.resyncTailBytes);
    const { data, start } = this.#options.readRing(from);
    if (data.length === 0) return;
    let tailIndex = Math.max(0, tailFrom - start);
    if (tailIndex > 0) {
      // Start on a line: never in the middle of a character or an escape sequence's parameters.
      const newline = data.indexOf(0x0a, tailIndex);
      tailIndex = newline === -1 ? data.length : newline + 1;
    }
    const modes = modesSetIn(data.subarray(0, tailIndex));
    const tail = data.subarray(tailIndex);
    const replay = modes.length > 0 ? Buffer.concat([Buffer.from(modes, 'latin1'), tail]) : tail;
    if (replay.length > 0) this.#send(replay.toString('utf8'), replay);
  }

  #send(text: string, bytes: Uint8Array): void {
    this.#options.mirror.write(text, bytes);
    this.#options.account.charge(text.length);
  }
}

/** The last set/reset of each replayed mode in `skipped`, as escape sequences, in the order they came. */
export function modesSetIn(skipped: Buffer): string {
  const found: Array<{ at: number; sequence: string }> = [];
  for (const mode of replayedPrivateModes) {
    const set = skipped.lastIndexOf(`\x1b[?${mode}h`, undefined, 'latin1');
    const reset = skipped.lastIndexOf(`\x1b[?${mode}l`, undefined, 'latin1');
    if (set === -1 && reset === -1) continue;
    found.push(set > reset ? { at: set, sequence: `\x1b[?${mode}h` } : { at: reset, sequence: `\x1b[?${mode}l` });
  }
  return found
    .sort((a, b) => a.at - b.at)
    .map((entry) => entry.sequence)
    .join('');
}
