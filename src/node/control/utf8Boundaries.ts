/** Where a byte slice of UTF-8 output may be cut so that it decodes into whole characters. */

/** Continuation bytes at the start of a slice that began inside a UTF-8 sequence. */
export function leadingContinuationBytes(data: Buffer): number {
  let skip = 0;
  while (skip < 3 && skip < data.length && (data[skip]! & 0xc0) === 0x80) skip++;
  return skip;
}

/** Bytes at the end that start a UTF-8 sequence the slice does not complete (0 when it ends on a character). */
export function trailingIncompleteBytes(data: Buffer): number {
  for (let back = 1; back <= Math.min(3, data.length); back++) {
    const byte = data[data.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation: keep looking for the lead byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}
