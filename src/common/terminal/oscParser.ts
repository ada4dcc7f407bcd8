/**
 * A streaming scanner for the few control sequences the Hub cares about: OSC strings (shell
 * integration, cwd, notifications) and BEL outside of any sequence. Everything else passes through
 * untouched; the headless mirror does the full VT parse.
 *
 * It sits on the hot path, so plain text is skipped with `indexOf` for ESC and BEL (each position
 * is scanned at most once per needle per chunk), not walked char by char. Sequences may be split
 * across chunks at any position. Malformed input never throws: an OSC longer than the payload cap
 * is dropped whole, an OSC interrupted by another escape is abandoned.
 *
 * Only 7-bit introducers and terminators are recognised (ESC ] … BEL or ESC \); shells and the
 * programs that emit these marks use the 7-bit forms, and in a UTF-8 stream the 8-bit C1 bytes
 * are not characters of their own.
 */

export interface OscParserHandler {
  /**
   * A complete OSC sequence. `payload` is the text between `ESC ]` and the terminator;
   * `endIndex` is the index in the current chunk just after the terminator; `terminatorLength`
   * is 1 for BEL and 2 for ESC \ (in bytes as well as chars), so a caller can compute where the
   * sequence started even when it began in an earlier chunk.
   */
  onOsc(payload: string, endIndex: number, terminatorLength: 1 | 2): void;
  /** A BEL (0x07) outside of any escape sequence, at `index` in the current chunk. */
  onBell(index: number): void;
}

/** Longest OSC payload kept; anything longer is discarded (no shell mark comes close). */
export const maxOscPayloadChars = 64 * 1024;

const ESC = '\x1b';
const BEL = '\x07';
const CHAR_BACKSLASH = 0x5c;
const CHAR_RIGHT_BRACKET = 0x5d;
const CHAR_P = 0x50; // DCS
const CHAR_X = 0x58; // SOS
const CHAR_CARET = 0x5e; // PM
const CHAR_UNDERSCORE = 0x5f; // APC
const CHAR_ESC = 0x1b;

// States as plain numbers (no enums under erasableSyntaxOnly).
const GROUND = 0;
/** Saw ESC in ground. */
const ESCAPE = 1;
/** Inside ESC ] … collecting the payload. */
const OSC = 2;
/** Saw ESC inside an OSC: either ST (ESC \) or the start of something else. */
const OSC_ESCAPE = 3;
/** Inside DCS/SOS/PM/APC: ignored up to ST; a BEL in there is data, not a bell. */
const IGNORED_STRING = 4;
const IGNORED_STRING_ESCAPE = 5;

export class OscParser {
  readonly #handler: OscParserHandler;
  readonly #maxPayload: number;
  #state = GROUND;
  #payload = '';
  #overflowed = false;

  constructor(handler: OscParserHandler, options: { maxPayloadChars?: number } = {}) {
    this.#handler = handler;
    this.#maxPayload = options.maxPayloadChars ?? maxOscPayloadChars;
  }

  /** Forget any partial sequence (e.g. after the stream ended). */
  reset(): void {
    this.#state = GROUND;
    this.#payload = '';
    this.#overflowed = false;
  }

  feed(data: string): void {
    const length = data.length;
    // Cached positions of the next ESC / BEL at or after `index`; `length` means "none left".
    // Recomputed only when `index` has moved past them, which keeps the scan linear.
    let nextEsc = -1;
    let nextBel = -1;
    let index = 0;
    while (index < length) {
      switch (this.#state) {
        case GROUND: {
          if (nextEsc < index) nextEsc = indexOrEnd(data, ESC, index, length);
          if (nextBel < index) nextBel = indexOrEnd(data, BEL, index, length);
          if (nextBel < nextEsc) {
            this.#handler.onBell(nextBel);
            index = nextBel + 1;
          } else if (nextEsc < length) {
            this.#state = ESCAPE;
            index = nextEsc + 1;
          } else {
            index = length;
          }
          break;
        }
        case ESCAPE: {
          const code = data.charCodeAt(index);
          if (code === CHAR_RIGHT_BRACKET) {
            this.#state = OSC;
            this.#payload = '';
            this.#overflowed = false;
          } else if (code === CHAR_P || code === CHAR_X || code === CHAR_CARET || code === CHAR_UNDERSCORE) {
            this.#state = IGNORED_STRING;
          } else if (code !== CHAR_ESC) {
            // CSI and every other escape: its remaining bytes are harmless to the ground scan.
            this.#state = GROUND;
          }
          index++;
          break;
        }
        case OSC: {
          if (nextEsc < index) nextEsc = indexOrEnd(data, ESC, index, length);
          if (nextBel < index) nextBel = indexOrEnd(data, BEL, index, length);
          const end = nextBel < nextEsc ? nextBel : nextEsc;
          this.#append(data, index, end);
          if (end === length) {
            index = length;
          } else if (end === nextBel) {
            index = end + 1;
            this.#dispatch(index, 1);
          } else {
            this.#state = OSC_ESCAPE;
            index = end + 1;
          }
          break;
        }
        case OSC_ESCAPE: {
          if (data.charCodeAt(index) === CHAR_BACKSLASH) {
            index++;
            this.#dispatch(index, 2);
          } else {
            // An escape inside an OSC that is not ST abandons the OSC (as xterm does); the
            // current char starts the new escape.
            this.#abandonOsc();
            this.#state = ESCAPE;
          }
          break;
        }
        case IGNORED_STRING: {
          if (nextEsc < index) nextEsc = indexOrEnd(data, ESC, index, length);
          if (nextEsc === length) {
            index = length;
          } else {
            this.#state = IGNORED_STRING_ESCAPE;
            index = nextEsc + 1;
          }
          break;
        }
        case IGNORED_STRING_ESCAPE: {
          if (data.charCodeAt(index) === CHAR_BACKSLASH) {
            this.#state = GROUND;
            index++;
          } else {
            this.#state = ESCAPE;
          }
          break;
        }
      }
    }
  }

  #append(data: string, from: number, to: number): void {
    if (to <= from || this.#overflowed) return;
    if (this.#payload.length + (to - from) > this.#maxPayload) {
      // Oversized: drop what we have and ignore the rest of this sequence.
      this.#overflowed = true;
      this.#payload = '';
      return;
    }
    this.#payload += data.substring(from, to);
  }

  #dispatch(endIndex: number, terminatorLength: 1 | 2): void {
    const payload = this.#payload;
    const overflowed = this.#overflowed;
    this.#abandonOsc();
    this.#state = GROUND;
    if (!overflowed) this.#handler.onOsc(payload, endIndex, terminatorLength);
  }

  #abandonOsc(): void {
    this.#payload = '';
    this.#overflowed = false;
  }
}

function indexOrEnd(data: string, needle: string, from: number, length: number): number {
  const found = data.indexOf(needle, from);
  return found === -1 ? length : found;
}
