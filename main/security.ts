/**
 * Electron hardening that does not depend on our window: deny navigation, new windows, webviews
 * and permissions for every web contents the app ever creates. Links the renderer opens go to
 * the system browser, and only when they are plain http(s) URLs.
 */
import { app, session, shell, type WebContents } from 'electron';
import type { ILogger } from '../src/node/logger.ts';

/**
 * The only permissions a page gets: desktop notifications (terminal bells while unfocused) and
 * sanitized clipboard writes (copy-on-select from a pane). No camera, no geolocation.
 */
const allowedPermissions = new Set(['notifications', 'clipboard-sanitized-write']);

/**
 * Clipboard reads (Ctrl+Shift+V paste into a pane) only for our own bundled renderer, which is the
 * only page a window can show (navigation is denied), never for anything loaded over the network.
 */
function isPermissionAllowed(permission: string, requestingUrl: string): boolean {
  if (allowedPermissions.has(permission)) return true;
  return permission === 'clipboard-read' && requestingUrl.startsWith('file://');
}

export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A URL we are willing to hand to the OS: http(s) only, parseable, no credentials. */
export function externalUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  return url.href;
}

export function installAppSecurity(logger: ILogger): void {
  const defaultSession = session.defaultSession;
  defaultSession.setPermissionRequestHandler((_contents, permission, callback, details) => {
    const allowed = isPermissionAllowed(permission, details.requestingUrl ?? '');
    if (!allowed) logger.info('denied a permission request', { permission });
    callback(allowed);
  });
  defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionAllowed(permission, requestingOrigin));
  // The renderer's index.html carries the same policy in a meta tag; the header covers any
  // response that goes through the network stack.
  defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [contentSecurityPolicy] } });
  });

  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, logger));
}

function hardenWebContents(contents: WebContents, logger: ILogger): void {
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    logger.warn('blocked a <webview>');
  });
  contents.on('will-navigate', (event) => {
    event.preventDefault();
    openExternally(event.url, logger);
  });
  contents.on('will-redirect', (event) => {
    event.preventDefault();
    logger.warn('blocked a redirect', { url: event.url });
  });
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url, logger);
    return { action: 'deny' };
  });
}

function openExternally(raw: string, logger: ILogger): void {
  const url = externalUrl(raw);
  if (!url) {
    logger.warn('blocked navigation to a non-http(s) URL', { url: raw.slice(0, 200) });
    return;
  }
  shell.openExternal(url).catch((error: unknown) => logger.warn('cannot open a link in the system browser', { url, error }));
}
