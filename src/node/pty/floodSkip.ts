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

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * Length of the well-formed UTF-8 sequence of a printable code point at `index`, or 0. C1
 * controls (U+0080–U+009F) count as not printable: xterm.js executes them.
 */
function printableUtf8Length(bytes: Uint8Array, index: number): number {
  const lead = bytes[index]!;
  const second = bytes[index + 1];
  if (lead >= 0xc2 && lead <= 0xdf) {
    if (!isContinuation(second)) return 0;
    return lead === 0xc2 && second! < 0xa0 ? 0 : 2;
  }
  if (lead >= 0xe0 && lead <= 0xef) {
    if (!isContinuation(second) || !isContinuation(bytes[index + 2])) return 0;
    if (lead === 0xe0 && second! < 0xa0) return 0; // overlong
    if (lead === 0xed && second! > 0x9f) return 0; // surrogate
    return 3;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    if (!isContinuation(second) || !isContinuation(bytes[index + 2]) || !isContinuation(bytes[index + 3])) return 0;
    if (lead === 0xf0 && second! < 0x90) return 0; // overlong
    if (lead === 0xf4 && second! > 0x8f) return 0; // above U+10FFFF
    return 4;
  }
  return 0;
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
  let lineFeeds = 0;
  /** Bytes of the current run beyond one per UTF-16 code unit (UTF-8 sequences are longer). */
  let excess = 0;
  /** SGR sequences of the current run as [start, end) pairs. */
  let sgr: number[] = [];
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
      lineFeeds++;
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
      if (sequence > 0 && bytes[index + sequence - 1] === LOWER_M) sgr.push(index, index + sequence);
    } else if (byte >= 0xc2) {
      sequence = printableUtf8Length(bytes, index);
      excess += sequence === 4 ? 2 : sequence - 1;
    }
    if (sequence > 0) {
      index += sequence;
      continue;
    }
    // Not plain output: the run ends here.
    const run = lineFeeds > keepLineFeeds ? cutRun(bytes, start, index, excess, keepLineFeeds, sgr, minSkipBytes) : null;
    if (run) return run;
    // The next run starts after this byte, or after the whole sequence it starts.
    index += byte === ESC ? escapeSequenceLength(bytes, index) : 1;
    start = index;
    lineFeeds = 0;
    excess = 0;
    sgr = [];
  }
  return lineFeeds > keepLineFeeds ? cutRun(bytes, start, length, excess, keepLineFeeds, sgr, minSkipBytes) : null;
}

function cutRun(bytes: Uint8Array, start: number, end: number, excess: number, keepLineFeeds: number, sgr: number[], minSkipBytes: number): FloodRun | null {
  // The kept part is a scrollback's worth of lines (~1 MB): its line feeds are found natively.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Walk back to the keepLineFeeds-th line feed from the end…
  let position = end;
  for (let seen = 0; seen < keepLineFeeds; seen++) {
    position = position - 1 < start ? -1 : text.lastIndexOf(LF, position - 1);
    if (position < start) return null;
  }
  // …and on to the CR LF before it: the cut follows that LF.
  for (position--; position > start; position--) {
    if (bytes[position] === LF && bytes[position - 1] === CR) break;
  }
  if (position <= start) return null;
  const cut = position + 1;
  const replay = collectReplay(bytes, sgr, cut);
  if (cut - start - replay.length < minSkipBytes) return null;
  // The run's excess minus that of the (shorter) part after the cut.
  let keptExcess = 0;
  for (let index = cut; index < end; index++) {
    const byte = bytes[index]!;
    if ((byte & 0xc0) === 0x80) keptExcess++;
    else if (byte >= 0xf0) keptExcess--;
  }
  return { start, cut, end, replay, cutChars: cut - start - (excess - keptExcess) };
}

/**
 * The SGR sequences that start before `cut`, each only at its last occurrence, in order. Every
 * SGR parameter sets attributes to fixed values (none toggles), so a sequence applied again later
 * overrides everything its earlier application did: dropping the earlier one changes nothing.
 */
function collectReplay(bytes: Uint8Array, sgr: number[], cut: number): Uint8Array {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let last = 0;
  while (last < sgr.length && sgr[last]! < cut) last += 2;
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
  }
  const replay = new Uint8Array(length);
  let offset = 0;
  for (let pair = kept.length - 2; pair >= 0; pair -= 2) {
    replay.set(bytes.subarray(kept[pair]!, kept[pair + 1]!), offset);
    offset += kept[pair + 1]! - kept[pair]!;
  }
  return replay;
}

/** Identifies an SGR sequence by its bytes after ESC [ : packed into a number when short (most are), else as a string. */
function sequenceKey(text: Buffer, from: number, to: number): number | string {
  if (to - from > 8) return text.toString('latin1', from + 2, to);
  let key = 1;
  for (let index = from + 2; index < to; index++) key = key * 256 + text[index]!;
  return key;
}
