/**
 * Browser mode: the built renderer over HTTP and the Hub's contract over a WebSocket at `/api`,
 * for one user on this machine. Guarded by a random token (printed once, then kept in an HttpOnly
 * cookie), a Host check on every request and an Origin check on the upgrade. See auth.ts for why.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';
import { AppConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { Hub } from '../hub.ts';
import type { ILogger } from '../logger.ts';
import { describeError } from '../api/hubConnection.ts';
import { createSessionToken, isAllowedHostHeader, isSameOrigin, readCookie, tokensEqual, type HostPolicy } from './auth.ts';
import { answerBadRequest, closeHttpServer, contentSecurityPolicy, listenOn, refuseUpgrade, requestUrl, sendText, setSecurityHeaders, urlHostFor } from './httpKit.ts';
import { cacheControlFor, resolveStaticFile, sendFile } from './staticFiles.ts';
import { WebSocketBridge } from './webSocketBridge.ts';

export const API_PATH = '/api';

export interface BrowserServerOptions {
  hub: Hub;
  logger: ILogger;
  /** Directory with the built renderer (index.html + assets). */
  rendererDir: string;
  host: string;
  /** 0 picks a free port; `listen()` reports the real one. */
  port: number;
  /** Fixed token for tests; default: 32 random bytes. */
  token?: string;
  /** Ping interval for dead-client detection; default AppConstants.webSocketHeartbeatMs. */
  heartbeatMs?: number;
}

export interface BrowserServerAddress {
  host: string;
  port: number;
  token: string;
  /** The URL to open once: it sets the cookie and redirects to `/`. */
  url: string;
}

const unauthorizedText =
  'Switchboard: not authorised.\nOpen the URL that `switchboard serve` printed (it carries the access token), or read it from serve.json in the data directory.\n';

export class BrowserServer implements IDisposable {
  readonly #hub: Hub;
  readonly #logger: ILogger;
  readonly #rendererDir: string;
  readonly #requestedHost: string;
  readonly #requestedPort: number;
  readonly #token: string;
  readonly #heartbeatMs: number;
  #server: Server | undefined;
  #webSockets: WebSocketServer | undefined;
  readonly #bridges = new Set<WebSocketBridge>();
  /** Sockets that answered the last ping (see AppConstants.webSocketHeartbeatMs). */
  readonly #alive = new WeakSet<WebSocket>();
  #heartbeat: NodeJS.Timeout | undefined;
  #address: BrowserServerAddress | undefined;

  constructor(options: BrowserServerOptions) {
    this.#hub = options.hub;
    this.#logger = options.logger;
    this.#rendererDir = options.rendererDir;
    this.#requestedHost = options.host;
    this.#requestedPort = options.port;
    this.#token = options.token ?? createSessionToken();
    this.#heartbeatMs = options.heartbeatMs ?? AppConstants.webSocketHeartbeatMs;
  }

  get address(): BrowserServerAddress | undefined {
    return this.#address;
  }

  get rendererBuilt(): boolean {
    return existsSync(join(this.#rendererDir, 'index.html'));
  }

  async listen(): Promise<BrowserServerAddress> {
    if (this.#server) throw new Error('BrowserServer.listen() called twice');
    const server = createServer((req, res) => this.#onRequest(req, res));
    this.#server = server;
    this.#webSockets = new WebSocketServer({ noServer: true, maxPayload: AppConstants.maxWebSocketMessageBytes });
    server.on('upgrade', (req, socket, head) => this.#onUpgrade(req, socket as Socket, head));
    server.on('clientError', (error, socket) => {
      this.#logger.debug('bad HTTP request', { error: describeError(error) });
      answerBadRequest(socket as Socket);
    });
    const { port } = await listenOn(server, this.#requestedPort, this.#requestedHost);
    server.on('error', (error) => this.#logger.error('http server error', { error: describeError(error) }));
    this.#heartbeat = setInterval(() => this.#checkHeartbeats(), this.#heartbeatMs);
    this.#heartbeat.unref();
    const urlHost = urlHostFor(this.#requestedHost);
    this.#address = { host: this.#requestedHost, port, token: this.#token, url: `http://${urlHost}:${port}/?token=${this.#token}` };
    return this.#address;
  }

  get #hostPolicy(): HostPolicy {
    return { port: this.#address?.port ?? -1, bindHost: this.#requestedHost };
  }

  /**
   * Cookies ignore ports: one name per port keeps two `serve`s on this machine from overwriting
   * each other's cookie, and keeps this one's cookie out of requests to another local port's server.
   */
  get #cookieName(): string {
    return `${AppConstants.tokenCookieName}_${this.#address?.port ?? 0}`;
  }

  #isAuthorised(req: IncomingMessage): boolean {
    const cookie = readCookie(req.headers.cookie, this.#cookieName);
    if (tokensEqual(this.#token, cookie)) return true;
    // Non-browser clients (CLI, tests) may present the token as a bearer header; pages cannot set it.
    const authorization = req.headers.authorization;
    return authorization !== undefined && authorization.startsWith('Bearer ') && tokensEqual(this.#token, authorization.slice(7));
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    this.#handleRequest(req, res).catch((error: unknown) => {
      // The path only: a query can carry the token.
      this.#logger.error('request failed', { path: (req.url ?? '').split('?')[0]!.slice(0, 200), error: describeError(error) });
      if (!res.headersSent) sendText(res, 500, 'internal error\n');
      else res.destroy();
    });
  }

  async #handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    setSecurityHeaders(res);
    if (!isAllowedHostHeader(req.headers.host, this.#hostPolicy)) {
      sendText(res, 403, 'Switchboard: forbidden host.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      sendText(res, 405, 'method not allowed\n');
      return;
    }
    const url = requestUrl(req);
    if (!url) {
      sendText(res, 400, 'bad path\n');
      return;
    }
    const offered = url.searchParams.get('token');
    if (offered !== null) {
      if (!tokensEqual(this.#token, offered)) {
        sendText(res, 401, unauthorizedText);
        return;
      }
      // Trade the URL token for a cookie and drop it from the address bar and history.
      url.searchParams.delete('token');
      res.setHeader('Set-Cookie', `${this.#cookieName}=${this.#token}; HttpOnly; SameSite=Strict; Path=/`);
      res.setHeader('Location', url.pathname + url.search);
      res.setHeader('Cache-Control', 'no-store');
      res.writeHead(302);
      res.end();
      return;
    }
    if (!this.#isAuthorised(req)) {
      sendText(res, 401, unauthorizedText);
      return;
    }
    if (url.pathname === API_PATH) {
      sendText(res, 426, 'the API speaks WebSocket\n');
      return;
    }
    if (!this.rendererBuilt) {
      sendText(res, 503, 'Switchboard: the UI is not built (dist/renderer is missing). Run npm run build first.\n');
      return;
    }
    const file = await resolveStaticFile(this.#rendererDir, url.pathname);
    if (file.kind === 'bad-path') {
      sendText(res, 400, 'bad path\n');
      return;
    }
    if (file.kind === 'not-found') {
      if (url.pathname === '/favicon.ico') {
        // Browsers ask for it on their own; the page declares its icon, if any, itself.
        res.writeHead(204);
        res.end();
        return;
      }
      sendText(res, 404, 'not found\n');
      return;
    }
    if (file.path.endsWith('.html')) res.setHeader('Content-Security-Policy', contentSecurityPolicy(`ws://${req.headers.host!}`));
    res.setHeader('Cache-Control', cacheControlFor(url.pathname));
    sendFile(res, file, req.method === 'HEAD');
  }

  #onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', (error) => this.#logger.debug('upgrade socket error', { error: describeError(error) }));
    const refusal = this.#upgradeRefusal(req);
    if (refusal) {
      this.#logger.warn('refused a websocket upgrade', { status: refusal.status, reason: refusal.reason, origin: req.headers.origin, host: req.headers.host });
      refuseUpgrade(socket, refusal.status, refusal.reason);
      return;
    }
    const webSockets = this.#webSockets;
    if (!webSockets) {
      refuseUpgrade(socket, 503, 'server is closing');
      return;
    }
    webSockets.handleUpgrade(req, socket, head, (webSocket) => {
      this.#alive.add(webSocket);
      webSocket.on('pong', () => this.#alive.add(webSocket));
      let bridge: WebSocketBridge;
      try {
        bridge = new WebSocketBridge({ socket: webSocket, hub: this.#hub, peer: { kind: 'person', name: 'you' }, logger: this.#logger.child('ws') });
      } catch (error) {
        // The Hub is shutting down; tell the client instead of crashing the server.
        this.#logger.warn('cannot open a Hub connection for a websocket', { error: describeError(error) });
        webSocket.close(1011, 'hub unavailable');
        return;
      }
      this.#bridges.add(bridge);
      webSocket.on('close', () => this.#bridges.delete(bridge));
    });
  }

  #checkHeartbeats(): void {
    for (const client of this.#webSockets?.clients ?? []) {
      if (!this.#alive.has(client)) {
        this.#logger.info('dropping a websocket that stopped answering pings');
        client.terminate();
        continue;
      }
      this.#alive.delete(client);
      client.ping();
    }
  }

  #upgradeRefusal(req: IncomingMessage): { status: number; reason: string } | undefined {
    const url = requestUrl(req);
    if (!url) return { status: 400, reason: 'bad path' };
    if (url.pathname !== API_PATH) return { status: 404, reason: 'not found' };
    if (!isAllowedHostHeader(req.headers.host, this.#hostPolicy)) return { status: 403, reason: 'forbidden host' };
    if (!isSameOrigin(req.headers.origin, req.headers.host)) return { status: 403, reason: 'forbidden origin' };
    if (!this.#isAuthorised(req)) return { status: 401, reason: 'unauthorized' };
    return undefined;
  }

  /** Stop accepting, close every socket. The Hub is the caller's to dispose. */
  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    clearInterval(this.#heartbeat);
    for (const bridge of [...this.#bridges]) bridge.dispose();
    this.#bridges.clear();
    const webSockets = this.#webSockets;
    this.#webSockets = undefined;
    await closeHttpServer(server, webSockets);
  }

  dispose(): void {
    void this.close();
  }
}
