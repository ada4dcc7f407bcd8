/**
 * One HTTP request of a viewer through a preview: `previewHttpRequest`, then the viewer's body as
 * `previewStreamChunk` frames (always, ending with an empty `final` one), then the daemon's
 * `previewHttpResponseHead` and chunks written to the viewer. Back-pressure both ways: the viewer's
 * body is paused while the daemon's window is full; a chunk from the daemon is acknowledged once
 * the viewer's socket took it (the response drained), so at most a window (+ one chunk) of one
 * download sits in the relay however slowly the viewer reads. Anything out of order ends this
 * stream (cancel to the daemon, 502 or a cut response to the viewer) and nothing else.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyBytes } from '../../preview/previewBodyFrames.ts';
import { type DaemonStreamFrame, type OpenPreview, type PreviewStream, SendWindow, sequenceError, type StreamHost } from './previewFlow.ts';
import { type PreviewHeaders, rewriteResponseHeaders } from './previewHeaders.ts';
import { type PreviewPage, sendPreviewPage } from './previewPages.ts';
import { movedThroughBuffers } from '../../../youngBufferRelease.ts';

export interface HttpStreamOptions {
  host: StreamHost;
  id: string;
  requestId: string;
  preview: OpenPreview;
  req: IncomingMessage;
  res: ServerResponse;
  /** Origin-form path for the dev server. */
  path: string;
  headers: PreviewHeaders;
  /** The preview's own origin: where the dev server's redirects to itself land. */
  origin: string;
}

type State = 'head' | 'body' | 'ended';

export class HttpStream implements PreviewStream {
  readonly kind = 'http';
  readonly id: string;
  readonly preview: OpenPreview;
  readonly #host: StreamHost;
  readonly #requestId: string;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #origin: string;
  readonly #window: SendWindow;
  #state: State = 'head';
  #outSequence = 0;
  #requestBytes = 0;
  #requestDone = false;
  #nextSequence = 1;
  #responseBytes = 0;
  /** Highest chunk written to the viewer and not yet acknowledged (waiting for 'drain'). */
  #unackedWritten = 0;
  #waitingDrain = false;
  #headTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #totalTimer: NodeJS.Timeout | undefined;

  constructor(options: HttpStreamOptions) {
    this.#host = options.host;
    this.id = options.id;
    this.#requestId = options.requestId;
    this.preview = options.preview;
    this.#req = options.req;
    this.#res = options.res;
    this.#origin = options.origin;
    this.#window = new SendWindow(this.#host.daemonWindowBytes);
    const { limits } = this.#host;
    this.#headTimer = setTimeout(() => this.#fail({ status: 504, title: 'The dev server did not answer', message: `No answer from the machine within ${seconds(limits.openTimeoutMs)}.` }, 'no response head in time'), limits.openTimeoutMs);
    this.#totalTimer = setTimeout(() => this.#fail({ status: 504, title: 'The request took too long', message: `A preview request may take at most ${seconds(limits.streamTotalTimeoutMs)}.` }, 'total timeout'), limits.streamTotalTimeoutMs);
    this.#touch();

    this.#host.send('previewHttpRequest', { requestId: this.#requestId, streamId: this.id, previewId: this.preview.id, method: this.#req.method ?? 'GET', path: options.path, headers: options.headers });
    this.#req.on('data', (data: Buffer) => this.#onRequestData(data));
    this.#req.on('end', () => this.#onRequestEnd());
    // The viewer went away (closed the tab, cancelled the download) before the response ended.
    this.#res.on('close', () => {
      if (this.#state !== 'ended') this.#end({ cancel: 'viewer went away' });
    });
  }

  get bufferedBytes(): number {
    return this.#state === 'ended' ? 0 : this.#res.writableLength;
  }

  onFrame(message: DaemonStreamFrame): void {
    if (this.#state === 'ended') return;
    switch (message.type) {
      case 'previewHttpResponseHead':
        return this.#onHead(message);
      case 'previewStreamChunk':
        return this.#onChunk(message);
      case 'previewStreamCancel':
        return this.#fail({ status: 502, title: 'The dev server did not answer', message: 'The machine ended this request.', detail: message.reason });
      case 'previewStreamAck': {
        const error = this.#window.ack(message.sequence);
        if (error) return this.#refuse('preview:ack', error);
        if (!this.#window.full && this.#req.isPaused() && !this.#requestDone) this.#req.resume();
        return;
      }
      default:
        return this.#refuse('preview:wrong-stream-kind', `${message.type} for HTTP stream ${this.id}`);
    }
  }

  previewEnded(reason: string): void {
    if (this.#state === 'ended') return;
    this.#end({ page: { status: 502, title: 'The preview was closed', message: 'The preview ended while this request was in flight.', detail: reason } });
  }

  // --- viewer → daemon (the request body) -----------------------------------------------------

  #onRequestData(data: Buffer): void {
    if (this.#state === 'ended') return;
    movedThroughBuffers(data.length);
    this.#touch();
    const { maxRequestBodyBytes } = this.#host.limits;
    const chunkBytes = Math.min(this.#host.limits.chunkBytes, this.#host.daemonChunkBytes);
    for (let offset = 0; offset < data.length; offset += chunkBytes) {
      const piece = data.subarray(offset, offset + chunkBytes);
      this.#requestBytes += piece.length;
      if (this.#requestBytes > maxRequestBodyBytes) {
        this.#fail({ status: 413, title: 'Request body too large', message: `A preview request body may be at most ${maxRequestBodyBytes} bytes.` }, 'request body over the cap', true);
        return;
      }
      this.#outSequence++;
      this.#host.sendBody('previewStreamChunk', { streamId: this.id, sequence: this.#outSequence, final: false }, piece);
      this.#window.sent(this.#outSequence, piece.length);
    }
    if (this.#window.full) this.#req.pause();
  }

  #onRequestEnd(): void {
    if (this.#state === 'ended' || this.#requestDone) return;
    this.#requestDone = true;
    this.#outSequence++;
    this.#host.sendBody('previewStreamChunk', { streamId: this.id, sequence: this.#outSequence, final: true }, Buffer.alloc(0));
    this.#window.sent(this.#outSequence, 0);
  }

  // --- daemon → viewer (the response) ---------------------------------------------------------

  #onHead(message: Extract<DaemonStreamFrame, { type: 'previewHttpResponseHead' }>): void {
    if (this.#state !== 'head') return this.#refuse('preview:unexpected-head', `a second response head on stream ${this.id}`);
    if (message.previewId !== this.preview.id || message.requestId !== this.#requestId) {
      return this.#refuse('preview:binding', `response head on stream ${this.id} names preview ${JSON.stringify(message.previewId)} / request ${JSON.stringify(message.requestId)}, not its own`);
    }
    if (message.statusCode < 200 || message.statusCode > 599) return this.#refuse('preview:bad-head', `status ${message.statusCode} on stream ${this.id}`);
    clearTimeout(this.#headTimer);
    this.#touch();
    const res = this.#res;
    try {
      const headers = rewriteResponseHeaders(message.headers, { port: this.preview.port, previewOrigin: this.#origin });
      for (const [name, values] of headers) res.setHeader(name, values.length === 1 ? values[0]! : values);
      res.writeHead(message.statusCode);
    } catch (error) {
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      return this.#refuse('preview:bad-head', `response head on stream ${this.id}: ${(error as Error).message}`);
    }
    this.#state = 'body';
  }

  #onChunk(message: Extract<DaemonStreamFrame, { type: 'previewStreamChunk' }>): void {
    if (this.#state === 'head') return this.#refuse('preview:chunk-before-head', `chunk ${message.sequence} before the response head on stream ${this.id}`);
    const outOfOrder = sequenceError(this.#nextSequence, message.sequence);
    if (outOfOrder) return this.#refuse('preview:sequence', outOfOrder);
    const body = bodyBytes(message);
    if (!body) return this.#refuse('preview:bad-chunk', `chunk ${message.sequence} on stream ${this.id} is not standard base64`);
    const { maxResponseBodyBytes } = this.#host.limits;
    const chunkBytes = this.#host.daemonChunkBytes;
    if (body.length > chunkBytes) return this.#refuse('preview:bad-chunk', `chunk ${message.sequence} on stream ${this.id} is over ${chunkBytes} bytes`);
    this.#nextSequence++;
    this.#responseBytes += body.length;
    movedThroughBuffers(body.length);
    if (this.#responseBytes > maxResponseBodyBytes) return this.#end({ cancel: 'response body over the cap' });
    this.#touch();
    const res = this.#res;
    if (message.final) {
      this.#state = 'ended';
      this.#cleanup();
      res.end(body.length > 0 ? body : undefined);
      return;
    }
    const drained = body.length === 0 || res.write(body);
    this.#host.noteBuffered(res.writableLength);
    const window = this.#host.daemonWindowBytes;
    const limit = window !== undefined ? window + chunkBytes : this.#host.limits.streamBufferBytes;
    if (res.writableLength > limit) return this.#end({ cancel: 'reader too slow' });
    if (window === undefined) return;
    this.#unackedWritten = message.sequence;
    if (drained) return this.#ack();
    if (this.#waitingDrain) return;
    this.#waitingDrain = true;
    res.once('drain', () => {
      this.#waitingDrain = false;
      if (this.#state === 'body') this.#ack();
    });
  }

  #ack(): void {
    if (this.#unackedWritten === 0) return;
    this.#host.send('previewStreamAck', { streamId: this.id, sequence: this.#unackedWritten });
    this.#unackedWritten = 0;
  }

  // --- ending ----------------------------------------------------------------------------------

  /** A frame that breaks the rules: refused (logged once per kind), the stream ends with that reason. */
  #refuse(kind: string, error: string): void {
    this.#host.refuse(kind, error);
    this.#fail({ status: 502, title: 'The machine sent a broken answer', message: 'The relay ended this request: the machine broke the preview protocol.', detail: error }, error);
  }

  /** End with an error: the page if nothing was sent yet, else a cut response; `cancel` tells the daemon. */
  #fail(page: PreviewPage, cancel?: string, closeConnection = false): void {
    this.#end({ page, ...(cancel !== undefined ? { cancel } : {}), closeConnection });
  }

  #end(how: { page?: PreviewPage; cancel?: string; closeConnection?: boolean }): void {
    if (this.#state === 'ended') return;
    this.#state = 'ended';
    this.#cleanup();
    if (how.cancel !== undefined) this.#host.send('previewStreamCancel', { streamId: this.id, reason: how.cancel });
    const res = this.#res;
    if (how.page && !res.headersSent && !res.destroyed) {
      // A body still arriving is not read any further: close the connection after the answer.
      sendPreviewPage(res, how.page, { closeConnection: how.closeConnection || !this.#requestDone });
      if (!this.#requestDone) this.#req.resume();
    } else if (!res.writableEnded) res.destroy();
  }

  #cleanup(): void {
    clearTimeout(this.#headTimer);
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    clearTimeout(this.#totalTimer);
    this.#host.ended(this);
  }

  #touch(): void {
    if (this.#state === 'ended') return;
    // Once per chunk: moving the timer costs less than a new one (a download touches it ~800 times).
    if (this.#idleTimer) {
      this.#idleTimer.refresh();
      return;
    }
    const idleMs = this.#host.limits.streamIdleTimeoutMs;
    this.#idleTimer = setTimeout(() => this.#fail({ status: 504, title: 'The dev server went quiet', message: `Nothing moved on this request for ${seconds(idleMs)}.` }, 'idle timeout'), idleMs);
  }
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}
