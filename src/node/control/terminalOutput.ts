/** Reading a byte range of a terminal's output ring as text for agents. */
import type { PtySession } from '../pty/ptySession.ts';
import { plainText } from './ansiStrip.ts';

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
    // Cut at an arbitrary byte: do not start inside a UTF-8 sequence (at most 3 continuation bytes).
    let skip = 0;
    while (skip < 3 && skip < data.length && (data[skip]! & 0xc0) === 0x80) skip++;
    data = data.subarray(skip);
    return { data, startOffset: read.startOffset + skip, endOffset: read.endOffset, truncated };
  }
  return { data, startOffset: read.startOffset, endOffset: read.endOffset, truncated };
}

/** A command's output as plain text (ANSI stripped, LF line ends, shell redraw noise trimmed) of [start, end), tail kept. */
export function readPlainOutput(session: PtySession, start: number, end: number, maxBytes: number): OutputSlice {
  const read = readOutputBytes(session, start, end, maxBytes);
  return {
    text: trimShellArtifacts(plainText(read.data.toString('utf8'))),
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
