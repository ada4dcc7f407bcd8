/** Protocols a click in a terminal may open; anything else (javascript:, file:, …) is ignored. */
const openableProtocols = new Set(['http:', 'https:', 'mailto:']);

/**
 * Opens a link found in terminal output in a new browser tab (or, in Electron, the main process
 * hands it to the system browser). `noopener` keeps the opened page from reaching this window.
 */
export function openExternalLink(uri: string): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    console.warn('[switchboard] not opening an invalid link:', uri);
    return;
  }
  if (!openableProtocols.has(url.protocol)) {
    console.warn('[switchboard] not opening a link with protocol', url.protocol);
    return;
  }
  window.open(url.href, '_blank', 'noopener,noreferrer');
}
