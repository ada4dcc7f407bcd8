/**
 * The pure parts of the relay's dev-server preview (docs/relay.md "Dev-server previews"): the
 * relay's preview paths, and how headers are rewritten on the way to the dev server (as if the
 * browser had opened `http://localhost:<port>` itself) and on the way back (a redirect to
 * `localhost:<port>` lands on the preview's origin; a cookie never reaches past the preview's
 * host). No I/O here, so each rule has a unit test (test/unit/node/relay/server/previewHeaders.test.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { connectionTokens, isHopByHop, isHttpToken } from '../../preview/previewRules.ts';
import { MachineId } from '../../relayUrl.ts';

/** Headers as preview frames carry them: lowercase name → values. */
export type PreviewHeaders = Record<string, string[]>;


/** The WebSocket handshake's own headers: the daemon's WebSocket client makes its own (sub-protocols travel in `protocols`). */
const webSocketHandshake = new Set(['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol', 'sec-websocket-accept']);

/**
 * What a request path on the relay's own origin is, as far as previews go: the open endpoint,
 * anything else under `/m/<machine>/preview` (previews are not served there: they have origins of
 * their own), or undefined when the path is not under `/m/<machine>/preview`.
 */
export type PreviewPath = { kind: 'open'; machineId: string } | { kind: 'elsewhere' } | { kind: 'bad'; reason: string };

/** `rawUrl` is the request target as sent (encoding kept). */
export function parsePreviewPath(rawUrl: string): PreviewPath | undefined {
  const match = /^\/m\/([^/?#]+)\/preview(?:\/([^?#]*))?(\?[^#]*)?$/.exec(rawUrl);
  if (!match) return undefined;
  const machine = MachineId.safeParse(decodeSafely(match[1]!));
  if (!machine.success) return { kind: 'bad', reason: 'not a machine id' };
  if (match[2] === 'open') return { kind: 'open', machineId: machine.data };
  return { kind: 'elsewhere' };
}

/** A path the dev server may be asked for: origin-form, never `//host…` (which a client would read as another host). */
export function originForm(path: string): string {
  const cleaned = path.replace(/^\/+/, '/');
  return cleaned.startsWith('/') ? cleaned : `/${cleaned}`;
}

export interface RequestRewrite {
  /** The preview's own origin as the browser sees it (`https://pv….preview.example.com`). */
  previewOrigin: string;
  /** The dev server's port: Host becomes `localhost:<port>`. */
  port: number;
  /** Cookie names that are the relay's (the preview session, a viewer cookie): removed from Cookie. */
  relayCookies: (name: string) => boolean;
  /** Drop Authorization: it carried the relay's viewer token. */
  dropAuthorization: boolean;
  /** For a WebSocket upgrade: the handshake's own headers go too. */
  webSocket?: boolean;
}

/** The viewer's request headers as the dev server should see them (docs/relay.md "Headers"). */
export function rewriteRequestHeaders(headers: IncomingHttpHeaders, rawHeaders: readonly string[], rewrite: RequestRewrite): PreviewHeaders {
  const named = connectionTokens(headers.connection);
  const out: PreviewHeaders = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    const value = rawHeaders[index + 1]!;
    if (isHopByHop(name, named)) continue;
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
  if (out.origin) out.origin = out.origin.map((origin) => (sameOrigin(origin, rewrite.previewOrigin) ? local : origin));
  if (out.referer) out.referer = out.referer.map((referer) => localReferer(referer, rewrite.previewOrigin, local));
  const site = new URL(rewrite.previewOrigin);
  out['x-forwarded-host'] = [site.host];
  out['x-forwarded-proto'] = [site.protocol.replace(':', '')];
  return out;
}

function localReferer(referer: string, previewOrigin: string, local: string): string {
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return referer;
  }
  return sameOrigin(url.origin, previewOrigin) ? `${local}${url.pathname}${url.search}` : referer;
}

export interface ResponseRewrite {
  port: number;
  /** The preview's own origin: where a redirect to `localhost:<port>` lands. */
  previewOrigin: string;
}

/**
 * The dev server's response headers for the viewer: hop-by-hop dropped; a `location` pointing at
 * the dev server itself (`http://localhost:<port>/x`, `127.0.0.1`, `[::1]`) moved to the preview's
 * origin (root-absolute `/x` already lands there); a `set-cookie` without its `Domain` attribute
 * (host-only: it cannot reach past the preview's host, e.g. the relay's or another preview's);
 * everything else (caching, the dev server's own CSP) as the dev server sent it.
 */
export function rewriteResponseHeaders(headers: PreviewHeaders | undefined, rewrite: ResponseRewrite): Array<[string, string[]]> {
  const input = headers ?? {};
  const named = connectionTokens(input.connection);
  const out: Array<[string, string[]]> = [];
  for (const [rawName, values] of Object.entries(input)) {
    const name = rawName.toLowerCase();
    if (isHopByHop(name, named)) continue;
    if (!isHttpToken(name) || !Array.isArray(values)) continue;
    const clean = values.filter((value) => typeof value === 'string' && !/[\r\n\0]/.test(value));
    if (clean.length === 0) continue;
    out.push([name, name === 'location' ? clean.map((value) => rewriteLocation(value, rewrite)) : name === 'set-cookie' ? clean.map(hostOnlyCookie) : clean]);
  }
  return out;
}

export function rewriteLocation(location: string, rewrite: ResponseRewrite): string {
  if (location.startsWith('/')) return location;
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return location;
  }
  const local = (url.protocol === 'http:' || url.protocol === 'https:') && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) && Number(url.port || (url.protocol === 'https:' ? 443 : 80)) === rewrite.port;
  return local ? `${rewrite.previewOrigin}${url.pathname}${url.search}${url.hash}` : location;
}

/** A Set-Cookie value without its Domain attribute(s): the cookie stays on the host that set it. */
export function hostOnlyCookie(setCookie: string): string {
  const [pair, ...attributes] = setCookie.split(';');
  const kept = attributes.filter((attribute) => attribute.split('=')[0]!.trim().toLowerCase() !== 'domain');
  return [pair!, ...kept].join(';');
}

/** The sub-protocols a WebSocket handshake offers (`Sec-WebSocket-Protocol: a, b`). */
export function offeredProtocols(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
}

function sameOrigin(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
