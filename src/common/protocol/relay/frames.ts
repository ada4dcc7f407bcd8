/**
 * Building outgoing GSD relay frames: typed by message type, so a frame we send always has the
 * fields its schema requires, and serialized once.
 */
import type { RelayFields, RelayMessageType } from './messages.ts';

/** Serialize one frame: `{"type":…, …fields}`. Fields set to undefined are left out. */
export function encodeFrame<T extends RelayMessageType>(type: T, fields: RelayFields<T>): string {
  return JSON.stringify({ type, ...fields });
}

/** RFC 3339 in UTC to the second, as the reference daemon writes its timestamps. */
export function rfc3339(epochMs: number = Date.now()): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Whether `text` is standard base64 (RFC 4648 §4: `A–Z a–z 0–9 + /`, `=` padding to a multiple
 * of 4, no whitespace), the only encoding `dataBase64` fields may use.
 */
export function isStdBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  return /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text);
}

/** Bytes a standard base64 string of this length decodes to (valid input assumed). */
export function base64DecodedLength(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}
