/**
 * Lets the headless mirror keep up with a flood (`cat` of a big log) without parsing every line
 * that will scroll out of its scrollback anyway — and still end in exactly the state a full
 * parse gives.
 *
 * The idea: in a long run of "plain" output — text, CR, LF, tabs and a few in-line CSI sequences
 * — only three things outlast the lines that scroll away: the SGR attributes in effect, the
 * cursor column (reset by every CR) and the rows themselves. If the rest of the run still holds
 * `keepLineFeeds` line feeds (≥ 2 × rows + scrollback), every row the skipped part touched is
 * pushed out of the buffer before the run ends. So the skipped part can be replaced by its SGR
 * sequences alone, replayed in order (SGR only ever sets attributes, so the result is the same).
 *
 * The caller must also know that the terminal is in a state where this holds at the run's start
 * (parser in ground state, no UTF-8 sequence pending, no scroll region): see
 * TerminalMirror.skipSafe and lazyMirror.ts, which uses this.
 */

import { wellFormedUtf8Length } from '../../common/terminal/utf8Boundaries.ts';

/** A run of plain output in a byte buffer and where it can be cut. */
export interface FloodRun {
  /** First byte of the run. */
  start: number;
  /** Bytes [start, cut) may be replaced by `replay`; `cut` follows a CR LF. */
  cut: number;
  /** End of the run (exclusive): the first byte that is not plain output, or the buffer's end. */
  end: number;
  /** The SGR sequences of [start, cut), each at its last occurrence, in order. */
  replay: Uint8Array;
  /** Length of [start, cut) as a string (UTF-16 code units). */
  cutChars: number;
}

const ESC = 0x1b;
const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const LEFT_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const RIGHT_BRACKET = 0x5d;
const BEL = 0x07;
const LOWER_M = 0x6d;

/**
 * CSI finals whose effect stays inside the cursor's row: SGR (m), erase in line (K), cursor to
 * column (G), forward (C), back (D), erase characters (X).
 */
function isInLineCsiFinal(byte: number): boolean {
  return byte === LOWER_M || byte === 0x4b || byte === 0x47 || byte === 0x43 || byte === 0x44 || byte === 0x58;
}

/** Whether all four bytes of `word` are in 0x20–0x7e (no byte below 0x20, none above 0x7e). */
function isPrintableAsciiWord(word: number): boolean {
  const hasBelow20 = ((word - 0x20202020) | 0) & ~word;
  const hasAbove7e = ((word + 0x01010101) | 0) | word;
  return ((hasBelow20 | hasAbove7e) & 0x80808080) === 0;
}

/** Length of the plain CSI sequence at `index` (ESC [ digits ; : final), or 0 when it is not one. */
function inLineCsiLength(bytes: Uint8Array, index: number): number {
  if (bytes[index + 1] !== LEFT_BRACKET) return 0;
  let cursor = index + 2;
  while (cursor < bytes.length) {
    const byte = bytes[cursor]!;
    if ((byte >= 0x30 && byte <= 0x39) || byte === 0x3b || byte === 0x3a) {
      cursor++;
      continue;
    }
    return isInLineCsiFinal(byte) ? cursor + 1 - index : 0;
  }
  return 0; // incomplete: the rest comes in a later write
}

/**
 * Length of the escape sequence at `index` as far as it is complete — a whole CSI (parameters,
 * intermediates, final), a whole OSC (to BEL or ST), ST itself — else 1. A run that follows it
 * then starts where the parser is back in its ground state.
 */
function escapeSequenceLength(bytes: Uint8Array, index: number): number {
  const kind = bytes[index + 1];
  if (kind === BACKSLASH) return 2;
  if (kind === LEFT_BRACKET) {
    for (let cursor = index + 2; cursor < bytes.length; cursor++) {
      const byte = bytes[cursor]!;
      if (byte >= 0x40 && byte <= 0x7e) return cursor + 1 - index;
      if (byte < 0x20 || byte > 0x3f) return 1;
    }
    return 1;
  }
  if (kind === RIGHT_BRACKET) {
    for (let cursor = index + 2; cursor < bytes.length; cursor++) {
      const byte = bytes[cursor]!;
      if (byte === BEL) return cursor + 1 - index;
      if (byte === ESC) return bytes[cursor + 1] === BACKSLASH ? cursor + 2 - index : 1;
    }
    return 1;
  }
  return 1;
}

/**
 * What a scan notes about its current run, in typed arrays reused by every scan of the thread (a
 * flood's pile holds ~50 000 lines; growing fresh JS arrays for them cost the mirror worker more in
 * allocation and GC than the scan itself): each line feed's position with the run's excess up to
 * it — so a cut needs no second pass over the bytes it keeps — and each SGR sequence's [start, end).
 */
class RunNotes {
  lineFeedAt = new Int32Array(1024);
  excessAt = new Int32Array(1024);
  lineFeeds = 0;
  sgr = new Int32Array(1024);
  sgrLength = 0;

  reset(): void {
    this.lineFeeds = 0;
    this.sgrLength = 0;
  }

  addLineFeed(position: number, excess: number): void {
    if (this.lineFeeds === this.lineFeedAt.length) {
      this.lineFeedAt = grown(this.lineFeedAt);
      this.excessAt = grown(this.excessAt);
    }
    this.lineFeedAt[this.lineFeeds] = position;
    this.excessAt[this.lineFeeds++] = excess;
  }

  addSgr(from: number, to: number): void {
    if (this.sgrLength + 2 > this.sgr.length) this.sgr = grown(this.sgr);
    this.sgr[this.sgrLength++] = from;
    this.sgr[this.sgrLength++] = to;
  }
}

function grown(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(array.length * 2);
  larger.set(array);
  return larger;
}

const notes = new RunNotes();

/**
 * Length of the well-formed UTF-8 sequence of a printable code point at `index`, or 0. C1
 * controls (U+0080–U+009F, C2 80–9F) count as not printable: xterm.js executes them.
 */
function printableUtf8Length(bytes: Uint8Array, index: number): number {
  const length = wellFormedUtf8Length(bytes, index);
  return length === 2 && bytes[index] === 0xc2 && bytes[index + 1]! < 0xa0 ? 0 : length;
}

/**
 * The first run in `bytes` that holds more than `keepLineFeeds` line feeds after a CR LF and so
 * can lose at least `minSkipBytes` bytes; null when there is none.
 */
export function findFloodRun(bytes: Uint8Array, keepLineFeeds: number, minSkipBytes: number): FloodRun | null {
  const length = bytes.length;
  // Four bytes at a time where the buffer allows an aligned Int32Array view.
  const wordsFrom = (4 - (bytes.byteOffset % 4)) % 4;
  const words = new Int32Array(bytes.buffer, bytes.byteOffset + wordsFrom, Math.max(0, (length - wordsFrom) >> 2));
  const wordsEnd = wordsFrom + words.length * 4;
  let start = 0;
  /** Bytes of the current run beyond one per UTF-16 code unit (UTF-8 sequences are longer). */
  let excess = 0;
  notes.reset();
  let index = 0;
  while (index < length) {
    let byte = bytes[index]!;
    // Most of a flood is printable ASCII: skim it byte by byte up to a word boundary, then a
    // word at a time, then byte by byte again from the word that holds something else.
    while (byte >= 0x20 && byte <= 0x7e && (index - wordsFrom) % 4 !== 0 && ++index < length) byte = bytes[index]!;
    if (index >= wordsFrom && index < wordsEnd && (index - wordsFrom) % 4 === 0) {
      let word = (index - wordsFrom) >> 2;
      while (index < wordsEnd && isPrintableAsciiWord(words[word]!)) {
        word++;
        index += 4;
      }
      if (index >= length) break;
      byte = bytes[index]!;
    }
    while (byte >= 0x20 && byte <= 0x7e && ++index < length) byte = bytes[index]!;
    if (index >= length) break;
    if (byte === LF) {
      notes.addLineFeed(index, excess);
      index++;
      continue;
    }
    if (byte === CR || byte === TAB) {
      index++;
      continue;
    }
    let sequence = 0;
    if (byte === ESC) {
      sequence = inLineCsiLength(bytes, index);
      if (sequence > 0 && bytes[index + sequence - 1] === LOWER_M) notes.addSgr(index, index + sequence);
    } else if (byte >= 0xc2) {
      sequence = printableUtf8Length(bytes, index);
      if (sequence > 0) excess += sequence === 4 ? 2 : sequence - 1;
    }
    if (sequence > 0) {
      index += sequence;
      continue;
    }
    // Not plain output: the run ends here.
    const run = notes.lineFeeds > keepLineFeeds ? cutRun(bytes, start, index, keepLineFeeds, minSkipBytes) : null;
    if (run) return run;
    // The next run starts after this byte, or after the whole sequence it starts.
    index += byte === ESC ? escapeSequenceLength(bytes, index) : 1;
    start = index;
    excess = 0;
    notes.reset();
  }
  return notes.lineFeeds > keepLineFeeds ? cutRun(bytes, start, length, keepLineFeeds, minSkipBytes) : null;
}

/** Cut the run [start, end) that `notes` describe, keeping its last `keepLineFeeds` line feeds and the CR LF before them. */
function cutRun(bytes: Uint8Array, start: number, end: number, keepLineFeeds: number, minSkipBytes: number): FloodRun | null {
  // The keepLineFeeds-th line feed from the end stays; the cut follows the CR LF before it.
  let lineFeed = notes.lineFeeds - keepLineFeeds - 1;
  while (lineFeed >= 0 && bytes[notes.lineFeedAt[lineFeed]! - 1] !== CR) lineFeed--;
  if (lineFeed < 0 || notes.lineFeedAt[lineFeed]! - 1 < start) return null;
  const cut = notes.lineFeedAt[lineFeed]! + 1;
  const replay = collectReplay(bytes, cut);
  if (cut - start - replay.length < minSkipBytes) return null;
  // Everything before the cut is plain (valid UTF-8): its length in chars is exact.
  return { start, cut, end, replay, cutChars: cut - start - notes.excessAt[lineFeed]! };
}

/**
 * The SGR sequences that start before `cut`, each only at its last occurrence, in order. Every
 * SGR parameter sets attributes to fixed values (none toggles), so a sequence applied again later
 * overrides everything its earlier application did: dropping the earlier one changes nothing.
 */
function collectReplay(bytes: Uint8Array, cut: number): Uint8Array {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sgr = notes.sgr;
  let last = 0;
  while (last < notes.sgrLength && sgr[last]! < cut) last += 2;
  const seen = new Set<number | string>();
  /** [start, end) pairs of the sequences kept, last occurrence first. */
  const kept: number[] = [];
  let length = 0;
  for (let pair = last - 2; pair >= 0; pair -= 2) {
    const from = sgr[pair]!;
    const to = sgr[pair + 1]!;
    const key = sequenceKey(text, from, to);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(from, to);
    length += to - from;
    // A flood resets its colours every line or so: nothing before the last reset matters.
    if (startsWithReset(text, from, to)) break;
  }
  const replay = new Uint8Array(length);
  let offset = 0;
  for (let pair = kept.length - 2; pair >= 0; pair -= 2) {
    replay.set(bytes.subarray(kept[pair]!, kept[pair + 1]!), offset);
    offset += kept[pair + 1]! - kept[pair]!;
  }
  return replay;
}

/**
 * Whether the SGR sequence at [from, to) starts with a reset (`ESC [ m`, `ESC [ 0 m`, `ESC [ 0 ; …`,
 * `ESC [ ; …`, and with sub-parameters `ESC [ 0 : …`, which xterm.js also takes for 0): its SGR 0
 * returns every attribute an SGR can set to its default, so the sequences before it have no
 * effect on what follows.
 */
function startsWithReset(text: Buffer, from: number, to: number): boolean {
  let index = from + 2;
  while (index < to - 1 && text[index] === 0x30) index++;
  const next = text[index];
  return next === LOWER_M || next === 0x3b || next === 0x3a;
}

/** Identifies an SGR sequence by its bytes after ESC [ : packed into a number when short (most are), else as a string. */
function sequenceKey(text: Buffer, from: number, to: number): number | string {
  if (to - from > 8) return text.toString('latin1', from + 2, to);
  let key = 1;
  for (let index = from + 2; index < to; index++) key = key * 256 + text[index]!;
  return key;
}
