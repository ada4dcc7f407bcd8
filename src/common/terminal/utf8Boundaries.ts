/**
 * Where a slice of UTF-8 bytes may be cut so that each side decodes into whole characters.
 *
 * Invalid bytes: a tail is held back only when it is the start of a *well-formed* sequence
 * (Unicode Table 3-7) that the slice does not complete, i.e. exactly the bytes a streaming
 * decoder (TextDecoder, StringDecoder, Buffer#toString, which all follow the WHATWG "maximal
 * subpart" rule) would still be waiting on. Anything else (a byte that can never start a
 * sequence, an overlong or surrogate start, a lone continuation byte) is U+FFFD whichever side
 * of the cut it falls on, so holding it back changes nothing but delay: a batcher would sit on a
 * stray 0xFF until the next flush, and a reader would be handed fewer bytes than it asked for.
 * With this rule, decoding both sides of the cut apart gives the same text as decoding the whole.
 */

/** At most 3 continuation bytes follow a lead byte (a 4-byte sequence). */
const maxContinuationBytes = 3;

/** 10xxxxxx: the second to fourth byte of a sequence. */
export function isUtf8Continuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * Length of the sequence `lead` starts: 1 for ASCII, 2–4 for a lead byte of a well-formed
 * sequence, 0 for a byte that cannot start one (a continuation byte, 0xC0/0xC1 which only start
 * overlong forms, 0xF5–0xFF beyond U+10FFFF).
 */
export function utf8SequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead < 0xc2) return 0;
  if (lead < 0xe0) return 2;
  if (lead < 0xf0) return 3;
  if (lead < 0xf5) return 4;
  return 0;
}

/**
 * Whether `second` may follow `lead` in a well-formed sequence: the ranges of Unicode Table 3-7
 * that rule out overlong forms (E0, F0), UTF-16 surrogates (ED) and code points past U+10FFFF (F4).
 */
function isValidSecondByte(lead: number, second: number): boolean {
  if (lead === 0xe0) return second >= 0xa0 && second <= 0xbf;
  if (lead === 0xed) return second >= 0x80 && second <= 0x9f;
  if (lead === 0xf0) return second >= 0x90 && second <= 0xbf;
  if (lead === 0xf4) return second >= 0x80 && second <= 0x8f;
  return isUtf8Continuation(second);
}

/**
 * Length (2–4) of the well-formed multi-byte sequence at `bytes[index]`, or 0 when the bytes
 * there are ASCII, invalid, or a sequence cut short by the end of `bytes`.
 */
export function wellFormedUtf8Length(bytes: Uint8Array, index: number): number {
  const length = utf8SequenceLength(bytes[index]!);
  if (length < 2 || index + length > bytes.length || !isValidSecondByte(bytes[index]!, bytes[index + 1]!)) return 0;
  for (let next = index + 2; next < index + length; next++) if (!isUtf8Continuation(bytes[next])) return 0;
  return length;
}

/**
 * How many bytes at the end of `bytes[0, end)` start a well-formed sequence that is not complete
 * yet (0–3). Those bytes must wait for what follows: decoding them now would turn one character
 * into replacement chars. Invalid bytes are never held back (see the top of this file).
 */
export function incompleteUtf8TailLength(bytes: Uint8Array, end: number = bytes.length): number {
  for (let back = 1; back <= Math.min(maxContinuationBytes, end); back++) {
    const byte = bytes[end - back]!;
    if (isUtf8Continuation(byte)) continue; // keep looking for the lead byte
    const needed = utf8SequenceLength(byte);
    if (needed <= back) return 0; // ASCII, a complete sequence, or a byte no sequence starts with
    if (back >= 2 && !isValidSecondByte(byte, bytes[end - back + 1]!)) return 0;
    return back;
  }
  return 0;
}

/**
 * How many continuation bytes (0–3) open `bytes[start, …)`: the rest of a character that began
 * before the slice. A slice that starts at an arbitrary offset skips them to start on a whole
 * character; a longer run of continuation bytes is invalid anyway and only its first 3 are skipped.
 */
export function leadingContinuationLength(bytes: Uint8Array, start: number = 0): number {
  let skip = 0;
  while (skip < maxContinuationBytes && start + skip < bytes.length && isUtf8Continuation(bytes[start + skip])) skip++;
  return skip;
}
