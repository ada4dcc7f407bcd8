/**
 * One WebSocket of a viewer through a preview (a dev server's hot-reload socket):
 * `previewWebSocketOpen` with the offered sub-protocols; the handshake with the viewer completes
 * only when the daemon's `previewWebSocketOpenResult` says the dev server accepted, with the
 * sub-protocol it chose. Then messages both ways as `previewWebSocketData` (each direction its own
 * sequence), a message over the chunk size closes with 1009, and a close either way is passed on.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket, WebSocketServer } from 'ws';
import { bodyBytes } from '../../preview/previewBodyFrames.ts';
import { refuseUpgrade } from '../../../server/httpKit.ts';
import { closeReason, type DaemonStreamFrame, type OpenPreview, type PreviewStream, SendWindow, sendableCloseCode, sequenceError, type StreamHost } from './previewFlow.ts';
import type { PreviewHeaders } from './previewHeaders.ts';

export interface WebSocketStreamOptions {
  host: StreamHost;
  id: string;
  preview: OpenPreview;
  req: IncomingMessage;
  socket: Socket;
  head: Buffer;
  path: string;
  headers: PreviewHeaders;
  protocols: string[];
  server: WebSocketServer;
  /** Where the server's handleProtocols finds the sub-protocol the dev server chose for this request. */
  chosenProtocols: WeakMap<IncomingMessage, string | false>;
}

type State = 'opening' | 'open' | 'ended';

/** The daemon's WebSocket error codes → the HTTP status the viewer's handshake is refused with. */
const openErrorStatus: Record<string, number> = { upstream_refused: 502, upstream_unreachable: 502, unknown_preview: 404, too_many_streams: 503 };

export class WebSocketStream implements PreviewStream {
  readonly kind = 'webSocket';
  readonly id: string;
  readonly preview: OpenPreview;
  readonly #host: StreamHost;
  readonly #options: WebSocketStreamOptions;
  readonly #window: SendWindow;
  #state: State = 'opening';
  #ws: WebSocket | undefined;
  #outSequence = 0;
  #nextSequence = 1;
  #openTimer: NodeJS.Timeout | undefined;

  constructor(options: WebSocketStreamOptions) {
    this.#host = options.host;
    this.#options = options;
    this.id = options.id;
    this.preview = options.preview;
    this.#window = new SendWindow(this.#host.daemonWindowBytes);
    this.#openTimer = setTimeout(() => this.#refuseHandshake(504, 'the dev server did not accept the WebSocket in time', 'no open result in time'), this.#host.limits.openTimeoutMs);
    options.socket.on('close', () => {
      if (this.#state === 'opening') this.#endOpening('viewer went away');
      else if (this.#state === 'open' && !this.#ws) {
        // The handshake failed after the daemon had opened its side: end that too.
        this.#state = 'ended';
        this.#cleanup();
        this.#host.send('previewWebSocketClose', { streamId: this.id, reason: 'viewer handshake failed' });
      }
    });
    this.#host.send('previewWebSocketOpen', { streamId: this.id, previewId: this.preview.id, path: options.path, headers: options.headers, protocols: options.protocols });
  }

  get bufferedBytes(): number {
    return this.#ws && this.#state === 'open' ? this.#ws.bufferedAmount : 0;
  }

  onFrame(message: DaemonStreamFrame): void {
    if (this.#state === 'ended') return;
    switch (message.type) {
      case 'previewWebSocketOpenResult':
        return this.#onOpenResult(message);
      case 'previewWebSocketData':
        return this.#onData(message);
      case 'previewWebSocketClose':
        if (this.#state === 'opening') return this.#refuseHandshake(502, `the dev server closed the WebSocket: ${message.reason ?? ''}`.trim());
        return this.#close(sendableCloseCode(message.code), closeReason(message.reason), false);
      case 'previewStreamCancel':
        if (this.#state === 'opening') return this.#refuseHandshake(502, `the machine ended the WebSocket: ${message.reason}`);
        return this.#close(1011, closeReason(message.reason), false);
      case 'previewStreamAck': {
        const error = this.#window.ack(message.sequence);
        if (error) return this.#refuse('preview:ack', error);
        if (!this.#window.full) this.#ws?.resume();
        return;
      }
      default:
        return this.#refuse('preview:wrong-stream-kind', `${message.type} for WebSocket stream ${this.id}`);
    }
  }

  previewEnded(reason: string, code: number): void {
    if (this.#state === 'opening') return this.#refuseHandshake(502, `the preview was closed: ${reason}`, undefined);
    this.#close(code, closeReason(reason), false);
  }

  #onOpenResult(message: Extract<DaemonStreamFrame, { type: 'previewWebSocketOpenResult' }>): void {
    if (this.#state !== 'opening') return this.#refuse('preview:unexpected-open-result', `a second open result on WebSocket stream ${this.id}`);
    if (message.previewId !== this.preview.id) return this.#refuse('preview:binding', `open result on stream ${this.id} names preview ${JSON.stringify(message.previewId)}`);
    if (!message.ok) {
      const status = openErrorStatus[message.errorCode ?? ''] ?? 502;
      return this.#refuseHandshake(status, `the dev server refused the WebSocket (${message.errorCode ?? 'error'}${message.message ? `: ${message.message}` : ''})`, undefined);
    }
    const protocol = message.protocol ?? '';
    if (protocol !== '' && !this.#options.protocols.includes(protocol)) return this.#refuse('preview:bad-protocol', `the dev server chose sub-protocol ${JSON.stringify(protocol)}, which the viewer did not offer`);
    clearTimeout(this.#openTimer);
    const { req, socket, head, server, chosenProtocols } = this.#options;
    if (socket.destroyed) return this.#endOpening('viewer went away');
    chosenProtocols.set(req, protocol === '' ? false : protocol);
    this.#state = 'open';
    server.handleUpgrade(req, socket, head, (ws) => {
      this.#ws = ws;
      if (this.#state !== 'open') {
        ws.close(1001, 'preview closed');
        return;
      }
      ws.on('message', (data, isBinary) => this.#onViewerMessage(data as Buffer | Buffer[] | ArrayBuffer, isBinary));
      ws.on('close', (code, reason) => {
        if (this.#state !== 'open') return;
        this.#state = 'ended';
        this.#cleanup();
        const sendCode = code === 1005 || code === 1006 ? undefined : code;
        this.#host.send('previewWebSocketClose', { streamId: this.id, ...(sendCode !== undefined ? { code: sendCode } : {}), reason: reason.toString('utf8') });
      });
      ws.on('error', () => {});
    });
  }

  #onViewerMessage(data: Buffer | Buffer[] | ArrayBuffer, isBinary: boolean): void {
    if (this.#state !== 'open') return;
    const body = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    // Over our own chunk size `ws` already closed with 1009; a daemon that takes less gets the same.
    if (body.length > this.#host.daemonChunkBytes) {
      this.#host.send('previewWebSocketClose', { streamId: this.id, code: 1009, reason: 'message too big' });
      return this.#close(1009, 'message too big', false);
    }
    this.#outSequence++;
    this.#host.sendBody('previewWebSocketData', { streamId: this.id, sequence: this.#outSequence, isBinary }, body);
    this.#window.sent(this.#outSequence, body.length);
    if (this.#window.full) this.#ws?.pause();
  }

  #onData(message: Extract<DaemonStreamFrame, { type: 'previewWebSocketData' }>): void {
    if (this.#state !== 'open') return this.#refuse('preview:data-before-open', `WebSocket data ${message.sequence} before the open result on stream ${this.id}`);
    const outOfOrder = sequenceError(this.#nextSequence, message.sequence);
    if (outOfOrder) return this.#refuse('preview:sequence', outOfOrder);
    const body = bodyBytes(message);
    if (!body) return this.#refuse('preview:bad-chunk', `WebSocket data ${message.sequence} on stream ${this.id} is not standard base64`);
    const chunkBytes = this.#host.daemonChunkBytes;
    if (body.length > chunkBytes) {
      this.#host.refuse('preview:bad-chunk', `WebSocket message ${message.sequence} on stream ${this.id} is over ${chunkBytes} bytes`);
      this.#host.send('previewStreamCancel', { streamId: this.id, reason: 'message too big' });
      return this.#close(1009, 'message too big', false);
    }
    this.#nextSequence++;
    const ws = this.#ws;
    // handleUpgrade completes synchronously without verifyClient; guard anyway rather than crash.
    if (!ws) return this.#refuse('preview:data-before-open', `WebSocket data ${message.sequence} before the viewer's handshake completed on stream ${this.id}`);
    const sequence = message.sequence;
    ws.send(message.isBinary ? body : body.toString('utf8'), { binary: message.isBinary }, (error) => {
      if (!error && this.#state === 'open' && this.#host.daemonWindowBytes !== undefined) this.#host.send('previewStreamAck', { streamId: this.id, sequence });
    });
    this.#host.noteBuffered(ws.bufferedAmount);
    const window = this.#host.daemonWindowBytes;
    const limit = window !== undefined ? window + chunkBytes : this.#host.limits.streamBufferBytes;
    if (ws.bufferedAmount > limit) {
      this.#host.send('previewStreamCancel', { streamId: this.id, reason: 'reader too slow' });
      this.#close(1013, 'reader too slow', false);
    }
  }

  /** A frame that breaks the rules: refused (logged once per kind); the stream ends with that reason. */
  #refuse(kind: string, error: string): void {
    this.#host.refuse(kind, error);
    this.#host.send('previewStreamCancel', { streamId: this.id, reason: error });
    if (this.#state === 'opening') this.#refuseHandshake(502, `the machine broke the preview protocol: ${error}`, undefined);
    else this.#close(1011, closeReason(error), false);
  }

  /** Answer the viewer's handshake with an HTTP error; `cancel` also tells the daemon. */
  #refuseHandshake(status: number, reason: string, cancel?: string): void {
    if (this.#state !== 'opening') return;
    this.#state = 'ended';
    this.#cleanup();
    if (cancel !== undefined) this.#host.send('previewStreamCancel', { streamId: this.id, reason: cancel });
    refuseUpgrade(this.#options.socket, status, reason);
  }

  #endOpening(reason: string): void {
    if (this.#state !== 'opening') return;
    this.#state = 'ended';
    this.#cleanup();
    this.#host.send('previewStreamCancel', { streamId: this.id, reason });
  }

  #close(code: number, reason: string, tellDaemon: boolean): void {
    if (this.#state === 'ended') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'ended';
    this.#cleanup();
    if (tellDaemon) this.#host.send('previewWebSocketClose', { streamId: this.id, code, reason });
    const ws = this.#ws;
    if (!wasOpen || !ws) return;
    if (ws.readyState === ws.OPEN) {
      ws.close(code, reason);
      setTimeout(() => ws.terminate(), 1000).unref();
    } else ws.terminate();
  }

  #cleanup(): void {
    clearTimeout(this.#openTimer);
    this.#host.ended(this);
  }
}
