/**
 * Who may use the relay's remote view from a browser, and how a browser proves it (mirrors browser
 * mode's guards in src/node/server/auth.ts, for a server that is usually behind a TLS proxy):
 *
 * - **Host.** A request must name the relay: its public origin (`--public-url
 *   https://relay.example.com`, the address the proxy serves) or a loopback name with the port it
 *   listens on (or its bound address with `--allow-remote`). Any other name is refused (403): that is
 *   what a DNS-rebinding page uses.
 * - **Token → cookie.** The viewer link `…/m/<machine>/?token=<viewer token>` is traded once for an
 *   HttpOnly, SameSite=Strict cookie (plus Secure and the `__Host-` prefix when the public origin is
 *   https), and the token leaves the address bar. The cookie holds the viewer token itself, so
 *   rotating or removing the machine (`switchboard relay add-machine --rotate`) revokes every browser
 *   at once, and a relay restart keeps them signed in.
 * - **Origin.** `/ws/ui` accepts that cookie only from a page of the relay's own origin (defeats
 *   cross-site WebSocket hijacking: another site's page cannot ride the cookie).
 *
 * Why `--public-url` instead of trusting `X-Forwarded-Proto`/`X-Forwarded-Host`: those headers are
 * only as trustworthy as the proxy configuration, and the relay cannot tell a proxy from a client
 * on loopback. A flag the operator sets is explicit and cannot be forged by a request.
 * Non-browser viewers keep presenting the token as `Authorization: Bearer` (no cookie, no Origin).
 */
import type { IncomingMessage } from 'node:http';
import { isAllowedHostHeader, readCookie, splitHostPort } from '../../server/auth.ts';
import type { RelayTokenStore } from './relayTokens.ts';

/** The site a browser request reached: the origin its pages have, and whether it is https. */
export interface ViewerSite {
  origin: string;
  secure: boolean;
}

export interface ViewerAccessOptions {
  tokens: RelayTokenStore;
  /** The relay's public origin behind a TLS proxy (validated by `parsePublicUrl`). */
  publicUrl?: URL | undefined;
  /** The address the relay listens on (`127.0.0.1`, or another one with --allow-remote). */
  bindHost: string;
  /** The port it listens on (known once listening). */
  port: () => number;
}

export type AccessRefusal = { status: 401 | 403; reason: string };

/** Viewer cookies last this long; rotating the machine's tokens ends them sooner. */
export const viewerCookieMaxAgeSeconds = 30 * 24 * 60 * 60;

/**
 * `--public-url`: an origin (`https://relay.example.com`, or `http://…` for a LAN relay without TLS),
 * nothing else. Throws an Error with a message for the user.
 */
export function parsePublicUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--public-url is not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`--public-url must be https:// (or http://), got ${url.protocol}//`);
  if (url.username || url.password) throw new Error('--public-url must not carry credentials');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new Error(`--public-url must be an origin like https://relay.example.com (no path, query or fragment), got ${JSON.stringify(text)}`);
  }
  return url;
}

export class ViewerAccess {
  readonly #options: ViewerAccessOptions;

  constructor(options: ViewerAccessOptions) {
    this.#options = options;
  }

  /** The site a Host header names, or undefined when it names something else (refuse with 403). */
  siteOf(hostHeader: string | undefined): ViewerSite | undefined {
    if (!hostHeader) return undefined;
    const publicUrl = this.#options.publicUrl;
    if (publicUrl && sameHost(hostHeader, publicUrl)) return { origin: publicUrl.origin, secure: publicUrl.protocol === 'https:' };
    if (isAllowedHostHeader(hostHeader, { port: this.#options.port(), bindHost: this.#options.bindHost })) {
      return { origin: `http://${hostHeader.toLowerCase()}`, secure: false };
    }
    return undefined;
  }

  /** Why a Host header is refused, in words that tell the operator what to do. */
  forbiddenHostReason(hostHeader: string | undefined): string {
    return this.#options.publicUrl
      ? `forbidden host ${JSON.stringify(hostHeader ?? '')}: this relay answers to ${this.#options.publicUrl.host} (and loopback)`
      : `forbidden host ${JSON.stringify(hostHeader ?? '')}: behind a proxy, start the relay with --public-url https://<that host>`;
  }

  /**
   * Cookie names carry the machine (one browser may view several). On http they also carry the
   * port: cookies ignore ports, and two local relays must not overwrite each other's cookies.
   */
  cookieName(site: ViewerSite, machineId: string): string {
    return site.secure ? `__Host-sb_viewer_${machineId}` : `sb_viewer_${this.#options.port()}_${machineId}`;
  }

  /** The Set-Cookie header that signs this browser in to `machineId`. */
  signInCookie(site: ViewerSite, machineId: string, viewerToken: string): string {
    return `${this.cookieName(site, machineId)}=${viewerToken}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${viewerCookieMaxAgeSeconds}${site.secure ? '; Secure' : ''}`;
  }

  /** Whether `token` is the viewer token of `machineId` (re-reads the tokens file if it changed). */
  async verifyViewerToken(machineId: string, token: string | undefined): Promise<boolean> {
    await this.#options.tokens.refresh();
    return this.#options.tokens.verify(machineId, 'viewer', token);
  }

  /** Whether the request carries a valid viewer cookie for `machineId` (the Host already accepted as `site`). */
  async hasViewerCookie(req: IncomingMessage, site: ViewerSite, machineId: string): Promise<boolean> {
    const token = readCookie(req.headers.cookie, this.cookieName(site, machineId));
    return token !== undefined && (await this.verifyViewerToken(machineId, token));
  }

  /**
   * A browser's `/ws/ui` upgrade (no Authorization header): Host must name the relay, Origin must be
   * exactly the relay's own origin, and the machine's viewer cookie must be valid.
   */
  async checkBrowserUpgrade(req: IncomingMessage, machineId: string): Promise<AccessRefusal | undefined> {
    const site = this.siteOf(req.headers.host);
    if (!site) return { status: 403, reason: 'forbidden host' };
    const origin = req.headers.origin;
    // Browsers always send Origin on a WebSocket handshake; a cookie without one is not a page of ours.
    if (origin === undefined || origin.toLowerCase() !== site.origin.toLowerCase()) return { status: 403, reason: 'forbidden origin' };
    if (!(await this.hasViewerCookie(req, site, machineId))) return { status: 401, reason: 'unauthorized' };
    return undefined;
  }
}

/** Host header vs the public URL's host; a default port written out (`:443`) still matches. */
function sameHost(hostHeader: string, publicUrl: URL): boolean {
  const header = hostHeader.trim().toLowerCase();
  const expected = publicUrl.host.toLowerCase();
  if (header === expected) return true;
  const parsed = splitHostPort(header);
  if (!parsed || publicUrl.port !== '') return false;
  const defaultPort = publicUrl.protocol === 'https:' ? 443 : 80;
  const host = parsed.host.includes(':') ? `[${parsed.host}]` : parsed.host;
  return parsed.port === defaultPort && host === publicUrl.hostname.toLowerCase();
}
