/**
 * `switchboard relay`: a self-hostable relay for the GSD Cloud wire protocol. Daemons (Switchboard
 * apps) dial `/ws/daemon?machineId=ID` with their machine's daemon token as a bearer; viewers dial
 * `/ws/ui?machineId=ID[&channelId=C][&name=N]` with that machine's viewer token (a bearer header,
 * or from a browser the cookie the remote view's login set, see viewerAccess.ts). Frames are routed
 * per machine by MachineRoom. The remote view (the renderer over these frames) is served at
 * `/m/<machineId>/` (remoteViewPages.ts). Binds to loopback by default; TLS belongs to a reverse
 * proxy in front (docs/relay.md). `GET /healthz` answers `ok` for load balancers. A request whose
 * Host is a preview's (`<label>.<preview domain>`, preview/previewOrigins.ts) goes to the preview
 * routes before anything else, so none of the relay's own routes ever answers on a preview origin.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { RelayConstants } from '../../../common/constants.ts';
import type { IDisposable } from '../../../common/lifecycle.ts';
import { defaultEnvelopeLimits, type EnvelopeLimits } from '../../../common/protocol/relay/frameLimits.ts';
import { BROADCAST_CHANNEL_ID } from '../../../common/protocol/relay/messages.ts';
import type { ILogger } from '../../logger.ts';
import { answerBadRequest, closeHttpServer, listenOn, refuseUpgrade, requestUrl, sendText, setSecurityHeaders, urlHostFor } from '../../server/httpKit.ts';
import { defaultRendererDir } from '../../server/staticFiles.ts';
import { RefusalLog } from '../refusalLog.ts';
import { DAEMON_PATH, MachineId, VIEWER_PATH } from '../relayUrl.ts';
import { MachineRoom, type MachineRoomStats } from './machineRoom.ts';
import { PeerSocket } from './peerSocket.ts';
import { defaultPreviewLimits, type PreviewLimits } from './preview/previewFlow.ts';
import { PreviewOrigins } from './preview/previewOrigins.ts';
import { PreviewRoutes } from './preview/previewRoutes.ts';
import type { RelayRole, RelayTokenStore } from './relayTokens.ts';
import { RemoteViewPages } from './remoteViewPages.ts';
import { ViewerAccess } from './viewerAccess.ts';

export interface RelayServerOptions {
  host: string;
  port: number;
  tokens: RelayTokenStore;
  logger: ILogger;
  /** Liveness pings; default RelayConstants.heartbeatIntervalMs. */
  pingIntervalMs?: number;
  helloTimeoutMs?: number;
  latestDaemonVersion?: string;
  limits?: Partial<EnvelopeLimits>;
  viewerLagBytes?: number;
  viewerMaxBufferedBytes?: number;
  maxViewersPerMachine?: number;
  /** Directory with the built renderer for the remote view; default dist/renderer of this checkout. */
  rendererDir?: string;
  /**
   * The relay's public origin behind a TLS proxy (`https://relay.example.com`, see viewerAccess.ts):
   * the Host browsers may use besides loopback, the Origin `/ws/ui` expects from them, and https
   * makes the login cookie Secure.
   */
  publicUrl?: URL;
  /**
   * `--preview-domain` (validated by parsePreviewDomain): previews are served from
   * `<label>.<previewDomain>` (wildcard DNS and certificate pointed at the relay). Default without
   * a public URL: `localhost` (`http://<label>.localhost:<port>`); with a public URL and none,
   * previews are refused (501). The constructor throws when the relay's own host is under it.
   */
  previewDomain?: string;
  /** Dev-server preview limits; default RelayConstants.preview* (tests inject small ones). */
  preview?: Partial<PreviewLimits>;
}

export interface RelayServerAddress {
  host: string;
  port: number;
  /** Where daemons and non-browser viewers connect (`ws://host:port`). */
  url: string;
  /** Where browsers open the remote view (`<viewOrigin>/m/<machineId>/?token=…`): the public URL, else this address over http. */
  viewOrigin: string;
  /** Where previews are served (`http://<label>.localhost:7600`), or null when they are refused (a public URL without a preview domain). */
  previewOrigins: string | null;
}

const ChannelId = /^[A-Za-z0-9_.:-]{1,128}$/;

export class RelayServer implements IDisposable {
  readonly #options: RelayServerOptions;
  readonly #logger: ILogger;
  readonly #refusals: RefusalLog;
  readonly #rooms = new Map<string, MachineRoom>();
  readonly #access: ViewerAccess;
  readonly #pages: RemoteViewPages;
  readonly #previewLimits: PreviewLimits;
  readonly #previews: PreviewRoutes;
  readonly #previewOrigins: PreviewOrigins;
  #server: Server | undefined;
  #webSockets: WebSocketServer | undefined;
  #sweep: NodeJS.Timeout | undefined;
  #address: RelayServerAddress | undefined;

  constructor(options: RelayServerOptions) {
    this.#options = options;
    this.#logger = options.logger;
    this.#refusals = new RefusalLog({ logger: options.logger.child('refused') });
    this.#access = new ViewerAccess({
      tokens: options.tokens,
      publicUrl: options.publicUrl,
      bindHost: options.host,
      port: () => this.#address?.port ?? -1,
    });
    this.#pages = new RemoteViewPages({ access: this.#access, rendererDir: options.rendererDir ?? defaultRendererDir() });
    this.#previewLimits = { ...defaultPreviewLimits, ...options.preview };
    this.#previewOrigins = new PreviewOrigins({ previewDomain: options.previewDomain, publicUrl: options.publicUrl, port: () => this.#address?.port ?? -1 });
    this.#previews = new PreviewRoutes({ access: this.#access, origins: this.#previewOrigins, room: (machineId) => this.#rooms.get(machineId), refusals: this.#refusals, limits: this.#previewLimits });
  }

  get address(): RelayServerAddress | undefined {
    return this.#address;
  }

  /** Per machine: daemon online, viewers, counters (for tests and `--json` status). */
  get stats(): Record<string, MachineRoomStats> {
    return Object.fromEntries([...this.#rooms].map(([id, room]) => [id, room.stats]));
  }

  /** Whether the remote view's files (the built renderer) are there. */
  get rendererBuilt(): boolean {
    return this.#pages.rendererBuilt;
  }

  get refusals(): ReadonlyMap<string, number> {
    return this.#refusals.totals;
  }

  async listen(): Promise<RelayServerAddress> {
    if (this.#server) throw new Error('RelayServer.listen() called twice');
    await this.#options.tokens.load();
    const server = createServer((req, res) => {
      this.#onRequest(req, res).catch((error: unknown) => {
        this.#logger.error('relay request failed', { error: (error as Error).message });
        if (!res.headersSent) sendText(res, 500, 'internal error\n');
        else res.destroy();
      });
    });
    this.#server = server;
    this.#webSockets = new WebSocketServer({
      noServer: true,
      maxPayload: this.#options.limits?.maxFrameBytes || defaultEnvelopeLimits.maxFrameBytes,
      perMessageDeflate: false,
    });
    server.on('upgrade', (req, socket, head) => {
      this.#onUpgrade(req, socket as Socket, head).catch((error: unknown) => {
        this.#logger.error('upgrade failed', { error: (error as Error).message });
        refuseUpgrade(socket as Socket, 500, 'internal error');
      });
    });
    server.on('clientError', (_error, socket) => answerBadRequest(socket as Socket));
    const { port } = await listenOn(server, this.#options.port, this.#options.host);
    server.on('error', (error) => this.#logger.error('relay http server error', { error: error.message }));
    this.#sweep = setInterval(() => {
      for (const room of this.#rooms.values()) room.sweep();
    }, this.#options.pingIntervalMs ?? RelayConstants.heartbeatIntervalMs);
    this.#sweep.unref();
    const urlHost = urlHostFor(this.#options.host);
    const viewOrigin = this.#options.publicUrl?.origin ?? `http://${urlHost}:${port}`;
    this.#address = { host: this.#options.host, port, url: `ws://${urlHost}:${port}`, viewOrigin, previewOrigins: null };
    // The preview origins name the port, known only now (#address is what PreviewOrigins reads it from).
    this.#address.previewOrigins = this.#previewOrigins.pattern ?? null;
    this.#logger.info('relay listening', { url: this.#address.url, machines: this.#options.tokens.machineIds.length });
    return this.#address;
  }

  async #onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Previews first: a preview host is never the relay's, and preview responses carry the dev server's headers, not the relay's.
    if (await this.#previews.handleHttp(req, res)) return;
    setSecurityHeaders(res);
    const path = requestUrl(req)?.pathname;
    if (path === undefined) {
      sendText(res, 400, 'bad path\n');
      return;
    }
    if (path === '/healthz') {
      sendText(res, 200, 'ok\n');
      return;
    }
    if (RemoteViewPages.handles(path)) {
      await this.#pages.handle(req, res);
      return;
    }
    const body = `Switchboard relay. Daemons connect to ${DAEMON_PATH}, viewers to ${VIEWER_PATH} (WebSocket); browsers open /m/<machine id>/?token=<viewer token>.\n`;
    sendText(res, path === '/' ? 200 : 404, path === '/' ? body : 'not found\n');
  }

  async #onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    socket.on('error', () => {});
    if (await this.#previews.handleUpgrade(req, socket, head)) return;
    const url = requestUrl(req);
    if (!url) return refuseUpgrade(socket, 400, 'bad path');
    const role: RelayRole | undefined = url.pathname === DAEMON_PATH ? 'daemon' : url.pathname === VIEWER_PATH ? 'viewer' : undefined;
    if (!role) return refuseUpgrade(socket, 404, 'not found');
    const machine = MachineId.safeParse(url.searchParams.get('machineId') ?? '');
    if (!machine.success) return refuseUpgrade(socket, 400, 'missing or invalid machineId');
    const machineId = machine.data;
    const authorization = req.headers.authorization;
    if (role === 'viewer' && authorization === undefined && req.headers.cookie !== undefined) {
      // A browser (the remote view): its cookie counts only from a page of our own origin and host.
      const refusal = await this.#access.checkBrowserUpgrade(req, machineId);
      if (refusal) {
        this.#refusals.refuse(`viewer:browser-${refusal.status}`, `a browser viewer of machine ${machineId} was refused: ${refusal.reason} (HTTP ${refusal.status})`, {
          origin: req.headers.origin,
          host: req.headers.host,
        });
        return refuseUpgrade(socket, refusal.status, refusal.reason);
      }
    } else {
      const token = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : undefined;
      await this.#options.tokens.refresh();
      if (!this.#options.tokens.verify(machineId, role, token)) {
        this.#refusals.refuse(`${role}:unauthorized`, `a ${role} presented no valid token for machine ${machineId} (HTTP 401)`);
        return refuseUpgrade(socket, 401, 'unauthorized');
      }
    }
    let channelId = '';
    let name = '';
    if (role === 'viewer') {
      channelId = url.searchParams.get('channelId') ?? `ui-${randomBytes(6).toString('hex')}`;
      if (!ChannelId.test(channelId) || channelId === BROADCAST_CHANNEL_ID) return refuseUpgrade(socket, 400, 'invalid channelId');
      name = sanitizeName(url.searchParams.get('name') ?? '') || 'remote viewer';
      if (!this.#room(machineId).canAcceptViewer(channelId)) return refuseUpgrade(socket, 503, 'too many viewers for this machine');
    }
    const webSockets = this.#webSockets;
    if (!webSockets) return refuseUpgrade(socket, 503, 'relay is closing');
    webSockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const room = this.#room(machineId);
      const peer = new PeerSocket({ ws, refusals: this.#refusals, label: role, ...(this.#options.limits ? { limits: this.#options.limits } : {}) });
      peer.onDidClose(() => {
        // Forget rooms nobody is in (after the room's own close handlers ran).
        queueMicrotask(() => {
          if (room.isEmpty && this.#rooms.get(machineId) === room) this.#rooms.delete(machineId);
        });
      });
      if (role === 'daemon') room.addDaemon(peer);
      else room.addViewer(peer, channelId, name);
    });
  }

  #room(machineId: string): MachineRoom {
    let room = this.#rooms.get(machineId);
    if (!room) {
      room = new MachineRoom({
        machineId,
        logger: this.#logger,
        refusals: this.#refusals,
        ...(this.#options.helloTimeoutMs !== undefined ? { helloTimeoutMs: this.#options.helloTimeoutMs } : {}),
        ...(this.#options.latestDaemonVersion !== undefined ? { latestDaemonVersion: this.#options.latestDaemonVersion } : {}),
        ...(this.#options.viewerLagBytes !== undefined ? { viewerLagBytes: this.#options.viewerLagBytes } : {}),
        ...(this.#options.viewerMaxBufferedBytes !== undefined ? { viewerMaxBufferedBytes: this.#options.viewerMaxBufferedBytes } : {}),
        ...(this.#options.maxViewersPerMachine !== undefined ? { maxViewers: this.#options.maxViewersPerMachine } : {}),
        previewLimits: this.#previewLimits,
      });
      this.#rooms.set(machineId, room);
    }
    return room;
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    clearInterval(this.#sweep);
    for (const room of this.#rooms.values()) room.dispose();
    this.#rooms.clear();
    this.#previews.dispose();
    const webSockets = this.#webSockets;
    this.#webSockets = undefined;
    await closeHttpServer(server, webSockets);
    this.#refusals.dispose();
  }

  dispose(): void {
    void this.close();
  }
}

/** A viewer's display name: printable, short. */
function sanitizeName(name: string): string {
  return name.replace(/[\p{Cc}\p{Cf}]/gu, '').trim().slice(0, 64);
}
