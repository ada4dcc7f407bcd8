/**
 * The pure parts of the relay's dev-server preview (docs/relay.md "Dev-server previews"): which
 * paths are a preview's, the `sb_preview` cookie, and how headers are rewritten on the way to the
 * dev server (as if the browser had opened `http://localhost:<port>` itself) and on the way back
 * (a redirect to `localhost:<port>` lands under the preview's prefix). No I/O here, so each rule
 * has a unit test (test/unit/node/relay/server/previewHeaders.test.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { MachineId } from '../../relayUrl.ts';

/** Headers as preview frames carry them: lowercase name → values. */
export type PreviewHeaders = Record<string, string[]>;

/** `pv-` + 24 url-safe characters (18 random bytes, base64url). */
export const PreviewId = /^pv-[A-Za-z0-9_-]{24}$/;

/** The cookie that lets root-absolute requests (`/@vite/client`) reach the preview whose HTML set it. */
export const PREVIEW_COOKIE = 'sb_preview';

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the relay's own: never passed on in either direction. */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization']);

/** The WebSocket handshake's own headers: the daemon's WebSocket client makes its own (sub-protocols travel in `protocols`). */
const webSocketHandshake = new Set(['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol', 'sec-websocket-accept']);

/** What a request path of the relay is, as far as previews go. */
export type PreviewPath =
  | { kind: 'open'; machineId: string }
  /** `/m/<machine>/preview/<id>` without the slash: redirect, so relative URLs resolve under it. */
  | { kind: 'bare'; machineId: string; previewId: string }
  | { kind: 'serve'; machineId: string; previewId: string; prefix: string; path: string }
  | { kind: 'bad'; reason: string };

/**
 * `/m/<machine>/preview/open?…`, `/m/<machine>/preview/<id>/<rest>`; undefined when the path is
 * not under `/m/<machine>/preview`. `rawUrl` is the request target as sent (encoding kept).
 */
export function parsePreviewPath(rawUrl: string): PreviewPath | undefined {
  const match = /^\/m\/([^/?#]+)\/preview(?:\/([^/?#]*))?(\/[^?#]*)?(\?[^#]*)?$/.exec(rawUrl);
  if (!match) return undefined;
  const machine = MachineId.safeParse(decodeSafely(match[1]!));
  if (!machine.success) return { kind: 'bad', reason: 'not a machine id' };
  const machineId = machine.data;
  const segment = match[2];
  if (segment === 'open' && match[3] === undefined) return { kind: 'open', machineId };
  if (segment === undefined || !PreviewId.test(segment)) return { kind: 'bad', reason: 'not a preview address' };
  if (match[3] === undefined) return { kind: 'bare', machineId, previewId: segment };
  const prefix = `/m/${match[1]}/preview/${segment}`;
  return { kind: 'serve', machineId, previewId: segment, prefix, path: originForm(match[3] + (match[4] ?? '')) };
}

/** A path the dev server may be asked for: origin-form, never `//host…` (which a client would read as another host). */
export function originForm(path: string): string {
  const cleaned = path.replace(/^\/+/, '/');
  return cleaned.startsWith('/') ? cleaned : `/${cleaned}`;
}

/** The `sb_preview` cookie's value: `<machine>.<previewId>` (machine ids may hold dots; preview ids never do). */
export function previewCookieValue(machineId: string, previewId: string): string {
  return `${machineId}.${previewId}`;
}

export function parsePreviewCookie(value: string | undefined): { machineId: string; previewId: string } | undefined {
  if (!value) return undefined;
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const machine = MachineId.safeParse(value.slice(0, dot));
  const previewId = value.slice(dot + 1);
  if (!machine.success || !PreviewId.test(previewId)) return undefined;
  return { machineId: machine.data, previewId };
}

/** The Set-Cookie header of `sb_preview` (HttpOnly, SameSite=Strict, Path=/; Secure over https). */
export function previewCookie(machineId: string, previewId: string, secure: boolean): string {
  return `${PREVIEW_COOKIE}=${previewCookieValue(machineId, previewId)}; HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
}

/**
 * Whether a root path (not under a preview prefix) belongs to the relay itself. Everything else,
 * with an `sb_preview` cookie, is the dev server's (`/@vite/client`, `/src/main.ts`, `/favicon.ico`).
 * HTTP `/` stays the relay's; a WebSocket to `/` (Vite's HMR socket) is the dev server's.
 */
export function isRelayOwnPath(pathname: string, upgrade: boolean): boolean {
  if (pathname === '/m' || pathname.startsWith('/m/') || pathname === '/ws' || pathname.startsWith('/ws/')) return true;
  if (upgrade) return false;
  return pathname === '/' || pathname === '/healthz' || pathname === '/login' || pathname.startsWith('/login/');
}

export interface RequestRewrite {
  /** The relay's origin as the browser sees it (`https://relay.example.com`). */
  siteOrigin: string;
  /** `/m/<machine>/preview/<id>`, or undefined for a root-path request (the cookie fallback). */
  prefix: string | undefined;
  /** The dev server's port: Host becomes `localhost:<port>`. */
  port: number;
  /** Cookie names that are the relay's (the viewer cookie, sb_preview): removed from Cookie. */
  relayCookies: (name: string) => boolean;
  /** Drop Authorization: it carried the relay's viewer token. */
  dropAuthorization: boolean;
  /** For a WebSocket upgrade: the handshake's own headers go too. */
  webSocket?: boolean;
}

/** The viewer's request headers as the dev server should see them (docs/relay.md "Headers"). */
export function rewriteRequestHeaders(headers: IncomingHttpHeaders, rawHeaders: readonly string[], rewrite: RequestRewrite): PreviewHeaders {
  const connectionTokens = connectionHeaderTokens(headers.connection);
  const out: PreviewHeaders = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    const value = rawHeaders[index + 1]!;
    if (hopByHop.has(name) || connectionTokens.has(name)) continue;
    if (rewrite.webSocket && webSocketHandshake.has(name)) continue;
    if (name === 'host' || name.startsWith('x-forwarded-') || name === 'forwarded') continue;
    if (name === 'authorization' && rewrite.dropAuthorization) continue;
    (out[name] ??= []).push(value);
  }
  const local = `http://localhost:${rewrite.port}`;
  out.host = [`localhost:${rewrite.port}`];
  if (out.cookie) {
    const kept = out.cookie
      .flatMap((header) => header.split(';'))
      .map((part) => part.trim())
      .filter((part) => part !== '' && !rewrite.relayCookies(part.slice(0, part.indexOf('=') === -1 ? part.length : part.indexOf('=')).trim()));
    if (kept.length === 0) delete out.cookie;
    else out.cookie = [kept.join('; ')];
  }
  if (out.origin) out.origin = out.origin.map((origin) => (sameOrigin(origin, rewrite.siteOrigin) ? local : origin));
  if (out.referer) out.referer = out.referer.map((referer) => localReferer(referer, rewrite, local));
  const site = new URL(rewrite.siteOrigin);
  out['x-forwarded-host'] = [site.host];
  out['x-forwarded-proto'] = [site.protocol.replace(':', '')];
  if (rewrite.prefix) out['x-forwarded-prefix'] = [rewrite.prefix];
  return out;
}

function localReferer(referer: string, rewrite: RequestRewrite, local: string): string {
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return referer;
  }
  if (!sameOrigin(url.origin, rewrite.siteOrigin)) return referer;
  let path = url.pathname;
  if (rewrite.prefix && (path === rewrite.prefix || path.startsWith(`${rewrite.prefix}/`))) path = path.slice(rewrite.prefix.length) || '/';
  return `${local}${path}${url.search}`;
}

export interface ResponseRewrite {
  port: number;
  /** `/m/<machine>/preview/<id>`: where `localhost:<port>` and root-absolute redirects land. */
  prefix: string;
}

/**
 * The dev server's response headers for the viewer: hop-by-hop dropped; `location` pointing at the
 * dev server itself (`http://localhost:<port>/x`, `127.0.0.1`, `[::1]`, or root-absolute `/x`) moved
 * under the preview's prefix; everything else (set-cookie with its Path, caching, the dev server's
 * own CSP) as the dev server sent it.
 */
export function rewriteResponseHeaders(headers: PreviewHeaders | undefined, rewrite: ResponseRewrite): Array<[string, string[]]> {
  const input = headers ?? {};
  const connectionTokens = connectionHeaderTokens(input.connection?.join(','));
  const out: Array<[string, string[]]> = [];
  for (const [rawName, values] of Object.entries(input)) {
    const name = rawName.toLowerCase();
    if (hopByHop.has(name) || connectionTokens.has(name)) continue;
    if (!isHeaderName(name) || !Array.isArray(values)) continue;
    const clean = values.filter((value) => typeof value === 'string' && !/[\r\n\0]/.test(value));
    if (clean.length === 0) continue;
    out.push([name, name === 'location' ? clean.map((value) => rewriteLocation(value, rewrite)) : clean]);
  }
  return out;
}

export function rewriteLocation(location: string, rewrite: ResponseRewrite): string {
  if (location.startsWith('/') && !location.startsWith('//')) return `${rewrite.prefix}${location}`;
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return location;
  }
  const local = (url.protocol === 'http:' || url.protocol === 'https:') && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) && Number(url.port || (url.protocol === 'https:' ? 443 : 80)) === rewrite.port;
  return local ? `${rewrite.prefix}${url.pathname}${url.search}${url.hash}` : location;
}

/** The sub-protocols a WebSocket handshake offers (`Sec-WebSocket-Protocol: a, b`). */
export function offeredProtocols(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
}

function connectionHeaderTokens(value: string | string[] | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
}

function sameOrigin(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name);
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
