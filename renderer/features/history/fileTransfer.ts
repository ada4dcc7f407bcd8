/**
 * Files in and out of the History browser: a download made from a Blob and a temporary
 * <a download> (works in Chromium and in Electron, which shows its save dialog), and the size
 * check before an import travels to the Hub.
 */
import { AppConstants } from '../../../src/common/constants.ts';

/** How long a download's object URL lives: long enough for the browser to start reading it. */
const downloadUrlLifetimeMs = 60_000;

export function downloadTextFile(fileName: string, contents: string, mimeType: string): void {
  const url = URL.createObjectURL(new Blob([contents], { type: mimeType }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Revoking at once can cancel a download that has not started reading yet.
  setTimeout(() => URL.revokeObjectURL(url), downloadUrlLifetimeMs);
}

/**
 * Why a file cannot be imported over this connection, or null. Browser mode's WebSocket takes
 * messages up to AppConstants.maxWebSocketMessageBytes and drops the whole connection on a bigger
 * one, so a larger file is refused here, with the reason, before it is sent.
 */
export function importSizeProblem(host: string, fileName: string, contents: string): string | null {
  if (host !== 'browser') return null;
  // The request travels as JSON text: escapes included, in UTF-8 bytes, plus the envelope.
  const envelopeBytes = 256;
  const bytes = new TextEncoder().encode(JSON.stringify(contents)).length + new TextEncoder().encode(fileName).length + envelopeBytes;
  const limit = AppConstants.maxWebSocketMessageBytes;
  if (bytes <= limit) return null;
  const mib = (value: number) => `${(value / 1024 / 1024).toFixed(1)} MiB`;
  return `${fileName} is too large to import in browser mode (${mib(bytes)}; the limit is ${mib(limit)}). Import it in the desktop app instead.`;
}
