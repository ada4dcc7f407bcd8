/**
 * Dev-server previews through a real `switchboard relay` (in-process RelayServer, real HTTP and
 * WebSockets): a viewer with the machine's cookie opens a shared pane's port, the relay speaks the
 * preview frames with a scripted daemon (scriptedPreviewDaemon.ts) that proxies to a real local
 * Node HTTP + WebSocket dev server. Each preview is served from an origin of its own
 * (`http://pv….localhost:<port>`): Node resolves no `*.localhost`, so requests go to 127.0.0.1 with
 * that Host, and the 303s (open → enter with a ticket → `/`) are followed by hand, keeping the
 * session cookie. Opening, entering (tickets once only, the session cookie of that preview only,
 * no relay route on a preview host), serving by relative and root-absolute paths, a POST body, a
 * 50 MB download read slowly (bounded relay memory), header rewriting, WebSockets with
 * sub-protocols, the limits, every bad frame a daemon can send, the daemon going away, and the
 * remote view's server list.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { RelayConstants } from '../../../src/common/constants.ts';
import { RelayHubClient } from '../../../src/browser/relayHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { testEnv } from '../../helpers/tempHome.ts';
import { cliMain, runInProcess } from '../cli/cliHarness.ts';
import { PreviewDaemon } from './scriptedPreviewDaemon.ts';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import type { RelayClient } from '../../../src/node/relay/relayClient.ts';
import { freePort } from '../../helpers/freePort.ts';
import { bashShell, connectClient, createTokens, layOutBodyFrame, startTestHub, startTestRelay, type TestHub, type TestRelay } from './relayTestKit.ts';

// --- the dev server ------------------------------------------------------------------------------

const logo = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 7 + 3) % 256));
/** Deterministic bytes of a big download: the same 64 KiB block over and over, numbered. */
function bigBlock(index: number): Buffer {
  const block = Buffer.alloc(64 * 1024, index % 251);
  block.writeUInt32BE(index, 0);
  return block;
}
const bigBlocks = 800; // 50 MiB

interface DevServer {
  port: number;
  server: Server;
  webSockets: WebSocketServer;
  seenSocketHeaders: IncomingHttpHeaders[];
  close(): Promise<void>;
}

async function startDevServer(): Promise<DevServer> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    switch (url.pathname) {
      case '/':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'devsession=abc; Path=/' });
        res.end('<!doctype html><title>dev</title><script type="module" src="/@vite/client"></script><script src="app.js"></script><img src="/logo.png">');
        return;
      case '/app.js':
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end('console.log("relative script")');
        return;
      case '/@vite/client':
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end('console.log("root-absolute script")');
        return;
      case '/logo.png':
        res.writeHead(200, { 'content-type': 'image/png', 'x-content-type-options': 'nosniff' });
        res.end(logo);
        return;
      case '/echo-headers':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ headers: req.headers, url: req.url }));
        return;
      case '/upload': {
        const hash = createHash('sha256');
        let length = 0;
        req.on('data', (data: Buffer) => {
          hash.update(data);
          length += data.length;
        });
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ sha256: hash.digest('hex'), length, method: req.method }));
        });
        return;
      }
      case '/set-cookies':
        res.writeHead(204, { 'set-cookie': ['x=1; Domain=localhost', 'y=2; Path=/; Domain=.localhost; HttpOnly', 'z=3; Path=/'] });
        res.end();
        return;
      case '/redirect':
        res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/landing?x=1` });
        res.end();
        return;
      case '/big': {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bigBlocks * 64 * 1024) });
        let index = 0;
        const pump = (): void => {
          while (index < bigBlocks) {
            if (!res.write(bigBlock(index++))) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
        return;
      }
      case '/slow': {
        // Ten pieces 30 ms apart: a stream that is still in flight while a test misbehaves elsewhere.
        res.writeHead(200, { 'content-type': 'text/plain' });
        let sent = 0;
        const timer = setInterval(() => {
          res.write(`piece ${sent}\n`);
          if (++sent === 10) {
            clearInterval(timer);
            res.end();
          }
        }, 30);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/hang':
        return; // never answers
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end(`dev server: no ${url.pathname}`);
    }
  });
  const seenSocketHeaders: IncomingHttpHeaders[] = [];
  const webSockets = new WebSocketServer({ server, handleProtocols: (protocols) => (protocols.has('vite-hmr') ? 'vite-hmr' : false) });
  webSockets.on('connection', (socket, req) => {
    seenSocketHeaders.push(req.headers);
    socket.on('message', (data, isBinary) => {
      if (!isBinary && data.toString() === 'close-me') socket.close(4001, 'bye');
      else socket.send(data, { binary: isBinary });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    server,
    webSockets,
    seenSocketHeaders,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of webSockets.clients) client.terminate();
        webSockets.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// --- the viewer ----------------------------------------------------------------------------------

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

function http(port: number, path: string, options: { headers?: Record<string, string>; method?: string; body?: Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { Host: `127.0.0.1:${port}`, ...options.headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

async function signIn(relay: TestRelay, machineId: string): Promise<string> {
  const reply = await http(relay.port, `/m/${machineId}/?token=${relay.tokens.get(machineId)!.viewerToken}`);
  assert.equal(reply.status, 303);
  const header = reply.headers['set-cookie'];
  return String(Array.isArray(header) ? header[0] : header).split(';')[0]!;
}

function cookiePairs(reply: Reply): string[] {
  const header = reply.headers['set-cookie'];
  return (Array.isArray(header) ? header : header ? [header] : []).map((cookie) => cookie.split(';')[0]!);
}

/** A preview entered as a browser would: its own origin's host, and the session cookie it set there. */
interface Preview {
  previewId: string;
  label: string;
  /** `pv….localhost:<relay port>`: the Host of every request to it. */
  host: string;
  origin: string;
  /** `sb_preview_session=…`. */
  session: string;
}

const previewHostPattern = /^pv[a-z0-9]{26}\.localhost$/;

/** The open endpoint's 303 → the preview origin's enter address with a one-time ticket (checked), as a URL. */
function enterUrlOf(reply: Reply, relayPort: number): URL {
  assert.equal(reply.status, 303, reply.text);
  assert.equal(reply.headers['referrer-policy'], 'no-referrer');
  assert.equal(reply.headers['cache-control'], 'no-store');
  const url = new URL(String(reply.headers.location));
  assert.equal(url.protocol, 'http:');
  assert.match(url.hostname, previewHostPattern);
  assert.equal(url.port, String(relayPort));
  assert.equal(url.pathname, '/__switchboard/enter');
  assert.match(url.searchParams.get('ticket') ?? '', /^[A-Za-z0-9_-]{43}$/);
  return url;
}

/** Follows the open endpoint's 303 to the enter address by hand and keeps the session cookie it sets. */
async function enterPreview(relayPort: number, opened: Reply, previewId: string): Promise<Preview> {
  const url = enterUrlOf(opened, relayPort);
  const enter = await http(relayPort, url.pathname + url.search, { headers: { Host: url.host } });
  assert.equal(enter.status, 303, enter.text);
  assert.equal(enter.headers.location, '/');
  const setCookie = [enter.headers['set-cookie']].flat();
  assert.equal(setCookie.length, 1);
  assert.match(String(setCookie[0]), /^sb_preview_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Path=\/$/, 'host-only (no Domain), not Secure over http');
  return { previewId, label: url.hostname.split('.')[0]!, host: url.host, origin: url.origin, session: cookiePairs(enter)[0]! };
}

/** A WebSocket handshake to the relay: the socket once open, or the HTTP status it was refused with. */
function connectSocket(port: number, path: string, headers: Record<string, string>, protocols: string[] = []): Promise<{ socket: WebSocket } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, protocols, { headers: { Host: `127.0.0.1:${port}`, ...headers } });
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      socket.on('error', () => {});
    });
    socket.once('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

/** Read a download of a preview slowly (a couple of pieces, then a millisecond's pause): its hash and length. */
function slowDownload(port: number, path: string, preview: Preview): Promise<{ sha256: string; length: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: preview.host, cookie: preview.session }, agent: false }, (res) => {
      const hash = createHash('sha256');
      let length = 0;
      let ended = false;
      res.on('error', reject);
      const read = (): void => {
        let chunk: Buffer | null;
        let pieces = 0;
        while (pieces++ < 2 && (chunk = res.read() as Buffer | null) !== null) {
          hash.update(chunk);
          length += chunk.length;
        }
        if (!ended) setTimeout(read, 1);
      };
      res.once('end', () => {
        ended = true;
        resolve({ sha256: hash.digest('hex'), length });
      });
      res.once('readable', read);
    });
    req.on('error', reject);
    req.end();
  });
}

function bigSha256(): string {
  const expected = createHash('sha256');
  for (let index = 0; index < bigBlocks; index++) expected.update(bigBlock(index));
  return expected.digest('hex');
}

function nextMessage(socket: WebSocket): Promise<{ data: Buffer; isBinary: boolean }> {
  return new Promise((resolve) => socket.once('message', (data, isBinary) => resolve({ data: data as Buffer, isBinary })));
}

function closed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

// --- the tests -----------------------------------------------------------------------------------

const smallLimits = { openTimeoutMs: 1_500, maxStreamsPerPreview: 4, maxRequestBodyBytes: 1024 * 1024, streamIdleTimeoutMs: 2_500 };

describe('dev-server previews through the relay', () => {
  let relay: TestRelay;
  let dev: DevServer;
  let daemon: PreviewDaemon;
  let cookie: string;
  let origin: string;

  before(async () => {
    dev = await startDevServer();
    relay = await startTestRelay({ machines: ['m1', 'm2'], server: { preview: smallLimits } });
    origin = `http://127.0.0.1:${relay.port}`;
    cookie = await signIn(relay, 'm1');
  });

  after(async () => {
    await relay.close();
    await dev.close();
  });

  const connectDaemon = async (options: Parameters<typeof PreviewDaemon.connect>[2] = {}) => {
    daemon = await PreviewDaemon.connect(relay, 'm1', options);
    daemon.announce('t1', [dev.port]);
    // The announcement has reached the relay once the open endpoint knows the pane (port 1 is never announced: no frame is sent).
    await pollUntil(async () => /has no server on port 1\b/.test((await http(relay.port, '/m/m1/preview/open?terminalId=t1&port=1', { headers: { cookie } })).text), { what: 'the announcement at the relay' });
    return daemon;
  };

  const open = async (terminalId = 't1', port = dev.port, headers: Record<string, string> = { cookie }) => http(relay.port, `/m/m1/preview/open?terminalId=${terminalId}&port=${port}`, { headers });

  /** The preview id the relay asked the daemon to open last (previews are reused per port). */
  const lastPreviewId = (of: PreviewDaemon = daemon) => of.received.filter((frame) => frame.type === 'previewOpen').at(-1)!.previewId;

  const openPreview = async (): Promise<Preview> => enterPreview(relay.port, await open(), lastPreviewId());

  /** A request on the preview's origin, with its session cookie unless the headers say otherwise. */
  const pv = (preview: Preview, path: string, options: Parameters<typeof http>[2] = {}) => http(relay.port, path, { ...options, headers: { Host: preview.host, cookie: preview.session, ...options.headers } });

  /** A WebSocket from a page of the preview's origin (its Origin and session cookie unless the headers say otherwise). */
  const socketTo = (preview: Preview, path: string, protocols: string[] = [], headers: Record<string, string> = {}) =>
    connectSocket(relay.port, path, { Host: preview.host, cookie: preview.session, origin: preview.origin, ...headers }, protocols);

  afterEach(async () => {
    await daemon?.close();
    // Every preview of the machine ended with its daemon.
    await pollUntil(() => (relay.server.stats.m1?.previews.open ?? 0) === 0, { what: 'previews ended' });
  });

  describe('opening', () => {
    it("answers 303 to the preview's own origin for an announced port, reuses an open preview, and says 404 for a port not announced", async () => {
      await connectDaemon();
      const first = await open();
      const firstUrl = enterUrlOf(first, relay.port);
      assert.equal(first.headers['set-cookie'], undefined, 'the relay sets no cookie of its own for a preview');
      const request = await daemon.waitFor('previewOpen');
      assert.equal(request.targetHost, '127.0.0.1');
      assert.equal(request.targetPort, dev.port);
      assert.equal(request.machineId, 'm1');
      assert.equal(request.sessionId, 'switchboard:m1');
      assert.equal(request.channelId, `preview:${request.previewId}`);
      const lifetime = Date.parse(request.expiresAt) - Date.now();
      assert.ok(lifetime > RelayConstants.previewLifetimeMs - 60_000 && lifetime <= RelayConstants.previewLifetimeMs, `expiresAt ${request.expiresAt}`);
      assert.ok(!firstUrl.hostname.includes(request.previewId.toLowerCase().slice(3)), 'the label is no form of the preview id');

      const second = await open();
      const secondUrl = enterUrlOf(second, relay.port);
      assert.equal(secondUrl.host, firstUrl.host, 'the open preview (and its origin) is reused');
      assert.notEqual(secondUrl.searchParams.get('ticket'), firstUrl.searchParams.get('ticket'), 'a fresh ticket every time');
      assert.equal(daemon.received.filter((frame) => frame.type === 'previewOpen').length, 1);

      const otherPort = await open('t1', dev.port + 1 === 65_536 ? 1 : dev.port + 1);
      assert.equal(otherPort.status, 404);
      assert.match(otherPort.headers['content-type'] as string, /^text\/html/);
      assert.match(otherPort.text, /has no server on port/);
      const otherTerminal = await open('t9');
      assert.equal(otherTerminal.status, 404);
      assert.match(otherTerminal.text, /shares no terminal t9/);
    });

    it('answers 400 naming the field for a malformed link, and asks the daemon nothing', async () => {
      await connectDaemon();
      const bad = async (query: string) => http(relay.port, `/m/m1/preview/open${query}`, { headers: { cookie } });
      for (const [query, field] of [
        ['?port=3000', /terminalId/],
        ['?terminalId=t1', /port/],
        ['?terminalId=t1&port=0', /port/],
        ['?terminalId=t1&port=65536', /port/],
        ['?terminalId=t1&port=3e3', /port: a port number/],
        ['?terminalId=t1&port=-80', /port/],
        [`?terminalId=${'x'.repeat(257)}&port=3000`, /terminalId/],
      ] as const) {
        const answer = await bad(query);
        assert.equal(answer.status, 400, query);
        assert.match(answer.text, /Bad preview link/, query);
        assert.match(answer.text, field, query);
      }
      assert.equal(daemon.received.filter((frame) => frame.type === 'previewOpen').length, 0);
    });

    it("shows the daemon's refusal (status and message) in a readable page", async () => {
      await connectDaemon();
      daemon.onOpen = (frame) => ({ requestId: frame.requestId, previewId: frame.previewId, ok: false, errorCode: 'port_not_shared', message: `no shared pane listens on ${frame.targetPort} <now>` });
      const reply = await open();
      assert.equal(reply.status, 404);
      assert.match(reply.headers['content-type'] as string, /^text\/html/);
      assert.match(reply.text, /port_not_shared/);
      assert.match(reply.text, /no shared pane listens on \d+ &lt;now&gt;/, 'the message is there, escaped');
      daemon.onOpen = (frame) => ({ requestId: frame.requestId, previewId: frame.previewId, ok: false, errorCode: 'target_not_loopback', message: 'no' });
      assert.equal((await open()).status, 403);
    });

    it('answers 504 when the daemon does not answer in time, and refuses its late answer', async () => {
      await connectDaemon();
      daemon.onOpen = () => undefined;
      const started = Date.now();
      const reply = await open();
      assert.equal(reply.status, 504);
      assert.ok(Date.now() - started >= smallLimits.openTimeoutMs - 50);
      assert.match(reply.text, /did not open the preview within/);
      const request = await daemon.waitFor('previewOpen');
      const close = await daemon.waitFor('previewClose', (frame) => frame.previewId === request.previewId);
      assert.equal(close.reason, 'open timed out');
      const refusedBefore = relay.server.refusals.get('preview:unknown-request') ?? 0;
      daemon.send('previewOpenResult', { requestId: request.requestId, previewId: request.previewId, ok: true });
      await pollUntil(() => (relay.server.refusals.get('preview:unknown-request') ?? 0) > refusedBefore, { what: 'the late answer refused' });
    });

    it("refuses a browser without the machine's cookie (401 page) and another machine's cookie", async () => {
      await connectDaemon();
      const none = await open('t1', dev.port, {});
      assert.equal(none.status, 401);
      assert.match(none.text, /Open its viewer link/);
      const m2Cookie = await signIn(relay, 'm2');
      const other = await open('t1', dev.port, { cookie: m2Cookie });
      assert.equal(other.status, 401);
      const bearer = await open('t1', dev.port, { Authorization: `Bearer ${relay.tokens.get('m1')!.viewerToken}` });
      assert.equal(bearer.status, 303, 'the viewer token as a bearer works too');
      const forbiddenHost = await http(relay.port, `/m/m1/preview/open?terminalId=t1&port=${dev.port}`, { headers: { cookie, Host: 'evil.example' } });
      assert.equal(forbiddenHost.status, 403);
      assert.equal(daemon.received.filter((frame) => frame.type === 'previewOpen').length, 1, 'only the bearer open reached the daemon');
    });

    it('says the machine is offline, or that it does not offer previews', async () => {
      const offline = await open();
      assert.equal(offline.status, 502);
      assert.match(offline.text, /m1 is offline/);
      daemon = await PreviewDaemon.connect(relay, 'm1', { previewTunnel: false });
      daemon.announce('t1', [dev.port]);
      await pollUntil(async () => (await open()).status === 501, { what: '501 from a daemon without previewTunnel' });
      assert.equal(daemon.received.filter((frame) => frame.type === 'previewOpen').length, 0);
    });
  });

  describe('serving', () => {
    it("serves the HTML, its relative and root-absolute scripts and its image on the preview's own origin; no relay CSP, no relay cookie", async () => {
      await connectDaemon();
      const preview = await openPreview();
      const page = await pv(preview, '/');
      assert.equal(page.status, 200);
      assert.match(page.text, /<script type="module" src="\/@vite\/client">/);
      assert.equal(page.headers['content-security-policy'], undefined, "the remote view's CSP would block the dev page's scripts");
      assert.equal(page.headers['x-frame-options'], undefined);
      assert.equal(page.headers['x-content-type-options'], undefined, 'only when the dev server sends it');
      assert.deepEqual(cookiePairs(page), ['devsession=abc'], "the dev server's cookie is passed on, and the relay sets none");

      const relative = await pv(preview, '/app.js');
      assert.equal(relative.text, 'console.log("relative script")');
      const rootScript = await pv(preview, '/@vite/client');
      assert.equal(rootScript.status, 200);
      assert.equal(rootScript.text, 'console.log("root-absolute script")');
      const image = await pv(preview, '/logo.png');
      assert.equal(image.headers['content-type'], 'image/png');
      assert.equal(image.headers['x-content-type-options'], 'nosniff');
      assert.ok(image.body.equals(logo), 'the image bytes are intact');

      // The dev server owns every path of its origin: none of the relay's routes answers on a preview host.
      for (const path of ['/healthz', '/m/m1/', `/m/m1/?token=${relay.tokens.get('m1')!.viewerToken}`, `/m/m1/preview/open?terminalId=t1&port=${dev.port}`, '/login']) {
        const reply = await pv(preview, path, { headers: { cookie: `${preview.session}; ${cookie}` } });
        assert.equal(reply.status, 404, path);
        assert.equal(reply.text, `dev server: no ${new URL(path, 'http://x').pathname}`, path);
        assert.equal(reply.headers['set-cookie'], undefined, `${path}: no viewer cookie set on a preview host`);
      }
      const viewerSocket = await connectSocket(relay.port, '/ws/ui?machineId=m1', { Host: preview.host, cookie: `${preview.session}; ${cookie}`, origin: preview.origin });
      assert.ok('socket' in viewerSocket, JSON.stringify(viewerSocket));
      assert.equal((await daemon.waitFor('previewWebSocketOpen')).path, '/ws/ui?machineId=m1', "the dev server's socket, not the relay's viewer socket");
      viewerSocket.socket.close();
      assert.equal(relay.server.stats.m1!.viewers, 0, 'no viewer joined the machine');

      // The relay's origin serves no preview: the old addresses say where previews went.
      for (const path of [`/m/m1/preview/${preview.previewId}/`, `/m/m1/preview/${preview.previewId}`, '/m/m1/preview/']) {
        const old = await http(relay.port, path, { headers: { cookie } });
        assert.equal(old.status, 404, path);
        assert.match(old.text, /served from an address of their own/);
      }
      const oldSocket = await connectSocket(relay.port, `/m/m1/preview/${preview.previewId}/hmr`, { cookie, origin });
      assert.ok('status' in oldSocket && oldSocket.status === 404, JSON.stringify(oldSocket));
      // A root path of the relay with a viewer cookie is the relay's (there is no root-path fallback any more).
      assert.equal((await http(relay.port, '/@vite/client', { headers: { cookie: `${cookie}; sb_preview=m1.${preview.previewId}` } })).status, 404);
    });

    it("lets in only a browser that entered this preview: no session cookie 401, another preview's 401, a ticket works once, unknown labels 404", async () => {
      const dev2 = await startDevServer();
      try {
        await connectDaemon();
        daemon.announce('t1', [dev.port, dev2.port]);
        const preview = await openPreview();
        const other = await enterPreview(relay.port, await open('t1', dev2.port), lastPreviewId());
        assert.notEqual(other.host, preview.host, 'each preview has an origin of its own');
        assert.notEqual(other.session, preview.session);
        assert.match((await pv(other, '/app.js')).text, /relative script/);

        const without = await pv(preview, '/', { headers: { cookie: 'devsession=abc' } });
        assert.equal(without.status, 401);
        assert.match(without.text, /Open the preview again from the remote view/);
        assert.equal((await pv(preview, '/', { headers: { cookie } })).status, 401, "the relay's viewer cookie is no way in");
        assert.equal((await pv(preview, '/', { headers: { cookie: other.session } })).status, 401, "another preview's session cookie");
        assert.equal((await pv(other, '/', { headers: { cookie: preview.session } })).status, 401);
        assert.equal((await pv(preview, '/', { headers: { cookie: 'sb_preview_session=' } })).status, 401);
        const noSocket = await connectSocket(relay.port, '/hmr', { Host: preview.host, origin: preview.origin, cookie: other.session });
        assert.ok('status' in noSocket && noSocket.status === 401, JSON.stringify(noSocket));
        const framesBefore = daemon.requests().length;

        // A ticket works once: a second use (without the session) is refused, and so is another preview's ticket.
        const opened = await open();
        const url = enterUrlOf(opened, relay.port);
        const first = await http(relay.port, url.pathname + url.search, { headers: { Host: url.host } });
        assert.equal(first.status, 303);
        assert.equal(first.headers.location, '/');
        const again = await http(relay.port, url.pathname + url.search, { headers: { Host: url.host } });
        assert.equal(again.status, 401);
        assert.match(again.text, /Open the preview again from the remote view/);
        assert.equal(again.headers['set-cookie'], undefined);
        const reload = await http(relay.port, url.pathname + url.search, { headers: { Host: url.host, cookie: preview.session } });
        assert.deepEqual([reload.status, reload.headers.location, reload.headers['set-cookie']], [303, '/', undefined], 'a browser that entered already just goes on');
        const misdirected = enterUrlOf(await open(), relay.port);
        const wrongHost = await http(relay.port, misdirected.pathname + misdirected.search, { headers: { Host: other.host } });
        assert.equal(wrongHost.status, 401, "a ticket of one preview does not open another");
        assert.equal((await http(relay.port, misdirected.pathname + misdirected.search, { headers: { Host: misdirected.host } })).status, 401, 'and it was spent trying');
        assert.equal((await http(relay.port, '/__switchboard/enter?ticket=' + 'A'.repeat(43), { headers: { Host: preview.host } })).status, 401);
        assert.equal((await http(relay.port, '/__switchboard/enter', { headers: { Host: preview.host } })).status, 401);
        assert.ok((relay.server.refusals.get('preview:ticket') ?? 0) >= 4);

        // Names under .localhost that are no open preview: 404, and never the relay's own pages.
        for (const host of [`pv${'a'.repeat(26)}.localhost:${relay.port}`, `www.localhost:${relay.port}`, `${preview.label}.localhost:${relay.port + 1}`]) {
          const reply = await http(relay.port, '/m/m1/', { headers: { Host: host, cookie: `${preview.session}; ${cookie}` } });
          assert.equal(reply.status, 404, host);
          assert.match(reply.text, /No such preview/, host);
        }
        assert.equal(daemon.requests().length, framesBefore, 'nothing refused reached the daemon');
      } finally {
        await dev2.close();
      }
    });

    it("keeps the browser's cookies of the relay away from the dev server, and a dev server's cookie to the preview's host (Domain dropped)", async () => {
      await connectDaemon();
      const preview = await openPreview();
      const echoed = await pv(preview, '/echo-headers', { headers: { cookie: `${preview.session}; ${cookie}; theirs=1; sb_preview=m1.x` } });
      assert.equal((JSON.parse(echoed.text) as { headers: Record<string, string> }).headers.cookie, 'theirs=1');
      const set = await pv(preview, '/set-cookies');
      assert.deepEqual([set.headers['set-cookie']].flat(), ['x=1', 'y=2; Path=/; HttpOnly', 'z=3; Path=/']);
    });

    it('refuses previews on a relay with --public-url and no --preview-domain (501 page), and serves them on <label>.<preview domain> with one', async () => {
      const publicRelay = await startTestRelay({ machines: ['m1'], server: { publicUrl: new URL('https://relay.example.com') } });
      let m1: PreviewDaemon | undefined;
      try {
        assert.equal(publicRelay.server.address!.previewOrigins, null);
        m1 = await PreviewDaemon.connect(publicRelay, 'm1');
        m1.announce('t1', [dev.port]);
        const signedIn = await http(publicRelay.port, `/m/m1/?token=${publicRelay.tokens.get('m1')!.viewerToken}`, { headers: { Host: 'relay.example.com' } });
        const publicCookie = cookiePairs(signedIn)[0]!;
        assert.match(publicCookie, /^__Host-sb_viewer_m1=/);
        const reply = await pollUntil(async () => {
          const answer = await http(publicRelay.port, `/m/m1/preview/open?terminalId=t1&port=${dev.port}`, { headers: { Host: 'relay.example.com', cookie: publicCookie } });
          return answer.status === 404 ? undefined : answer; // until the announcement is there
        }, { what: 'an answer to the open' });
        assert.equal(reply.status, 501);
        assert.match(reply.headers['content-type'] as string, /^text\/html/);
        assert.match(reply.text, /Previews need --preview-domain/);
        assert.match(reply.text, /Start the relay with --preview-domain &lt;domain&gt;/);
        assert.match(reply.text, /act as the remote view/);
        assert.equal(m1.received.filter((frame) => frame.type === 'previewOpen').length, 0, 'the daemon never heard of it');
        // A *.localhost Host is nothing special on such a relay: the relay's Host rule refuses it.
        assert.equal((await http(publicRelay.port, '/m/m1/', { headers: { Host: `pv${'a'.repeat(26)}.localhost:${publicRelay.port}`, cookie: publicCookie } })).status, 403);
      } finally {
        await m1?.close();
        await publicRelay.close();
      }

      const domainRelay = await startTestRelay({ machines: ['m1'], server: { publicUrl: new URL('https://relay.example.com'), previewDomain: 'preview.example.com' } });
      try {
        assert.equal(domainRelay.server.address!.previewOrigins, 'https://<label>.preview.example.com');
        m1 = await PreviewDaemon.connect(domainRelay, 'm1');
        m1.announce('t1', [dev.port]);
        const signedIn = await http(domainRelay.port, `/m/m1/?token=${domainRelay.tokens.get('m1')!.viewerToken}`, { headers: { Host: 'relay.example.com' } });
        const publicCookie = cookiePairs(signedIn)[0]!;
        const opened = await pollUntil(async () => {
          const answer = await http(domainRelay.port, `/m/m1/preview/open?terminalId=t1&port=${dev.port}`, { headers: { Host: 'relay.example.com', cookie: publicCookie } });
          return answer.status === 303 ? answer : undefined;
        }, { what: 'the preview open' });
        const url = new URL(String(opened.headers.location));
        assert.equal(url.protocol, 'https:');
        assert.match(url.host, /^pv[a-z0-9]{26}\.preview\.example\.com$/, 'no port: the public URL has none');
        const enter = await http(domainRelay.port, url.pathname + url.search, { headers: { Host: url.host } });
        assert.equal(enter.status, 303);
        assert.match(String([enter.headers['set-cookie']].flat()[0]), /^sb_preview_session=[^;]+; HttpOnly; SameSite=Lax; Path=\/; Secure$/);
        const page = await http(domainRelay.port, '/echo-headers', { headers: { Host: url.host, cookie: cookiePairs(enter)[0]!, origin: url.origin } });
        const headers = (JSON.parse(page.text) as { headers: Record<string, string> }).headers;
        assert.deepEqual([headers.host, headers.origin, headers['x-forwarded-host'], headers['x-forwarded-proto']], [`localhost:${dev.port}`, `http://localhost:${dev.port}`, url.host, 'https']);
      } finally {
        await m1?.close();
        await domainRelay.close();
      }
    });

    it('passes a POST body of several chunks intact (hash), and the viewer window holds', async () => {
      await connectDaemon();
      const preview = await openPreview();
      const body = Buffer.alloc(700 * 1024);
      for (let index = 0; index < body.length; index++) body[index] = (index * 31 + 7) % 256;
      const reply = await pv(preview, `/upload`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });
      assert.equal(reply.status, 200, reply.text);
      const answer = JSON.parse(reply.text) as { sha256: string; length: number; method: string };
      assert.deepEqual(answer, { sha256: createHash('sha256').update(body).digest('hex'), length: body.length, method: 'POST' });
      const request = daemon.requests().find((frame) => frame.path === '/upload')!;
      const chunks = daemon.received.filter((frame) => frame.type === 'previewStreamChunk' && frame.streamId === request.streamId);
      assert.ok(chunks.length >= 4, `${chunks.length} chunks`);
      assert.deepEqual(chunks.map((frame) => (frame.type === 'previewStreamChunk' ? frame.sequence : 0)), chunks.map((_, index) => index + 1));
      // A GET sends one empty final chunk.
      await pv(preview, `/app.js`);
      const get = daemon.requests().find((frame) => frame.path === '/app.js')!;
      const getChunks = daemon.received.filter((frame) => frame.type === 'previewStreamChunk' && frame.streamId === get.streamId);
      assert.deepEqual(getChunks.map((frame) => frame.type === 'previewStreamChunk' && [frame.sequence, frame.bodyBase64, frame.final]), [[1, '', true]]);
    });

    it('with a daemon that offered previewBinaryBodies: bodies go as binary frames both ways, the same bytes; a malformed one is refused and the daemon stays; without the offer they stay refused', async () => {
      await connectDaemon({ binaryBodies: true });
      assert.ok(daemon.welcome?.type === 'welcome' && daemon.welcome.previewBinaryBodies === true, 'the relay agrees in welcome');
      const preview = await openPreview();
      const body = Buffer.alloc(300 * 1024);
      for (let index = 0; index < body.length; index++) body[index] = (index * 13 + 1) % 256;
      const reply = await pv(preview, `/upload`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });
      assert.deepEqual(JSON.parse(reply.text), { sha256: createHash('sha256').update(body).digest('hex'), length: body.length, method: 'POST' });
      const upload = daemon.requests().find((frame) => frame.path === '/upload')!;
      const uploadChunks = daemon.received.filter((frame) => frame.type === 'previewStreamChunk' && frame.streamId === upload.streamId);
      assert.ok(uploadChunks.length >= 2 && uploadChunks.every((frame) => 'body' in frame), 'every request chunk came as a binary frame');
      // Response chunks (the daemon's side, binary) reach the viewer as the dev server wrote them.
      assert.equal((await pv(preview, '/app.js')).text, 'console.log("relative script")');
      // WebSocket messages, text and binary, both ways.
      const opened = await socketTo(preview, '/hmr', ['vite-hmr']);
      assert.ok('socket' in opened, JSON.stringify(opened));
      opened.socket.send('hot ✓');
      assert.deepEqual(await nextMessage(opened.socket).then((message) => [message.data.toString(), message.isBinary]), ['hot ✓', false]);
      opened.socket.send(Buffer.from([1, 0, 255]));
      const echoed = await nextMessage(opened.socket);
      assert.ok(echoed.isBinary && echoed.data.equals(Buffer.from([1, 0, 255])));
      assert.ok(daemon.binaryFramesReceived >= uploadChunks.length + 2);

      // Malformed binary frames: each refused with its kind, the daemon stays online.
      const count = (kind: string) => relay.server.refusals.get(kind) ?? 0;
      const before = ['daemon:binary-short', 'daemon:binary-header', 'daemon:binary-type', 'daemon:binary-body'].map(count);
      daemon.sendBytes(Buffer.from([0, 0, 0]));
      daemon.sendBytes(Buffer.from([0, 0, 0, 200, 123, 125]));
      daemon.sendBytes(layOutBodyFrame({ type: 'previewClose', previewId: preview.previewId, reason: 'smuggled' }, Buffer.alloc(0)));
      const withBase64 = Buffer.from(JSON.stringify({ type: 'previewStreamChunk', streamId: 'x', sequence: 1, final: true, bodyBase64: 'eA==' }));
      daemon.sendBytes(Buffer.concat([Buffer.from([0, 0, 0, withBase64.length]), withBase64]));
      await pollUntil(() => ['daemon:binary-short', 'daemon:binary-header', 'daemon:binary-type', 'daemon:binary-body'].every((kind, index) => count(kind) === before[index]! + 1), { what: 'four refusals' });
      assert.equal((await pv(preview, '/app.js')).status, 200, 'the preview is still open: the smuggled previewClose was refused');

      // A daemon that did not offer it: no agreement in welcome, and its binary frames are refused.
      await daemon.close();
      await pollUntil(() => (relay.server.stats.m1?.previews.open ?? 0) === 0, { what: 'previews ended' });
      await connectDaemon();
      assert.ok(daemon.welcome?.type === 'welcome' && daemon.welcome.previewBinaryBodies === undefined);
      const refusedBinary = count('daemon:binary');
      daemon.sendBytes(layOutBodyFrame({ type: 'previewStreamChunk', streamId: 'x', sequence: 1, final: true }, Buffer.from('x')));
      await pollUntil(() => count('daemon:binary') === refusedBinary + 1, { what: 'the binary frame refused' });
    });

    it("pauses the viewer's upload while the daemon's window is full", async () => {
      const windowBytes = 64 * 1024;
      await connectDaemon({ windowBytes, ackDelayMs: 15 });
      const preview = await openPreview();
      const body = Buffer.alloc(900 * 1024, 7);
      const reply = await pv(preview, `/upload`, { method: 'POST', body });
      assert.equal((JSON.parse(reply.text) as { length: number }).length, body.length);
      // At most the window plus what one read of the viewer's socket brought (≤ a chunk) was in flight unacknowledged.
      assert.ok(daemon.maxRelayUnackedBytes <= windowBytes + RelayConstants.previewChunkBytes, `the relay had ${daemon.maxRelayUnackedBytes} bytes unacknowledged with a ${windowBytes}-byte window`);
      assert.ok(daemon.maxRelayUnackedBytes >= windowBytes / 2, 'the window was used');
    });

    it("keeps to the daemon's previewChunkBytes: request chunks cut to it, a larger viewer message closed 1009, a larger chunk refused", async () => {
      const chunkBytes = 64 * 1024;
      await connectDaemon({ chunkBytes });
      const preview = await openPreview();
      const body = Buffer.alloc(300 * 1024, 9);
      const reply = await pv(preview, `/upload`, { method: 'POST', body });
      assert.equal((JSON.parse(reply.text) as { length: number }).length, body.length);
      assert.ok(daemon.maxRelayChunkBytes > 0 && daemon.maxRelayChunkBytes <= chunkBytes, `the relay sent a ${daemon.maxRelayChunkBytes}-byte chunk`);
      // Downloads in the daemon's chunks arrive whole.
      assert.ok((await pv(preview, `/logo.png`)).body.equals(logo));

      const result = await socketTo(preview, '/hmr', ['vite-hmr']);
      assert.ok('socket' in result);
      const socketClosed = closed(result.socket);
      result.socket.send(Buffer.alloc(chunkBytes + 1));
      assert.equal((await socketClosed).code, 1009);
      const open = await daemon.waitFor('previewWebSocketOpen');
      assert.equal((await daemon.waitFor('previewWebSocketClose', (frame) => frame.streamId === open.streamId)).code, 1009);

      daemon.interceptHttp = (frame) => {
        if (frame.path !== '/too-big-chunk') return false;
        daemon.send('previewHttpResponseHead', { requestId: frame.requestId, streamId: frame.streamId, previewId: frame.previewId, statusCode: 200 });
        daemon.send('previewStreamChunk', { streamId: frame.streamId, sequence: 1, bodyBase64: Buffer.alloc(chunkBytes + 1).toString('base64'), final: true });
        return true;
      };
      const badChunk = relay.server.refusals.get('preview:bad-chunk') ?? 0;
      await assert.rejects(pv(preview, `/too-big-chunk`), /aborted|socket hang up|ECONNRESET/);
      assert.equal(relay.server.refusals.get('preview:bad-chunk'), badChunk + 1);
    });

    it('streams a 50 MB download to a slow viewer with bounded relay memory', async () => {
      await connectDaemon();
      const preview = await openPreview();
      globalThis.gc?.();
      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      let bufferedPeak = 0;
      const sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
        bufferedPeak = Math.max(bufferedPeak, relay.server.stats.m1!.previews.bufferedBytes);
      }, 20);
      const started = Date.now();
      const result = await slowDownload(relay.port, '/big', preview);
      clearInterval(sampler);
      const seconds = (Date.now() - started) / 1000;
      assert.equal(result.length, bigBlocks * 64 * 1024);
      assert.equal(result.sha256, bigSha256());
      const stats = relay.server.stats.m1!.previews;
      const window = RelayConstants.previewStreamBufferBytes;
      const bound = window + RelayConstants.previewChunkBytes;
      console.log(
        `50 MiB to a slow viewer in ${seconds.toFixed(2)} s (${(50 / seconds).toFixed(1)} MiB/s); relay held at most ${stats.maxStreamBufferedBytes} bytes for it (sampled ${bufferedPeak}); ` +
          `daemon's unacked peak ${daemon.maxUnackedBytes}; RSS growth ${((rssPeak - rssBefore) / 1048576).toFixed(1)} MiB`,
      );
      assert.ok(stats.maxStreamBufferedBytes <= bound, `the relay held ${stats.maxStreamBufferedBytes} bytes for one viewer, more than window + a chunk (${bound})`);
      assert.ok(daemon.maxUnackedBytes <= window + RelayConstants.previewChunkBytes, 'the daemon kept to the window');
      // RSS of this process (relay, daemon, dev server and viewer together) is only logged; the relay's own is measured in a process of its own below.
    });

    it('rewrites Host, Origin and Referer as the dev server expects, drops the relay cookies and bearer, adds X-Forwarded-*', async () => {
      await connectDaemon();
      const preview = await openPreview();
      const reply = await pv(preview, '/echo-headers?q=1', {
        headers: { cookie: `${cookie}; theirs=1; ${preview.session}`, origin: preview.origin, referer: `${preview.origin}/page?x=2`, 'x-forwarded-host': 'spoofed', 'x-forwarded-prefix': '/spoofed', connection: 'keep-alive, x-hop', 'x-hop': 'gone' },
      });
      const { headers, url } = JSON.parse(reply.text) as { headers: Record<string, string>; url: string };
      assert.equal(url, '/echo-headers?q=1');
      assert.equal(headers.host, `localhost:${dev.port}`);
      assert.equal(headers.origin, `http://localhost:${dev.port}`);
      assert.equal(headers.referer, `http://localhost:${dev.port}/page?x=2`);
      assert.equal(headers.cookie, 'theirs=1', "the relay's cookies are not passed on");
      assert.equal(headers['x-forwarded-host'], preview.host);
      assert.equal(headers['x-forwarded-proto'], 'http');
      assert.equal(headers['x-forwarded-prefix'], undefined, 'the dev server owns / of its origin: no prefix');
      assert.equal(headers['x-hop'], undefined, 'headers named in Connection are hop-by-hop');
      const bearer = await pv(preview, '/echo-headers', { headers: { Authorization: `Bearer ${relay.tokens.get('m1')!.viewerToken}` } });
      assert.equal((JSON.parse(bearer.text) as { headers: Record<string, string> }).headers.authorization, undefined, 'the viewer token never reaches the dev server');
      const own = await pv(preview, '/echo-headers', { headers: { Authorization: 'Bearer the-dev-servers-own' } });
      assert.equal((JSON.parse(own.text) as { headers: Record<string, string> }).headers.authorization, 'Bearer the-dev-servers-own', "the page's own Authorization passes (the session cookie lets the viewer in)");
      const relayOrigin = await pv(preview, '/echo-headers', { headers: { origin, referer: `${origin}/m/m1/` } });
      const relayHeaders = (JSON.parse(relayOrigin.text) as { headers: Record<string, string> }).headers;
      assert.deepEqual([relayHeaders.origin, relayHeaders.referer], [origin, `${origin}/m/m1/`], "the relay's origin is another site's to the dev server");
    });

    it("moves a redirect to localhost:<port> to the preview's origin; a root-absolute one stays", async () => {
      await connectDaemon();
      const preview = await openPreview();
      const reply = await pv(preview, '/redirect');
      assert.equal(reply.status, 302);
      assert.equal(reply.headers.location, `${preview.origin}/landing?x=1`);
    });
  });

  describe('WebSockets', () => {
    it('carries the chosen sub-protocol, text and binary both ways, and a close either way', async () => {
      await connectDaemon();
      const preview = await openPreview();
      const result = await socketTo(preview, '/hmr?token=x', ['vite-hmr', 'other'], { cookie: `${preview.session}; ${cookie}` });
      assert.ok('socket' in result, JSON.stringify(result));
      const socket = result.socket;
      assert.equal(socket.protocol, 'vite-hmr');
      const seen = dev.seenSocketHeaders.at(-1)!;
      assert.equal(seen.origin, `http://localhost:${dev.port}`);
      assert.equal(seen.cookie, undefined);
      socket.send('hello');
      const text = await nextMessage(socket);
      assert.deepEqual([text.data.toString(), text.isBinary], ['hello', false]);
      const bytes = Buffer.from([0, 1, 2, 250, 255]);
      socket.send(bytes);
      const binary = await nextMessage(socket);
      assert.ok(binary.isBinary && binary.data.equals(bytes));
      // The dev server closes.
      const closing = closed(socket);
      socket.send('close-me');
      assert.deepEqual(await closing, { code: 4001, reason: 'bye' });

      // The viewer closes (a socket to /, as Vite's HMR client opens it).
      const root = await socketTo(preview, '/?token=abc', ['vite-hmr']);
      assert.ok('socket' in root, JSON.stringify(root));
      root.socket.send('ping');
      assert.equal((await nextMessage(root.socket)).data.toString(), 'ping');
      const streamId = (await daemon.waitFor('previewWebSocketOpen', (frame) => frame.path === '/?token=abc')).streamId;
      root.socket.close(1000, 'done');
      const close = await daemon.waitFor('previewWebSocketClose', (frame) => frame.streamId === streamId);
      assert.deepEqual([close.code, close.reason], [1000, 'done']);
    });

    it("refuses an Origin other than the preview's own (another site, the relay's, another preview's), and a missing session cookie", async () => {
      await connectDaemon();
      const preview = await openPreview();
      for (const foreignOrigin of ['https://evil.example', origin, `http://pv${'b'.repeat(26)}.localhost:${relay.port}`]) {
        const foreign = await socketTo(preview, '/hmr', [], { origin: foreignOrigin });
        assert.ok('status' in foreign && foreign.status === 403, `${foreignOrigin}: ${JSON.stringify(foreign)}`);
      }
      const noCookie = await socketTo(preview, '/hmr', [], { cookie: cookie });
      assert.ok('status' in noCookie && noCookie.status === 401);
      // Not a WebSocket handshake (no key): refused before the daemon hears of it.
      const broken = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: relay.port, path: '/hmr', headers: { Host: preview.host, cookie: preview.session, origin: preview.origin, Connection: 'Upgrade', Upgrade: 'websocket' }, agent: false });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('upgrade', () => resolve(101));
        req.on('error', reject);
        req.end();
      });
      assert.equal(broken, 400);
      assert.equal(daemon.received.filter((frame) => frame.type === 'previewWebSocketOpen').length, 0);
    });

    it('refuses the handshake when the dev server does', async () => {
      await connectDaemon();
      const preview = await openPreview();
      (dev.webSockets.options as { verifyClient?: unknown }).verifyClient = (_info: unknown, done: (ok: boolean, status: number) => void) => done(false, 403);
      try {
        const refused = await socketTo(preview, '/hmr');
        assert.ok('status' in refused && refused.status === 502, JSON.stringify(refused));
        assert.match((refused as { body: string }).body, /upstream_refused: 403/);
      } finally {
        delete (dev.webSockets.options as { verifyClient?: unknown }).verifyClient;
      }
    });
  });

  describe('limits and bad input from the daemon', () => {
    /** A stream that is still in flight while a test sends bad frames: it must complete intact. */
    const inFlight = (preview: Preview) => pv(preview, '/slow');
    const expectedSlow = Array.from({ length: 10 }, (_, index) => `piece ${index}\n`).join('');
    const refusals = (kind: string) => relay.server.refusals.get(kind) ?? 0;

    it('refuses frames for unknown streams, out-of-order and duplicate sequences, a chunk after final, a head nobody asked for; only that stream ends', async () => {
      await connectDaemon();
      const preview = await openPreview();
      const slow = inFlight(preview);
      await daemon.waitFor('previewHttpRequest', (frame) => frame.path === '/slow');

      // An unknown stream id.
      const unknownBefore = refusals('preview:unknown-stream');
      daemon.send('previewStreamChunk', { streamId: 'st-999999', sequence: 1, bodyBase64: 'aGk=', final: false });
      const cancel = await daemon.waitFor('previewStreamCancel', (frame) => frame.streamId === 'st-999999');
      assert.equal(cancel.reason, 'unknown stream');
      // A response head for a stream that never asked.
      daemon.send('previewHttpResponseHead', { requestId: 'pr-x', streamId: 'st-424242', previewId: preview.previewId, statusCode: 200 });
      await daemon.waitFor('previewStreamCancel', (frame) => frame.streamId === 'st-424242');
      assert.equal(refusals('preview:unknown-stream'), unknownBefore + 2);

      // Out of order and duplicate: the daemon answers /bad-seq and /dup itself.
      daemon.interceptHttp = (frame) => {
        if (frame.path !== '/bad-seq' && frame.path !== '/dup' && frame.path !== '/after-final') return false;
        daemon.send('previewHttpResponseHead', { requestId: frame.requestId, streamId: frame.streamId, previewId: frame.previewId, statusCode: 200, headers: { 'content-type': ['text/plain'] } });
        daemon.send('previewStreamChunk', { streamId: frame.streamId, sequence: 1, bodyBase64: Buffer.from('one ').toString('base64'), final: frame.path === '/after-final' });
        if (frame.path === '/bad-seq') daemon.send('previewStreamChunk', { streamId: frame.streamId, sequence: 3, bodyBase64: Buffer.from('three').toString('base64'), final: true });
        if (frame.path === '/dup') daemon.send('previewStreamChunk', { streamId: frame.streamId, sequence: 1, bodyBase64: Buffer.from('one again').toString('base64'), final: true });
        if (frame.path === '/after-final') daemon.send('previewStreamChunk', { streamId: frame.streamId, sequence: 2, bodyBase64: Buffer.from('late').toString('base64'), final: true });
        return true;
      };
      const sequenceBefore = refusals('preview:sequence');
      await assert.rejects(pv(preview, `/bad-seq`), /aborted|socket hang up|ECONNRESET/, 'the viewer sees a cut response');
      const badSeq = daemon.requests().find((frame) => frame.path === '/bad-seq')!;
      assert.equal((await daemon.waitFor('previewStreamCancel', (frame) => frame.streamId === badSeq.streamId)).reason, 'sequence 3 after 1');
      await assert.rejects(pv(preview, `/dup`), /aborted|socket hang up|ECONNRESET/);
      const dup = daemon.requests().find((frame) => frame.path === '/dup')!;
      assert.equal((await daemon.waitFor('previewStreamCancel', (frame) => frame.streamId === dup.streamId)).reason, 'sequence 1 after 1');
      assert.equal(refusals('preview:sequence'), sequenceBefore + 2);

      // A chunk after final: the response was whole; the late chunk is refused and answered with a cancel.
      const afterBefore = refusals('preview:after-end');
      const whole = await pv(preview, `/after-final`);
      assert.equal(whole.text, 'one ');
      const afterFinal = daemon.requests().find((frame) => frame.path === '/after-final')!;
      assert.equal((await daemon.waitFor('previewStreamCancel', (frame) => frame.streamId === afterFinal.streamId)).reason, 'chunk after the stream ended');
      assert.equal(refusals('preview:after-end'), afterBefore + 1);

      const slowReply = await slow;
      assert.equal(slowReply.status, 200);
      assert.equal(slowReply.text, expectedSlow, 'the stream in flight completed intact');
    });

    it('refuses an open result for an unknown request and frames naming a preview of another machine', async () => {
      await connectDaemon();
      const preview = await openPreview();
      const slow = inFlight(preview);
      await daemon.waitFor('previewHttpRequest', (frame) => frame.path === '/slow');

      const before = refusals('preview:unknown-request');
      daemon.send('previewOpenResult', { requestId: 'po-nobody', previewId: 'pv-AAAAAAAAAAAAAAAAAAAAAAAA', ok: true });
      await pollUntil(() => refusals('preview:unknown-request') === before + 1, { what: 'unknown request refused' });

      // m2's preview, named by m1's daemon: not open on this machine.
      const m2 = await PreviewDaemon.connect(relay, 'm2');
      try {
        m2.announce('t2', [dev.port]);
        const m2Cookie = await signIn(relay, 'm2');
        const m2Open = await pollUntil(async () => {
          const reply = await http(relay.port, `/m/m2/preview/open?terminalId=t2&port=${dev.port}`, { headers: { cookie: m2Cookie } });
          return reply.status === 303 ? reply : undefined;
        }, { what: 'm2 preview' });
        const m2PreviewId = lastPreviewId(m2);
        const m2Preview = await enterPreview(relay.port, m2Open, m2PreviewId);
        const unknownPreview = refusals('preview:unknown-preview');
        daemon.send('previewClose', { previewId: m2PreviewId, reason: 'port_closed' });
        await pollUntil(() => refusals('preview:unknown-preview') === unknownPreview + 1, { what: "another machine's preview refused" });
        assert.equal((await pv(m2Preview, '/app.js')).status, 200, "m2's preview is untouched");
        assert.equal((await pv(m2Preview, '/app.js', { headers: { cookie: preview.session } })).status, 401, "m1's session is no way into m2's preview");

        // A response head on one of m1's streams that names m2's preview: refused, that stream ends with 502.
        daemon.interceptHttp = (frame) => {
          if (frame.path !== '/wrong-preview') return false;
          daemon.send('previewHttpResponseHead', { requestId: frame.requestId, streamId: frame.streamId, previewId: m2PreviewId, statusCode: 200 });
          return true;
        };
        const binding = refusals('preview:binding');
        const wrong = await pv(preview, `/wrong-preview`);
        assert.equal(wrong.status, 502);
        assert.match(wrong.text, /broke the preview protocol/);
        assert.equal(refusals('preview:binding'), binding + 1);
        const wrongStream = daemon.requests().find((frame) => frame.path === '/wrong-preview')!;
        await daemon.waitFor('previewStreamCancel', (frame) => frame.streamId === wrongStream.streamId);
      } finally {
        await m2.close();
      }
      assert.equal((await slow).text, expectedSlow);
      assert.equal((await pv(preview, `/app.js`)).status, 200, 'the preview still serves');
    });

    it('answers 503 past previewMaxStreamsPerPreview and 413 for a body over the cap (declared, or chunked mid-body)', async () => {
      await connectDaemon();
      const preview = await openPreview();
      const hanging = Array.from({ length: smallLimits.maxStreamsPerPreview }, () => pv(preview, `/hang`));
      await pollUntil(() => daemon.requests().filter((frame) => frame.path === '/hang').length === smallLimits.maxStreamsPerPreview, { what: 'hanging requests in flight' });
      const framesBefore = daemon.requests().length;
      const busy = await pv(preview, `/app.js`);
      assert.equal(busy.status, 503);
      assert.match(busy.text, /requests in flight/);
      assert.equal(daemon.requests().length, framesBefore, 'no frame for a refused request');
      // The hanging ones end with 504 (no response head in time) and each is cancelled at the daemon.
      for (const reply of await Promise.all(hanging)) assert.equal(reply.status, 504);
      await pollUntil(() => daemon.received.filter((frame) => frame.type === 'previewStreamCancel' && frame.reason === 'no response head in time').length >= smallLimits.maxStreamsPerPreview, { what: 'cancels' });

      const declared = await pv(preview, '/upload', { method: 'POST', headers: { 'content-length': String(smallLimits.maxRequestBodyBytes + 1) }, body: Buffer.alloc(smallLimits.maxRequestBodyBytes + 1) }).catch((error: Error) => error);
      if (!(declared instanceof Error)) assert.equal(declared.status, 413);
      assert.equal(daemon.requests().filter((frame) => frame.path === '/upload').length, 0, 'refused before any frame');

      const chunked = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: relay.port, method: 'POST', path: '/upload', headers: { Host: preview.host, cookie: preview.session, 'transfer-encoding': 'chunked' }, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        let sent = 0;
        const piece = Buffer.alloc(128 * 1024, 1);
        const write = (): void => {
          while (sent <= smallLimits.maxRequestBodyBytes * 2) {
            sent += piece.length;
            if (!req.write(piece)) {
              req.once('drain', write);
              return;
            }
          }
          req.end();
        };
        write();
      }).catch(() => 413);
      assert.equal(chunked, 413);
      const upload = daemon.requests().find((frame) => frame.path === '/upload')!;
      assert.equal((await daemon.waitFor('previewStreamCancel', (frame) => frame.streamId === upload.streamId)).reason, 'request body over the cap');
    });

    it('ends every preview when the daemon goes offline: responses end, sockets close 1001', async () => {
      await connectDaemon();
      const preview = await openPreview();
      const result = await socketTo(preview, '/hmr', ['vite-hmr']);
      assert.ok('socket' in result);
      const socketClosed = closed(result.socket);
      const hanging = pv(preview, `/hang`);
      const download = pv(preview, `/slow`).catch((error: Error) => error);
      await pollUntil(() => daemon.requests().some((frame) => frame.path === '/slow') && daemon.requests().some((frame) => frame.path === '/hang'), { what: 'requests in flight' });
      await pollUntil(() => daemon.streams.size >= 2, { what: 'upstream streams' });
      await daemon.close();
      assert.equal((await socketClosed).code, 1001);
      const hangingReply = await hanging;
      assert.equal(hangingReply.status, 502);
      assert.match(hangingReply.text, /went offline/);
      const cut = await download;
      assert.ok(cut instanceof Error || cut.text !== expectedSlow, 'the download in flight was cut');
      // The machine's room is gone with its last peer: the address is simply not open any more.
      const after = await pv(preview, `/app.js`);
      assert.equal(after.status, 404);
      assert.match(after.text, /not open on the relay/);
    });

    it('ends a preview the daemon closes: its streams end, later requests get 410 with the reason', async () => {
      await connectDaemon();
      const preview = await openPreview();
      const hanging = pv(preview, `/hang`);
      await daemon.waitFor('previewHttpRequest', (frame) => frame.path === '/hang');
      daemon.send('previewClose', { previewId: preview.previewId, reason: 'pane_exited' });
      const reply = await hanging;
      assert.equal(reply.status, 502);
      assert.match(reply.text, /preview was closed/);
      const later = await pv(preview, `/`);
      assert.equal(later.status, 410);
      assert.match(later.text, /the pane whose server it was exited \(pane_exited\)/);
      const unknown = await http(relay.port, '/', { headers: { Host: `pv${'b'.repeat(26)}.localhost:${relay.port}` } });
      assert.equal(unknown.status, 404);
      assert.match(unknown.text, /not open on the relay/);
      // Opening again makes a new preview, on an origin of its own.
      const again = await open();
      assert.notEqual(enterUrlOf(again, relay.port).host, preview.host);
    });

    it('ends a stream on which nothing moves for previewStreamIdleTimeoutMs (a dev server that hangs mid-body)', async () => {
      await connectDaemon();
      const preview = await openPreview();
      daemon.interceptHttp = (frame) => {
        if (frame.path !== '/stalls') return false;
        daemon.send('previewHttpResponseHead', { requestId: frame.requestId, streamId: frame.streamId, previewId: frame.previewId, statusCode: 200 });
        daemon.send('previewStreamChunk', { streamId: frame.streamId, sequence: 1, bodyBase64: Buffer.from('partial').toString('base64'), final: false });
        return true;
      };
      const started = Date.now();
      await assert.rejects(pv(preview, `/stalls`), /aborted|socket hang up|ECONNRESET/);
      assert.ok(Date.now() - started >= smallLimits.streamIdleTimeoutMs - 100, 'not before the idle timeout');
      const stalled = daemon.requests().find((frame) => frame.path === '/stalls')!;
      assert.equal((await daemon.waitFor('previewStreamCancel', (frame) => frame.streamId === stalled.streamId)).reason, 'idle timeout');
    });

    it('keeps a stream on which a byte moves more often than previewStreamIdleTimeoutMs, for longer than it in all', async () => {
      await connectDaemon();
      const preview = await openPreview();
      const pieces = 5;
      const every = Math.round(smallLimits.streamIdleTimeoutMs / 2);
      daemon.interceptHttp = (frame) => {
        if (frame.path !== '/drips') return false;
        daemon.send('previewHttpResponseHead', { requestId: frame.requestId, streamId: frame.streamId, previewId: frame.previewId, statusCode: 200 });
        for (let sequence = 1; sequence <= pieces; sequence++) {
          setTimeout(() => {
            const final = sequence === pieces;
            daemon.send('previewStreamChunk', { streamId: frame.streamId, sequence, bodyBase64: Buffer.from(final ? 'end' : '.').toString('base64'), final });
          }, sequence * every);
        }
        return true;
      };
      const started = Date.now();
      const reply = await pv(preview, `/drips`);
      assert.equal(reply.status, 200);
      assert.equal(reply.text, '....end');
      assert.ok(Date.now() - started >= smallLimits.streamIdleTimeoutMs * 2, 'it lasted twice the idle timeout');
      const stream = daemon.requests().find((frame) => frame.path === '/drips')!;
      assert.equal(daemon.received.filter((frame) => frame.type === 'previewStreamCancel' && frame.streamId === stream.streamId).length, 0, 'never ended as idle');
    });

    it('tells the daemon when the viewer goes away mid-download', async () => {
      await connectDaemon();
      const preview = await openPreview();
      await new Promise<void>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: relay.port, path: '/big', headers: { Host: preview.host, cookie: preview.session }, agent: false }, (res) => {
          let received = 0;
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > 2 * 1024 * 1024) {
              req.destroy();
              resolve();
            }
          });
        });
        req.on('error', () => {});
        req.on('close', () => resolve());
        req.end();
        setTimeout(() => reject(new Error('no data')), 10_000).unref();
      });
      const big = daemon.requests().find((frame) => frame.path === '/big')!;
      const cancel = await daemon.waitFor('previewStreamCancel', (frame) => frame.streamId === big.streamId);
      assert.equal(cancel.reason, 'viewer went away');
      await pollUntil(() => relay.server.stats.m1!.previews.streams === 0, { what: 'the stream forgotten' });
    });

    it('to a daemon without a window: sends no acks and still delivers', async () => {
      await connectDaemon({ windowBytes: null });
      const preview = await openPreview();
      const reply = await pv(preview, `/logo.png`);
      assert.ok(reply.body.equals(logo));
      assert.equal(daemon.received.filter((frame) => frame.type === 'previewStreamAck').length, 0);
    });
  });

  describe('the remote view', () => {
    it("lists a shared pane's announced servers with the relay's preview link", async () => {
      await connectDaemon();
      daemon.send('agentTerminalStarted', {
        jobId: 't3',
        terminalId: 't3',
        sessionId: 'switchboard:m1',
        channelId: '*',
        projectId: '/w',
        commandPreview: 'python3 -m http.server',
        title: 'py',
        cwd: '/w',
        status: 'running',
        startedAt: new Date().toISOString(),
        urls: ['http://[::1]:8000/'],
      });
      // The client's barrier asks browseDir; answer like a daemon whose home is not shared.
      const answerBrowse = setInterval(() => {
        for (const frame of daemon.received.splice(0)) {
          if (frame.type === 'browseDir') daemon.send('browseDirResult', { requestId: frame.requestId, channelId: frame.channelId, ok: false, error: 'outside' });
        }
      }, 10);
      const client = await RelayHubClient.connect({
        target: { machineId: 'm1', socketUrl: `${relay.url}/ws/ui`, pageUrl: `${origin}/m/m1/` },
        createSocket: (url) => new WebSocket(url, { headers: { Authorization: `Bearer ${relay.tokens.get('m1')!.viewerToken}` } }) as never,
        timing: { syncTimeoutMs: 2_000 },
      });
      try {
        const list = await client.call('terminal.list', {});
        const t1 = list.find((terminal) => terminal.id === 't1')!;
        assert.equal(t1.servers?.length, 1);
        const server = t1.servers![0]!;
        assert.deepEqual({ host: server.host, port: server.port, pid: server.pid }, { host: '127.0.0.1', port: dev.port, pid: null });
        assert.equal(server.url, `${origin}/m/m1/preview/open?terminalId=t1&port=${dev.port}`);
        const t3 = list.find((terminal) => terminal.id === 't3')!;
        assert.deepEqual(t3.servers?.map((entry) => [entry.host, entry.port]), [['::1', 8000]], 'urls when there are no ports');

        // localServerDetected adds nothing the announcement did not say, and is no surprise to the view.
        const warnings: string[] = [];
        const warn = console.warn;
        console.warn = (...args: unknown[]) => void warnings.push(args.join(' '));
        try {
          daemon.send('localServerDetected', { sessionId: 'switchboard:m1', channelId: '*', host: '127.0.0.1', port: dev.port, url: `http://localhost:${dev.port}/`, source: 'port', detectedAt: new Date().toISOString(), terminalId: 't1' });
          await client.call('terminal.list', {});
          await new Promise((resolve) => setTimeout(resolve, 50));
        } finally {
          console.warn = warn;
        }
        assert.deepEqual(warnings.filter((line) => line.includes('localServerDetected')), []);

        // The link works as the viewer's browser would follow it.
        const reply = await http(relay.port, new URL(server.url).pathname + new URL(server.url).search, { headers: { cookie } });
        assert.equal(reply.status, 303);

        // An update with no ports: the server is gone from the list.
        daemon.send('agentTerminalUpdated', { jobId: 't1', terminalId: 't1', sessionId: 'switchboard:m1', channelId: '*', status: 'running', ports: [], urls: [], updatedAt: new Date().toISOString() });
        await pollUntil(async () => (await client.call('terminal.list', {})).find((terminal) => terminal.id === 't1')?.servers?.length === 0, { what: 'servers removed' });
      } finally {
        clearInterval(answerBrowse);
        client.dispose();
      }
    });
  });
});

/** kB figures of /proc/<pid>/status (Linux). */
function procStatus(pid: number): { rssKb: number; peakKb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKb: field('VmRSS'), peakKb: field('VmHWM') };
}

describe('dev-server previews through a `switchboard relay` process', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  it("streams three 50 MB downloads to a slow viewer; the relay's own peak RSS stays under one download and does not grow with the bytes passed", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-preview-relay-'));
    const dev = await startDevServer();
    const { tokens, filePath } = await createTokens(dir, ['m1']);
    const child = spawn(process.execPath, [cliMain, 'relay', '--port', '0', '--tokens', filePath, '--json'], { env: { ...testEnv(dir), SWITCHBOARD_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.resume();
    let daemon: PreviewDaemon | undefined;
    try {
      const ready = await pollUntil(() => {
        const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
        return line ? (JSON.parse(line) as { url: string; port: number; previewOrigins: string | null }) : undefined;
      }, { timeoutMs: 15_000, what: 'switchboard relay ready' });
      assert.equal(ready.previewOrigins, `http://<label>.localhost:${ready.port}`);
      daemon = await PreviewDaemon.connect({ url: ready.url, tokens }, 'm1');
      daemon.announce('t1', [dev.port]);
      const cookie = await signIn({ port: ready.port, tokens } as TestRelay, 'm1');
      const opened = await pollUntil(async () => {
        const reply = await http(ready.port, `/m/m1/preview/open?terminalId=t1&port=${dev.port}`, { headers: { cookie } });
        return reply.status === 303 ? reply : undefined;
      }, { what: 'the preview open' });
      const preview = await enterPreview(ready.port, opened, daemon.received.find((frame) => frame.type === 'previewOpen')!.previewId);
      // Warm up (code paths compiled, buffers allocated), then measure one 50 MiB download.
      await http(ready.port, '/logo.png', { headers: { Host: preview.host, cookie: preview.session } });
      const before = procStatus(child.pid!);
      const peaks: number[] = [];
      for (let round = 1; round <= 3; round++) {
        const started = Date.now();
        const result = await slowDownload(ready.port, '/big', preview);
        const seconds = (Date.now() - started) / 1000;
        assert.equal(result.length, bigBlocks * 64 * 1024);
        assert.equal(result.sha256, bigSha256());
        const now = procStatus(child.pid!);
        peaks.push((now.peakKb - before.rssKb) / 1024);
        console.log(`switchboard relay process, download ${round}: 50 MiB in ${seconds.toFixed(2)} s; RSS ${(before.rssKb / 1024).toFixed(1)} MiB before the first, peak ${(now.peakKb / 1024).toFixed(1)} MiB so far (+${peaks.at(-1)!.toFixed(1)} MiB), now ${(now.rssKb / 1024).toFixed(1)} MiB`);
      }
      // Measured: about +33 MiB after the first download and flat after that — the garbage collector's
      // headroom for the frames' base64 strings, not the body: a relay that held a download would
      // peak above its 50 MiB, and a leak would grow with every download.
      assert.ok(peaks[0]! < 48, `the relay's peak RSS grew by ${peaks[0]!.toFixed(1)} MiB during one 50 MiB download`);
      assert.ok(peaks[2]! - peaks[0]! < 10, `the relay's peak RSS kept growing: +${peaks.map((peak) => peak.toFixed(1)).join(', +')} MiB after 50, 100, 150 MiB`);
    } finally {
      await daemon?.close();
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      await dev.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('switchboard relay --preview-domain', () => {
  it('refuses a preview domain that is no host name, or that holds the relay’s own host, with a message that says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-preview-domain-'));
    try {
      const tokensFile = join(dir, 'tokens.json');
      for (const [argv, why] of [
        [['--preview-domain', 'https://preview.example.com'], /--preview-domain must be a host name like preview\.example\.com .*no scheme, port, path or wildcard/],
        [['--preview-domain', 'preview.example.com:8443'], /no scheme, port, path or wildcard/],
        [['--preview-domain', '*.preview.example.com'], /no scheme, port, path or wildcard/],
        [['--preview-domain', 'bad_label.example.com'], /"bad_label" is not a DNS label/],
        [['--public-url', 'https://relay.example.com', '--preview-domain', 'example.com'], /--preview-domain example\.com would hold the relay's own host relay\.example\.com/],
      ] as const) {
        const result = await runInProcess(['relay', '--tokens', tokensFile, '--port', '0', ...argv]);
        assert.equal(result.status, 2, argv.join(' '));
        assert.match(result.stderr, why, argv.join(' '));
      }
      const help = await runInProcess(['relay', '--help']);
      assert.match(help.stdout, /--preview-domain DOMAIN +serve: previews at <label>\.DOMAIN/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The dev server run inside a real pane (a plain Node script: the pane's shell starts it). */
const paneDevServer = `
const http = require('node:http');
const { WebSocketServer } = require(${JSON.stringify(createRequire(import.meta.url).resolve('ws'))});
const server = http.createServer((req, res) => {
  if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }); return res.end('<!doctype html><script type="module" src="/@vite/client"></script><h1>pane server</h1>'); }
  if (req.url === '/@vite/client') { res.writeHead(200, { 'content-type': 'text/javascript' }); return res.end('// client'); }
  if (req.url === '/echo') { let n = 0; const h = require('node:crypto').createHash('sha256'); req.on('data', (d) => { n += d.length; h.update(d); }); return req.on('end', () => res.end(JSON.stringify({ n, sha256: h.digest('hex'), host: req.headers.host }))); }
  res.writeHead(404); res.end('no');
});
new WebSocketServer({ server, handleProtocols: (p) => (p.has('vite-hmr') ? 'vite-hmr' : false) }).on('connection', (ws) => ws.on('message', (d, b) => ws.send(d, { binary: b })));
server.listen(Number(process.argv[2]), '127.0.0.1');
`;

describe("dev-server previews: this relay with the Switchboard daemon (a real Hub, a dev server in a shared pane)", () => {
  let hub: TestHub;
  let relay: TestRelay;
  let client: RelayClient;

  before(async () => {
    hub = await startTestHub();
    relay = await startTestRelay();
  });

  after(async () => {
    await client?.stop();
    client?.dispose();
    await relay.close();
    hub.dispose();
  });

  it('opens the pane server from its announcement, serves the page, a root-absolute script, a POST and a WebSocket; ends when the pane exits', async () => {
    writeFileSync(join(hub.temp.workspace, 'dev.cjs'), paneDevServer);
    client = connectClient(hub.hub, relay.url, 'm1', relay.tokens.get('m1')!.daemonToken, { preview: { portGraceMs: 2_000 } });
    await pollUntil(() => client.status.state === 'connected', { what: 'connected' });
    const pane = await hub.hub.ptyHost.create({ ...bashShell, cwd: hub.temp.workspace, createdBy: { kind: 'person', name: 'you' }, name: 'web' });
    client.setShared(pane.id, true);
    const port = await freePort();
    pane.write(`node ${join(hub.temp.workspace, 'dev.cjs')} ${port}\r`);

    // The remote view sees the server with the preview link, and the link opens it.
    const origin = `http://127.0.0.1:${relay.port}`;
    const view = await RelayHubClient.connect({
      target: { machineId: 'm1', socketUrl: `${relay.url}/ws/ui`, pageUrl: `${origin}/m/m1/` },
      createSocket: (url) => new WebSocket(url, { headers: { Authorization: `Bearer ${relay.tokens.get('m1')!.viewerToken}` } }) as never,
    });
    try {
      const server = await pollUntil(async () => (await view.call('terminal.list', {})).find((terminal) => terminal.id === pane.id)?.servers?.find((entry) => entry.port === port), { timeoutMs: 15_000, what: 'the server in the remote view' });
      assert.equal(server.url, `${origin}/m/m1/preview/open?terminalId=${encodeURIComponent(pane.id)}&port=${port}`);
      const cookie = await signIn(relay, 'm1');
      const opened = await http(relay.port, server.url.slice(origin.length), { headers: { cookie } });
      const preview = await enterPreview(relay.port, opened, '');
      const pv = (path: string, options: Parameters<typeof http>[2] = {}) => http(relay.port, path, { ...options, headers: { Host: preview.host, cookie: preview.session, ...options.headers } });

      const page = await pv('/');
      assert.equal(page.status, 200);
      assert.match(page.text, /pane server/);
      assert.equal((await pv('/@vite/client')).text, '// client');
      const body = Buffer.alloc(600 * 1024, 5);
      const echoed = JSON.parse((await pv('/echo', { method: 'POST', body })).text) as { n: number; sha256: string; host: string };
      assert.deepEqual(echoed, { n: body.length, sha256: createHash('sha256').update(body).digest('hex'), host: `localhost:${port}` });

      const socket = await connectSocket(relay.port, '/', { Host: preview.host, cookie: preview.session, origin: preview.origin }, ['vite-hmr']);
      assert.ok('socket' in socket, JSON.stringify(socket));
      assert.equal(socket.socket.protocol, 'vite-hmr');
      socket.socket.send(Buffer.from([1, 2, 3]));
      assert.deepEqual([...(await nextMessage(socket.socket)).data], [1, 2, 3]);

      // The pane's server stops (Ctrl-C): its socket closes (the dev server's close, passed on); for the
      // grace a request is told the server is not listening (it may be restarting), then the machine
      // closes the preview and the address says why.
      const socketClosed = closed(socket.socket);
      pane.write('\x03');
      assert.ok([1000, 1001].includes((await socketClosed).code));
      const restarting = await pollUntil(async () => {
        const reply = await pv('/');
        return /is not listening \(restarting\?\)/.test(reply.text) ? reply : undefined;
      }, { timeoutMs: 15_000, what: 'the restarting answer' });
      assert.equal(restarting.status, 502);
      const gone = await pollUntil(async () => {
        const reply = await pv('/');
        return reply.status === 410 ? reply : undefined;
      }, { timeoutMs: 15_000, what: 'the preview closed' });
      assert.match(gone.text, /port_closed|pane_exited/);
    } finally {
      view.dispose();
    }
  });
});
