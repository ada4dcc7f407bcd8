/** The HTTP kit shared by browser mode, the relay and the IDE bridge, against real sockets. */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import { answerBadRequest, closeHttpServer, contentSecurityPolicy, listenOn, refuseUpgrade, sendText, setSecurityHeaders, urlHostFor } from '../../../../src/node/server/httpKit.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) if (server.listening) await closeHttpServer(server);
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  servers.push(server);
  const { port } = await listenOn(server, 0, '127.0.0.1');
  return { server, port };
}

function get(port: number, agent?: Agent): Promise<{ response: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/', agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ response, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** Everything a raw socket receives until the server closes it. */
async function rawExchange(port: number, text: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.write(text);
  await once(socket, 'close');
  return received;
}

describe('httpKit', () => {
  test('security headers and a plain-text answer no cache keeps', async () => {
    const { port } = await serve((_req, res) => {
      setSecurityHeaders(res);
      sendText(res, 418, 'héllo\n');
    });
    const { response, body } = await get(port);
    assert.equal(response.statusCode, 418);
    assert.equal(body, 'héllo\n');
    assert.equal(response.headers['content-length'], '7');
    assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.equal(response.headers['x-frame-options'], 'DENY');
    assert.equal(response.headers['referrer-policy'], 'no-referrer');
  });

  test('the CSP allows sockets to the given origin only, and no framing, plugins or foreign scripts', () => {
    const policy = contentSecurityPolicy('wss://relay.example.com');
    assert.match(policy, /connect-src 'self' wss:\/\/relay\.example\.com(;|$)/);
    for (const directive of ["script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "default-src 'self'"]) assert.ok(policy.includes(directive), directive);
  });

  test('an upgrade is refused with the status and the reason, and the socket closed', async () => {
    const { server, port } = await serve(() => {});
    server.on('upgrade', (_req, socket: Socket) => refuseUpgrade(socket, 403, 'forbidden origin'));
    const client = new WebSocket(`ws://127.0.0.1:${port}/`);
    client.on('error', () => {}); // terminate() below reports the aborted handshake as an error
    const [, response] = (await once(client, 'unexpected-response')) as [unknown, IncomingMessage];
    assert.equal(response.statusCode, 403);
    assert.equal(response.statusMessage, 'Forbidden');
    let body = '';
    for await (const chunk of response) body += String(chunk);
    assert.equal(body, 'forbidden origin\n');
    client.terminate();
  });

  test('a refusal to a client that already went away neither throws nor crashes the server', async () => {
    const { server, port } = await serve(() => {});
    const refused = new Promise<void>((resolve) => {
      server.on('upgrade', (_req, socket: Socket) => {
        socket.destroy();
        refuseUpgrade(socket, 401, 'unauthorized');
        resolve();
      });
    });
    const client = connect(port, '127.0.0.1');
    client.on('error', () => {});
    client.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    await refused;
    assert.equal(server.listening, true);
    client.destroy();
  });

  test('a request the HTTP parser refuses gets 400, not a reset', async () => {
    const { server, port } = await serve(() => {});
    server.on('clientError', (_error, socket) => answerBadRequest(socket as Socket));
    assert.match(await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n'), /^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  test('listenOn rejects when the port is taken', async () => {
    const { port } = await serve(() => {});
    const second = createServer();
    await assert.rejects(listenOn(second, port, '127.0.0.1'), { code: 'EADDRINUSE' });
    assert.equal(second.listening, false);
  });

  test('closeHttpServer ends keep-alive connections and WebSocket clients without waiting for them', async () => {
    const { server, port } = await serve((_req, res) => sendText(res, 200, 'ok\n'));
    const webSockets = new WebSocketServer({ noServer: true });
    server.on('upgrade', (req, socket, head) => webSockets.handleUpgrade(req, socket as Socket, head, () => {}));
    const agent = new Agent({ keepAlive: true });
    await get(port, agent); // leaves an idle keep-alive connection open
    const client = new WebSocket(`ws://127.0.0.1:${port}/`);
    await once(client, 'open');
    const clientClosed = once(client, 'close');
    const started = Date.now();
    await closeHttpServer(server, webSockets);
    await clientClosed;
    assert.ok(Date.now() - started < 2000, 'closed without waiting for clients');
    assert.equal(server.listening, false);
    assert.equal(webSockets.clients.size, 0);
    agent.destroy();
  });

  test('urlHostFor: wildcard binds are reached through loopback, IPv6 in brackets', () => {
    assert.equal(urlHostFor('0.0.0.0'), '127.0.0.1');
    assert.equal(urlHostFor('::'), '127.0.0.1');
    assert.equal(urlHostFor('127.0.0.1'), '127.0.0.1');
    assert.equal(urlHostFor('::1'), '[::1]');
    assert.equal(urlHostFor('[::1]'), '[::1]');
    assert.equal(urlHostFor('localhost'), 'localhost');
  });
});
