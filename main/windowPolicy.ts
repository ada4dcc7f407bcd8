/**
 * The window's security decisions as plain functions, so a unit test can assert exactly what the
 * app gives Electron (there is no Electron binary on the build machines): the BrowserWindow's
 * webPreferences, the CSP, which permissions a page gets, what happens on navigation and
 * `window.open`, which URLs go to the system browser, and which IPC senders may call the Hub.
 *
 * No runtime import of electron here: main.ts, security.ts and windowBridge.ts pass the real
 * objects, which fit the small structural types below.
 */
import type { CallOutcome } from '../src/common/api/wire.ts';
import type { ILogger } from '../src/node/logger.ts';

/**
 * The window's webPreferences: the page runs sandboxed, isolated from the preload, with no Node
 * anywhere (nor in subframes), web security on, and no <webview>.
 */
export function windowWebPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInSubFrames: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
    // Panes acknowledge output from xterm.js write callbacks, which run on timers; throttled
    // timers in a hidden window would hold every busy terminal's PTY paused.
    backgroundThrottling: false,
  } as const;
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

/** Response headers with our CSP set (any CSP a response brought replaced, whatever its case). */
export function withContentSecurityPolicy(headers: Record<string, string | string[]> | undefined): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === 'content-security-policy') continue;
    result[name] = Array.isArray(value) ? value : [value];
  }
  result['Content-Security-Policy'] = [contentSecurityPolicy];
  return result;
}

/**
 * The only permissions a page gets: desktop notifications (terminal bells while unfocused) and
 * sanitized clipboard writes (copy-on-select from a pane). No camera, no geolocation. Clipboard
 * reads (Ctrl+Shift+V paste into a pane) only for our own bundled renderer, which is the only page
 * a window can show (navigation is denied), never for anything loaded over the network.
 */
const allowedPermissions = new Set(['notifications', 'clipboard-sanitized-write']);

export function isPermissionAllowed(permission: string, requestingUrl: string): boolean {
  if (allowedPermissions.has(permission)) return true;
  return permission === 'clipboard-read' && requestingUrl.startsWith('file://');
}

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

/** What hardenWebContents needs of a WebContents. */
export interface HardenableContents {
  on(event: 'will-attach-webview' | 'will-navigate' | 'will-redirect', listener: (event: { preventDefault(): void; url?: string }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

export type OpenExternal = (url: string) => Promise<unknown>;

/**
 * Every web contents the app creates: no <webview>, no navigation (a link goes to the system
 * browser if it is plain http(s)), no redirects, no new windows (the same rule for their URL).
 */
export function hardenWebContents(contents: HardenableContents, openExternal: OpenExternal, logger: ILogger): void {
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    logger.warn('blocked a <webview>');
  });
  contents.on('will-navigate', (event) => {
    event.preventDefault();
    openExternally(event.url ?? '', openExternal, logger);
  });
  contents.on('will-redirect', (event) => {
    event.preventDefault();
    logger.warn('blocked a redirect', { url: (event.url ?? '').slice(0, 200) });
  });
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url, openExternal, logger);
    return { action: 'deny' };
  });
}

function openExternally(raw: string, openExternal: OpenExternal, logger: ILogger): void {
  const url = externalUrl(raw);
  if (!url) {
    logger.warn('blocked navigation to a non-http(s) URL', { url: raw.slice(0, 200) });
    return;
  }
  openExternal(url).catch((error: unknown) => logger.warn('cannot open a link in the system browser', { url, error }));
}

/** What isTrustedSender needs of an IPC event and of our window. */
export interface IpcSender {
  sender: unknown;
  senderFrame: { url: string } | null | undefined;
}
export interface OurWindow {
  isDestroyed(): boolean;
  webContents: { mainFrame: unknown };
}

/** Whether an IPC message comes from our page in our window (not an iframe, not another window, not another URL). */
export function isTrustedSender(event: IpcSender, window: OurWindow, rendererUrl: string): boolean {
  if (window.isDestroyed()) return false;
  const contents = window.webContents;
  if (event.sender !== contents) return false;
  const frame = event.senderFrame;
  if (!frame || frame !== contents.mainFrame) return false;
  return stripHashAndQuery(frame.url) === rendererUrl;
}

function stripHashAndQuery(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}

export interface IpcBridge {
  isTrustedSender(event: IpcSender): boolean;
  handleCall(method: unknown, params: unknown): Promise<CallOutcome>;
}

export const untrustedSenderOutcome: CallOutcome = { ok: false, error: { code: 'UNAUTHORIZED', message: 'this frame may not call the Switchboard API' } };

/**
 * The `ipcMain.handle` handler for API calls: who is asking is checked before what they ask; a
 * sender that is not one of our windows' page gets UNAUTHORIZED and the Hub never sees the call.
 */
export function createIpcCallHandler(bridgeOf: (senderId: number) => IpcBridge | undefined, logger: ILogger) {
  return (event: IpcSender & { sender: { id: number } }, method: unknown, params: unknown): Promise<CallOutcome> | CallOutcome => {
    const bridge = bridgeOf(event.sender.id);
    if (!bridge || !bridge.isTrustedSender(event)) {
      logger.warn('refused an IPC call from an unknown sender', { url: event.senderFrame?.url?.slice(0, 200) });
      return untrustedSenderOutcome;
    }
    return bridge.handleCall(method, params);
  };
}
