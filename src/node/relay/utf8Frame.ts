/**
 * A relay frame's UTF-8 bytes, for `ws.send(bytes, { binary: false })` (still a text frame). `ws`
 * turns a string into bytes with `Buffer.from(string)`, which on the large frames of a preview
 * download (a 256 KiB body is ~350 KB of base64) costs about ten times TextEncoder's encoding —
 * measured: ~560 ms vs ~57 ms per 50 MiB — and was the largest single cost of the tunnel.
 */
const encoder = new TextEncoder();

export function utf8Frame(text: string): Buffer {
  const bytes = encoder.encode(text);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
