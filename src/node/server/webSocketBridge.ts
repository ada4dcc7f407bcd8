/**
 * Carries the contract over one WebSocket: text frames of JSON per src/common/api/wire.ts, and
 * `terminal.output` as binary frames (wire.ts, OutputFrame): a flood's bytes go out as they are,
 * not JSON-escaped (every line's \r\n doubled) to be parsed again in the page.
 * Every inbound frame is validated; a malformed one is answered with an error response when it
 * carries a usable id and dropped with a log line otherwise. Nothing a client sends can throw out
 * of here or affect another socket.
 */
import type { RawData, WebSocket } from 'ws';
import type { EventPayload } from '../../common/api/contract.ts';
import { outputFrameHeaderBytes, WireRequest, writeOutputFrameHeader, type WireEvent, type WireResponse } from '../../common/api/wire.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { Hub } from '../hub.ts';
import { describeError, type HubConnection, type HubPeer } from '../api/hubConnection.ts';
import { formatZodIssues } from '../../common/validation.ts';

export class WebSocketBridge implements IDisposable {
  readonly #socket: WebSocket;
  readonly #connection: HubConnection;
  readonly #logger: ILogger;
  #disposed = false;

  constructor(options: { socket: WebSocket; hub: Hub; peer: HubPeer; logger: ILogger }) {
    this.#socket = options.socket;
    this.#logger = options.logger;
    this.#connection = options.hub.connect(
      {
        sendEvent: (event, payload) => {
          if (event === 'terminal.output') this.#sendOutput(payload as EventPayload<'terminal.output'>);
          else this.#send({ type: 'event', event, payload });
        },
      },
      options.peer,
    );
    this.#socket.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    this.#socket.on('close', () => this.dispose());
    this.#socket.on('error', (error) => {
      this.#logger.warn('websocket error', { connection: this.#connection.id, error: describeError(error) });
      this.dispose();
    });
    // The Hub may close the connection (Hub disposed): then the socket has no reason to live.
    this.#connection.onDidDispose(() => this.dispose());
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.#logger.warn('dropped a binary frame; the API speaks JSON text frames', { connection: this.#connection.id });
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#logger.warn('dropped a frame that is not JSON', { connection: this.#connection.id, bytes: text.length });
      return;
    }
    const request = WireRequest.safeParse(json);
    if (!request.success) {
      const id = (json as { id?: unknown } | null)?.id;
      if (typeof id === 'number' && Number.isSafeInteger(id)) {
        this.#send({ type: 'response', id, ok: false, error: { code: 'INVALID_PARAMS', message: `malformed request: ${formatZodIssues(request.error)}` } });
      } else {
        this.#logger.warn('dropped a malformed frame', { connection: this.#connection.id, issues: formatZodIssues(request.error) });
      }
      return;
    }
    const { id, method, params } = request.data;
    this.#connection.call(method, params).then(
      (outcome) => {
        this.#send(outcome.ok ? { type: 'response', id, ok: true, result: outcome.result } : { type: 'response', id, ok: false, error: outcome.error });
      },
      (error: unknown) => {
        // `call` promises never to reject; if it ever does, answer and log rather than let an
        // unhandled rejection take the whole server (and every terminal) down.
        this.#logger.error('a hub call rejected', { connection: this.#connection.id, method, error: describeError(error) });
        this.#send({ type: 'response', id, ok: false, error: { code: 'INTERNAL', message: `internal error in ${method}` } });
      },
    );
  }

  #send(message: WireResponse | WireEvent): void {
    if (this.#disposed || this.#socket.readyState !== this.#socket.OPEN) return;
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      this.#logger.error('cannot serialise an outgoing message', { connection: this.#connection.id, error: describeError(error) });
      return;
    }
    this.#socket.send(text, (error) => {
      if (error) this.#logger.debug('send failed; the socket is closing', { connection: this.#connection.id, error: describeError(error) });
    });
  }

  #sendOutput({ id, data, offset }: EventPayload<'terminal.output'>): void {
    if (this.#disposed || this.#socket.readyState !== this.#socket.OPEN) return;
    const headerBytes = outputFrameHeaderBytes(id);
    const frame = Buffer.allocUnsafe(headerBytes + Buffer.byteLength(data, 'utf8'));
    writeOutputFrameHeader(frame, id, offset);
    frame.write(data, headerBytes, 'utf8');
    this.#socket.send(frame, { binary: true }, (error) => {
      if (error) this.#logger.debug('send failed; the socket is closing', { connection: this.#connection.id, error: describeError(error) });
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#connection.dispose();
    if (this.#socket.readyState === this.#socket.OPEN || this.#socket.readyState === this.#socket.CONNECTING) {
      this.#socket.close(1001, 'going away');
    }
  }
}
