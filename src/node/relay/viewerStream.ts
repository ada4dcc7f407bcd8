/**
 * What one viewer (a relay channel) receives of one terminal: `terminalSnapshot`, then
 * `terminalOutput` frames of at most 8 KiB (base64), `seq` 1, 2, 3… one per frame, and finally
 * `terminalExit` when the terminal ends.
 *
 * Output waits here, bounded (`viewerBufferBytes`), until the relay link has room and pulls it
 * (RelayConnection is pull-based). A viewer that cannot keep up never slows the PTY (the stream
 * listens to the session's output event, outside flow control) and never grows memory: once its
 * buffer would overflow, everything queued is dropped and it gets a fresh snapshot of the mirror
 * instead, then live output from exactly the snapshot's byte offset.
 *
 * `seq` of a snapshot is the seq of the last output frame sent before it ("as of seq"): the next
 * output frame carries seq + 1, so a viewer can tell a gap (then it asks for a snapshot) from a
 * redraw.
 */
import { RelayConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { encodeFrame } from '../../common/protocol/relay/frames.ts';
import type { ILogger } from '../logger.ts';
import type { PtySession } from '../pty/ptySession.ts';
import { takeBoundedSnapshot } from './boundedSnapshot.ts';
import type { OutputSource } from './relayConnection.ts';

export interface StreamSink {
  markReady(source: OutputSource): void;
  forget(source: OutputSource): void;
}

export interface ViewerStreamOptions {
  session: PtySession;
  terminalId: string;
  /** The protocol sessionId the terminal's frames carry. */
  sessionId: string;
  channelId: string;
  sink: StreamSink;
  logger: ILogger;
  bufferBytes?: number;
  chunkBytes?: number;
  snapshotMaxBytes?: number;
}

interface Chunk {
  bytes: Buffer;
  /** Terminal byte offset just after this chunk. */
  endOffset: number;
}

export class ViewerStream implements OutputSource, IDisposable {
  readonly terminalId: string;
  readonly channelId: string;
  readonly sessionId: string;
  readonly #session: PtySession;
  readonly #sink: StreamSink;
  readonly #logger: ILogger;
  readonly #bufferBytes: number;
  readonly #chunkBytes: number;
  readonly #snapshotMaxBytes: number;
  #chunks: Chunk[] = [];
  #chunkHead = 0;
  /** Bytes of `#chunks[#chunkHead]` already sent. */
  #headUsed = 0;
  #pendingBytes = 0;
  /** Output up to this offset is covered by a snapshot (or was skipped): ignore it. */
  #coveredUpTo = -1;
  #seq = 0;
  #takingSnapshot = false;
  /** The buffer overflowed (or a new request came) while a snapshot was being taken: take another. */
  #snapshotAgain = false;
  #snapshotFrame: string | undefined;
  #exitFrame: string | undefined;
  #ending = false;
  #disposed = false;
  #skips = 0;

  constructor(options: ViewerStreamOptions) {
    this.terminalId = options.terminalId;
    this.channelId = options.channelId;
    this.sessionId = options.sessionId;
    this.#session = options.session;
    this.#sink = options.sink;
    this.#logger = options.logger;
    this.#bufferBytes = options.bufferBytes ?? RelayConstants.viewerBufferBytes;
    this.#chunkBytes = options.chunkBytes ?? RelayConstants.outputChunkBytes;
    this.#snapshotMaxBytes = options.snapshotMaxBytes ?? RelayConstants.snapshotMaxBytes;
  }

  /** Bytes waiting for the link (never more than the buffer bound). */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** Times this viewer was skipped ahead because it fell behind. */
  get skips(): number {
    return this.#skips;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  /** Live output of the terminal (from its output event), in order. */
  push(bytes: Buffer, endOffset: number): void {
    if (this.#disposed || this.#ending || endOffset <= this.#coveredUpTo || bytes.length === 0) return;
    if (this.#pendingBytes + bytes.length > this.#bufferBytes) {
      // Too far behind: forget the backlog, redraw from the mirror instead.
      this.#skips++;
      this.#logger.debug('relay viewer fell behind; skipping ahead with a snapshot', { terminalId: this.terminalId, channelId: this.channelId, pending: this.#pendingBytes });
      this.#clearPending();
      this.#coveredUpTo = endOffset;
      this.requestSnapshot();
      return;
    }
    this.#chunks.push({ bytes, endOffset });
    this.#pendingBytes += bytes.length;
    if (!this.#takingSnapshot) this.#sink.markReady(this);
  }

  /** Send a fresh snapshot next (attach, a viewer's request, or falling behind). */
  requestSnapshot(): void {
    if (this.#disposed || this.#ending) return;
    if (this.#takingSnapshot) {
      this.#snapshotAgain = true;
      return;
    }
    void this.#takeSnapshot();
  }

  /** The terminal ended: after the queued output, send this `terminalExit` and stop. */
  end(exitFrame: string): void {
    if (this.#disposed || this.#ending) return;
    this.#ending = true;
    this.#exitFrame = exitFrame;
    if (!this.#takingSnapshot) this.#sink.markReady(this);
  }

  nextFrame(): string | undefined {
    if (this.#disposed || this.#takingSnapshot) return undefined;
    if (this.#snapshotFrame !== undefined) {
      const frame = this.#snapshotFrame;
      this.#snapshotFrame = undefined;
      return frame;
    }
    if (this.#pendingBytes > 0) return this.#outputFrame();
    if (this.#exitFrame !== undefined) {
      const frame = this.#exitFrame;
      this.#exitFrame = undefined;
      this.#disposed = true;
      return frame;
    }
    return undefined;
  }

  /** True once the exit frame went out (or the stream was disposed). */
  get finished(): boolean {
    return this.#disposed;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#clearPending();
    this.#snapshotFrame = undefined;
    this.#exitFrame = undefined;
    this.#sink.forget(this);
  }

  #outputFrame(): string {
    const size = Math.min(this.#chunkBytes, this.#pendingBytes);
    const first = this.#chunks[this.#chunkHead]!;
    let payload: Buffer;
    if (first.bytes.length - this.#headUsed >= size) {
      // The common case: one chunk covers the frame; no copy.
      payload = first.bytes.subarray(this.#headUsed, this.#headUsed + size);
      this.#consume(size);
    } else {
      payload = Buffer.allocUnsafe(size);
      let filled = 0;
      while (filled < size) {
        const chunk = this.#chunks[this.#chunkHead]!;
        const take = Math.min(size - filled, chunk.bytes.length - this.#headUsed);
        chunk.bytes.copy(payload, filled, this.#headUsed, this.#headUsed + take);
        filled += take;
        this.#consume(take);
      }
    }
    this.#seq++;
    return encodeFrame('terminalOutput', {
      terminalId: this.terminalId,
      sessionId: this.sessionId,
      channelId: this.channelId,
      seq: this.#seq,
      dataBase64: payload.toString('base64'),
    });
  }

  /** Mark `bytes` of the head chunk(s) as sent. */
  #consume(bytes: number): void {
    this.#pendingBytes -= bytes;
    this.#headUsed += bytes;
    const head = this.#chunks[this.#chunkHead]!;
    if (this.#headUsed >= head.bytes.length) {
      this.#chunks[this.#chunkHead] = undefined as unknown as Chunk;
      this.#chunkHead++;
      this.#headUsed = 0;
      if (this.#chunkHead === this.#chunks.length) {
        this.#chunks = [];
        this.#chunkHead = 0;
      }
    }
  }

  #clearPending(): void {
    this.#chunks = [];
    this.#chunkHead = 0;
    this.#headUsed = 0;
    this.#pendingBytes = 0;
  }

  /** Drop queued output the snapshot already shows. Batches end at the snapshot offset, so no chunk straddles it. */
  #dropCoveredChunks(offset: number): void {
    while (this.#chunkHead < this.#chunks.length && this.#chunks[this.#chunkHead]!.endOffset <= offset) {
      const chunk = this.#chunks[this.#chunkHead]!;
      this.#pendingBytes -= chunk.bytes.length - this.#headUsed;
      this.#headUsed = 0;
      this.#chunks[this.#chunkHead++] = undefined as unknown as Chunk;
    }
    if (this.#chunkHead === this.#chunks.length) {
      this.#chunks = [];
      this.#chunkHead = 0;
    }
  }

  async #takeSnapshot(): Promise<void> {
    this.#takingSnapshot = true;
    this.#snapshotFrame = undefined;
    try {
      for (;;) {
        this.#snapshotAgain = false;
        const snapshot = await takeBoundedSnapshot(this.#session, { maxBytes: this.#snapshotMaxBytes });
        if (this.#disposed) return;
        if (this.#snapshotAgain) continue; // the backlog overflowed meanwhile: this one is already stale
        this.#coveredUpTo = Math.max(this.#coveredUpTo, snapshot.offset);
        this.#dropCoveredChunks(snapshot.offset);
        this.#snapshotFrame = encodeFrame('terminalSnapshot', {
          terminalId: this.terminalId,
          sessionId: this.sessionId,
          channelId: this.channelId,
          seq: this.#seq,
          dataBase64: snapshot.data.toString('base64'),
        });
        return;
      }
    } catch (error) {
      // The terminal was closed while we serialized it: its exit frame (if any) still goes out.
      if (!this.#disposed) this.#logger.debug('relay snapshot failed', { terminalId: this.terminalId, error });
    } finally {
      this.#takingSnapshot = false;
      if (!this.#disposed) this.#sink.markReady(this);
    }
  }
}
