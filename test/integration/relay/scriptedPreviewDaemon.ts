/**
 * A daemon for the relay's preview tests: it says hello with the preview capabilities, announces
 * shared panes with their ports, and answers the relay's preview frames by proxying to a real
 * local HTTP + WebSocket server (a small proxy loop, the stand-in for the Switchboard daemon's side
 * in src/node/relay/). It honours the relay's window (`welcome.previewStreamWindowBytes`) with
 * `previewStreamAck`, and every step can be replaced by a test that wants to misbehave.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { RelayConstants } from '../../../src/common/constants.ts';
import { parseEnvelope } from '../../../src/common/protocol/relay/envelope.ts';
import { encodeFrame, rfc3339 } from '../../../src/common/protocol/relay/frames.ts';
import type { RelayFields, RelayMessage, RelayMessageType } from '../../../src/common/protocol/relay/messages.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { layOutBodyFrame, readBodyFrameLayout } from './relayTestKit.ts';

/** A body frame's bytes: those of a binary frame, or its base64. */
function bodyOf(message: { bodyBase64: string; body?: Buffer }): Buffer {
  return message.body ?? Buffer.from(message.bodyBase64, 'base64');
}

type Frame<T extends RelayMessageType> = Extract<RelayMessage, { type: T }>;

interface UpstreamHttp {
  kind: 'http';
  request: ClientRequest;
  response: IncomingMessage | undefined;
  nextIn: number;
  outSequence: number;
  unacked: Array<{ sequence: number; bytes: number }>;
  unackedBytes: number;
}

interface UpstreamSocket {
  kind: 'ws';
  socket: WebSocket;
  outSequence: number;
}

export interface PreviewDaemonOptions {
  /** Advertise previewStreamWindowBytes (default: RelayConstants.previewStreamBufferBytes); null: do not (send without waiting). */
  windowBytes?: number | null;
  /** Advertise previewTunnel (default true). */
  previewTunnel?: boolean;
  /** Acknowledge the relay's request chunks this much later (a slow dev server taking an upload). */
  ackDelayMs?: number;
  /** Advertised previewChunkBytes, and the size of the chunks this daemon sends (default RelayConstants.previewChunkBytes). */
  chunkBytes?: number;
  /** Advertise previewBinaryBodies (default false): bodies as binary frames, both ways, once the relay agrees in welcome. */
  binaryBodies?: boolean;
}

export class PreviewDaemon {
  readonly received: RelayMessage[] = [];
  readonly machineId: string;
  /** The relay's window from welcome (undefined: it advertised none). */
  relayWindow: number | undefined;
  /** The relay's welcome as it came. */
  welcome: RelayMessage | undefined;
  /** previewId → where it points. */
  readonly previews = new Map<string, { host: string; port: number }>();
  readonly streams = new Map<string, UpstreamHttp | UpstreamSocket>();
  /** Answer previewOpen: default ok; return undefined to stay silent. */
  onOpen: (frame: Frame<'previewOpen'>) => RelayFields<'previewOpenResult'> | undefined = (frame) => ({ requestId: frame.requestId, previewId: frame.previewId, ok: true });
  /** Take over a request (return true): the test answers it with its own frames. */
  interceptHttp: (frame: Frame<'previewHttpRequest'>) => boolean = () => false;
  /** Peak of body bytes sent on one stream and not yet acknowledged by the relay. */
  maxUnackedBytes = 0;
  /** Peak of request body bytes the relay sent on one stream that this daemon had not acknowledged yet. */
  maxRelayUnackedBytes = 0;
  readonly #relayUnacked = new Map<string, number>();
  #ackDelayMs = 0;
  readonly #socket: WebSocket;
  #chunkBytes: number = RelayConstants.previewChunkBytes;
  /** The largest request chunk / WebSocket message the relay sent. */
  maxRelayChunkBytes = 0;
  /** The relay agreed to previewBinaryBodies in welcome. */
  binaryBodies = false;
  /** Body frames the relay sent as binary frames. */
  binaryFramesReceived = 0;

  private constructor(socket: WebSocket, machineId: string) {
    this.#socket = socket;
    this.machineId = machineId;
    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        // A body frame of the previewBinaryBodies extension, read by its layout: the header, the body as bytes.
        const { header, body } = readBodyFrameLayout(data as Buffer);
        this.binaryFramesReceived++;
        const message = { ...header, body } as unknown as RelayMessage;
        this.received.push(message);
        this.#onFrame(message);
        return;
      }
      const parsed = parseEnvelope(data.toString());
      if (!parsed.ok) return;
      this.received.push(parsed.message);
      this.#onFrame(parsed.message);
    });
  }

  static async connect(relay: { url: string; tokens: Map<string, { daemonToken: string }> }, machineId: string, options: PreviewDaemonOptions = {}): Promise<PreviewDaemon> {
    const socket = new WebSocket(`${relay.url}/ws/daemon?machineId=${machineId}`, { headers: { Authorization: `Bearer ${relay.tokens.get(machineId)!.daemonToken}` } });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const windowBytes = options.windowBytes === undefined ? RelayConstants.previewStreamBufferBytes : options.windowBytes;
    socket.send(
      encodeFrame('hello', {
        machineId,
        daemonVersion: '9.9.9',
        os: 'linux',
        arch: 'x64',
        capabilities: {
          terminal: true,
          previewTunnel: options.previewTunnel ?? true,
          previewMaxFrameBytes: RelayConstants.previewMaxFrameBytes,
          previewChunkBytes: options.chunkBytes ?? RelayConstants.previewChunkBytes,
          previewWebSocketProtocols: true,
          localServerDetection: true,
          ...(windowBytes === null ? {} : { previewStreamWindowBytes: windowBytes }),
          ...(options.binaryBodies ? { previewBinaryBodies: true } : {}),
        },
      }),
    );
    const welcome = await new Promise<RelayMessage>((resolve) => socket.once('message', (data) => resolve((parseEnvelope(data.toString()) as { message: RelayMessage }).message)));
    const daemon = new PreviewDaemon(socket, machineId);
    daemon.#ackDelayMs = options.ackDelayMs ?? 0;
    daemon.#chunkBytes = options.chunkBytes ?? RelayConstants.previewChunkBytes;
    daemon.relayWindow = welcome.type === 'welcome' ? welcome.previewStreamWindowBytes : undefined;
    daemon.binaryBodies = welcome.type === 'welcome' && welcome.previewBinaryBodies === true;
    daemon.welcome = welcome;
    return daemon;
  }

  send<T extends RelayMessageType>(type: T, fields: RelayFields<T>): void {
    this.#socket.send(encodeFrame(type, fields));
  }

  /** Raw bytes as one binary frame (a test's malformed body frame). */
  sendBytes(frame: Buffer): void {
    this.#socket.send(frame, { binary: true });
  }

  /** A body frame: binary when the relay agreed to previewBinaryBodies, else base64 in JSON. */
  #sendBody(fields: Record<string, unknown> & { type: 'previewStreamChunk' | 'previewWebSocketData' }, body: Buffer): void {
    if (this.binaryBodies) this.sendBytes(layOutBodyFrame(fields, body));
    else this.#socket.send(JSON.stringify({ ...fields, bodyBase64: body.toString('base64') }));
  }

  /** A shared pane with servers on these ports (agentTerminalStarted on "*"). */
  announce(terminalId: string, ports: number[], fields: Partial<RelayFields<'agentTerminalStarted'>> = {}): void {
    this.send('agentTerminalStarted', {
      jobId: terminalId,
      terminalId,
      sessionId: `switchboard:${this.machineId}`,
      channelId: '*',
      projectId: '/w',
      commandPreview: 'npm run dev',
      title: `pane ${terminalId}`,
      cwd: '/w',
      status: 'running',
      startedAt: rfc3339(),
      ports: ports.map((port) => ({ host: '127.0.0.1', port, url: `http://localhost:${port}/` })),
      urls: ports.map((port) => `http://localhost:${port}/`),
      readiness: { state: 'ready', source: 'port', readyAt: rfc3339() },
      ...fields,
    });
  }

  waitFor<T extends RelayMessageType>(type: T, predicate: (frame: Frame<T>) => boolean = () => true, from = 0): Promise<Frame<T>> {
    return pollUntil(() => this.received.slice(from).find((frame): frame is Frame<T> => frame.type === type && predicate(frame as Frame<T>)), { what: `the daemon to receive ${type}` });
  }

  /** The preview frames sent so far (to find a stream by its path). */
  requests(): Array<Frame<'previewHttpRequest'>> {
    return this.received.filter((frame): frame is Frame<'previewHttpRequest'> => frame.type === 'previewHttpRequest');
  }

  close(): Promise<void> {
    if (this.#socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#socket.close();
    });
  }

  // --- the proxy loop ---------------------------------------------------------------------------

  #onFrame(message: RelayMessage): void {
    switch (message.type) {
      case 'previewOpen': {
        this.previews.set(message.previewId, { host: message.targetHost, port: message.targetPort });
        const answer = this.onOpen(message);
        if (answer) this.send('previewOpenResult', answer);
        return;
      }
      case 'previewClose':
        this.previews.delete(message.previewId);
        return;
      case 'previewHttpRequest':
        if (this.interceptHttp(message)) return;
        return this.#startHttp(message);
      case 'previewStreamChunk': {
        const stream = this.streams.get(message.streamId);
        if (stream?.kind !== 'http') return;
        if (message.sequence !== stream.nextIn) throw new Error(`relay sent request chunk ${message.sequence}, expected ${stream.nextIn}`);
        stream.nextIn++;
        const body = bodyOf(message);
        this.maxRelayChunkBytes = Math.max(this.maxRelayChunkBytes, body.length);
        if (body.length > 0) stream.request.write(body);
        const unacked = (this.#relayUnacked.get(message.streamId) ?? 0) + body.length;
        this.#relayUnacked.set(message.streamId, unacked);
        this.maxRelayUnackedBytes = Math.max(this.maxRelayUnackedBytes, unacked);
        // Handed to the dev server: acknowledge (the relay pauses the viewer's upload past its window).
        const ack = (): void => {
          this.#relayUnacked.set(message.streamId, (this.#relayUnacked.get(message.streamId) ?? 0) - body.length);
          if (this.relayWindow !== undefined) this.send('previewStreamAck', { streamId: message.streamId, sequence: message.sequence });
        };
        if (this.#ackDelayMs > 0) setTimeout(ack, this.#ackDelayMs);
        else ack();
        if (message.final) stream.request.end();
        return;
      }
      case 'previewStreamAck': {
        const stream = this.streams.get(message.streamId);
        if (stream?.kind !== 'http') return;
        while (stream.unacked.length > 0 && stream.unacked[0]!.sequence <= message.sequence) stream.unackedBytes -= stream.unacked.shift()!.bytes;
        if (stream.unackedBytes < (this.relayWindow ?? Infinity)) stream.response?.resume();
        return;
      }
      case 'previewStreamCancel': {
        const stream = this.streams.get(message.streamId);
        this.streams.delete(message.streamId);
        if (stream?.kind === 'http') stream.request.destroy();
        if (stream?.kind === 'ws') stream.socket.terminate();
        return;
      }
      case 'previewWebSocketOpen':
        return this.#openSocket(message);
      case 'previewWebSocketData': {
        const stream = this.streams.get(message.streamId);
        if (stream?.kind !== 'ws') return;
        const body = bodyOf(message);
        stream.socket.send(message.isBinary ? body : body.toString('utf8'), { binary: message.isBinary });
        if (this.relayWindow !== undefined) this.send('previewStreamAck', { streamId: message.streamId, sequence: message.sequence });
        return;
      }
      case 'previewWebSocketClose': {
        const stream = this.streams.get(message.streamId);
        this.streams.delete(message.streamId);
        if (stream?.kind === 'ws') stream.socket.close(message.code ?? 1000, message.reason ?? '');
        return;
      }
      default:
    }
  }

  #startHttp(frame: Frame<'previewHttpRequest'>): void {
    const target = this.previews.get(frame.previewId);
    if (!target) {
      this.send('previewStreamCancel', { streamId: frame.streamId, reason: 'unknown preview' });
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, values] of Object.entries(frame.headers ?? {})) headers[name] = values.length === 1 ? values[0]! : values;
    const upstream = request({ host: target.host, port: target.port, method: frame.method, path: frame.path, headers, agent: false });
    const stream: UpstreamHttp = { kind: 'http', request: upstream, response: undefined, nextIn: 1, outSequence: 0, unacked: [], unackedBytes: 0 };
    this.streams.set(frame.streamId, stream);
    upstream.on('error', (error) => {
      if (this.streams.get(frame.streamId) !== stream) return;
      this.streams.delete(frame.streamId);
      this.send('previewStreamCancel', { streamId: frame.streamId, reason: `upstream: ${error.message}` });
    });
    upstream.on('response', (response) => {
      stream.response = response;
      const responseHeaders: Record<string, string[]> = {};
      for (let index = 0; index < response.rawHeaders.length; index += 2) (responseHeaders[response.rawHeaders[index]!.toLowerCase()] ??= []).push(response.rawHeaders[index + 1]!);
      this.send('previewHttpResponseHead', { requestId: frame.requestId, streamId: frame.streamId, previewId: frame.previewId, statusCode: response.statusCode ?? 502, headers: responseHeaders });
      response.on('data', (data: Buffer) => {
        if (this.streams.get(frame.streamId) !== stream) return;
        for (let offset = 0; offset < data.length; offset += this.#chunkBytes) {
          const piece = data.subarray(offset, offset + this.#chunkBytes);
          stream.outSequence++;
          this.#sendBody({ type: 'previewStreamChunk', streamId: frame.streamId, sequence: stream.outSequence, final: false }, piece);
          if (this.relayWindow !== undefined) {
            stream.unacked.push({ sequence: stream.outSequence, bytes: piece.length });
            stream.unackedBytes += piece.length;
            this.maxUnackedBytes = Math.max(this.maxUnackedBytes, stream.unackedBytes);
          }
        }
        if (stream.unackedBytes >= (this.relayWindow ?? Infinity)) response.pause();
      });
      response.on('end', () => {
        if (this.streams.get(frame.streamId) !== stream) return;
        this.streams.delete(frame.streamId);
        stream.outSequence++;
        this.#sendBody({ type: 'previewStreamChunk', streamId: frame.streamId, sequence: stream.outSequence, final: true }, Buffer.alloc(0));
      });
    });
  }

  #openSocket(frame: Frame<'previewWebSocketOpen'>): void {
    const target = this.previews.get(frame.previewId);
    if (!target) {
      this.send('previewWebSocketOpenResult', { streamId: frame.streamId, previewId: frame.previewId, ok: false, errorCode: 'unknown_preview' });
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, values] of Object.entries(frame.headers ?? {})) if (name !== 'host') headers[name] = values.join(', ');
    const socket = new WebSocket(`ws://${target.host}:${target.port}${frame.path}`, frame.protocols ?? [], { headers, origin: headers.origin });
    const stream: UpstreamSocket = { kind: 'ws', socket, outSequence: 0 };
    this.streams.set(frame.streamId, stream);
    socket.on('open', () => this.send('previewWebSocketOpenResult', { streamId: frame.streamId, previewId: frame.previewId, ok: true, ...(socket.protocol ? { protocol: socket.protocol } : {}) }));
    socket.on('unexpected-response', (_req, res) => {
      this.streams.delete(frame.streamId);
      this.send('previewWebSocketOpenResult', { streamId: frame.streamId, previewId: frame.previewId, ok: false, errorCode: 'upstream_refused', message: String(res.statusCode) });
      socket.terminate();
    });
    socket.on('error', () => {});
    socket.on('message', (data, isBinary) => {
      stream.outSequence++;
      this.#sendBody({ type: 'previewWebSocketData', streamId: frame.streamId, sequence: stream.outSequence, isBinary }, Buffer.from(data as Buffer));
    });
    socket.on('close', (code, reason) => {
      if (this.streams.get(frame.streamId) !== stream) return;
      this.streams.delete(frame.streamId);
      this.send('previewWebSocketClose', { streamId: frame.streamId, code, reason: reason.toString() });
    });
  }
}
