/**
 * Bytes ⇄ text for the relay's `dataBase64` fields in a browser (no Buffer here): standard base64
 * via atob/btoa, and input cut into frames that never split a character (the daemon decodes each
 * `terminalInput` frame on its own, so a split UTF-8 sequence would arrive as two U+FFFD).
 */
import { isStdBase64 } from '../common/protocol/relay/frames.ts';

/** Standard base64 → bytes; undefined when the text is not standard base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!isStdBase64(text)) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** Bytes → standard base64. */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  // fromCharCode takes its arguments on the stack: stay well below engines' argument limits.
  const step = 0x2000;
  for (let start = 0; start < bytes.length; start += step) binary += String.fromCharCode(...bytes.subarray(start, start + step));
  return btoa(binary);
}

const encoder = new TextEncoder();

/**
 * `text` as UTF-8, in base64 chunks of at most `maxBytes` raw bytes each, cut between characters
 * (a character is at most 4 bytes, so any `maxBytes` ≥ 4 works).
 */
export function encodeInputChunks(text: string, maxBytes: number): string[] {
  const chunks: string[] = [];
  let current = '';
  let currentBytes = 0;
  for (const char of text) {
    const size = utf8Length(char.codePointAt(0)!);
    if (currentBytes + size > maxBytes && current !== '') {
      chunks.push(encodeBase64(encoder.encode(current)));
      current = '';
      currentBytes = 0;
    }
    current += char;
    currentBytes += size;
  }
  if (current !== '') chunks.push(encodeBase64(encoder.encode(current)));
  return chunks;
}

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}
