/**
 * Collects a terminal's PTY reads into batches so that everything downstream (ring, mirror,
 * parser, subscribers) runs per batch instead of per 4 KiB read.
 *
 * - The first output after a quiet period is flushed on `setImmediate`, so echo stays instant.
 * - Under sustained output, flushes happen at most every `maxDelayMs`, so batches grow.
 * - A batch that reaches `maxBytes` is flushed at once, bounding memory and latency.
 * - A batch never ends inside a UTF-8 sequence: an incomplete trailing sequence is carried over
 *   to the next batch, so every batch decodes on its own and byte offsets stay exact.
 *
 * Bytes are copied into one buffer owned by the batcher, so a flush allocates nothing; the view
 * passed to `onBatch` is only valid during that call.
 */
import type { IDisposable } from '../../common/lifecycle.ts';
import { incompleteUtf8TailLength } from '../../common/terminal/utf8Boundaries.ts';

export interface OutputBatcherOptions {
  maxBytes: number;
  maxDelayMs: number;
  /** Receives each batch. The view is reused afterwards: copy what must outlive the call. */
  onBatch: (bytes: Buffer) => void;
  now?: () => number;
}

export class OutputBatcher implements IDisposable {
  readonly #options: OutputBatcherOptions;
  readonly #now: () => number;
  #buffer: Buffer | undefined;
  #length = 0;
  #lastFlushAt = Number.NEGATIVE_INFINITY;
  #immediate: NodeJS.Immediate | undefined;
  #timeout: NodeJS.Timeout | undefined;
  #disposed = false;

  constructor(options: OutputBatcherOptions) {
    if (options.maxBytes < 8) throw new Error('maxBytes must leave room for a UTF-8 sequence');
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Bytes waiting for the next flush (including a carried incomplete sequence). */
  get pendingBytes(): number {
    return this.#length;
  }

  push(chunk: Uint8Array): void {
    if (this.#disposed) return;
    const buffer = (this.#buffer ??= Buffer.allocUnsafe(this.#options.maxBytes));
    let read = 0;
    while (read < chunk.length) {
      const count = Math.min(buffer.length - this.#length, chunk.length - read);
      buffer.set(chunk.subarray(read, read + count), this.#length);
      this.#length += count;
      read += count;
      if (this.#length >= buffer.length) this.#flush(false);
    }
    if (this.#length > 0) this.#schedule();
  }

  /** Flush the complete part now; an incomplete trailing sequence stays for the next chunk. */
  flush(): void {
    this.#flush(false);
  }

  /** The stream ended: flush everything, an incomplete trailing sequence included. */
  end(): void {
    this.#flush(true);
  }

  dispose(): void {
    this.#disposed = true;
    this.#cancelSchedule();
    this.#buffer = undefined;
    this.#length = 0;
  }

  #schedule(): void {
    if (this.#immediate !== undefined || this.#timeout !== undefined) return;
    const sinceLastFlush = this.#now() - this.#lastFlushAt;
    if (sinceLastFlush >= this.#options.maxDelayMs) {
      this.#immediate = setImmediate(this.#onScheduled);
    } else {
      this.#timeout = setTimeout(this.#onScheduled, this.#options.maxDelayMs - sinceLastFlush);
    }
  }

  readonly #onScheduled = (): void => {
    this.#immediate = undefined;
    this.#timeout = undefined;
    this.#flush(false);
  };

  #cancelSchedule(): void {
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    if (this.#timeout !== undefined) clearTimeout(this.#timeout);
    this.#immediate = undefined;
    this.#timeout = undefined;
  }

  #flush(includeIncompleteTail: boolean): void {
    this.#cancelSchedule();
    const buffer = this.#buffer;
    const length = this.#length;
    if (!buffer || length === 0) return;
    const tail = includeIncompleteTail ? 0 : incompleteUtf8TailLength(buffer, length);
    const emitted = length - tail;
    if (emitted === 0) return;
    this.#lastFlushAt = this.#now();
    try {
      this.#options.onBatch(buffer.subarray(0, emitted));
    } finally {
      // Move the carried bytes to the front for the next batch.
      if (tail > 0) buffer.copyWithin(0, emitted, length);
      this.#length = tail;
    }
  }
}
