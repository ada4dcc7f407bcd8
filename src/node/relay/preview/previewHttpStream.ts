/**
 * One `previewHttpRequest` carried to the dev server with node:http and its response streamed back
 * (docs/relay.md "Dev-server previews").
 *
 * - The request starts with the body's first `previewStreamChunk` (sequence 1; a GET sends one
 *   empty final chunk). A body that arrives whole in that chunk gets a `content-length` when the
 *   relay sent none, so servers that cannot read a chunked body (python's http.server) get it too.
 * - Request body chunks are acknowledged once the dev server's socket took them (write returned
 *   true, or 'drain'); more held than `bufferBytes` + one chunk (a relay that ignores the window)
 *   ends the stream (`reader too slow`). Over `maxRequestBodyBytes` ends it too.
 * - The response: `previewHttpResponseHead`, then its body cut in chunks of at most `chunkBytes`,
 *   the last `final` (empty when the body ended on a chunk boundary). The dev server's response is
 *   paused while `bufferBytes` wait here for the link, so a slow relay costs bounded memory.
 * - Failures end the stream with `previewStreamCancel` and a reason, whether or not the head was
 *   sent: the relay answers 502 when it had no head yet, and cuts the response when it had. One
 *   rule for both cases (a dev server that refuses, resets mid-body, or hangs) keeps the daemon's
 *   side simple and leaves what the viewer sees to the side that talks to the viewer.
 * - No redirect is ever followed (node:http does not); only target host:port is dialled.
 */
import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { type BodyCarrier, bodyBytes, encodeBodyFrame } from './previewBodyFrames.ts';
import { encodeFrame } from '../../../common/protocol/relay/frames.ts';
import type { RelayFields } from '../../../common/protocol/relay/messages.ts';
import { dialHost, requestHeaders, responseHeaders } from './previewRules.ts';
import { PreviewStream, type StreamHost, type StreamTarget } from './previewStream.ts';
import { movedThroughBuffers } from '../../youngBufferRelease.ts';

/** Methods that send no body when theirs is empty (no `content-length: 0` added). */
const bodilessMethods = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

export class PreviewHttpStream extends PreviewStream {
  readonly #request: RelayFields<'previewHttpRequest'>;
  #upstream: ClientRequest | undefined;
  #response: IncomingMessage | undefined;
  #requestBodyBytes = 0;
  #responseBodyBytes = 0;
  #waitingDrain = false;
  #drainSequence = 0;
  #paused = false;
  readonly #totalTimer: NodeJS.Timeout;

  constructor(host: StreamHost, target: StreamTarget, request: RelayFields<'previewHttpRequest'>) {
    super(host, request.streamId, target, (sequence, item) => {
      const fields = { streamId: request.streamId, sequence, final: item.final ?? false };
      return host.binaryBodies ? encodeBodyFrame('previewStreamChunk', fields, item.body) : encodeFrame('previewStreamChunk', { ...fields, bodyBase64: item.body.toString('base64') });
    });
    this.#request = request;
    this.#totalTimer = setTimeout(() => this.cancel(`no answer within ${host.limits.totalTimeoutMs} ms (total timeout)`), host.limits.totalTimeoutMs);
  }

  /** A piece of the request body. */
  onChunk(chunk: RelayFields<'previewStreamChunk'> & BodyCarrier): void {
    if (this.ended) return;
    if (!this.acceptSequence(chunk.sequence, chunk.final, 'previewStreamChunk')) return;
    const body = bodyBytes(chunk);
    if (!body) return this.refuse('bad-base64', `previewStreamChunk ${chunk.sequence}: bodyBase64 is not standard base64`);
    const limits = this.host.limits;
    if (body.length > limits.chunkBytes) return this.refuse('preview-body', `chunk ${chunk.sequence} of ${body.length} bytes is over ${limits.chunkBytes}`);
    this.#requestBodyBytes += body.length;
    movedThroughBuffers(body.length);
    if (this.#requestBodyBytes > limits.maxRequestBodyBytes) return this.refuse('preview-body', `request body over ${limits.maxRequestBodyBytes} bytes`);
    const upstream = this.#upstream ?? this.#start(chunk.final ? body.length : undefined);
    if (!upstream) return;
    if (body.length > 0) {
      if (upstream.writableLength > limits.bufferBytes + limits.chunkBytes) return this.refuse('preview-flow', 'reader too slow: the dev server is not taking the request body');
      let room: boolean;
      try {
        room = upstream.write(body);
      } catch (error) {
        // node:http throws when the body outgrows the content-length the relay declared.
        return this.refuse('preview-body', `request body: ${(error as Error).message}`);
      }
      if (room) this.output.ack(chunk.sequence);
      else this.#ackOnDrain(upstream, chunk.sequence);
    } else if (!this.#waitingDrain) {
      this.output.ack(chunk.sequence);
    } else {
      this.#drainSequence = chunk.sequence;
    }
    if (chunk.final) {
      try {
        upstream.end();
      } catch (error) {
        this.refuse('preview-body', `request body: ${(error as Error).message}`);
      }
    }
  }

  protected override drained(): void {
    if (this.#paused && this.output.pendingBytes < this.host.limits.bufferBytes) {
      this.#paused = false;
      this.#response?.resume();
    }
  }

  protected override release(): void {
    clearTimeout(this.#totalTimer);
    // The dev server sees its request closed (an aborted upload, a download nobody reads any more).
    this.#response?.destroy();
    this.#upstream?.destroy();
  }

  #ackOnDrain(upstream: ClientRequest, sequence: number): void {
    this.#drainSequence = sequence;
    if (this.#waitingDrain) return;
    this.#waitingDrain = true;
    upstream.once('drain', () => {
      this.#waitingDrain = false;
      if (!this.ended) this.output.ack(this.#drainSequence);
    });
  }

  #start(wholeBodyBytes: number | undefined): ClientRequest | undefined {
    const { host, port } = this.target;
    const headers = requestHeaders(this.#request.headers, port);
    if (headers['content-length'] === undefined && wholeBodyBytes !== undefined && !(wholeBodyBytes === 0 && bodilessMethods.has(this.#request.method))) {
      headers['content-length'] = String(wholeBodyBytes);
    }
    let upstream: ClientRequest;
    try {
      upstream = httpRequest({ host: dialHost(host), port, method: this.#request.method, path: this.#request.path, headers, agent: false, setHost: false });
    } catch (error) {
      // node:http refuses what it cannot send (a header value it rejects): the relay's input, not a crash.
      this.refuse('preview-request', `cannot send the request: ${(error as Error).message}`);
      return undefined;
    }
    // A body longer or shorter than its content-length is refused, never sent on (the rest would read as another request).
    (upstream as ClientRequest & { strictContentLength: boolean }).strictContentLength = true; // Node ≥ 18.10; not in our @types/node yet
    this.#upstream = upstream;
    upstream.on('response', (response) => this.#onResponse(response));
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (!this.ended) this.cancel(`dev server: ${error.code ?? error.message}`);
    });
    return upstream;
  }

  #onResponse(response: IncomingMessage): void {
    if (this.ended) {
      response.destroy();
      return;
    }
    this.#response = response;
    this.touch();
    this.output.pushFrame(
      encodeFrame('previewHttpResponseHead', {
        requestId: this.#request.requestId,
        streamId: this.streamId,
        previewId: this.target.previewId,
        statusCode: response.statusCode ?? 502,
        headers: responseHeaders(response.headersDistinct),
      }),
    );
    const { chunkBytes, bufferBytes, maxResponseBodyBytes } = this.host.limits;
    response.on('data', (data: Buffer) => {
      if (this.ended) return;
      this.touch();
      this.#responseBodyBytes += data.length;
      movedThroughBuffers(data.length);
      if (this.#responseBodyBytes > maxResponseBodyBytes) {
        this.cancel(`response body over ${maxResponseBodyBytes} bytes`);
        return;
      }
      for (let offset = 0; offset < data.length; offset += chunkBytes) this.output.pushBody({ body: data.subarray(offset, offset + chunkBytes) });
      if (!this.#paused && this.output.pendingBytes >= bufferBytes) {
        this.#paused = true;
        response.pause();
      }
    });
    response.on('end', () => {
      if (!this.ended) this.output.pushBody({ body: Buffer.alloc(0), final: true });
    });
    response.on('close', () => {
      // Closed before its end: the dev server reset the connection (or died) mid-body.
      if (!this.ended && !response.complete) this.cancel('dev server closed the connection before the response ended');
    });
  }
}
