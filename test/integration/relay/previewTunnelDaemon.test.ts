/**
 * The daemon's side of the dev-server preview tunnel, for real: a RelayClient on a real Hub (real
 * PTYs, the real ServerMonitor) dialled by a scripted relay (a `ws` server in this file speaking
 * the frames), and a real Node HTTP + WebSocket dev server running inside a shared pane's shell.
 * Covered: hello capabilities; ports/urls/readiness and localServerDetected; previewOpen and every
 * refusal code; GET and POST (hashed) through chunks with sequences and acks; a 50 MB response to a
 * relay that acks slowly (bounded memory, the link stays); cancel, idle timeout and resets at the
 * dev server; bad input on one stream while another completes intact; WebSockets with
 * sub-protocols, echo, close both ways and a refused upgrade; previewClose for every reason; the
 * link closing; a client built without previews.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebSocket, WebSocketServer } from 'ws';
import { encodeFrame, rfc3339 } from '../../../src/common/protocol/relay/frames.ts';
import type { RelayFields, RelayMessageType } from '../../../src/common/protocol/relay/messages.ts';
import type { PtySession } from '../../../src/node/pty/ptySession.ts';
import type { RelayClient } from '../../../src/node/relay/relayClient.ts';
import { freePort } from '../../helpers/freePort.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { bashShell, connectClient, layOutBodyFrame, readBodyFrameLayout, recordingLogger, startTestHub, type TestHub } from './relayTestKit.ts';

/** A full GC before each memory sample, so the figure is what is held, not garbage not yet collected. */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const wsModule = createRequire(import.meta.url).resolve('ws');

/** The dev server: routes for each case, and /events saying what it saw (requests closed early, sockets). */
const devServerScript = `
const http = require('node:http');
const crypto = require('node:crypto');
const { WebSocketServer } = require(${JSON.stringify(wsModule)});
const events = [];
const block = Buffer.alloc(65536);
for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) & 255;
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  res.on('close', () => { if (!res.writableFinished) events.push('aborted ' + url.pathname); });
  switch (url.pathname) {
    case '/events': res.setHeader('content-type', 'application/json'); return res.end(JSON.stringify(events));
    case '/hello': res.writeHead(200, { 'content-type': 'text/plain', 'x-dev': '1', connection: 'close' }); return res.end('hello from the dev server');
    case '/echo': {
      const hash = crypto.createHash('sha256');
      let bytes = 0;
      req.on('data', (data) => { hash.update(data); bytes += data.length; });
      req.on('end', () => res.end(JSON.stringify({ method: req.method, bytes, sha256: hash.digest('hex'), headers: req.headers })));
      return;
    }
    case '/big': {
      const total = Number(url.searchParams.get('bytes'));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          const n = Math.min(block.length, total - sent);
          sent += n;
          if (!res.write(n === block.length ? block : block.subarray(0, n))) return res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    case '/stall': res.writeHead(200, { 'content-type': 'text/plain' }); res.write('first bytes'); return;
    case '/hang': return;
    case '/drip': {
      // A byte every 500 ms for 3 s: never quiet for the idle timeout, twice as long as it in all.
      res.writeHead(200, { 'content-type': 'text/plain' });
      let left = 6;
      const timer = setInterval(() => { res.write('.'); if (--left === 0) { clearInterval(timer); res.end('done'); } }, 500);
      return;
    }
    case '/reset': return req.socket.destroy();
    case '/reset-mid': res.writeHead(200, { 'content-type': 'text/plain' }); res.write('partial'); return setTimeout(() => req.socket.destroy(), 50);
    case '/redirect': res.writeHead(302, { location: 'http://10.0.0.1/' }); return res.end();
    default: res.writeHead(404); return res.end('not found');
  }
});
const sockets = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => (protocols.has('hmr-v2') ? 'hmr-v2' : false) });
server.on('upgrade', (req, socket, head) => {
  if (req.url === '/forbidden') return socket.end('HTTP/1.1 403 Forbidden\\r\\nContent-Length: 0\\r\\n\\r\\n');
  sockets.handleUpgrade(req, socket, head, (ws) => {
    events.push('ws-open ' + req.url + ' ' + req.headers.host);
    ws.on('message', (data, isBinary) => {
      if (!isBinary && data.toString() === 'close-me') return ws.close(4001, 'bye');
      ws.send(data, { binary: isBinary });
    });
    ws.on('close', (code) => events.push('ws-close ' + code));
  });
});
server.listen(Number(process.argv[2]), '127.0.0.1');
`;

/** Small limits so every rule is reachable in seconds. */
const limits = {
  chunkBytes: 64 * 1024,
  bufferBytes: 256 * 1024,
  maxOpenPreviews: 4,
  maxRequestBodyBytes: 300 * 1024,
  maxStreamsPerPreview: 10,
  maxStreamsPerMachine: 14,
  idleTimeoutMs: 1_500,
  portGraceMs: 2_500,
};

type Frame = { type: string; [field: string]: any };
interface ReceivedBody {
  chunks: number;
  bytes: number;
  hash: ReturnType<typeof createHash>;
  text: string;
  sequences: number[];
  maxChunk: number;
  final: boolean;
  /** Bytes received and not acknowledged yet (what the daemon counts against the window), and its peak. */
  outstanding: number;
  peakOutstanding: number;
  unacked: Array<{ sequence: number; bytes: number }>;
}

/**
 * The relay side, scripted: accepts the daemon, answers hello with welcome (and a window), keeps
 * every frame (chunk bodies hashed, not kept, so a 50 MB transfer costs this side nothing), and
 * acknowledges chunks — at once, after `ackDelayMs`, or not at all.
 */
class ScriptedPreviewRelay {
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  url = '';
  socket: WebSocket | undefined;
  frames: Frame[] = [];
  bodies = new Map<string, ReceivedBody>();
  connections = 0;
  /** Body frames the daemon sent as binary frames. */
  binaryFrames = 0;
  welcome: Record<string, unknown> = { latestDaemonVersion: '1.0.0', previewStreamWindowBytes: limits.bufferBytes };
  ackDelayMs: number | false = 0;
  /** Streams whose chunks are not acknowledged (a viewer that stopped reading). */
  readonly noAckFor = new Set<string>();

  private constructor() {
    this.#server = createServer((_req, res) => res.writeHead(404).end());
    this.#wss = new WebSocketServer({ server: this.#server, maxPayload: 4 << 20 });
    this.#wss.on('connection', (socket) => {
      this.connections++;
      this.socket = socket;
      socket.once('message', () => socket.send(JSON.stringify({ type: 'welcome', ...this.welcome })));
      socket.on('message', (data, isBinary) => (isBinary ? this.#onBinaryFrame(data as Buffer) : this.#onFrame(JSON.parse(data.toString()))));
    });
  }

  static async start(): Promise<ScriptedPreviewRelay> {
    const relay = new ScriptedPreviewRelay();
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', resolve));
    relay.url = `ws://127.0.0.1:${(relay.#server.address() as AddressInfo).port}`;
    return relay;
  }

  /** A binary body frame (the `previewBinaryBodies` extension), read by its documented layout. */
  #onBinaryFrame(data: Buffer): void {
    const { header, body } = readBodyFrameLayout(data);
    assert.ok(header.type === 'previewStreamChunk' || header.type === 'previewWebSocketData', `a binary ${header.type}`);
    assert.equal(header.bodyBase64, '', 'a binary frame carries its body after the header');
    this.binaryFrames++;
    this.#onFrame(header, body);
  }

  #onFrame(frame: Frame, binaryBody?: Buffer): void {
    if (frame.type === 'previewStreamChunk' || frame.type === 'previewWebSocketData') {
      const body = binaryBody ?? Buffer.from(frame.bodyBase64, 'base64');
      const received = this.body(frame.streamId);
      received.chunks++;
      received.bytes += body.length;
      received.hash.update(body);
      if (received.text.length < 64 * 1024) received.text += body.toString('latin1');
      received.sequences.push(frame.sequence);
      received.maxChunk = Math.max(received.maxChunk, body.length);
      received.final ||= frame.final === true;
      received.outstanding += body.length;
      received.peakOutstanding = Math.max(received.peakOutstanding, received.outstanding);
      received.unacked.push({ sequence: frame.sequence, bytes: body.length });
      const { bodyBase64: _dropped, ...kept } = frame;
      this.frames.push({ ...kept, bodyBytes: body.length, ...(binaryBody ? { binary: true } : {}), ...(frame.type === 'previewWebSocketData' ? { text: body.toString('utf8') } : {}) });
      if (this.ackDelayMs !== false && !this.noAckFor.has(frame.streamId)) {
        const ack = () => {
          while (received.unacked.length > 0 && received.unacked[0]!.sequence <= frame.sequence) received.outstanding -= received.unacked.shift()!.bytes;
          this.send('previewStreamAck', { streamId: frame.streamId, sequence: frame.sequence });
        };
        if (this.ackDelayMs === 0) ack();
        else setTimeout(ack, this.ackDelayMs);
      }
      return;
    }
    this.frames.push(frame);
  }

  body(streamId: string): ReceivedBody {
    let received = this.bodies.get(streamId);
    if (!received) {
      received = { chunks: 0, bytes: 0, hash: createHash('sha256'), text: '', sequences: [], maxChunk: 0, final: false, outstanding: 0, peakOutstanding: 0, unacked: [] };
      this.bodies.set(streamId, received);
    }
    return received;
  }

  send<T extends RelayMessageType>(type: T, fields: RelayFields<T>): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(encodeFrame(type, fields));
  }

  /** A body frame as a binary frame, laid out by hand. */
  sendBinaryBody(fields: Record<string, unknown>, body: Buffer): void {
    this.sendBytes(layOutBodyFrame(fields, body));
  }

  sendBytes(frame: Buffer): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(frame, { binary: true });
  }

  sendRaw(frame: unknown): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  of(type: string, match: Record<string, unknown> = {}, from = 0): Frame[] {
    return this.frames.slice(from).filter((frame) => frame.type === type && Object.entries(match).every(([key, value]) => frame[key] === value));
  }

  waitFor(type: string, match: Record<string, unknown> = {}, options: { from?: number; timeoutMs?: number } = {}): Promise<Frame> {
    return pollUntil(() => this.of(type, match, options.from)[0], { what: `${type} ${JSON.stringify(match)}`, timeoutMs: options.timeoutMs ?? 10_000 });
  }

  /** Drop the daemon's link (it reconnects). */
  dropLink(): void {
    this.socket?.terminate();
  }

  async close(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}-${++counter}`;
const inAnHour = () => rfc3339(Date.now() + 3_600_000);
const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('preview tunnel, daemon side (real Hub, real panes, real dev server, scripted relay)', () => {
  let hub: TestHub;
  let relay: ScriptedPreviewRelay;
  let client: RelayClient;
  let log: ReturnType<typeof recordingLogger>;
  let shared: PtySession;
  let unshared: PtySession;
  let port: number;
  let unsharedPort: number;
  let outsider: Server;
  let outsiderPort: number;

  const startServer = async (session: PtySession, serverPort: number, options: { exec?: boolean } = {}) => {
    session.write(`${options.exec ? 'exec ' : ''}node ${join(hub.temp.workspace, 'dev.cjs')} ${serverPort}\r`);
    await pollUntil(() => session.info.servers?.some((server) => server.port === serverPort && server.pid !== null), { what: `the dev server on ${serverPort} detected`, timeoutMs: 15_000 });
  };
  const events = async (serverPort = port): Promise<string[]> => (await fetch(`http://127.0.0.1:${serverPort}/events`)).json() as Promise<string[]>;

  const openPreview = async (fields: Partial<RelayFields<'previewOpen'>> = {}): Promise<Frame> => {
    const requestId = nextId('req');
    const previewId = fields.previewId ?? nextId('pv');
    relay.send('previewOpen', { requestId, previewId, sessionId: client.sessionId, channelId: `preview:${previewId}`, machineId: 'm1', targetHost: '127.0.0.1', targetPort: port, expiresAt: inAnHour(), ...fields });
    return relay.waitFor('previewOpenResult', { requestId });
  };
  const openOk = async (fields: Partial<RelayFields<'previewOpen'>> = {}): Promise<string> => {
    const result = await openPreview(fields);
    assert.equal(result.ok, true, JSON.stringify(result));
    return result.previewId;
  };

  /** A request whose body goes in `chunks` (a GET: one empty final chunk); resolves with its stream id. */
  const request = (previewId: string, method: string, path: string, chunks: Buffer[] = [Buffer.alloc(0)], headers: Record<string, string[]> = {}): string => {
    const streamId = nextId('st');
    relay.send('previewHttpRequest', { requestId: nextId('req'), streamId, previewId, method, path, headers });
    chunks.forEach((chunk, index) => relay.send('previewStreamChunk', { streamId, sequence: index + 1, bodyBase64: b64(chunk), final: index === chunks.length - 1 }));
    return streamId;
  };
  const response = async (streamId: string) => {
    const head = await pollUntil(
      () => {
        const cancel = relay.of('previewStreamCancel', { streamId })[0];
        if (cancel) throw new Error(`stream ${streamId} cancelled: ${cancel.reason}`);
        return relay.of('previewHttpResponseHead', { streamId })[0];
      },
      { what: `the response head of ${streamId}` },
    ).catch((error: Error) => {
      const cancel = relay.of('previewStreamCancel', { streamId })[0];
      throw cancel ? new Error(`stream ${streamId} cancelled: ${cancel.reason}`) : error;
    });
    await pollUntil(() => relay.bodies.get(streamId)?.final, { what: `the end of ${streamId}` });
    return { head, body: relay.bodies.get(streamId)! };
  };

  before(async () => {
    hub = await startTestHub();
    writeFileSync(join(hub.temp.workspace, 'dev.cjs'), devServerScript);
    relay = await ScriptedPreviewRelay.start();
    log = recordingLogger();
    client = connectClient(hub.hub, relay.url, 'm1', 'sbrd_preview-test-token', { logger: log.logger, preview: limits });
    await pollUntil(() => client.status.state === 'connected', { what: 'connected' });
    shared = await hub.hub.ptyHost.create({ ...bashShell, cwd: hub.temp.workspace, createdBy: { kind: 'person', name: 'you' }, name: 'web' });
    client.setShared(shared.id, true);
    unshared = await hub.hub.ptyHost.create({ ...bashShell, cwd: hub.temp.workspace, createdBy: { kind: 'person', name: 'you' }, name: 'private' });
    port = await freePort();
    unsharedPort = await freePort();
    await startServer(shared, port);
    await startServer(unshared, unsharedPort);
    outsider = createServer((_req, res) => res.end('the test process'));
    await new Promise<void>((resolve) => outsider.listen(0, '127.0.0.1', resolve));
    outsiderPort = (outsider.address() as AddressInfo).port;
  });

  after(async () => {
    await client?.stop();
    client?.dispose();
    outsider?.close();
    await relay?.close();
    hub?.dispose();
  });

  it('advertises the tunnel, its frame and chunk sizes, sub-protocols, server detection and its window in hello', () => {
    const hello = relay.frames.find((frame) => frame.type === 'hello')!;
    assert.deepEqual(hello.capabilities, {
      terminal: true,
      agentTerminalJobs: true,
      previewTunnel: true,
      previewMaxFrameBytes: 1 << 20,
      previewChunkBytes: limits.chunkBytes,
      previewWebSocketProtocols: true,
      localServerDetection: true,
      previewStreamWindowBytes: limits.bufferBytes,
      previewBinaryBodies: true,
    });
  });

  it("announces the shared pane's server in ports/urls/readiness and once in localServerDetected; the unshared pane's never", async () => {
    const withPort = await pollUntil(
      () => [...relay.of('agentTerminalStarted', { terminalId: shared.id }), ...relay.of('agentTerminalUpdated', { terminalId: shared.id })].find((frame) => frame.ports?.length > 0),
      { what: 'an announcement with the port' },
    );
    const server = shared.info.servers!.find((entry) => entry.port === port)!;
    assert.deepEqual(withPort.ports, [{ host: server.host, port, url: server.url }]);
    assert.deepEqual(withPort.urls, [server.url]);
    assert.deepEqual(withPort.readiness, { state: 'ready', source: 'port', readyAt: rfc3339(server.since) });
    const detected = await relay.waitFor('localServerDetected', { terminalId: shared.id });
    assert.deepEqual(detected, {
      type: 'localServerDetected',
      sessionId: client.sessionId,
      channelId: '*',
      host: server.host,
      port,
      url: server.url,
      command: detected.command,
      source: 'port',
      detectedAt: rfc3339(server.since),
      terminalId: shared.id,
    });
    const firstWithPort = relay.frames.findIndex((frame) => frame.terminalId === shared.id && frame.type.startsWith('agentTerminal') && frame.ports?.some((entry: { port: number }) => entry.port === port));
    assert.ok(firstWithPort >= 0 && firstWithPort < relay.frames.indexOf(detected), 'told after the frame that lists its port');
    // The pane's command line (with shell integration, the command running in it).
    assert.equal(detected.command, 'bash --norc --noprofile');
    // Another change of the pane (a rename: agentTerminalStarted again) tells nothing new about its server.
    hub.hub.ptyHost.rename(shared.id, 'web 2');
    await pollUntil(() => relay.of('agentTerminalStarted', { terminalId: shared.id, title: 'web 2' })[0], { what: 'the rename announced' });
    assert.equal(relay.of('localServerDetected', { terminalId: shared.id }).length, 1, 'once per server');
    assert.equal(relay.of('localServerDetected', { port: unsharedPort }).length, 0);
    assert.equal(relay.of('agentTerminalStarted', { terminalId: unshared.id }).length, 0);
  });

  it("opens a preview of a shared pane's port, and refuses everything else with its code", async () => {
    const previewId = await openOk();
    const refused = async (fields: Partial<RelayFields<'previewOpen'>>, errorCode: string, message: RegExp) => {
      const result = await openPreview(fields);
      assert.equal(result.ok, false, JSON.stringify(fields));
      assert.equal(result.errorCode, errorCode, JSON.stringify(result));
      assert.match(result.message, message);
    };
    await refused({ targetHost: '10.0.0.1' }, 'target_not_loopback', /"10\.0\.0\.1" is not a loopback address/);
    await refused({ targetHost: 'example.com' }, 'target_not_loopback', /not a loopback address/);
    await refused({ targetHost: '0.0.0.0' }, 'target_not_loopback', /not a loopback address/);
    await refused({ targetPort: await freePort() }, 'port_not_shared', /no shared terminal listens on port \d+/);
    await refused({ targetPort: unsharedPort }, 'port_not_shared', new RegExp(`no shared terminal listens on port ${unsharedPort}`));
    await refused({ targetPort: outsiderPort }, 'port_not_shared', new RegExp(`port ${outsiderPort}`));
    await refused({ expiresAt: rfc3339(Date.now() - 1000) }, 'expired', /has passed/);
    await refused({ expiresAt: 'tomorrow' }, 'expired', /not an RFC 3339 time/);
    await refused({ previewId }, 'preview_exists', /already open/);
    const more = [await openOk(), await openOk(), await openOk()];
    await refused({}, 'too_many_previews', /4 previews are open/);
    for (const id of [previewId, ...more]) relay.send('previewClose', { previewId: id, reason: 'closed_by_viewer' });
    await pollUntil(() => client.stats.preview!.previews === 0, { what: 'the previews closed' });
    assert.equal(client.stats.refusals['preview-open'], 10);
    assert.equal(log.lines.filter((line) => line.includes('refused a relay frame (preview-open)')).length, 1, 'logged once per kind');
  });

  it('GET and POST: the body in chunks arrives intact; the response comes in chunks of at most previewChunkBytes, sequences 1..n, final', async () => {
    const previewId = await openOk();
    const get = await response(request(previewId, 'GET', '/hello?x=1'));
    assert.equal(get.head.statusCode, 200);
    assert.equal(get.head.previewId, previewId);
    assert.deepEqual(get.head.headers['content-type'], ['text/plain']);
    assert.deepEqual(get.head.headers['x-dev'], ['1']);
    assert.equal(get.head.headers.connection, undefined, 'hop-by-hop headers are dropped');
    assert.equal(get.body.text, 'hello from the dev server');

    // 290 KiB: more than the window the daemon advertised (256 KiB), so the relay must wait for its acks.
    const upload = Buffer.alloc(290 * 1024);
    for (let i = 0; i < upload.length; i++) upload[i] = (i * 7919) % 251;
    const pieces = [upload.subarray(0, 64 * 1024), upload.subarray(64 * 1024, 100 * 1024), upload.subarray(100 * 1024, 164 * 1024), upload.subarray(164 * 1024, 228 * 1024), upload.subarray(228 * 1024), Buffer.alloc(0)];
    const postId = nextId('st');
    relay.send('previewHttpRequest', { requestId: nextId('req'), streamId: postId, previewId, method: 'POST', path: '/echo', headers: { 'content-type': ['application/octet-stream'], connection: ['keep-alive'], 'x-from': ['relay'] } });
    let waitedForAck = false;
    for (const [index, piece] of pieces.entries()) {
      const unackedBytes = () => {
        const acked = Math.max(0, ...relay.of('previewStreamAck', { streamId: postId }).map((ack) => ack.sequence));
        return pieces.slice(acked, index).reduce((sum, sent) => sum + sent.length, 0);
      };
      if (unackedBytes() > 0 && unackedBytes() + piece.length > limits.bufferBytes) {
        waitedForAck = true;
        await pollUntil(() => unackedBytes() + piece.length <= limits.bufferBytes, { what: `an ack making room for piece ${index + 1}` });
      }
      relay.send('previewStreamChunk', { streamId: postId, sequence: index + 1, bodyBase64: b64(piece), final: index === pieces.length - 1 });
    }
    assert.ok(waitedForAck, 'the body outran the window: an ack had to come');
    const post = await response(postId);
    const echoed = JSON.parse(post.body.text);
    assert.deepEqual({ method: echoed.method, bytes: echoed.bytes, sha256: echoed.sha256 }, { method: 'POST', bytes: upload.length, sha256: sha256(upload) });
    assert.equal(echoed.headers.host, `localhost:${port}`);
    assert.equal(echoed.headers['x-from'], 'relay');
    // Acks are coalesced, increasing, never past what was sent.
    const acks = relay.of('previewStreamAck', { streamId: postId }).map((ack) => ack.sequence);
    assert.ok(acks.every((sequence, i) => sequence >= 1 && sequence <= pieces.length && (i === 0 || sequence > acks[i - 1]!)), JSON.stringify(acks));

    // A body that arrives whole in its first chunk gets its content-length (servers that cannot read chunked bodies).
    const whole = await response(request(previewId, 'PUT', '/echo', [Buffer.from('one piece')]));
    assert.equal(JSON.parse(whole.body.text).headers['content-length'], '9');

    // A 1 MB response: 16 chunks of 64 KiB, then the final one.
    const bigId = request(previewId, 'GET', `/big?bytes=${1024 * 1024}`);
    const big = await response(bigId);
    assert.equal(big.head.headers['content-length'][0], String(1024 * 1024));
    assert.equal(big.body.bytes, 1024 * 1024);
    assert.ok(big.body.maxChunk <= limits.chunkBytes, `chunk of ${big.body.maxChunk}`);
    assert.deepEqual(big.body.sequences, Array.from({ length: big.body.sequences.length }, (_, i) => i + 1));
    assert.equal(relay.of('previewStreamChunk', { streamId: bigId }).filter((frame) => frame.final).length, 1);
    assert.equal(relay.of('previewStreamChunk', { streamId: bigId }).at(-1)!.final, true);

    // A redirect is passed on, never followed.
    const redirect = await response(request(previewId, 'GET', '/redirect'));
    assert.equal(redirect.head.statusCode, 302);
    assert.deepEqual(redirect.head.headers.location, ['http://10.0.0.1/']);
    relay.send('previewClose', { previewId, reason: 'done' });
  });

  it('a server bound to one loopback address is dialled there: another process on the same port at another loopback address is never reached', async () => {
    // The test process takes the dev server's port on 127.0.0.2 (the dev server holds 127.0.0.1 only).
    const squatter = createServer((_req, res) => res.end('the squatter on 127.0.0.2'));
    await new Promise<void>((resolve, reject) => squatter.once('error', reject).listen(port, '127.0.0.2', resolve));
    try {
      for (const targetHost of ['127.0.0.2', 'localhost']) {
        const previewId = await openOk({ targetHost });
        const hello = await response(request(previewId, 'GET', '/hello'));
        assert.equal(hello.body.text, 'hello from the dev server', targetHost);
        relay.send('previewClose', { previewId, reason: 'done' });
      }
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('a 50 MB response to a relay that acks slowly: the daemon holds at most the window plus one chunk, and the link stays up', async () => {
    const previewId = await openOk();
    relay.ackDelayMs = 15;
    const total = 50 * 1024 * 1024;
    collectGarbage();
    const before = process.memoryUsage();
    let peakMemory = 0;
    const sampler = setInterval(() => {
      collectGarbage();
      const now = process.memoryUsage();
      peakMemory = Math.max(peakMemory, now.heapUsed + now.arrayBuffers - (before.heapUsed + before.arrayBuffers));
    }, 100);
    const started = Date.now();
    try {
      const streamId = request(previewId, 'GET', `/big?bytes=${total}`);
      await pollUntil(() => relay.bodies.get(streamId)?.final, { what: 'the end of 50 MB', timeoutMs: 120_000, intervalMs: 50 });
      const body = relay.bodies.get(streamId)!;
      const block = Buffer.alloc(65536);
      for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) & 255;
      const expected = createHash('sha256');
      for (let sent = 0; sent < total; sent += block.length) expected.update(block);
      assert.equal(body.bytes, total);
      assert.equal(body.hash.digest('hex'), expected.digest('hex'));
      assert.deepEqual(body.sequences, Array.from({ length: body.sequences.length }, (_, i) => i + 1));
      // The window held: never more unacknowledged at the relay than the window it advertised.
      assert.ok(body.peakOutstanding <= limits.bufferBytes, `unacknowledged peak ${body.peakOutstanding}`);
      console.log(`# unacknowledged at the relay at most ${body.peakOutstanding} B (window ${limits.bufferBytes})`);
    } finally {
      clearInterval(sampler);
      relay.ackDelayMs = 0;
    }
    const stats = client.stats.preview!;
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `# 50 MB at ${((total / 1024 / 1024) / seconds).toFixed(1)} MB/s; peak held by one stream ${stats.peakStreamPendingBytes} B (window ${limits.bufferBytes} + chunk ${limits.chunkBytes}); peak live heap+buffers growth ${(peakMemory / 1024 / 1024).toFixed(1)} MB (after a full GC)`,
    );
    assert.ok(stats.peakStreamPendingBytes <= limits.bufferBytes + limits.chunkBytes, `held ${stats.peakStreamPendingBytes}`);
    assert.ok(stats.peakStreamPendingBytes > 0);
    assert.ok(peakMemory < 12 * 1024 * 1024, `live memory grew by ${peakMemory} bytes for a 50 MB response`);
    assert.equal(client.stats.connections, 1, 'the link was never dropped');
    assert.equal(relay.connections, 1);
    relay.send('previewClose', { previewId, reason: 'done' });
  });

  it('a stream whose viewer stops reading stalls alone at the window (and ends when idle); another stream of the same preview completes', async () => {
    const previewId = await openOk();
    const stalledId = nextId('st');
    relay.noAckFor.add(stalledId);
    relay.send('previewHttpRequest', { requestId: nextId('req'), streamId: stalledId, previewId, method: 'GET', path: `/big?bytes=${4 * 1024 * 1024}` });
    relay.send('previewStreamChunk', { streamId: stalledId, sequence: 1, bodyBase64: '', final: true });
    // Chunks follow the dev server's reads, so the window fills to within one chunk of its size.
    await pollUntil(() => (relay.bodies.get(stalledId)?.bytes ?? 0) > limits.bufferBytes - limits.chunkBytes, { what: 'the stalled stream to fill its window' });
    const flowing = await response(request(previewId, 'GET', `/big?bytes=${1024 * 1024}`));
    assert.equal(flowing.body.bytes, 1024 * 1024);
    const stalled = relay.bodies.get(stalledId)!;
    assert.ok(stalled.bytes <= limits.bufferBytes, `${stalled.bytes} went out unacknowledged`);
    assert.equal(stalled.final, false);
    // Nothing moves on it either way: the idle timeout ends it.
    assert.equal((await relay.waitFor('previewStreamCancel', { streamId: stalledId })).reason, `idle for ${limits.idleTimeoutMs} ms`);
    assert.ok(stalled.bytes <= limits.bufferBytes);
    relay.noAckFor.delete(stalledId);
    relay.send('previewClose', { previewId, reason: 'done' });
  });

  it('previewStreamCancel aborts the request at the dev server; a hanging dev server ends with idle; resets end with a reason', async () => {
    const previewId = await openOk();
    const stallId = request(previewId, 'GET', '/stall');
    await relay.waitFor('previewHttpResponseHead', { streamId: stallId });
    await pollUntil(() => relay.bodies.get(stallId)?.text === 'first bytes', { what: 'the first bytes' });
    relay.send('previewStreamCancel', { streamId: stallId, reason: 'viewer went away' });
    await pollUntil(async () => (await events()).includes('aborted /stall'), { what: 'the dev server to see the request closed' });

    const hangId = request(previewId, 'GET', '/hang');
    const hangStart = Date.now();
    const idle = await relay.waitFor('previewStreamCancel', { streamId: hangId });
    assert.match(idle.reason, /idle for 1500 ms/);
    assert.ok(Date.now() - hangStart >= 1_400, 'not before the idle timeout');
    await pollUntil(async () => (await events()).includes('aborted /hang'), { what: 'the hanging request closed at the dev server' });

    // A response that keeps moving outlives the idle timeout: each byte starts its wait over.
    const dripId = request(previewId, 'GET', '/drip');
    await pollUntil(() => relay.bodies.get(dripId)?.final === true, { what: 'the dripping response to end', timeoutMs: 8_000 });
    assert.equal(relay.bodies.get(dripId)!.text, '......done');
    assert.equal(relay.of('previewStreamCancel', { streamId: dripId }).length, 0, 'never cancelled as idle');

    const resetId = request(previewId, 'GET', '/reset');
    const reset = await relay.waitFor('previewStreamCancel', { streamId: resetId });
    assert.match(reset.reason, /dev server: (ECONNRESET|socket hang up)/);
    assert.equal(relay.of('previewHttpResponseHead', { streamId: resetId }).length, 0, 'no head: the relay answers 502');

    const midId = request(previewId, 'GET', '/reset-mid');
    const mid = await relay.waitFor('previewStreamCancel', { streamId: midId });
    assert.equal(relay.of('previewHttpResponseHead', { streamId: midId }).length, 1, 'the head went out before the reset');
    assert.match(mid.reason, /dev server (closed the connection before the response ended|: ECONNRESET)/);
    assert.equal(relay.bodies.get(midId)?.final ?? false, false, 'never a final chunk for a cut response');
    relay.send('previewClose', { previewId, reason: 'done' });
  });

  it('bad input ends only its own stream, with a reason, while another stream completes intact', async () => {
    const previewId = await openOk();
    // The good stream: a POST whose body comes in pieces between the bad frames.
    const good = Buffer.alloc(200 * 1024, 'g');
    for (let i = 0; i < good.length; i += 1000) good[i] = i % 256;
    const goodId = nextId('st');
    relay.send('previewHttpRequest', { requestId: nextId('req'), streamId: goodId, previewId, method: 'POST', path: '/echo', headers: {} });
    const goodPieces = [good.subarray(0, 50_000), good.subarray(50_000, 100_000), good.subarray(100_000, 150_000), good.subarray(150_000)];
    let goodSequence = 0;
    const sendGood = () => {
      const piece = goodPieces[goodSequence]!;
      goodSequence++;
      relay.send('previewStreamChunk', { streamId: goodId, sequence: goodSequence, bodyBase64: b64(piece), final: goodSequence === goodPieces.length });
    };
    const from = relay.frames.length;
    const cancelOf = (streamId: string) => relay.waitFor('previewStreamCancel', { streamId }, { from });

    // Out of order: sequence 2 first.
    const gapId = nextId('st');
    relay.send('previewHttpRequest', { requestId: nextId('req'), streamId: gapId, previewId, method: 'POST', path: '/echo' });
    relay.send('previewStreamChunk', { streamId: gapId, sequence: 2, bodyBase64: b64('x'), final: false });
    sendGood();
    // A duplicate sequence.
    const dupId = nextId('st');
    relay.send('previewHttpRequest', { requestId: nextId('req'), streamId: dupId, previewId, method: 'POST', path: '/echo' });
    relay.send('previewStreamChunk', { streamId: dupId, sequence: 1, bodyBase64: b64('a'), final: false });
    relay.send('previewStreamChunk', { streamId: dupId, sequence: 1, bodyBase64: b64('a'), final: false });
    // A chunk after final.
    const afterFinalId = nextId('st');
    relay.send('previewHttpRequest', { requestId: nextId('req'), streamId: afterFinalId, previewId, method: 'POST', path: '/echo' });
    relay.send('previewStreamChunk', { streamId: afterFinalId, sequence: 1, bodyBase64: b64('a'), final: true });
    relay.send('previewStreamChunk', { streamId: afterFinalId, sequence: 2, bodyBase64: b64('b'), final: true });
    sendGood();
    // An unknown stream.
    const unknownId = nextId('st');
    relay.send('previewStreamChunk', { streamId: unknownId, sequence: 1, bodyBase64: b64('?'), final: true });
    // A request for an unknown preview, and for one that closed.
    const noPreviewId = request('pv-never-opened', 'GET', '/hello');
    const closedPreview = await openOk();
    relay.send('previewClose', { previewId: closedPreview, reason: 'gone' });
    const closedId = request(closedPreview, 'GET', '/hello');
    // A body over the limit (300 KiB), in 64 KiB chunks.
    const overId = request(previewId, 'POST', '/echo', Array.from({ length: 6 }, () => Buffer.alloc(64 * 1024, 'o')));
    const declaredId = request(previewId, 'POST', '/echo', [Buffer.from('x')], { 'content-length': [String(10 * 1024 * 1024)] });
    const longerId = request(previewId, 'POST', '/echo', [Buffer.from('01234'), Buffer.from('56789')], { 'content-length': ['5'] });
    const shorterId = request(previewId, 'POST', '/echo', [Buffer.from('012')], { 'content-length': ['5'] });
    sendGood();
    // A stream id reused while open (the /stall stream stays open until cancelled), and a chunk for a cancelled stream.
    const reusedId = request(previewId, 'GET', '/stall');
    await relay.waitFor('previewHttpResponseHead', { streamId: reusedId });
    relay.send('previewHttpRequest', { requestId: nextId('req'), streamId: reusedId, previewId, method: 'GET', path: '/hello' });
    const cancelledId = request(previewId, 'GET', '/stall');
    await relay.waitFor('previewHttpResponseHead', { streamId: cancelledId });
    relay.send('previewStreamCancel', { streamId: cancelledId, reason: 'viewer left' });
    relay.send('previewStreamChunk', { streamId: cancelledId, sequence: 2, bodyBase64: b64('late'), final: true });
    relay.send('previewStreamChunk', { streamId: cancelledId, sequence: 3, bodyBase64: b64('later'), final: true });
    // Bad base64, a bad path, a bad method.
    const badBase64Id = nextId('st');
    relay.send('previewHttpRequest', { requestId: nextId('req'), streamId: badBase64Id, previewId, method: 'POST', path: '/echo' });
    relay.sendRaw({ type: 'previewStreamChunk', streamId: badBase64Id, sequence: 1, bodyBase64: 'not base64!', final: true });
    const badPathId = request(previewId, 'GET', '//evil.example/x');
    const badMethodId = request(previewId, 'CONNECT', '/');
    sendGood();

    assert.match((await cancelOf(gapId)).reason, /^previewStreamChunk sequence 2 after 0$/);
    assert.match((await cancelOf(dupId)).reason, /^previewStreamChunk sequence 1 after 1$/);
    assert.match((await cancelOf(afterFinalId)).reason, /^previewStreamChunk sequence 2 after final$/);
    assert.equal((await cancelOf(unknownId)).reason, 'unknown stream');
    assert.equal((await cancelOf(noPreviewId)).reason, 'unknown preview "pv-never-opened"');
    assert.match((await cancelOf(closedId)).reason, /^unknown preview/);
    assert.equal((await cancelOf(overId)).reason, `request body over ${limits.maxRequestBodyBytes} bytes`);
    assert.match((await cancelOf(declaredId)).reason, /request body over 307200 bytes \(content-length 10485760\)/);
    assert.match((await cancelOf(longerId)).reason, /^request body: .*content-length/i);
    assert.match((await cancelOf(shorterId)).reason, /^request body: .*content-length/i);
    assert.equal((await cancelOf(reusedId)).reason, 'stream id reused');
    assert.match((await cancelOf(cancelledId)).reason, /for an ended stream/);
    assert.match((await cancelOf(badBase64Id)).reason, /not standard base64/);
    assert.match((await cancelOf(badPathId)).reason, /bad path/);
    assert.match((await cancelOf(badMethodId)).reason, /method "CONNECT" is not forwarded/);

    const done = await response(goodId);
    const echoed = JSON.parse(done.body.text);
    assert.deepEqual({ bytes: echoed.bytes, sha256: echoed.sha256 }, { bytes: good.length, sha256: sha256(good) });
    // Exactly one cancel for each bad stream (the late chunks of the cancelled one got one between them), none for the good one.
    const cancels = relay.of('previewStreamCancel', {}, from);
    for (const id of [gapId, dupId, afterFinalId, unknownId, overId, reusedId, cancelledId]) assert.equal(cancels.filter((frame) => frame.streamId === id).length, 1, id);
    assert.equal(cancels.filter((frame) => frame.streamId === goodId).length, 0);
    // Bytes only where they belong: no head or chunk on a refused stream.
    for (const id of [gapId, dupId, unknownId, noPreviewId, closedId, badPathId, badMethodId]) {
      assert.equal(relay.of('previewHttpResponseHead', { streamId: id }).length + relay.of('previewStreamChunk', { streamId: id }).length, 0, id);
    }
    assert.equal(client.stats.connections, 1);
    assert.equal(client.status.state, 'connected');
    assert.ok((client.stats.refusals['preview-sequence'] ?? 0) >= 3);
    relay.send('previewClose', { previewId, reason: 'done' });
  });

  it('too many streams: per preview and per machine, HTTP cancelled and WebSocket refused; room again once they end', async () => {
    const first = await openOk();
    const second = await openOk();
    const stall = async (previewId: string) => {
      const streamId = request(previewId, 'GET', '/stall');
      await relay.waitFor('previewHttpResponseHead', { streamId });
      return streamId;
    };
    const open: string[] = [];
    for (let i = 0; i < limits.maxStreamsPerPreview; i++) open.push(await stall(first));
    const overPreview = request(first, 'GET', '/hello');
    assert.match((await relay.waitFor('previewStreamCancel', { streamId: overPreview })).reason, /^too many streams \(10 on this preview, 10 on this machine\)$/);
    const wsId = nextId('ws');
    relay.send('previewWebSocketOpen', { streamId: wsId, previewId: first, path: '/hmr' });
    assert.equal((await relay.waitFor('previewWebSocketOpenResult', { streamId: wsId })).errorCode, 'too_many_streams');
    for (let i = 0; i < limits.maxStreamsPerMachine - limits.maxStreamsPerPreview; i++) open.push(await stall(second));
    const overMachine = request(second, 'GET', '/hello');
    assert.match((await relay.waitFor('previewStreamCancel', { streamId: overMachine })).reason, /^too many streams \(4 on this preview, 14 on this machine\)$/);
    for (const streamId of open) relay.send('previewStreamCancel', { streamId, reason: 'done' });
    await pollUntil(() => client.stats.preview!.streams === 0, { what: 'every stream ended' });
    assert.equal((await response(request(first, 'GET', '/hello'))).body.text, 'hello from the dev server');
    relay.send('previewClose', { previewId: first, reason: 'done' });
    relay.send('previewClose', { previewId: second, reason: 'done' });
  });

  it('WebSockets: the chosen sub-protocol comes back, text and binary echo, close either way, a refused upgrade', async () => {
    const previewId = await openOk();
    const open = async (path: string, protocols: string[]) => {
      const streamId = nextId('ws');
      relay.send('previewWebSocketOpen', { streamId, previewId, path, headers: { origin: [`http://localhost:${port}`] }, protocols });
      return { streamId, result: await relay.waitFor('previewWebSocketOpenResult', { streamId }) };
    };
    const { streamId, result } = await open('/hmr?token=1', ['nope', 'hmr-v2']);
    assert.deepEqual(result, { type: 'previewWebSocketOpenResult', streamId, previewId, ok: true, protocol: 'hmr-v2' });
    assert.ok((await events()).includes(`ws-open /hmr?token=1 localhost:${port}`));

    relay.send('previewWebSocketData', { streamId, sequence: 1, isBinary: false, bodyBase64: b64('hello ✓') });
    const binary = Buffer.from([0, 1, 2, 255, 254]);
    relay.send('previewWebSocketData', { streamId, sequence: 2, isBinary: true, bodyBase64: b64(binary) });
    await pollUntil(() => relay.bodies.get(streamId)?.chunks === 2, { what: 'two echoes' });
    const echoes = relay.of('previewWebSocketData', { streamId });
    assert.deepEqual(echoes.map((frame) => [frame.sequence, frame.isBinary, frame.bodyBytes]), [[1, false, Buffer.byteLength('hello ✓')], [2, true, 5]]);
    assert.equal(echoes[0]!.text, 'hello ✓');
    await pollUntil(() => relay.of('previewStreamAck', { streamId }).some((ack) => ack.sequence === 2), { what: 'the ack of both messages' });
    // Quiet for longer than the idle timeout: the daemon's pings keep a healthy socket open.
    await new Promise((resolve) => setTimeout(resolve, limits.idleTimeoutMs + 1_000));
    assert.equal(relay.of('previewStreamCancel', { streamId }).length + relay.of('previewWebSocketClose', { streamId }).length, 0, 'a quiet socket is not idle');
    // A sequence break closes it like any stream.
    relay.send('previewWebSocketData', { streamId, sequence: 5, isBinary: false, bodyBase64: b64('x') });
    assert.equal((await relay.waitFor('previewStreamCancel', { streamId })).reason, 'previewWebSocketData sequence 5 after 2');
    await pollUntil(async () => (await events()).filter((event) => event.startsWith('ws-close')).length === 1, { what: 'the dev server socket closed' });

    // Closed by the viewer.
    const second = await open('/hmr', ['hmr-v2']);
    relay.send('previewWebSocketClose', { streamId: second.streamId, code: 1000, reason: 'tab closed' });
    await pollUntil(async () => (await events()).filter((event) => event === 'ws-close 1000').length === 1, { what: 'the viewer close at the dev server' });

    // Closed by the dev server.
    const third = await open('/hmr', []);
    assert.equal(third.result.ok, true);
    assert.equal(third.result.protocol, undefined, 'none offered, none chosen');
    relay.send('previewWebSocketData', { streamId: third.streamId, sequence: 1, isBinary: false, bodyBase64: b64('close-me') });
    const closed = await relay.waitFor('previewWebSocketClose', { streamId: third.streamId });
    assert.deepEqual(closed, { type: 'previewWebSocketClose', streamId: third.streamId, code: 4001, reason: 'bye' });

    // Too large a message from the viewer: 1009.
    const fourth = await open('/hmr', []);
    relay.send('previewWebSocketData', { streamId: fourth.streamId, sequence: 1, isBinary: true, bodyBase64: b64(Buffer.alloc(limits.chunkBytes + 1)) });
    assert.equal((await relay.waitFor('previewWebSocketClose', { streamId: fourth.streamId })).code, 1009);

    // The dev server refuses the upgrade; an unknown preview; a bad sub-protocol.
    const refused = await open('/forbidden', []);
    assert.deepEqual({ ok: refused.result.ok, errorCode: refused.result.errorCode }, { ok: false, errorCode: 'upstream_refused' });
    assert.match(refused.result.message, /HTTP 403/);
    const unknownId = nextId('ws');
    relay.send('previewWebSocketOpen', { streamId: unknownId, previewId: 'pv-unknown', path: '/hmr' });
    assert.equal((await relay.waitFor('previewWebSocketOpenResult', { streamId: unknownId })).errorCode, 'unknown_preview');
    const badProtocol = await open('/hmr', ['bad protocol']);
    assert.equal(badProtocol.result.errorCode, 'bad_request');
    relay.send('previewClose', { previewId, reason: 'done' });
    await pollUntil(() => client.stats.preview!.streams === 0, { what: 'no stream left' });
  });

  it('previewClose from the relay ends its streams at the dev server', async () => {
    const previewId = await openOk();
    const streamId = request(previewId, 'GET', '/stall');
    await relay.waitFor('previewHttpResponseHead', { streamId });
    const before = (await events()).filter((event) => event === 'aborted /stall').length;
    relay.send('previewClose', { previewId, reason: 'viewer closed it' });
    await pollUntil(async () => (await events()).filter((event) => event === 'aborted /stall').length === before + 1, { what: 'the stream ended at the dev server' });
    assert.equal(relay.of('previewClose', { previewId }).length, 0, 'the daemon does not echo it');
  });

  it('the link closing ends every preview and stream without a frame; on the new link the same preview id opens again', async () => {
    const previewId = await openOk();
    const streamId = request(previewId, 'GET', '/stall');
    await relay.waitFor('previewHttpResponseHead', { streamId });
    const before = (await events()).filter((event) => event === 'aborted /stall').length;
    const connections = client.stats.connections;
    relay.dropLink();
    await pollUntil(async () => (await events()).filter((event) => event === 'aborted /stall').length === before + 1, { what: 'the stream ended at the dev server' });
    await pollUntil(() => client.stats.connections === connections + 1 && client.status.state === 'connected', { what: 'reconnected' });
    assert.equal(client.stats.preview!.previews, 0);
    await openOk({ previewId });
    relay.send('previewClose', { previewId, reason: 'done' });
  });

  it('to a relay that advertised no window, the daemon sends without waiting for acks', async () => {
    relay.welcome = { latestDaemonVersion: '1.0.0' };
    const connections = client.stats.connections;
    relay.dropLink();
    await pollUntil(() => client.stats.connections === connections + 1 && client.status.state === 'connected', { what: 'reconnected' });
    relay.ackDelayMs = false;
    try {
      const previewId = await openOk();
      const streamId = request(previewId, 'GET', `/big?bytes=${4 * 1024 * 1024}`);
      await pollUntil(() => relay.bodies.get(streamId)?.final, { what: 'the end of 4 MB without an ack' });
      assert.equal(relay.bodies.get(streamId)!.bytes, 4 * 1024 * 1024);
      assert.ok(client.stats.preview!.peakStreamPendingBytes <= limits.bufferBytes + limits.chunkBytes);
      relay.send('previewClose', { previewId, reason: 'done' });
    } finally {
      relay.ackDelayMs = 0;
    }
  });

  it('to a relay that offered previewBinaryBodies, bodies go as binary frames both ways, the same bytes; a bad binary frame is refused and the link carries on', async () => {
    const reconnect = async (welcome: Record<string, unknown>) => {
      relay.welcome = welcome;
      const connections = client.stats.connections;
      relay.dropLink();
      await pollUntil(() => client.stats.connections === connections + 1 && client.status.state === 'connected', { what: 'reconnected' });
    };
    const plainWelcome = relay.welcome;
    await reconnect({ ...plainWelcome, previewBinaryBodies: true });
    try {
      const previewId = await openOk();
      const binaryBefore = relay.binaryFrames;
      // A download: every chunk a binary frame, the bytes those the dev server wrote.
      const total = 1024 * 1024 + 5;
      const download = request(previewId, 'GET', `/big?bytes=${total}`);
      const { head, body } = await response(download);
      assert.equal(head.statusCode, 200);
      assert.equal(body.bytes, total);
      const expected = Buffer.alloc(total);
      for (let i = 0; i < total; i++) expected[i] = ((i % 65536) * 31 + 7) & 255;
      assert.equal(body.hash.copy().digest('hex'), sha256(expected));
      assert.ok(relay.of('previewStreamChunk', { streamId: download }).every((frame) => frame.binary === true), 'every chunk binary');
      assert.ok(body.maxChunk <= limits.chunkBytes);

      // An upload in binary frames (the relay's side of the extension) and one in base64: both arrive intact.
      const upload = nextId('st');
      const parts = [Buffer.from('binary part one ✓ '), Buffer.alloc(70_000, 7), Buffer.from([0, 255, 0])];
      relay.send('previewHttpRequest', { requestId: nextId('req'), streamId: upload, previewId, method: 'POST', path: '/echo', headers: { 'content-type': ['application/octet-stream'] } });
      parts.slice(0, 1).forEach((part, index) => relay.sendBinaryBody({ type: 'previewStreamChunk', streamId: upload, sequence: index + 1, final: false }, part));
      relay.send('previewStreamChunk', { streamId: upload, sequence: 2, bodyBase64: b64(parts[1]!.subarray(0, 60_000)), final: false });
      relay.sendBinaryBody({ type: 'previewStreamChunk', streamId: upload, sequence: 3, final: false }, parts[1]!.subarray(60_000));
      relay.sendBinaryBody({ type: 'previewStreamChunk', streamId: upload, sequence: 4, final: true }, parts[2]!);
      const echoed = JSON.parse((await response(upload)).body.text);
      const sent = Buffer.concat(parts);
      assert.deepEqual({ method: echoed.method, bytes: echoed.bytes, sha256: echoed.sha256 }, { method: 'POST', bytes: sent.length, sha256: sha256(sent) });

      // WebSocket data both ways in binary frames, text and binary messages kept apart.
      const socketStream = nextId('ws');
      relay.send('previewWebSocketOpen', { streamId: socketStream, previewId, path: '/hmr', protocols: [] });
      assert.equal((await relay.waitFor('previewWebSocketOpenResult', { streamId: socketStream })).ok, true);
      relay.sendBinaryBody({ type: 'previewWebSocketData', streamId: socketStream, sequence: 1, isBinary: false }, Buffer.from('hot update ✓'));
      relay.sendBinaryBody({ type: 'previewWebSocketData', streamId: socketStream, sequence: 2, isBinary: true }, Buffer.from([9, 8, 7]));
      await pollUntil(() => relay.bodies.get(socketStream)?.chunks === 2, { what: 'two echoes' });
      const echoes = relay.of('previewWebSocketData', { streamId: socketStream });
      assert.deepEqual(echoes.map((frame) => [frame.sequence, frame.isBinary, frame.bodyBytes, frame.binary]), [[1, false, Buffer.byteLength('hot update ✓'), true], [2, true, 3, true]]);
      assert.equal(echoes[0]!.text, 'hot update ✓');
      assert.ok(relay.binaryFrames > binaryBefore);

      // Bad binary frames: refused with the reason, once per kind; nothing ends, the link stays.
      const links = client.stats.connections;
      relay.sendBytes(Buffer.from([0, 0]));
      relay.sendBytes(Buffer.concat([Buffer.from([0, 0, 1, 0]), Buffer.from('{}')]));
      // A well-formed previewOpen, but in a binary frame: refused, so no preview opens.
      const smuggled = { type: 'previewOpen', requestId: nextId('req'), previewId: nextId('pv'), sessionId: client.sessionId, channelId: 'preview:x', machineId: 'm1', targetHost: '127.0.0.1', targetPort: port, expiresAt: inAnHour() };
      relay.sendBinaryBody(smuggled, Buffer.alloc(0));
      const withBase64 = Buffer.from(JSON.stringify({ type: 'previewStreamChunk', streamId: socketStream, sequence: 3, final: false, bodyBase64: 'eA==' }));
      relay.sendBytes(Buffer.concat([Buffer.from([0, 0, 0, withBase64.length]), withBase64]));
      await pollUntil(() => log.lines.filter((line) => /binary frame|bodyBase64 must be/.test(line)).length >= 4, { what: 'four refusals logged' });
      const refusals = log.lines.join('\n');
      assert.match(refusals, /a binary frame of 2 bytes has no header length/);
      assert.match(refusals, /header of 256 bytes is longer than the frame/);
      assert.match(refusals, /previewOpen is never sent as a binary frame/);
      assert.match(refusals, /bodyBase64 must be ""/);
      assert.equal(relay.of('previewOpenResult', { requestId: smuggled.requestId }).length, 0, 'the smuggled open was not answered');
      const after = request(previewId, 'GET', '/hello');
      assert.equal((await response(after)).body.text, 'hello from the dev server');
      assert.equal(client.stats.connections, links, 'the link stayed up');
      relay.send('previewClose', { previewId, reason: 'done' });

      // A relay that did not offer it gets base64 again, and its binary frames are refused.
      await reconnect(plainWelcome);
      const plainPreview = await openOk();
      const before = relay.binaryFrames;
      const plain = request(plainPreview, 'GET', `/big?bytes=${200_000}`);
      assert.equal((await response(plain)).body.bytes, 200_000);
      assert.equal(relay.binaryFrames, before, 'no binary frame to a relay that did not offer them');
      relay.sendBinaryBody({ type: 'previewStreamChunk', streamId: 'st-x', sequence: 1, final: true }, Buffer.alloc(1));
      await pollUntil(() => log.lines.some((line) => line.includes('the relay did not offer previewBinaryBodies')), { what: 'the refusal' });
      relay.send('previewClose', { previewId: plainPreview, reason: 'done' });
    } finally {
      if (relay.welcome !== plainWelcome) await reconnect(plainWelcome);
    }
  });

  it('a dev server restarting within portGraceMs keeps its preview: requests meanwhile are refused, never dialled; the same preview serves again', async () => {
    const pane = await hub.hub.ptyHost.create({ ...bashShell, cwd: hub.temp.workspace, createdBy: { kind: 'person', name: 'you' }, name: 'restarting' });
    client.setShared(pane.id, true);
    const panePort = await freePort();
    await startServer(pane, panePort);
    const previewId = await openOk({ targetPort: panePort });
    const closesBefore = relay.of('previewClose', { previewId }).length;

    pane.write('\x03');
    await pollUntil(() => !pane.info.servers?.some((server) => server.port === panePort), { what: 'the server gone' });
    // Meanwhile another process takes the port: a request is refused with the reason, and that process is never reached.
    const squatter = createServer((_req, res) => res.end('not the pane'));
    let squatterHits = 0;
    squatter.on('request', () => squatterHits++);
    await new Promise<void>((resolve) => squatter.listen(panePort, '127.0.0.1', resolve));
    try {
      const during = request(previewId, 'GET', '/hello');
      const cancel = await relay.waitFor('previewStreamCancel', { streamId: during });
      assert.match(cancel.reason, new RegExp(`the dev server on port ${panePort} is not listening \\(restarting\\?\\)`));
      assert.equal(squatterHits, 0);
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }

    await startServer(pane, panePort);
    const after = request(previewId, 'GET', '/hello');
    assert.equal((await response(after)).body.text, 'hello from the dev server');
    assert.equal(relay.of('previewClose', { previewId }).length, closesBefore, 'the preview never closed');

    // Gone for longer than the grace: closed with port_closed.
    pane.write('\x03');
    const closed = await relay.waitFor('previewClose', { previewId }, { timeoutMs: limits.portGraceMs + 10_000 });
    assert.equal(closed.reason, 'port_closed');
    await hub.hub.ptyHost.close(pane.id);
  });

  it('the daemon sends previewClose when the port closes, the pane is unshared, expiresAt passes, the pane exits', async () => {
    const pane = await hub.hub.ptyHost.create({ ...bashShell, cwd: hub.temp.workspace, createdBy: { kind: 'person', name: 'you' }, name: 'closing' });
    client.setShared(pane.id, true);
    const panePort = await freePort();
    const open = (fields: Partial<RelayFields<'previewOpen'>> = {}) => openOk({ targetPort: panePort, ...fields });
    const closedWith = (previewId: string) => relay.waitFor('previewClose', { previewId }, { timeoutMs: 15_000 }).then((frame) => frame.reason);

    await startServer(pane, panePort);
    let previewId = await open();
    pane.write('\x03');
    assert.equal(await closedWith(previewId), 'port_closed');

    await startServer(pane, panePort);
    previewId = await open();
    const streamId = request(previewId, 'GET', '/stall');
    await relay.waitFor('previewHttpResponseHead', { streamId });
    client.setShared(pane.id, false);
    assert.equal(await closedWith(previewId), 'unshared');
    await pollUntil(async () => (await events(panePort)).includes('aborted /stall'), { what: 'its stream ended at the dev server' });
    client.setShared(pane.id, true);

    previewId = await open({ expiresAt: rfc3339(Date.now() + 2_000) });
    assert.equal(await closedWith(previewId), 'expired');

    pane.write('\x03');
    await pollUntil(() => !pane.info.servers?.length, { what: 'the server gone' });
    await startServer(pane, panePort, { exec: true });
    previewId = await open();
    await hub.hub.ptyHost.close(pane.id);
    assert.equal(await closedWith(previewId), 'pane_exited');
    assert.equal(client.stats.connections, 5, 'the four reconnects the tests asked for, no other');
  });

  it('python3 -m http.server in a shared pane: static files and HEAD through the tunnel', async () => {
    const site = join(hub.temp.workspace, 'site');
    mkdirSync(site, { recursive: true });
    const page = `<!doctype html><title>static</title>${'<p>é</p>'.repeat(20_000)}`;
    writeFileSync(join(site, 'index.html'), page);
    const pane = await hub.hub.ptyHost.create({ ...bashShell, cwd: site, createdBy: { kind: 'person', name: 'you' }, name: 'static' });
    client.setShared(pane.id, true);
    const staticPort = await freePort();
    pane.write(`python3 -m http.server ${staticPort} --bind 127.0.0.1\r`);
    await pollUntil(() => pane.info.servers?.some((server) => server.port === staticPort && server.pid !== null), { what: 'the python server detected', timeoutMs: 15_000 });
    const previewId = await openOk({ targetPort: staticPort });
    const get = await response(request(previewId, 'GET', '/index.html'));
    assert.equal(get.head.statusCode, 200);
    assert.equal(get.body.bytes, Buffer.byteLength(page));
    assert.equal(get.body.hash.digest('hex'), sha256(Buffer.from(page)));
    assert.ok(get.body.chunks >= 3, 'a page larger than a chunk comes in several');
    const head = await response(request(previewId, 'HEAD', '/index.html'));
    assert.equal(head.head.headers['content-length'][0], String(Buffer.byteLength(page)));
    assert.equal(head.body.bytes, 0);
    assert.equal(head.body.chunks, 1, 'one empty final chunk');
    const missing = await response(request(previewId, 'GET', '/nope.txt'));
    assert.equal(missing.head.statusCode, 404);
    await hub.hub.ptyHost.close(pane.id);
    assert.equal((await relay.waitFor('previewClose', { previewId })).reason, 'pane_exited');
  });

  it('client.stop() closes every preview with daemon_shutdown', async () => {
    const previewId = await openOk();
    await client.stop();
    assert.equal((await relay.waitFor('previewClose', { previewId })).reason, 'daemon_shutdown');
    // No token in any log line.
    assert.ok(!log.lines.some((line) => line.includes('sbrd_preview-test-token')));
  });
});

describe('preview tunnel: a client built without previews', () => {
  it('does not advertise it and answers previewOpen with not_supported', async () => {
    const hub = await startTestHub();
    const relay = await ScriptedPreviewRelay.start();
    const client = connectClient(hub.hub, relay.url, 'm1', 'sbrd_x', { preview: false });
    try {
      await pollUntil(() => client.status.state === 'connected', { what: 'connected' });
      assert.deepEqual(relay.frames.find((frame) => frame.type === 'hello')!.capabilities, { terminal: true, agentTerminalJobs: true });
      relay.send('previewOpen', { requestId: 'r1', previewId: 'pv-1', sessionId: client.sessionId, channelId: 'preview:pv-1', machineId: 'm1', targetHost: '127.0.0.1', targetPort: 80, expiresAt: inAnHour() });
      const result = await relay.waitFor('previewOpenResult', { requestId: 'r1' });
      assert.deepEqual({ ok: result.ok, errorCode: result.errorCode }, { ok: false, errorCode: 'not_supported' });
      assert.equal(client.stats.preview, undefined);
    } finally {
      client.dispose();
      await relay.close();
      hub.dispose();
    }
  });
});
