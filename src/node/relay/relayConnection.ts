/**
 * One WebSocket link from this daemon to a relay, for as long as it lasts (RelayClient makes a new
 * one per reconnect): the `hello`/`welcome` handshake, `heartbeat` frames and pings, inbound frame
 * validation (limits before parsing; every refusal logged once per kind, the link carries on), and
 * the outgoing side:
 *
 * - control frames (answers, announcements) go through a bounded FIFO (spec: 512 frames); a full
 *   queue means the relay stopped reading, so the link is dropped and RelayClient reconnects;
 * - terminal output is pulled, not pushed: viewer streams (viewerStream.ts) say they have data
 *   and the link asks them for one frame at a time, round-robin, only while the socket has room
 *   (`socketHighWaterBytes`). So output waits in the streams' own bounded buffers, where it can be
 *   skipped ahead, instead of piling up in the socket;
 * - every write must be flushed within `writeTimeoutMs` (spec: 10 s) or the link is dropped.
 */
import WebSocket from 'ws';
import { RelayConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { parseEnvelope } from '../../common/protocol/relay/envelope.ts';
import { defaultEnvelopeLimits, type EnvelopeLimits, utf8ByteLength } from '../../common/protocol/relay/frameLimits.ts';
import type { RelayMessage } from '../../common/protocol/relay/messages.ts';
import { decodeBodyFrame } from './preview/previewBodyFrames.ts';
import { utf8Frame } from './utf8Frame.ts';
import type { ILogger } from '../logger.ts';
import type { RefusalLog } from './refusalLog.ts';

/** Something that produces frames on demand (a viewer's stream of one terminal). */
export interface OutputSource {
  /**
   * The next frame to write, or undefined when nothing is ready (the source calls `markReady` again
   * once it has). Bytes are a binary frame (a preview body, only once the relay said
   * `previewBinaryBodies`: see previewBodyFrames.ts).
   */
  nextFrame(): string | Buffer | undefined;
}

/** What the relay's `welcome` told us. */
export interface RelayWelcome {
  latestDaemonVersion: string | undefined;
  /** The relay honours `previewStreamAck` with this window per stream (undefined: it does not). */
  previewStreamWindowBytes: number | undefined;
  /** The relay takes preview bodies as binary frames, and may send them (a Switchboard extension). */
  previewBinaryBodies: boolean;
}

export type RelayConnectFailure = 'refused' | 'timeout' | 'protocol' | 'network';

/** The link could not be established; `kind` decides how RelayClient backs off. */
export class RelayConnectError extends Error {
  readonly kind: RelayConnectFailure;
  readonly httpStatus: number | undefined;

  constructor(kind: RelayConnectFailure, message: string, httpStatus?: number) {
    super(message);
    this.name = 'RelayConnectError';
    this.kind = kind;
    this.httpStatus = httpStatus;
  }
}

export interface RelayConnectionTiming {
  welcomeTimeoutMs: number;
  heartbeatIntervalMs: number;
  writeTimeoutMs: number;
}

export interface RelayConnectionOptions {
  url: URL;
  /** Sent as `Authorization: Bearer`; never logged. */
  token: string;
  /** The encoded `hello` frame. */
  hello: string;
  /** Builds a fresh `heartbeat` frame (its timestamp is now). */
  heartbeat: () => string;
  onMessage: (message: RelayMessage) => void;
  logger: ILogger;
  refusals: RefusalLog;
  timing?: Partial<RelayConnectionTiming>;
  sendQueueFrames?: number;
  socketHighWaterBytes?: number;
  limits?: Partial<EnvelopeLimits>;
}

export interface RelayConnectionStats {
  queuedFrames: number;
  readySources: number;
  unflushedWrites: number;
  bufferedBytes: number;
  framesSent: number;
  framesReceived: number;
}

type LinkState = 'new' | 'connecting' | 'handshaking' | 'open' | 'closed';

export class RelayConnection implements IDisposable {
  readonly #options: RelayConnectionOptions;
  readonly #logger: ILogger;
  readonly #timing: RelayConnectionTiming;
  readonly #maxQueued: number;
  readonly #highWater: number;
  readonly #maxFrameBytes: number;
  #ws: WebSocket | undefined;
  #state: LinkState = 'new';
  /** Control frames waiting for the socket; `#queueHead` is the next to write. */
  #queue: string[] = [];
  #queueHead = 0;
  /** The relay said `previewBinaryBodies` in welcome: its binary frames are preview bodies. */
  #binaryBodies = false;
  readonly #ready = new Set<OutputSource>();
  #pumping = false;
  /** Issue times of writes not flushed yet, oldest first. */
  #unflushed: number[] = [];
  #unflushedHead = 0;
  #timers: NodeJS.Timeout[] = [];
  #welcomeTimer: NodeJS.Timeout | undefined;
  #pongPending = false;
  #framesSent = 0;
  #framesReceived = 0;
  #closeReason = '';
  #settleOpen: { resolve: (welcome: RelayWelcome) => void; reject: (error: RelayConnectError) => void } | undefined;

  readonly #onDidClose = new Emitter<{ code: number; reason: string }>();
  /** Fires once, when the link is gone (whatever the cause). */
  readonly onDidClose: Event<{ code: number; reason: string }> = this.#onDidClose.event;

  constructor(options: RelayConnectionOptions) {
    this.#options = options;
    this.#logger = options.logger;
    this.#timing = {
      welcomeTimeoutMs: options.timing?.welcomeTimeoutMs ?? RelayConstants.welcomeTimeoutMs,
      heartbeatIntervalMs: options.timing?.heartbeatIntervalMs ?? RelayConstants.heartbeatIntervalMs,
      writeTimeoutMs: options.timing?.writeTimeoutMs ?? RelayConstants.writeTimeoutMs,
    };
    this.#maxQueued = options.sendQueueFrames ?? RelayConstants.sendQueueFrames;
    this.#highWater = options.socketHighWaterBytes ?? RelayConstants.socketHighWaterBytes;
    this.#maxFrameBytes = options.limits?.maxFrameBytes || defaultEnvelopeLimits.maxFrameBytes;
  }

  get isOpen(): boolean {
    return this.#state === 'open';
  }

  /** The largest frame the relay accepts (our frames must stay under it too). */
  get maxFrameBytes(): number {
    return this.#maxFrameBytes;
  }

  get stats(): RelayConnectionStats {
    return {
      queuedFrames: this.#queue.length - this.#queueHead,
      readySources: this.#ready.size,
      unflushedWrites: this.#unflushed.length - this.#unflushedHead,
      bufferedBytes: this.#ws?.bufferedAmount ?? 0,
      framesSent: this.#framesSent,
      framesReceived: this.#framesReceived,
    };
  }

  /** Dial, send `hello`, and resolve once the relay answered `welcome`. Rejects with a RelayConnectError. */
  open(): Promise<RelayWelcome> {
    if (this.#state !== 'new') throw new Error('RelayConnection.open() called twice');
    this.#state = 'connecting';
    const promise = new Promise<RelayWelcome>((resolve, reject) => (this.#settleOpen = { resolve, reject }));
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.#options.url, {
        headers: { Authorization: `Bearer ${this.#options.token}` },
        // spec: a frame over the limit closes the link with 1009, as the reference daemon's read limit does.
        maxPayload: this.#maxFrameBytes,
        perMessageDeflate: false,
        handshakeTimeout: this.#timing.welcomeTimeoutMs,
        followRedirects: false,
        // An all-zero masking key, which `ws` sends without masking or copying the payload. Masking
        // keeps a script in a browser from steering what a cleartext proxy on the way reads as
        // HTTP; this link is no browser and is TLS (wss://) or loopback (relayUrl.ts refuses
        // anything else), so no proxy reads its frames — while a fresh random key cost a copy and
        // an XOR of every byte of a preview download, the largest cost left on it (docs/benchmarks.md).
        generateMask: (mask) => mask.fill(0),
      });
    } catch (error) {
      this.#state = 'closed';
      this.#settleOpen = undefined;
      return Promise.reject(new RelayConnectError('network', `cannot dial the relay: ${(error as Error).message}`));
    }
    this.#ws = ws;
    ws.on('open', () => this.#onOpen());
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('pong', () => (this.#pongPending = false));
    ws.on('error', (error) => this.#onError(error));
    ws.on('close', (code, reason) => this.#onClose(code, reason.toString('utf8')));
    return promise;
  }

  /**
   * Queue a control frame. Returns false when the link is not open (the frame is dropped: there is
   * nobody to tell). A full queue drops the whole link: the relay stopped reading.
   */
  send(frame: string): boolean {
    if (this.#state !== 'open') return false;
    if (frame.length * 3 > this.#maxFrameBytes && utf8ByteLength(frame) > this.#maxFrameBytes) {
      // Our bug, not the relay's: sending it would make the relay close the link (1009).
      this.#logger.error('not sending a frame over the protocol limit', { bytes: utf8ByteLength(frame), type: frame.slice(0, 40) });
      return false;
    }
    if (this.#queue.length - this.#queueHead >= this.#maxQueued) {
      this.#drop(1013, `send queue full (${this.#maxQueued} frames): the relay stopped reading`);
      return false;
    }
    this.#queue.push(frame);
    this.#pump();
    return true;
  }

  /** A source has frames to write. */
  markReady(source: OutputSource): void {
    if (this.#state !== 'open') return;
    this.#ready.add(source);
    this.#pump();
  }

  /** A source went away: never ask it again. */
  forget(source: OutputSource): void {
    this.#ready.delete(source);
  }

  /** Close politely (client stopping). */
  close(code = 1000, reason = 'closing'): void {
    if (this.#state === 'closed') return;
    this.#closeReason ||= reason;
    const ws = this.#ws;
    if (ws && ws.readyState === WebSocket.OPEN) {
      ws.close(code, reason);
      // Do not wait 30 s (ws's close timeout) for a relay that never answers the close frame.
      const timer = setTimeout(() => ws.terminate(), 1000);
      timer.unref();
    } else ws?.terminate();
    this.#finish(code, reason);
  }

  dispose(): void {
    this.close(1001, 'going away');
  }

  // --- handshake ------------------------------------------------------------------------------

  #onOpen(): void {
    if (this.#state !== 'connecting') return;
    this.#state = 'handshaking';
    this.#ws!.send(this.#options.hello);
    this.#welcomeTimer = setTimeout(() => {
      this.#fail(new RelayConnectError('timeout', `the relay sent no welcome within ${this.#timing.welcomeTimeoutMs} ms`));
    }, this.#timing.welcomeTimeoutMs);
  }

  #onWelcome(welcome: RelayWelcome): void {
    clearTimeout(this.#welcomeTimer);
    this.#state = 'open';
    this.#binaryBodies = welcome.previewBinaryBodies;
    const interval = setInterval(() => this.#beat(), this.#timing.heartbeatIntervalMs);
    interval.unref();
    const watchdog = setInterval(() => this.#checkWrites(), Math.max(10, Math.min(1000, this.#timing.writeTimeoutMs / 4)));
    watchdog.unref();
    this.#timers.push(interval, watchdog);
    const settle = this.#settleOpen;
    this.#settleOpen = undefined;
    settle?.resolve(welcome);
  }

  // --- inbound --------------------------------------------------------------------------------

  #onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.#state === 'closed') return;
    this.#framesReceived++;
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isBinary) {
      if (this.#state === 'handshaking') {
        this.#fail(new RelayConnectError('protocol', 'unexpected first frame: binary'));
        return;
      }
      if (!this.#binaryBodies) {
        this.#options.refusals.refuse('binary', 'binary frames are not part of the protocol (the relay did not offer previewBinaryBodies)');
        return;
      }
      const decoded = decodeBodyFrame(buffer, this.#options.limits);
      if (!decoded.ok) {
        this.#options.refusals.refuse(decoded.kind, decoded.error);
        return;
      }
      this.#deliver(decoded.message);
      return;
    }
    const parsed = parseEnvelope(buffer.toString('utf8'), { byteLength: buffer.length, ...(this.#options.limits ? { limits: this.#options.limits } : {}) });

    if (this.#state === 'handshaking') {
      if (parsed.ok && parsed.message.type === 'welcome') {
        this.#onWelcome({
          latestDaemonVersion: parsed.message.latestDaemonVersion,
          previewStreamWindowBytes: parsed.message.previewStreamWindowBytes,
          previewBinaryBodies: parsed.message.previewBinaryBodies === true,
        });
        return;
      }
      const what = parsed.ok ? JSON.stringify(parsed.message.type) : `(${parsed.error})`;
      this.#fail(new RelayConnectError('protocol', `unexpected first frame: ${what}`));
      return;
    }
    if (!parsed.ok) {
      this.#options.refusals.refuse(parsed.kind, parsed.error);
      return;
    }
    this.#deliver(parsed.message);
  }

  #deliver(message: RelayMessage): void {
    try {
      this.#options.onMessage(message);
    } catch (error) {
      // A handler bug must not take the link (and every viewer) down with it.
      this.#logger.error('relay frame handler failed', { type: message.type, error });
    }
  }

  // --- outbound -------------------------------------------------------------------------------

  #pump(): void {
    if (this.#pumping) return;
    const ws = this.#ws;
    if (!ws || this.#state !== 'open') return;
    this.#pumping = true;
    try {
      while (this.#state === 'open' && ws.bufferedAmount < this.#highWater) {
        let frame: string | Buffer | undefined;
        if (this.#queueHead < this.#queue.length) {
          frame = this.#queue[this.#queueHead]!;
          this.#queue[this.#queueHead++] = '';
          if (this.#queueHead === this.#queue.length) {
            this.#queue = [];
            this.#queueHead = 0;
          }
        } else {
          frame = this.#nextSourceFrame();
          if (frame === undefined) break;
        }
        this.#write(ws, frame);
      }
    } finally {
      this.#pumping = false;
    }
  }

  /** Round-robin over ready sources: each gives one frame per turn. */
  #nextSourceFrame(): string | Buffer | undefined {
    for (const source of this.#ready) {
      this.#ready.delete(source);
      let frame: string | Buffer | undefined;
      try {
        frame = source.nextFrame();
      } catch (error) {
        this.#logger.error('a relay output source failed', { error });
        continue;
      }
      if (frame !== undefined) {
        this.#ready.add(source); // back of the line
        return frame;
      }
    }
    return undefined;
  }

  #write(ws: WebSocket, frame: string | Buffer): void {
    this.#unflushed.push(Date.now());
    this.#framesSent++;
    if (typeof frame === 'string') ws.send(utf8Frame(frame), { binary: false }, this.#onFlushed);
    else ws.send(frame, { binary: true }, this.#onFlushed);
  }

  readonly #onFlushed = (error?: Error): void => {
    if (this.#unflushedHead < this.#unflushed.length) this.#unflushedHead++;
    if (this.#unflushedHead === this.#unflushed.length) {
      this.#unflushed = [];
      this.#unflushedHead = 0;
    }
    if (error || this.#state !== 'open') return;
    this.#pump();
  };

  #checkWrites(): void {
    if (this.#state !== 'open' || this.#unflushedHead >= this.#unflushed.length) return;
    const age = Date.now() - this.#unflushed[this.#unflushedHead]!;
    if (age > this.#timing.writeTimeoutMs) this.#drop(1013, `a write was not flushed within ${this.#timing.writeTimeoutMs} ms: the relay stopped reading`);
  }

  #beat(): void {
    if (this.#state !== 'open') return;
    if (this.#pongPending) {
      this.#drop(1001, 'the relay stopped answering pings');
      return;
    }
    this.#pongPending = true;
    this.#ws?.ping();
    this.send(this.#options.heartbeat());
  }

  // --- teardown -------------------------------------------------------------------------------

  #onError(error: Error): void {
    const status = /Unexpected server response: (\d{3})/.exec(error.message);
    if (this.#settleOpen) {
      if (status) {
        const code = Number(status[1]);
        const why = code === 401 || code === 403 ? `HTTP ${code}: wrong machine id or token` : `HTTP ${code}`;
        this.#fail(new RelayConnectError(code === 401 || code === 403 ? 'refused' : 'network', `the relay refused the connection (${why})`, code));
      } else {
        this.#fail(new RelayConnectError('network', `cannot reach the relay: ${error.message}`));
      }
      return;
    }
    if (/max payload size exceeded/i.test(error.message)) {
      this.#options.refusals.refuse('size', `frame exceeds max size: > ${this.#maxFrameBytes} bytes (link closed with 1009; reconnecting)`);
    } else {
      this.#logger.debug('relay socket error', { error: error.message });
    }
    this.#closeReason ||= error.message;
  }

  #onClose(code: number, reason: string): void {
    if (this.#settleOpen) {
      this.#fail(new RelayConnectError('network', `the relay closed the connection before welcome (${code}${reason ? `: ${reason}` : ''})`));
      return;
    }
    this.#finish(code, this.#closeReason || reason || `closed with ${code}`);
  }

  /** The handshake failed: drop the socket and reject open(). */
  #fail(error: RelayConnectError): void {
    const settle = this.#settleOpen;
    this.#settleOpen = undefined;
    this.#ws?.terminate();
    this.#finish(1006, error.message);
    settle?.reject(error);
  }

  /** Drop an established link on our side (the relay misbehaves); RelayClient reconnects. */
  #drop(code: number, reason: string): void {
    if (this.#state === 'closed') return;
    this.#logger.warn('dropping the relay connection', { reason });
    this.#closeReason = reason;
    this.#ws?.terminate();
    this.#finish(code, reason);
  }

  #finish(code: number, reason: string): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    clearTimeout(this.#welcomeTimer);
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    this.#queue = [];
    this.#queueHead = 0;
    this.#ready.clear();
    if (this.#settleOpen) {
      const settle = this.#settleOpen;
      this.#settleOpen = undefined;
      settle.reject(new RelayConnectError('network', reason));
    }
    this.#onDidClose.fire({ code, reason });
    this.#onDidClose.dispose();
  }
}
