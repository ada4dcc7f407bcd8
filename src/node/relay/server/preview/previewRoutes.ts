/**
 * The relay's HTTP side of previews (docs/relay.md "Dev-server previews — On the relay"):
 *
 * - `GET /m/<machine>/preview/open?terminalId=…&port=…` (the remote view's server chips link here):
 *   the port must be one the machine announced for that shared pane; an open preview of that port
 *   is reused, else the daemon is asked (`previewOpen`); then 303 to `/m/<machine>/preview/<id>/`.
 * - `/m/<machine>/preview/<id>/<rest>`: requests and WebSocket upgrades, proxied as `/<rest>`.
 * - Root paths that are not the relay's own, with the `sb_preview` cookie a preview's HTML set and a
 *   valid viewer cookie of that machine: proxied to that preview as they are (dev servers that
 *   assume they own `/`).
 *
 * Access is the remote view's (viewerAccess.ts): Host must name the relay, the machine's viewer
 * cookie (or its viewer token as a bearer) is required, and a WebSocket's Origin must be the relay's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import type { IDisposable } from '../../../../common/lifecycle.ts';
import { readCookie } from '../../../server/auth.ts';
import { refuseUpgrade } from '../../../server/httpKit.ts';
import type { RefusalLog } from '../../refusalLog.ts';
import type { ViewerAccess, ViewerSite } from '../viewerAccess.ts';
import type { PreviewLimits } from './previewFlow.ts';
import type { PreviewGateway, PreviewTarget } from './previewGateway.ts';
import { isRelayOwnPath, originForm, parsePreviewCookie, parsePreviewPath, PREVIEW_COOKIE, previewCookie, rewriteRequestHeaders } from './previewHeaders.ts';
import { type PreviewPage, sendPreviewPage } from './previewPages.ts';

/** What the routes need of a machine's room. */
export interface PreviewRoom {
  readonly daemonOnline: boolean;
  /** The daemon advertised `previewTunnel` in hello.capabilities. */
  readonly previewSupported: boolean;
  /** The shared pane's announced server on that port, or why there is none. */
  previewTarget(terminalId: string, port: number): PreviewTarget | { error: 'terminal' | 'port' };
  readonly preview: PreviewGateway;
}

export interface PreviewRoutesOptions {
  access: ViewerAccess;
  room(machineId: string): PreviewRoom | undefined;
  refusals: RefusalLog;
  limits: PreviewLimits;
}

const base = 'http://relay.invalid';

/** What `ws` checks of a handshake (RFC 6455 §4.2.1): GET, Upgrade: websocket, a 16-byte key, version 8 or 13. */
function isWebSocketHandshake(req: IncomingMessage): boolean {
  const key = req.headers['sec-websocket-key'];
  const version = req.headers['sec-websocket-version'];
  return req.method === 'GET' && req.headers.upgrade?.toLowerCase() === 'websocket' && typeof key === 'string' && /^[+/0-9A-Za-z]{22}==$/.test(key.trim()) && (version === '8' || version === '13');
}

/** The relay's cookies, never passed on to a dev server. */
function isRelayCookie(name: string): boolean {
  return name === PREVIEW_COOKIE || name.startsWith('sb_viewer_') || name.startsWith('__Host-sb_viewer_');
}

type Authorized = { ok: true; site: ViewerSite; bearer: boolean } | { ok: false; page: PreviewPage; upgradeStatus: number; upgradeReason: string };

export class PreviewRoutes implements IDisposable {
  readonly #options: PreviewRoutesOptions;
  readonly #webSockets: WebSocketServer;
  readonly #chosenProtocols = new WeakMap<IncomingMessage, string | false>();

  constructor(options: PreviewRoutesOptions) {
    this.#options = options;
    this.#webSockets = new WebSocketServer({
      noServer: true,
      // A message larger than a chunk is closed with 1009 (dev servers' hot-reload messages are small).
      maxPayload: options.limits.chunkBytes,
      perMessageDeflate: false,
      handleProtocols: (_offered, req) => this.#chosenProtocols.get(req) ?? false,
    });
  }

  /** Handle the request if it is a preview's; false: not ours, the relay answers it as before. */
  async handleHttp(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const rawUrl = req.url ?? '/';
    const parsed = parsePreviewPath(rawUrl);
    if (parsed) {
      await this.#handlePreviewPath(req, res, parsed, rawUrl);
      return true;
    }
    const root = await this.#rootFallback(req, rawUrl, false);
    if (!root) return false;
    root.room.preview.serveHttp(req, res, this.#context(req, root.previewId, root.site, root.bearer, undefined, originForm(rawUrl), false));
    return true;
  }

  /** Handle the upgrade if it is to a preview; false: not ours. */
  async handleUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<boolean> {
    const rawUrl = req.url ?? '/';
    const parsed = parsePreviewPath(rawUrl);
    let target: { room: PreviewRoom | undefined; previewId: string; site: ViewerSite; bearer: boolean; prefix: string | undefined; path: string };
    if (parsed) {
      if (parsed.kind !== 'serve') {
        refuseUpgrade(socket, 404, 'not a preview address');
        return true;
      }
      const auth = await this.#authorize(req, parsed.machineId, true);
      if (!auth.ok) {
        refuseUpgrade(socket, auth.upgradeStatus, auth.upgradeReason);
        return true;
      }
      target = { room: this.#options.room(parsed.machineId), previewId: parsed.previewId, site: auth.site, bearer: auth.bearer, prefix: parsed.prefix, path: parsed.path };
    } else {
      const root = await this.#rootFallback(req, rawUrl, true);
      if (!root) return false;
      target = { ...root, prefix: undefined, path: originForm(rawUrl) };
    }
    // Refused before the daemon hears of it: a handshake `ws` would refuse only after the dev server accepted.
    if (!isWebSocketHandshake(req)) {
      refuseUpgrade(socket, 400, 'not a WebSocket handshake');
      return true;
    }
    if (!target.room) {
      refuseUpgrade(socket, 404, 'no such preview');
      return true;
    }
    target.room.preview.serveUpgrade(req, socket, head, this.#context(req, target.previewId, target.site, target.bearer, target.prefix, target.path, true), this.#webSockets, this.#chosenProtocols);
    return true;
  }

  async #handlePreviewPath(req: IncomingMessage, res: ServerResponse, parsed: NonNullable<ReturnType<typeof parsePreviewPath>>, rawUrl: string): Promise<void> {
    if (parsed.kind === 'bad') return sendPreviewPage(res, { status: 404, title: 'Not a preview address', message: `Previews are at /m/<machine>/preview/<id>/ (${parsed.reason}).` });
    if (parsed.kind === 'bare') {
      const url = new URL(rawUrl, base);
      res.setHeader('Location', `${url.pathname}/${url.search}`);
      res.writeHead(301);
      res.end();
      return;
    }
    const auth = await this.#authorize(req, parsed.machineId, false);
    if (!auth.ok) return sendPreviewPage(res, auth.page);
    const room = this.#options.room(parsed.machineId);
    if (parsed.kind === 'open') return this.#open(req, res, parsed.machineId, room, auth.site);
    if (!room) return sendPreviewPage(res, { status: 404, title: 'No such preview', message: 'This preview is not open on the relay. Open the server again from the remote view.' });
    room.preview.serveHttp(req, res, this.#context(req, parsed.previewId, auth.site, auth.bearer, parsed.prefix, parsed.path, false));
  }

  async #open(req: IncomingMessage, res: ServerResponse, machineId: string, room: PreviewRoom | undefined, site: ViewerSite): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return sendPreviewPage(res, { status: 405, title: 'Method not allowed', message: 'Open a preview with GET.' });
    }
    const query = new URL(req.url ?? '/', base).searchParams;
    const terminalId = query.get('terminalId') ?? '';
    const portText = query.get('port') ?? '';
    const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (terminalId === '' || terminalId.length > 256 || !(port >= 1 && port <= 65_535)) {
      return sendPreviewPage(res, { status: 400, title: 'Bad preview link', message: 'The link needs ?terminalId=<pane>&port=<1–65535>.' });
    }
    if (!room?.daemonOnline) return sendPreviewPage(res, { status: 502, title: `${machineId} is offline`, message: `${machineId}'s Switchboard is not connected to the relay, so its dev servers cannot be reached.` });
    if (!room.previewSupported) return sendPreviewPage(res, { status: 501, title: 'Previews are not available', message: `${machineId}'s Switchboard does not offer dev-server previews (update it).` });
    const target = room.previewTarget(terminalId, port);
    if ('error' in target) {
      return sendPreviewPage(res, {
        status: 404,
        title: 'No such server',
        message: target.error === 'terminal' ? `${machineId} shares no terminal ${terminalId} (it exited or is no longer shared).` : `Terminal ${terminalId} on ${machineId} has no server on port ${port} (it stopped, or never listened).`,
      });
    }
    const outcome = await room.preview.open(target);
    if (!outcome.ok) return sendPreviewPage(res, outcome.page);
    res.setHeader('Set-Cookie', previewCookie(machineId, outcome.previewId, site.secure));
    res.setHeader('Location', `${room.preview.prefixOf(outcome.previewId)}/`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.writeHead(303);
    res.end();
  }

  /** A root path with a preview cookie and that machine's viewer credentials: the preview's. */
  async #rootFallback(req: IncomingMessage, rawUrl: string, upgrade: boolean): Promise<{ room: PreviewRoom; previewId: string; site: ViewerSite; bearer: boolean } | undefined> {
    if (!rawUrl.startsWith('/')) return undefined;
    const pathname = new URL(rawUrl, base).pathname;
    if (isRelayOwnPath(pathname, upgrade)) return undefined;
    const cookie = parsePreviewCookie(readCookie(req.headers.cookie, PREVIEW_COOKIE));
    if (!cookie) return undefined;
    const auth = await this.#authorize(req, cookie.machineId, upgrade);
    if (!auth.ok) {
      if (auth.upgradeStatus === 403 && upgrade) this.#options.refusals.refuse('preview:browser-403', `a preview WebSocket of ${cookie.machineId} was refused: ${auth.upgradeReason}`);
      return undefined;
    }
    const room = this.#options.room(cookie.machineId);
    if (!room) return undefined;
    return { room, previewId: cookie.previewId, site: auth.site, bearer: auth.bearer };
  }

  async #authorize(req: IncomingMessage, machineId: string, upgrade: boolean): Promise<Authorized> {
    const { access } = this.#options;
    const site = access.siteOf(req.headers.host);
    if (!site) return { ok: false, page: { status: 403, title: 'Forbidden', message: access.forbiddenHostReason(req.headers.host) }, upgradeStatus: 403, upgradeReason: 'forbidden host' };
    const authorization = req.headers.authorization;
    // The viewer token as a bearer (a non-browser viewer); any other Authorization is the dev server's own, and the cookie decides.
    if (authorization?.startsWith('Bearer ') && (await access.verifyViewerToken(machineId, authorization.slice(7).trim()))) return { ok: true, site, bearer: true };
    if (upgrade) {
      const refusal = await access.checkBrowserUpgrade(req, machineId);
      if (!refusal) return { ok: true, site, bearer: false };
      return { ok: false, page: { status: refusal.status, title: 'Forbidden', message: refusal.reason }, upgradeStatus: refusal.status, upgradeReason: refusal.reason };
    } else if (await access.hasViewerCookie(req, site, machineId)) {
      return { ok: true, site, bearer: false };
    }
    return {
      ok: false,
      page: { status: 401, title: `Sign in to ${machineId} first`, message: `This browser may not view ${machineId}. Open its viewer link (the remote view's address with ?token=<viewer token>), then the preview again.` },
      upgradeStatus: 401,
      upgradeReason: 'unauthorized',
    };
  }

  #context(req: IncomingMessage, previewId: string, site: ViewerSite, bearer: boolean, prefix: string | undefined, path: string, webSocket: boolean) {
    return {
      previewId,
      site,
      path,
      headers: (preview: { port: number }) =>
        rewriteRequestHeaders(req.headers, req.rawHeaders, { siteOrigin: site.origin, prefix, port: preview.port, relayCookies: isRelayCookie, dropAuthorization: bearer, webSocket }),
    };
  }

  dispose(): void {
    for (const client of this.#webSockets.clients) client.terminate();
    this.#webSockets.close();
  }
}
