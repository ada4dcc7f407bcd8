/**
 * What one preview stream sends the relay, pulled by the link (relayConnection.ts `OutputSource`)
 * one frame at a time, only while the socket has room — so a 50 MB response waits here, in a
 * bounded buffer, never in the link's control queue (a full queue drops the link).
 *
 * - Frames leave in the order they were pushed (a response head before its body, WebSocket data
 *   before the close), except the acknowledgement of what the relay sent us, which goes first and
 *   is coalesced (one `previewStreamAck` for the newest sequence handed on).
 * - Body frames get their `sequence` (1, 2, …) as they leave. To a relay that advertised a window
 *   (`welcome.previewStreamWindowBytes`), body bytes sent and not yet acknowledged stay within it:
 *   the next body frame waits for `previewStreamAck` (one frame always fits, however large).
 * - `pendingBytes` is what is held here; the stream pauses its reader (the dev server) while it
 *   is at or above its buffer, and `onDrained` tells it when to resume.
 */
import type { OutputSource, RelayConnection } from '../relayConnection.ts';
import { encodeFrame } from '../../../common/protocol/relay/frames.ts';

export interface BodyItem {
  body: Buffer;
  final?: boolean;
  isBinary?: boolean;
}

type Item = { kind: 'frame'; frame: string; last: boolean } | ({ kind: 'body' } & BodyItem);

export interface PreviewOutputOptions {
  connection: RelayConnection;
  streamId: string;
  /** The frame of one body item with its sequence (bytes: a binary frame, see previewBodyFrames.ts). */
  encode: (sequence: number, item: BodyItem) => string | Buffer;
  /** The relay's window, or undefined when it did not advertise one (send without waiting). */
  window: number | undefined;
  /** A body frame left: the stream may resume its reader; `sent` is its size. */
  onDrained: (sent: number) => void;
  /** The last item pushed as `last` (or a final body item) left: the stream is done. */
  onFinished: () => void;
}

export class PreviewOutput implements OutputSource {
  readonly #options: PreviewOutputOptions;
  #items: Item[] = [];
  #head = 0;
  #nextSequence = 1;
  /** Sequences sent and not acknowledged, oldest first, with their sizes. */
  #unacked: Array<{ sequence: number; bytes: number }> = [];
  #unackedBytes = 0;
  #ackSequence: number | undefined;
  #pendingBytes = 0;
  #peakPendingBytes = 0;
  #closed = false;

  constructor(options: PreviewOutputOptions) {
    this.#options = options;
  }

  /** Body bytes held here, not yet handed to the link. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** The most ever held at once (for stats and tests: bounded by the buffer plus one read). */
  get peakPendingBytes(): number {
    return this.#peakPendingBytes;
  }

  get unackedBytes(): number {
    return this.#unackedBytes;
  }

  /** The newest sequence sent (0 before the first). */
  get lastSequence(): number {
    return this.#nextSequence - 1;
  }

  pushFrame(frame: string, options: { last?: boolean } = {}): void {
    if (this.#closed) return;
    this.#items.push({ kind: 'frame', frame, last: options.last ?? false });
    this.#options.connection.markReady(this);
  }

  pushBody(item: BodyItem): void {
    if (this.#closed) return;
    this.#items.push({ kind: 'body', ...item });
    this.#pendingBytes += item.body.length;
    if (this.#pendingBytes > this.#peakPendingBytes) this.#peakPendingBytes = this.#pendingBytes;
    this.#options.connection.markReady(this);
  }

  /** Acknowledge (coalesced) that everything the relay sent up to `sequence` was handed on. */
  ack(sequence: number): void {
    if (this.#closed) return;
    this.#ackSequence = Math.max(this.#ackSequence ?? 0, sequence);
    this.#options.connection.markReady(this);
  }

  /** The relay acknowledged up to `sequence`; false when that was never sent (a bad ack, ignored). */
  acknowledged(sequence: number): boolean {
    if (sequence < 1 || sequence > this.lastSequence) return false;
    let freed = false;
    while (this.#unacked.length > 0 && this.#unacked[0]!.sequence <= sequence) {
      this.#unackedBytes -= this.#unacked.shift()!.bytes;
      freed = true;
    }
    if (freed && !this.#closed && this.#head < this.#items.length) this.#options.connection.markReady(this);
    return true;
  }

  nextFrame(): string | Buffer | undefined {
    if (this.#closed) return undefined;
    if (this.#ackSequence !== undefined) {
      const sequence = this.#ackSequence;
      this.#ackSequence = undefined;
      return encodeFrame('previewStreamAck', { streamId: this.#options.streamId, sequence });
    }
    const item = this.#items[this.#head];
    if (!item) return undefined;
    if (item.kind === 'frame') {
      this.#shift();
      if (item.last) this.#finish();
      return item.frame;
    }
    const window = this.#options.window;
    if (window !== undefined && this.#unackedBytes > 0 && this.#unackedBytes + item.body.length > window) return undefined; // markReady again on ack
    this.#shift();
    const sequence = this.#nextSequence++;
    const frame = this.#options.encode(sequence, item);
    this.#pendingBytes -= item.body.length;
    if (window !== undefined) {
      this.#unacked.push({ sequence, bytes: item.body.length });
      this.#unackedBytes += item.body.length;
    }
    this.#options.onDrained(item.body.length);
    if (item.final) this.#finish();
    return frame;
  }

  /** Drop whatever waits and never be asked again. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#items = [];
    this.#head = 0;
    this.#pendingBytes = 0;
    this.#options.connection.forget(this);
  }

  #shift(): void {
    this.#items[this.#head++] = undefined as unknown as Item;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    }
  }

  #finish(): void {
    // Called from inside nextFrame: the frame returned is the last; the stream ends after it.
    queueMicrotask(() => this.#options.onFinished());
  }
}
