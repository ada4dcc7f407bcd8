/**
 * The relay's HTTP side of previews (docs/relay.md "Dev-server previews — On the relay"). Every
 * preview has an origin of its own, never the relay's (previewOrigins.ts says why):
 *
 * - On the relay's origin, `GET /m/<machine>/preview/open?terminalId=…&port=…` (the remote view's
 *   server chips link here; the machine's viewer cookie or its viewer token as a bearer): the port
 *   must be one the machine announced for that shared pane; an open preview of that port is
 *   reused, else the daemon is asked (`previewOpen`); then a one-time ticket and 303 to
 *   `<preview origin>/__switchboard/enter?ticket=…`. Nothing else under `/m/<machine>/preview` is
 *   served (404).
 * - On a preview's origin (a request whose Host is `<label>.<preview domain>`, routed here before
 *   anything of the relay's, so the relay's own routes never answer there): `/__switchboard/enter`
 *   trades the ticket for the preview's session cookie; every other request and WebSocket upgrade
 *   needs that cookie (an upgrade also the preview's Origin) and is proxied with its path as is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { z } from 'zod';
import type { IDisposable } from '../../../../common/lifecycle.ts';
import { refuseUpgrade } from '../../../server/httpKit.ts';
import type { RefusalLog } from '../../refusalLog.ts';
import type { ViewerAccess, ViewerSite } from '../viewerAccess.ts';
import type { PreviewLimits } from './previewFlow.ts';
import type { PreviewGateway, PreviewTarget, ServeContext } from './previewGateway.ts';
import { originForm, parsePreviewPath, rewriteRequestHeaders } from './previewHeaders.ts';
import { hasPreviewSession, PREVIEW_ENTER_PATH, PREVIEW_SESSION_COOKIE, type PreviewOrigins, previewSessionCookie, PreviewTickets } from './previewOrigins.ts';
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

/** The remote view's link to a pane's server: `/m/<machine>/preview/open?terminalId=…&port=…`. */
const PreviewOpenQuery = z.object({
  terminalId: z.string().min(1).max(256),
  port: z.string().regex(/^\d{1,5}$/, 'a port number').transform(Number).pipe(z.number().int().min(1).max(65_535)),
});

export interface PreviewRoutesOptions {
  access: ViewerAccess;
  origins: PreviewOrigins;
  room(machineId: string): PreviewRoom | undefined;
  refusals: RefusalLog;
  limits: PreviewLimits;
}

export const PreviewRoutesConstants = {
  /** Labels remembered → their machine (a closed preview's label answers 410 while its gateway remembers it). */
  labels: 8192,
} as const;

const base = 'http://relay.invalid';

/** What `ws` checks of a handshake (RFC 6455 §4.2.1): GET, Upgrade: websocket, a 16-byte key, version 8 or 13. */
function isWebSocketHandshake(req: IncomingMessage): boolean {
  const key = req.headers['sec-websocket-key'];
  const version = req.headers['sec-websocket-version'];
  return req.method === 'GET' && req.headers.upgrade?.toLowerCase() === 'websocket' && typeof key === 'string' && /^[+/0-9A-Za-z]{22}==$/.test(key.trim()) && (version === '8' || version === '13');
}

/** The relay's cookies, never passed on to a dev server (`sb_preview` was the old root-path cookie). */
function isRelayCookie(name: string): boolean {
  return name === PREVIEW_SESSION_COOKIE || name === 'sb_preview' || name.startsWith('sb_viewer_') || name.startsWith('__Host-sb_viewer_');
}

type Authorized = { ok: true; site: ViewerSite } | { ok: false; page: PreviewPage };

/** A preview host's preview, found by its label. */
interface Found {
  machineId: string;
  room: PreviewRoom;
  previewId: string;
  secret: string;
  origin: string;
}

const movedPage: PreviewPage = {
  status: 404,
  title: 'Not a preview address',
  message: 'Previews are served from an address of their own, not under /m/<machine>/preview. Open the server again from the remote view.',
};

const enterAgainPage: PreviewPage = {
  status: 401,
  title: 'Open the preview again from the remote view',
  message: 'This browser has not entered this preview: its entry link works once, for a minute. Open the server again from the remote view (its server chip).',
};

export class PreviewRoutes implements IDisposable {
  readonly #options: PreviewRoutesOptions;
  readonly #webSockets: WebSocketServer;
  readonly #chosenProtocols = new WeakMap<IncomingMessage, string | false>();
  readonly #tickets = new PreviewTickets();
  /** label → machine id, for routing a preview host to its machine's gateway. */
  readonly #labels = new Map<string, string>();

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

  /** Handle the request if it is a preview's (a preview host, or the open endpoint); false: the relay answers it. */
  async handleHttp(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const previewHost = this.#options.origins.classify(req.headers.host);
    if (previewHost) {
      await this.#servePreviewHost(req, res, previewHost.label);
      return true;
    }
    const parsed = parsePreviewPath(req.url ?? '/');
    if (!parsed) return false;
    if (parsed.kind === 'bad') sendPreviewPage(res, { ...movedPage, message: `Not a preview address (${parsed.reason}).` });
    else if (parsed.kind === 'elsewhere') sendPreviewPage(res, movedPage);
    else {
      const auth = await this.#authorize(req, parsed.machineId);
      if (!auth.ok) sendPreviewPage(res, auth.page);
      else await this.#open(req, res, parsed.machineId, auth.site);
    }
    return true;
  }

  /** Handle the upgrade if it is to a preview host (or under `/m/<machine>/preview`); false: not ours. */
  async handleUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<boolean> {
    const previewHost = this.#options.origins.classify(req.headers.host);
    if (!previewHost) {
      if (!parsePreviewPath(req.url ?? '/')) return false;
      refuseUpgrade(socket, 404, 'not a preview address');
      return true;
    }
    const found = this.#find(previewHost.label);
    if ('page' in found) {
      refuseUpgrade(socket, found.page.status, found.page.title);
      return true;
    }
    const rawUrl = req.url ?? '/';
    if (!rawUrl.startsWith('/')) {
      refuseUpgrade(socket, 400, 'not an origin-form request target');
      return true;
    }
    // Browsers always send Origin on a WebSocket handshake: only the preview's own pages may open its sockets.
    const origin = req.headers.origin;
    if (origin === undefined || origin.toLowerCase() !== found.origin.toLowerCase()) {
      this.#options.refusals.refuse('preview:ws-origin', `a WebSocket to a preview of ${found.machineId} from origin ${JSON.stringify(origin ?? null)} was refused (HTTP 403)`);
      refuseUpgrade(socket, 403, 'forbidden origin');
      return true;
    }
    if (!hasPreviewSession(req.headers.cookie, found.secret)) {
      refuseUpgrade(socket, 401, 'unauthorized');
      return true;
    }
    // Refused before the daemon hears of it: a handshake `ws` would refuse only after the dev server accepted.
    if (!isWebSocketHandshake(req)) {
      refuseUpgrade(socket, 400, 'not a WebSocket handshake');
      return true;
    }
    const context = await this.#context(req, found, originForm(rawUrl), true);
    found.room.preview.serveUpgrade(req, socket, head, context, this.#webSockets, this.#chosenProtocols);
    return true;
  }

  /** The preview whose origin has this label, else the page that says what became of it. */
  #find(label: string | undefined): Found | { page: PreviewPage } {
    const machineId = label === undefined ? undefined : this.#labels.get(label);
    const room = machineId === undefined ? undefined : this.#options.room(machineId);
    if (label === undefined || machineId === undefined || !room) {
      return { page: { status: 404, title: 'No such preview', message: 'This preview is not open on the relay (it ended, or the relay restarted). Open the server again from the remote view.' } };
    }
    const found = room.preview.findLabel(label);
    if ('page' in found) return found;
    return { machineId, room, previewId: found.previewId, secret: found.secret, origin: this.#options.origins.originOf(label) };
  }

  async #servePreviewHost(req: IncomingMessage, res: ServerResponse, label: string | undefined): Promise<void> {
    const found = this.#find(label);
    if ('page' in found) return sendPreviewPage(res, found.page);
    const rawUrl = req.url ?? '/';
    if (!rawUrl.startsWith('/')) return sendPreviewPage(res, { status: 400, title: 'Bad request', message: 'A preview answers origin-form request targets only (/path?query).' });
    const url = new URL(originForm(rawUrl), base);
    if (url.pathname === PREVIEW_ENTER_PATH) return this.#enter(req, res, found, url.searchParams.get('ticket') ?? '');
    if (!hasPreviewSession(req.headers.cookie, found.secret)) return sendPreviewPage(res, enterAgainPage);
    found.room.preview.serveHttp(req, res, await this.#context(req, found, originForm(rawUrl), false));
  }

  /** `/__switchboard/enter?ticket=…`: a ticket of this preview, once → its session cookie and 303 to `/`. */
  #enter(req: IncomingMessage, res: ServerResponse, found: Found, ticket: string): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return sendPreviewPage(res, { status: 405, title: 'Method not allowed', message: 'Enter a preview with GET.' });
    }
    const claim = this.#tickets.consume(ticket);
    const valid = claim !== undefined && claim.machineId === found.machineId && claim.previewId === found.previewId;
    // A browser that entered already (the entry address reloaded, or reached again by Back) just goes on.
    if (valid || hasPreviewSession(req.headers.cookie, found.secret)) {
      if (valid) res.setHeader('Set-Cookie', previewSessionCookie(found.secret, this.#options.origins.secure));
      res.setHeader('Location', '/');
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.writeHead(303);
      res.end();
      return;
    }
    this.#options.refusals.refuse('preview:ticket', `a preview of ${found.machineId} was entered with a ${claim ? "ticket of another preview" : 'ticket that is unknown, used or expired'} (HTTP 401)`);
    sendPreviewPage(res, enterAgainPage);
  }

  async #open(req: IncomingMessage, res: ServerResponse, machineId: string, site: ViewerSite): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return sendPreviewPage(res, { status: 405, title: 'Method not allowed', message: 'Open a preview with GET.' });
    }
    const link = PreviewOpenQuery.safeParse(Object.fromEntries(new URL(req.url ?? '/', base).searchParams));
    if (!link.success) {
      const problems = link.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; ');
      return sendPreviewPage(res, { status: 400, title: 'Bad preview link', message: `The link needs ?terminalId=<pane>&port=<1–65535> (${problems}).` });
    }
    const { terminalId, port } = link.data;
    const { origins } = this.#options;
    const refusal = origins.refusal(site.origin);
    if (refusal) return sendPreviewPage(res, refusal);
    const room = this.#options.room(machineId);
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
    this.#remember(outcome.label, machineId);
    const ticket = this.#tickets.mint(machineId, outcome.previewId);
    res.setHeader('Location', `${origins.originOf(outcome.label)}${PREVIEW_ENTER_PATH}?ticket=${ticket}`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.writeHead(303);
    res.end();
  }

  #remember(label: string, machineId: string): void {
    this.#labels.delete(label);
    this.#labels.set(label, machineId);
    if (this.#labels.size > PreviewRoutesConstants.labels) this.#labels.delete(this.#labels.keys().next().value!);
  }

  /** The machine's viewer cookie, or its viewer token as a bearer (a non-browser viewer); the Host must name the relay. */
  async #authorize(req: IncomingMessage, machineId: string): Promise<Authorized> {
    const { access } = this.#options;
    const site = access.siteOf(req.headers.host);
    if (!site) return { ok: false, page: { status: 403, title: 'Forbidden', message: access.forbiddenHostReason(req.headers.host) } };
    const authorization = req.headers.authorization;
    if (authorization?.startsWith('Bearer ') && (await access.verifyViewerToken(machineId, authorization.slice(7).trim()))) return { ok: true, site };
    if (await access.hasViewerCookie(req, site, machineId)) return { ok: true, site };
    return {
      ok: false,
      page: { status: 401, title: `Sign in to ${machineId} first`, message: `This browser may not view ${machineId}. Open its viewer link (the remote view's address with ?token=<viewer token>), then the preview again.` },
    };
  }

  async #context(req: IncomingMessage, found: Found, path: string, webSocket: boolean): Promise<ServeContext> {
    // A non-browser viewer may still send its viewer token as a bearer: it never reaches the dev server. Any other Authorization is the page's own.
    const authorization = req.headers.authorization;
    const viewerBearer = authorization?.startsWith('Bearer ') === true && (await this.#options.access.verifyViewerToken(found.machineId, authorization.slice(7).trim()));
    return {
      previewId: found.previewId,
      origin: found.origin,
      path,
      headers: (preview: { port: number }) => rewriteRequestHeaders(req.headers, req.rawHeaders, { previewOrigin: found.origin, port: preview.port, relayCookies: isRelayCookie, dropAuthorization: viewerBearer, webSocket }),
    };
  }

  dispose(): void {
    for (const client of this.#webSockets.clients) client.terminate();
    this.#webSockets.close();
  }
}
