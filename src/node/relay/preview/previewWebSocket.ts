/**
 * One `previewWebSocketOpen` carried to the dev server (hot reload and the like) with the `ws`
 * package, as the rest of the project (docs/relay.md "Dev-server previews").
 *
 * - Dials `ws://<target>:<port><path>` with the viewer's sub-protocols and headers (hop-by-hop and
 *   the handshake's own `sec-websocket-*` dropped), never following a redirect; answers
 *   `previewWebSocketOpenResult` with the protocol the dev server chose, or `upstream_refused`
 *   (its HTTP status in `message`) / `upstream_unreachable`.
 * - Messages both ways as `previewWebSocketData`, each direction its own sequence from 1. A message
 *   larger than `chunkBytes` is refused: the dev server's by `ws` itself (maxPayload: close 1009),
 *   the relay's by closing the stream with 1009.
 * - Back-pressure as for HTTP: the dev server's socket is paused while `bufferBytes` wait here;
 *   the relay's messages are acknowledged once `ws` wrote them.
 * - Idle: the dev server is pinged every third of the idle timeout and a pong counts as traffic,
 *   so a quiet hot-reload socket lives, and one whose server hangs ends (`idle`).
 */
import WebSocket from 'ws';
import { type BodyCarrier, bodyBytes, encodeBodyFrame } from './previewBodyFrames.ts';
import { encodeFrame } from '../../../common/protocol/relay/frames.ts';
import type { RelayFields } from '../../../common/protocol/relay/messages.ts';
import { closeReason, dialHost, isHttpToken, isSendableCloseCode, requestHeaders } from './previewRules.ts';
import { PreviewStream, type StreamHost, type StreamTarget } from './previewStream.ts';

export class PreviewWebSocket extends PreviewStream {
  readonly #socket: WebSocket | undefined;
  #open = false;
  #paused = false;
  #pingTimer: NodeJS.Timeout | undefined;

  constructor(host: StreamHost, target: StreamTarget, open: RelayFields<'previewWebSocketOpen'>) {
    super(host, open.streamId, target, (sequence, item) => {
      const fields = { streamId: open.streamId, sequence, isBinary: item.isBinary ?? false };
      return host.binaryBodies ? encodeBodyFrame('previewWebSocketData', fields, item.body) : encodeFrame('previewWebSocketData', { ...fields, bodyBase64: item.body.toString('base64') });
    });
    const protocols = open.protocols ?? [];
    const bad = protocols.find((protocol) => !isHttpToken(protocol));
    if (bad !== undefined || new Set(protocols).size !== protocols.length) {
      this.#socket = undefined;
      queueMicrotask(() => this.#fail('bad_request', bad !== undefined ? `invalid sub-protocol ${JSON.stringify(bad)}` : 'a sub-protocol is listed twice'));
      return;
    }
    const hostName = dialHost(target.host);
    const authority = hostName.includes(':') ? `[${hostName}]:${target.port}` : `${hostName}:${target.port}`;
    const headers = requestHeaders(open.headers, target.port, { webSocket: true });
    let socket: WebSocket;
    try {
      socket = new WebSocket(`ws://${authority}${open.path}`, protocols, {
        headers: flatten(headers),
        followRedirects: false,
        perMessageDeflate: false,
        maxPayload: host.limits.chunkBytes,
        handshakeTimeout: host.limits.openTimeoutMs,
      });
    } catch (error) {
      // What ws or node:http will not send (a header value they reject): the relay's input, not a crash.
      this.#socket = undefined;
      queueMicrotask(() => this.#fail('bad_request', `cannot open the socket: ${(error as Error).message}`));
      return;
    }
    this.#socket = socket;
    socket.on('open', () => {
      if (this.ended) return;
      this.#open = true;
      this.touch();
      this.output.pushFrame(encodeFrame('previewWebSocketOpenResult', { streamId: this.streamId, previewId: target.previewId, ok: true, ...(socket.protocol ? { protocol: socket.protocol } : {}) }));
      this.#pingTimer = setInterval(() => socket.ping(), Math.max(10, Math.floor(host.limits.idleTimeoutMs / 3)));
    });
    socket.on('unexpected-response', (_request, response) => {
      this.#fail('upstream_refused', `the dev server answered HTTP ${response.statusCode ?? 0} to the upgrade`);
      response.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!this.#open) this.#fail('upstream_unreachable', `cannot reach the dev server: ${error.code ?? error.message}`);
      // After open, 'close' follows and says how it ended.
    });
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (this.ended) return;
      this.touch();
      this.output.pushBody({ body: data, isBinary });
      if (!this.#paused && this.output.pendingBytes >= host.limits.bufferBytes) {
        this.#paused = true;
        socket.pause();
      }
    });
    socket.on('pong', () => this.touch());
    socket.on('close', (code: number, reason: Buffer) => {
      if (this.ended || !this.#open) return;
      clearInterval(this.#pingTimer);
      // After the data already queued; 1005/1006 (no code, dropped) are sent without a code.
      this.output.pushFrame(encodeFrame('previewWebSocketClose', { streamId: this.streamId, ...(isSendableCloseCode(code) ? { code } : {}), reason: closeReason(reason.toString('utf8')) }), { last: true });
    });
  }

  /** A message from the viewer. */
  onData(data: RelayFields<'previewWebSocketData'> & BodyCarrier): void {
    if (this.ended) return;
    const socket = this.#socket;
    if (!this.#open || !socket) return this.refuse('preview-websocket', 'previewWebSocketData before the socket opened');
    if (!this.acceptSequence(data.sequence, false, 'previewWebSocketData')) return;
    const body = bodyBytes(data);
    if (!body) return this.refuse('bad-base64', `previewWebSocketData ${data.sequence}: bodyBase64 is not standard base64`);
    const { chunkBytes, bufferBytes } = this.host.limits;
    if (body.length > chunkBytes) {
      this.host.refusals.refuse('preview-websocket', `preview stream ${JSON.stringify(this.streamId)}: a message of ${body.length} bytes is over ${chunkBytes}`);
      this.#closeBoth(1009, `message over ${chunkBytes} bytes`);
      return;
    }
    if (socket.bufferedAmount > bufferBytes + chunkBytes) return this.refuse('preview-flow', 'reader too slow: the dev server is not reading its socket');
    const sequence = data.sequence;
    socket.send(body, { binary: data.isBinary }, () => {
      if (!this.ended) this.output.ack(sequence);
    });
  }

  /** The viewer closed its socket: close the dev server's, and the stream is over. */
  onClose(close: RelayFields<'previewWebSocketClose'>): void {
    if (this.ended) return;
    const code = isSendableCloseCode(close.code) && close.code !== 1010 && close.code !== 1011 ? close.code : 1000;
    this.#socket?.close(code, closeReason(close.reason));
    this.finish();
  }

  protected override drained(): void {
    if (this.#paused && this.output.pendingBytes < this.host.limits.bufferBytes) {
      this.#paused = false;
      this.#socket?.resume();
    }
  }

  protected override release(): void {
    clearInterval(this.#pingTimer);
    const socket = this.#socket;
    if (!socket) return;
    if (socket.readyState === WebSocket.CONNECTING) {
      socket.terminate();
      return;
    }
    if (socket.readyState === WebSocket.OPEN) socket.close(1001, 'preview stream ended');
    // Gone for good if the dev server does not answer the close (ws would wait 30 s).
    if (socket.readyState === WebSocket.CLOSING) setTimeout(() => socket.terminate(), 1000).unref();
  }

  #fail(errorCode: 'upstream_refused' | 'upstream_unreachable' | 'bad_request', message: string): void {
    if (this.ended || this.#open) return;
    this.host.send(encodeFrame('previewWebSocketOpenResult', { streamId: this.streamId, previewId: this.target.previewId, ok: false, errorCode, message }));
    this.finishTold();
  }

  /** Close both sides with `code` (the relay hears it as previewWebSocketClose). */
  #closeBoth(code: number, reason: string): void {
    this.host.send(encodeFrame('previewWebSocketClose', { streamId: this.streamId, code, reason }));
    this.#socket?.close(code, reason);
    this.finishTold();
  }
}

function flatten(headers: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : value;
  return out;
}
