/** Reading a byte range of a terminal's output ring as text for agents. */
import { ControlConstants } from '../../common/constants.ts';
import { maxOscPayloadChars } from '../../common/terminal/oscParser.ts';
import { incompleteUtf8TailLength, leadingContinuationLength } from '../../common/terminal/utf8Boundaries.ts';
import type { PtySession } from '../pty/ptySession.ts';
import { AnsiStripper, markedPlainText, openSequenceTail, renderLineEdits } from '../../common/terminal/ansiStrip.ts';

export interface OutputSlice {
  /** Decoded (and, for plain reads, ANSI-stripped) text. */
  text: string;
  /** Absolute byte offsets actually read. */
  startOffset: number;
  endOffset: number;
  /** Less than the requested range: its start was cut to fit `maxBytes` or had left the ring already. */
  truncated: boolean;
}

/** Raw bytes of [start, end), keeping the tail when the range is longer than `maxBytes`. */
export function readOutputBytes(session: PtySession, start: number, end: number, maxBytes: number): { data: Buffer; startOffset: number; endOffset: number; truncated: boolean } {
  let from = Math.max(0, start);
  let truncated = false;
  if (end - from > maxBytes) {
    from = end - maxBytes;
    truncated = true;
  }
  const read = session.readRing(from, Math.max(0, end - from));
  let data = read.data;
  truncated ||= read.truncated;
  if (read.startOffset !== start) {
    // Cut at an arbitrary byte: start on a whole character outside any escape sequence.
    const skip = startBoundarySkip(session, data, read.startOffset);
    data = data.subarray(skip);
    return { data, startOffset: read.startOffset + skip, endOffset: read.endOffset, truncated };
  }
  return { data, startOffset: read.startOffset, endOffset: read.endOffset, truncated };
}

/**
 * A `readLog` slice as text: up to `limit` bytes from `from`, its ends on boundaries. A start the
 * reader did not choose exactly (the tail, an offset the ring no longer holds, or any start of a
 * stripped read) moves forward to a whole character outside any escape sequence; an end before
 * the end of the output moves back to the start of a character or sequence it cuts, so the next
 * read (from `endOffset`) gets it whole. Without this, a read that starts inside
 * `ESC]633;A;<nonce>BEL` prints the shell-integration nonce as text.
 *
 * The bytes are copied into one buffer kept for these reads and decoded at once: agents following
 * a flood call this many times a second, and a fresh Buffer per call is memory V8 counts against
 * the Hub's heap (its full collections, docs/reliability.md).
 */
export function readLogText(session: PtySession, from: number, limit: number, options: { exactStart: boolean }): { text: string; startOffset: number; endOffset: number; truncated: boolean } {
  readLogBuffer ??= Buffer.allocUnsafeSlow(ControlConstants.readLogMaxBytes);
  const read = session.readRing(from, limit, readLogBuffer);
  let data = read.data;
  let start = read.startOffset;
  if (!options.exactStart || start !== from) {
    const skip = startBoundarySkip(session, data, start);
    data = data.subarray(skip);
    start += skip;
  }
  if (read.endOffset < session.offset) data = data.subarray(0, data.length - endBoundaryCut(data));
  return { text: data.toString('utf8'), startOffset: start, endOffset: start + data.length, truncated: read.truncated };
}

/** readLogText's copy of the bytes it decodes (readLogMaxBytes, made at the first read). */
let readLogBuffer: Buffer | undefined;

/** Output held before a start, enough to tell whether a string sequence (OSC, DCS) runs through it: UTF-8 takes at most 4 bytes a char. */
const sequenceContextBytes = maxOscPayloadChars * 4;

/**
 * Bytes to skip at the start of `data` (output from `startOffset`) so that it starts on a whole
 * character outside any escape sequence. Whether it is inside one depends on the output before
 * it, which the ring usually still holds.
 */
export function startBoundarySkip(session: PtySession, data: Buffer, startOffset: number): number {
  const utf8 = leadingContinuationLength(data);
  const at = startOffset + utf8;
  if (at === 0 || utf8 === data.length) return utf8;
  const text = data.subarray(utf8).toString('utf8');
  // The last ESC before the start, as far back as the longest string sequence reaches.
  const wanted = Math.max(0, at - sequenceContextBytes);
  const esc = session.lastIndexInRing(0x1b, wanted, at);
  if (esc.index !== -1) {
    const sequence = session.readRing(esc.index, at - esc.index).data.toString('utf8');
    return utf8 + Buffer.byteLength(text.substring(0, openSequenceTail(sequence, text)));
  }
  if (esc.heldFrom > wanted) {
    // The ring no longer holds what came before: a string's terminator with only printable
    // chars before it is most likely the rest of an OSC (a prompt mark and its nonce).
    const tail = stringTail.exec(text.substring(0, maxOscPayloadChars + 1));
    return utf8 + (tail ? Buffer.byteLength(tail[0]) : 0);
  }
  return utf8;
}

/** The end of a string sequence whose start is gone: printable chars, then BEL, ST or 8-bit ST. */
const stringTail = /^[\x20-\x7e\u00a0-\uffff]*?(?:\x07|\x1b\\|\u009c)/;

/**
 * Bytes to cut from the end of `data` (which starts outside any sequence) so that it ends on a
 * whole character and outside any escape sequence: 0 when it does, and when a sequence takes all
 * of it (cutting would leave nothing, and a reader must get on).
 */
function endBoundaryCut(data: Buffer): number {
  const utf8 = incompleteUtf8TailLength(data);
  const text = data.subarray(0, data.length - utf8).toString('utf8');
  const stripper = new AnsiStripper();
  stripper.push(text);
  const open = stripper.openSequenceStart;
  return open > 0 ? utf8 + Buffer.byteLength(text.substring(open)) : utf8;
}

/**
 * A command's output as plain text of [start, end), tail kept: ANSI stripped, LF line ends, shell
 * redraw noise trimmed, each line as the terminal shows it (a spinner glyph erased with
 * `ESC[1G ESC[0K` is gone, `10%` CR `100%` reads `100%`; see renderLineEdits). The trimming comes
 * before the redraws are played: zsh's PROMPT_SP line makes sense only to a terminal that wraps.
 */
export function readPlainOutput(session: PtySession, start: number, end: number, maxBytes: number): OutputSlice {
  const read = readOutputBytes(session, start, end, maxBytes);
  return {
    text: renderLineEdits(trimShellArtifacts(markedPlainText(read.data.toString('utf8')))),
    startOffset: read.startOffset,
    endOffset: read.endOffset,
    truncated: read.truncated,
  };
}

/**
 * What shells draw at the edges of a command's output that is not output: fish moves to column 0
 * (a lone CR) before it, and zsh's PROMPT_SP (a `%`/`#` end-of-line mark, a line of spaces, CR,
 * space, CR) comes after it but before the precmd hook that reports the command's end.
 */
export function trimShellArtifacts(text: string): string {
  return text.replace(/^\r+(?!\n)/, '').replace(/[%#]? +\r \r$/, '');
}
