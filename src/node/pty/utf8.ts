/**
 * How many bytes at the end of `bytes[0, length)` form the beginning of a UTF-8 sequence that is
 * not complete yet (0–3). Those bytes must wait for the next chunk: decoding them now would turn
 * one character into replacement chars. Invalid bytes are not held back (they decode as U+FFFD
 * either way, and holding them could stall output).
 */
export function incompleteUtf8TailLength(bytes: Uint8Array, length: number = bytes.length): number {
  // Walk back over at most 3 continuation bytes (10xxxxxx) to the lead byte.
  const lowest = Math.max(0, length - 4);
  for (let index = length - 1; index >= lowest; index--) {
    const byte = bytes[index]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte
    const available = length - index;
    let needed: number;
    if (byte < 0x80) return 0; // ASCII: nothing pending
    else if ((byte & 0xe0) === 0xc0) needed = 2;
    else if ((byte & 0xf0) === 0xe0) needed = 3;
    else if ((byte & 0xf8) === 0xf0) needed = 4;
    else return 0; // invalid lead byte
    return available < needed ? available : 0;
  }
  return 0;
}
