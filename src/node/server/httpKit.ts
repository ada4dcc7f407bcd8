/**
 * What Switchboard's HTTP servers have in common: browser mode (`switchboard serve`, browserServer.ts),
 * the relay (`switchboard relay`, relay/server/) and the IDE bridge (ide/ideBridge.ts). Each serves
 * a token-guarded page or WebSocket to a browser or a CLI, so each needs the same headers, the
 * same way to refuse an upgrade before the handshake, and the same way to stop.
 */
import { type Server, STATUS_CODES, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WebSocketServer } from 'ws';

/** Headers for every response: no MIME sniffing, no framing (clickjacking), no Referer. */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  // The first URL a person opens carries the access token; never let it leak through a Referer.
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/**
 * The Content-Security-Policy of the renderer's HTML: only its own scripts, styles (plus the inline
 * ones React and xterm.js set), images and data: URLs, and WebSockets to `socketOrigin` (the page's
 * own host as `ws://host:port` or `wss://…`: 'self' does not cover ws: in every browser).
 */
export function contentSecurityPolicy(socketOrigin: string): string {
  return [
    "default-src 'self'",
    `connect-src 'self' ${socketOrigin}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "script-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A plain-text answer that no cache keeps. */
/**
 * A request's URL, or undefined when the WHATWG parser cannot read it — `//?token=…` and the like
 * (it reads them as a host): answer those 400 rather than let the throw reach a handler, where it
 * ended a server or logged the URL, token and all.
 */
export function requestUrl(req: { url?: string | undefined }): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://request.invalid');
  } catch {
    return undefined;
  }
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  res.setHeader('Cache-Control', 'no-store');
  res.writeHead(status);
  res.end(text);
}

/**
 * Answer an upgrade request with an HTTP error and close the socket: the WebSocket handshake never
 * happens, and the client (a browser, the CLI, `ws`) sees the status and the reason as the body.
 */
export function refuseUpgrade(socket: Socket, status: number, reason: string): void {
  // A client that resets the socket must not crash the server with an unhandled 'error'.
  if (socket.listenerCount('error') === 0) socket.on('error', () => {});
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = `${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** For a server's 'clientError' (a request node's parser refused): 400 and close, not a reset. */
export function answerBadRequest(socket: Socket): void {
  if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
}

/** Bind `server`; a bind error (EADDRINUSE, EACCES) rejects instead of being emitted later. */
export async function listenOn(server: Server, port: number, host: string): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

/** How a bind address is written in a URL: a wildcard bind is reached through loopback; IPv6 goes in brackets. */
export function urlHostFor(bindHost: string): string {
  if (bindHost === '0.0.0.0' || bindHost === '::') return '127.0.0.1';
  return bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost;
}

/**
 * Stop a server now: WebSocket clients are dropped (terminate, no close handshake to wait for),
 * and keep-alive HTTP connections are closed too, which `server.close()` alone would wait for.
 * Everything is started synchronously, so a caller that cannot wait (a `dispose()`) may ignore
 * the promise; it settles once both servers have closed.
 */
export async function closeHttpServer(server: Server, webSockets?: WebSocketServer): Promise<void> {
  const closed: Array<Promise<void>> = [];
  if (webSockets) {
    for (const client of webSockets.clients) client.terminate();
    closed.push(new Promise<void>((resolve) => webSockets.close(() => resolve())));
  }
  closed.push(new Promise<void>((resolve) => server.close(() => resolve())));
  server.closeAllConnections();
  await Promise.all(closed);
}
