/**
 * Files in and out of the History browser: a download made from a Blob and a temporary
 * <a download> (works in Chromium and in Electron, which shows its save dialog), and the size
 * checks before an import is read and before it travels to the Hub.
 */
import { historyMethods } from '../../../src/common/api/historyContract.ts';
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
 * The most an import may carry, by host. Browser mode's WebSocket takes messages up to
 * AppConstants.maxWebSocketMessageBytes and drops the whole connection on a bigger one; Electron's
 * IPC has no such cap, so there the contract's own bound applies (`history.import` takes at most
 * that many characters, and the Hub parses the whole file in one go).
 */
export function importLimitBytes(host: string): number {
  if (host === 'browser') return AppConstants.maxWebSocketMessageBytes;
  return historyMethods['history.import'].params.shape.contents.maxLength ?? Number.POSITIVE_INFINITY;
}

/**
 * Why a file of `fileBytes` bytes cannot be imported over this connection, or null: asked before
 * the file is read, so a huge file is refused without loading it into memory. The request is at
 * least as large as the file (JSON escapes and the envelope only add; every byte is at most one
 * character), so a file over the limit can never fit.
 */
export function importFileSizeProblem(host: string, fileName: string, fileBytes: number): string | null {
  const limit = importLimitBytes(host);
  return fileBytes > limit ? tooLargeMessage(host, fileName, fileBytes, limit) : null;
}

/**
 * Why a file read as `contents` cannot be imported over this connection, or null: the exact check
 * after reading. In browser mode the request travels as JSON text over the WebSocket: escapes
 * included, in UTF-8 bytes, plus the envelope.
 */
export function importSizeProblem(host: string, fileName: string, contents: string): string | null {
  const limit = importLimitBytes(host);
  if (host !== 'browser') return contents.length > limit ? tooLargeMessage(host, fileName, contents.length, limit) : null;
  const envelopeBytes = 256;
  const bytes = new TextEncoder().encode(JSON.stringify(contents)).length + new TextEncoder().encode(fileName).length + envelopeBytes;
  return bytes > limit ? tooLargeMessage(host, fileName, bytes, limit) : null;
}

function tooLargeMessage(host: string, fileName: string, size: number, limit: number): string {
  const mib = (value: number) => `${(value / 1024 / 1024).toFixed(1)} MiB`;
  return host === 'browser'
    ? `${fileName} is too large to import in browser mode (${mib(size)}; the limit is ${mib(limit)}). Import it in the desktop app instead.`
    : `${fileName} is too large to import (${mib(size)}; the limit is ${mib(limit)}).`;
}
