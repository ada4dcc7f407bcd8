/**
 * Splits a byte stream into newline-delimited lines (NDJSON framing). Works on bytes, so a UTF-8
 * character split across chunks is never mangled, and each complete line is decoded once.
 *
 * The claws limit: when the bytes of one line (complete or still unterminated) exceed `maxLineBytes`
 * the framer reports an overflow and stops; the caller answers `request too large` and drops the
 * connection. Many small lines in one chunk are fine: only a single line counts against the limit.
 */
export type FramerResult = 'ok' | 'overflow';

export class LineFramer {
  readonly #maxLineBytes: number;
  readonly #onLine: (line: string) => void;
  /** Bytes of the current, unterminated line. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #overflowed = false;

  constructor(maxLineBytes: number, onLine: (line: string) => void) {
    this.#maxLineBytes = maxLineBytes;
    this.#onLine = onLine;
  }

  /** Bytes held for a line that has not ended yet. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  push(chunk: Buffer): FramerResult {
    if (this.#overflowed) return 'overflow';
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      let line: string;
      if (this.#pendingBytes === 0) {
        if (newline - start > this.#maxLineBytes) return this.#overflow();
        line = chunk.toString('utf8', start, newline);
      } else {
        if (this.#pendingBytes + newline - start > this.#maxLineBytes) return this.#overflow();
        this.#pending.push(chunk.subarray(start, newline));
        line = Buffer.concat(this.#pending).toString('utf8');
        this.#pending = [];
        this.#pendingBytes = 0;
      }
      start = newline + 1;
      this.#onLine(line);
      // A handler may have closed the connection (and reset us) while handling the line.
      if (this.#overflowed) return 'overflow';
    }
    if (start < chunk.length) {
      const rest = chunk.length - start;
      if (this.#pendingBytes + rest > this.#maxLineBytes) return this.#overflow();
      // Copy: the socket may reuse its chunk buffers.
      this.#pending.push(Buffer.from(chunk.subarray(start)));
      this.#pendingBytes += rest;
    }
    return 'ok';
  }

  #overflow(): FramerResult {
    this.#overflowed = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    return 'overflow';
  }
}
