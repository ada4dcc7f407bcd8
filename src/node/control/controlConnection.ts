/**
 * One client of the control socket: NDJSON in, envelopes out. It enforces the framing rules
 * (1 MiB per line, `bad json`, blank lines skipped), checks the request envelope (protocol, id,
 * cmd), and hands each request to the dispatcher without waiting for earlier ones, so responses
 * may come back in a different order than the requests.
 *
 * It protects the Hub from its client: a client that sends faster than requests finish stops
 * being read (in-flight cap), and one that does not read its responses is dropped once too much
 * is queued for it, instead of growing memory without bound.
 */
import type { Socket } from 'node:net';
import { ControlConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { postponeCollection } from '../idleCollector.ts';
import { formatZodIssues } from '../../common/validation.ts';
import type { ControlPeer } from './commandRegistry.ts';
import { LineFramer } from './lineFramer.ts';
import { RequestTurns } from './requestTurns.ts';
import { ControlError, encodeError, encodeResponse, ProtocolErrors, RequestEnvelope, type RequestId, type ResponseBody, supportedProtocols } from './protocol.ts';

/** A request whose envelope is valid; `fields` is the whole parsed object. */
export interface ControlRequest {
  readonly id: RequestId;
  readonly cmd: string;
  readonly fields: Record<string, unknown>;
}

export type RequestOutcome = { ok: true; body: ResponseBody } | { ok: false; error: string; code?: string | undefined; details?: ResponseBody | undefined };

export type RequestDispatcher = (request: ControlRequest, connection: ControlConnection) => Promise<RequestOutcome>;

export interface ControlConnectionOptions {
  id: number;
  socket: Socket;
  socketPath: string;
  dispatch: RequestDispatcher;
  logger: ILogger;
  maxRequestBytes?: number;
  maxPendingResponseBytes?: number;
  maxInFlightRequests?: number;
  /** Where the connection's lines wait their turn (the server's one, shared by all connections). */
  turns?: RequestTurns;
}

const defaultPeerName = 'socket client';

export class ControlConnection implements IDisposable, ControlPeer {
  readonly connectionId: number;
  readonly socketPath: string;
  readonly #socket: Socket;
  readonly #dispatch: RequestDispatcher;
  readonly #logger: ILogger;
  readonly #framer: LineFramer;
  readonly #maxPendingResponseBytes: number;
  readonly #maxInFlight: number;
  readonly #turns: RequestTurns;
  /** This connection's slice of a turn (one function, so RequestTurns can tell it is already waiting). */
  readonly #slice = () => this.#handleSlice();
  #inFlight = 0;
  /** Reading stopped: too many requests in progress, or lines still waiting their turn. */
  #readingPaused = false;
  /** Complete lines read and not handled yet (from one chunk at most: reading pauses while any wait). */
  #lines: string[] = [];
  #nextLine = 0;
  /** The chunk that brought these lines overflowed the line limit: close once they are handled. */
  #overflowAfterLines = false;
  #clientName: string | undefined;
  #clientVersion: string | undefined;
  #closed = false;
  #closeFired = false;
  #clientEnded = false;
  /** Probes a client that ended its side while requests were in progress (endedClientProbeMs). */
  #probeTimer: NodeJS.Timeout | undefined;
  readonly #closedController = new AbortController();
  readonly closedSignal: AbortSignal = this.#closedController.signal;

  readonly #onDidClose = new Emitter<void>();
  readonly onDidClose: Event<void> = this.#onDidClose.event;

  constructor(options: ControlConnectionOptions) {
    this.connectionId = options.id;
    this.socketPath = options.socketPath;
    this.#socket = options.socket;
    this.#dispatch = options.dispatch;
    this.#logger = options.logger;
    this.#maxPendingResponseBytes = options.maxPendingResponseBytes ?? ControlConstants.maxPendingResponseBytes;
    this.#maxInFlight = options.maxInFlightRequests ?? ControlConstants.maxInFlightRequests;
    this.#turns = options.turns ?? new RequestTurns();
    this.#framer = new LineFramer(options.maxRequestBytes ?? ControlConstants.maxRequestBytes, (line) => this.#lines.push(line));
    const socket = options.socket;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A client vanishing mid-write is normal; anything else is worth a line.
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') this.#logger.warn('control connection error', { connection: this.connectionId, error: error.message });
    });
    // A client may send its requests and then shut down its side (`socket.end()`, `shutdown(SHUT_WR)`,
    // `socat`): it still gets every answer, and we end our side after the last one.
    socket.on('end', () => {
      this.#clientEnded = true;
      this.#endIfDone();
      this.#probeEndedClient();
    });
    socket.on('close', () => this.#handleClose());
  }

  /** `clientName` of the latest request that carried one (claws clients send it with each request). */
  get name(): string {
    return this.#clientName ?? defaultPeerName;
  }

  get connected(): boolean {
    return !this.#closed;
  }

  /** Write a frame that is not a response (claws/2 push frames). */
  sendFrame(frame: Record<string, unknown>): void {
    this.#write(JSON.stringify(frame) + '\n');
  }

  dispose(): void {
    if (this.#closed) return;
    this.#socket.destroy();
    this.#handleClose();
  }

  #onData(chunk: Buffer): void {
    if (this.#closed) return;
    // The framer only splits; the lines wait for their turn (RequestTurns), unread input in the socket meanwhile.
    if (this.#framer.push(chunk) === 'overflow') this.#overflowAfterLines = true;
    if (this.#lines.length > 0) this.#turns.enqueue(this.#slice);
    else if (this.#overflowAfterLines) this.#closeForOverflow();
    this.#updateReading();
  }

  /** Handle this connection's lines for one slice (ControlConstants.requestSliceMs, at least one line); returns whether more wait. */
  #handleSlice(): boolean {
    const deadline = performance.now() + ControlConstants.requestSliceMs;
    // Answers written while handling (bad json, refusals) leave in one write.
    this.#socket.cork();
    do this.#onLine(this.#lines[this.#nextLine++]!);
    while (this.#nextLine < this.#lines.length && !this.#closed && performance.now() < deadline);
    this.#socket.uncork();
    if (this.#closed) return false;
    if (this.#nextLine < this.#lines.length) return true;
    this.#lines = [];
    this.#nextLine = 0;
    // What arrived while we were paused waits in the socket's buffer, a chunk per write of the client's,
    // and flowing hands out one chunk per 'data' event: take it all now (read() emits it to #onData),
    // or a client of many small writes (a ping every 20 ms) gets one handled per round and falls behind.
    if (this.#socket.readableLength > 0) this.#socket.read();
    if (this.#closed) return false;
    if (this.#lines.length > 0) return true;
    if (this.#overflowAfterLines) this.#closeForOverflow();
    this.#updateReading();
    this.#endIfDone();
    return false;
  }

  /** Read the socket only while there is room: few enough requests in progress, and no lines waiting. */
  #updateReading(): void {
    if (this.#closed) return;
    const pause = this.#inFlight >= this.#maxInFlight || this.#lines.length > 0 || (this.#readingPaused && this.#inFlight > this.#maxInFlight / 2);
    if (pause === this.#readingPaused) return;
    this.#readingPaused = pause;
    if (pause) this.#socket.pause();
    else this.#socket.resume();
  }

  #closeForOverflow(): void {
    this.#logger.warn('control request too large; closing the connection', { connection: this.connectionId, limit: ControlConstants.maxRequestBytes });
    const line = encodeError(undefined, ProtocolErrors.requestTooLarge, 'INVALID_PARAMS');
    this.#closed = true;
    this.#socket.end(line, () => this.#socket.destroy());
    // If the client never reads, the end() above never finishes: do not wait for it forever.
    setTimeout(() => this.#socket.destroy(), 1000).unref();
    this.#handleClose();
  }

  #onLine(line: string): void {
    if (this.#closed) return;
    if (line.trim().length === 0) return;
    // A client is working with the Hub: its answers should not wait behind a collection.
    postponeCollection();
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.#write(encodeError(undefined, ProtocolErrors.badJson, 'INVALID_PARAMS'));
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      this.#write(encodeError(undefined, 'request must be a JSON object', 'INVALID_PARAMS'));
      return;
    }
    const fields = parsed as Record<string, unknown>;
    const rawId = fields.id;
    const echoId = typeof rawId === 'string' || (typeof rawId === 'number' && Number.isFinite(rawId)) ? rawId : undefined;
    if (fields.protocol !== undefined && !supportedProtocols.includes(fields.protocol as string)) {
      this.#write(encodeError(echoId, ProtocolErrors.incompatibleProtocol, 'INVALID_PARAMS'));
      return;
    }
    const envelope = RequestEnvelope.safeParse(fields);
    if (!envelope.success) {
      this.#write(encodeError(echoId, formatZodIssues(envelope.error), 'INVALID_PARAMS'));
      return;
    }
    const { id, cmd, clientName, clientVersion } = envelope.data;
    if (clientName !== undefined && clientName !== this.#clientName) {
      this.#clientName = clientName;
      this.#logger.info('control client', { connection: this.connectionId, clientName, clientVersion });
    }
    if (clientVersion !== undefined) this.#clientVersion = clientVersion;
    this.#startRequest({ id, cmd, fields });
  }

  #startRequest(request: ControlRequest): void {
    this.#inFlight++;
    this.#updateReading();
    if (this.#clientEnded) this.#probeEndedClient();
    let outcome: Promise<RequestOutcome>;
    try {
      outcome = this.#dispatch(request, this);
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome
      .then(
        (result) => (result.ok ? encodeResponse(request.id, true, result.body) : encodeError(request.id, result.error, result.code as never, result.details)),
        (error: unknown) => {
          // The dispatcher turns expected failures into outcomes; this is a bug, but the client still gets an answer.
          this.#logger.error('control request failed unexpectedly', { connection: this.connectionId, cmd: request.cmd, error });
          return encodeError(request.id, error instanceof Error ? error.message : String(error));
        },
      )
      .then((line) => {
        this.#inFlight--;
        this.#updateReading();
        this.#write(line);
        this.#endIfDone();
      });
  }

  /**
   * A Unix socket reads the same end of input whether the client only shut down its sending side
   * (it still reads the answers) or closed altogether (Ctrl-C on the CLI): only a write tells them
   * apart, failing for the latter. So while requests are in progress, write a blank line (the
   * framing skips it) now and then; a failed write closes the connection and aborts closedSignal.
   */
  #probeEndedClient(): void {
    if (this.#closed || this.#inFlight === 0 || this.#probeTimer) return;
    this.#write('\n');
    this.#probeTimer = setInterval(() => {
      if (this.#closed || this.#inFlight === 0) {
        clearInterval(this.#probeTimer);
        this.#probeTimer = undefined;
      } else this.#write('\n');
    }, ControlConstants.endedClientProbeMs);
    this.#probeTimer.unref();
  }

  #endIfDone(): void {
    if (this.#clientEnded && this.#inFlight === 0 && this.#lines.length === 0 && !this.#closed) this.#socket.end();
  }

  #write(line: string): void {
    const socket = this.#socket;
    if (this.#closed || socket.destroyed || !socket.writable) return;
    socket.write(line);
    if (socket.writableLength > this.#maxPendingResponseBytes) {
      this.#logger.warn('dropping a control client that does not read its responses', {
        connection: this.connectionId,
        clientName: this.#clientName,
        queuedBytes: socket.writableLength,
      });
      this.dispose();
    }
  }

  #handleClose(): void {
    this.#closed = true;
    if (this.#closeFired) return;
    this.#closeFired = true;
    clearInterval(this.#probeTimer);
    this.#probeTimer = undefined;
    this.#closedController.abort(new ControlError('the client disconnected', 'CONNECTION_CLOSED'));
    this.#onDidClose.fire();
    this.#onDidClose.dispose();
  }

  get clientVersion(): string | undefined {
    return this.#clientVersion;
  }
}
