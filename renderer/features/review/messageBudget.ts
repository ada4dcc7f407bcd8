/**
 * Browser mode carries each call in one WebSocket message of at most
 * `AppConstants.maxWebSocketMessageBytes`; a bigger one makes the server drop the whole connection.
 * File texts (an edited proposal, a dirty file tab) are the only payloads that can get that big, so
 * they are measured before they are sent. Electron's IPC has no such limit.
 */
import type { AppState } from '../../../src/common/api/contract.ts';
import { AppConstants } from '../../../src/common/constants.ts';

/** Room for the envelope (method, ids, other params) around the texts. */
const envelopeAllowanceBytes = 16 * 1024;

/** The UTF-8 size of `text` once JSON-escaped, as it travels in a message. */
export function jsonByteLength(text: string): number {
  return new TextEncoder().encode(JSON.stringify(text)).length;
}

/** Whether texts of these sizes (JSON bytes) fit in one call from this host. */
export function fitsInOneCall(host: AppState['host'], ...texts: string[]): boolean {
  if (host !== 'browser') return true;
  // Cheap first: each UTF-16 unit is at most 6 bytes once escaped ("\u0001"), so short texts fit without measuring.
  let bound = envelopeAllowanceBytes;
  for (const text of texts) bound += text.length * 6;
  if (bound <= AppConstants.maxWebSocketMessageBytes) return true;
  let total = envelopeAllowanceBytes;
  for (const text of texts) total += jsonByteLength(text);
  return total <= AppConstants.maxWebSocketMessageBytes;
}

export function formatMegabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
