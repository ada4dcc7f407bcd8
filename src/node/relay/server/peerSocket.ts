/**
 * One WebSocket on the relay (a daemon's or a viewer's): inbound frames validated with the
 * protocol's limits before parsing (a frame over 1 MiB is closed by `ws` with 1009; every other
 * bad frame is refused, logged once per kind, and the socket carries on), outbound frames sent
 * with their raw text (the relay never re-serializes what it forwards).
 */
import { decodeBodyFrame } from '../preview/previewBodyFrames.ts';
import { utf8Frame } from '../utf8Frame.ts';
import type WebSocket from 'ws';
import { Emitter, type Event } from '../../../common/event.ts';
import type { IDisposable } from '../../../common/lifecycle.ts';
import { parseEnvelope } from '../../../common/protocol/relay/envelope.ts';
import type { EnvelopeLimits } from '../../../common/protocol/relay/frameLimits.ts';
import type { RelayMessage } from '../../../common/protocol/relay/messages.ts';
import type { RefusalLog } from '../refusalLog.ts';

export class PeerSocket implements IDisposable {
  readonly #ws: WebSocket;
  readonly #refusals: RefusalLog;
  readonly #limits: Partial<EnvelopeLimits> | undefined;
  readonly #label: string;
  #closed = false;
  /** Answered the last ping (see RelayServer's liveness sweep). */
  alive = true;
  /** Binary frames are preview bodies (a daemon that agreed to `previewBinaryBodies`); otherwise refused. */
  acceptsBodyFrames = false;

  readonly #onDidFrame = new Emitter<{ message: RelayMessage; text: string }>();
  readonly onDidFrame: Event<{ message: RelayMessage; text: string }> = this.#onDidFrame.event;
  readonly #onDidClose = new Emitter<{ code: number; reason: string }>();
  readonly onDidClose: Event<{ code: number; reason: string }> = this.#onDidClose.event;
  readonly #onDidFlush = new Emitter<void>();
  /** A send was flushed to the kernel (for lag bookkeeping). */
  readonly onDidFlush: Event<void> = this.#onDidFlush.event;

  constructor(options: { ws: WebSocket; refusals: RefusalLog; label: string; limits?: Partial<EnvelopeLimits> }) {
    this.#ws = options.ws;
    this.#refusals = options.refusals;
    this.#limits = options.limits;
    this.#label = options.label;
    this.#ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    this.#ws.on('pong', () => (this.alive = true));
    this.#ws.on('error', (error) => {
      if (/max payload size exceeded/i.test(error.message)) this.#refusals.refuse(`${this.#label}:size`, `frame exceeds max size (socket closed with 1009)`);
    });
    this.#ws.on('close', (code, reason) => this.#finish(code, reason.toString('utf8')));
  }

  get isOpen(): boolean {
    return !this.#closed && this.#ws.readyState === this.#ws.OPEN;
  }

  /** Bytes handed to this socket and not yet written to the network. */
  get bufferedAmount(): number {
    return this.#ws.bufferedAmount;
  }

  /** A frame's text, or the bytes of a binary body frame (previewBodyFrames.ts). */
  send(frame: string | Buffer): boolean {
    if (!this.isOpen) return false;
    if (typeof frame === 'string') this.#ws.send(utf8Frame(frame), { binary: false }, this.#flushed);
    else this.#ws.send(frame, { binary: true }, this.#flushed);
    return true;
  }

  ping(): void {
    if (!this.isOpen) return;
    this.alive = false;
    this.#ws.ping();
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    if (this.#ws.readyState === this.#ws.OPEN) {
      this.#ws.close(code, reason);
      const ws = this.#ws;
      setTimeout(() => ws.terminate(), 1000).unref();
    } else this.#ws.terminate();
    this.#finish(code, reason);
  }

  terminate(): void {
    this.#ws.terminate();
    this.#finish(1006, 'terminated');
  }

  dispose(): void {
    this.close(1001, 'going away');
  }

  readonly #flushed = (error?: Error): void => {
    if (!error && !this.#closed) this.#onDidFlush.fire();
  };

  #onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.#closed) return;
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isBinary) {
      if (!this.acceptsBodyFrames) {
        this.#refusals.refuse(`${this.#label}:binary`, 'binary frames are not part of the protocol');
        return;
      }
      const decoded = decodeBodyFrame(buffer, this.#limits);
      if (!decoded.ok) {
        this.#refusals.refuse(`${this.#label}:${decoded.kind}`, decoded.error);
        return;
      }
      // No text: body frames end at the relay (previews), they are never forwarded or remembered.
      this.#onDidFrame.fire({ message: decoded.message, text: '' });
      return;
    }
    const text = buffer.toString('utf8');
    const parsed = parseEnvelope(text, { byteLength: buffer.length, ...(this.#limits ? { limits: this.#limits } : {}) });
    if (!parsed.ok) {
      this.#refusals.refuse(`${this.#label}:${parsed.kind}`, parsed.error);
      return;
    }
    this.#onDidFrame.fire({ message: parsed.message, text });
  }

  #finish(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onDidClose.fire({ code, reason });
    this.#onDidFrame.dispose();
    this.#onDidClose.dispose();
    this.#onDidFlush.dispose();
  }
}
