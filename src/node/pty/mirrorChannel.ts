/**
 * Carries terminal output from the Hub's thread to the mirror worker through one shared ring
 * buffer, in messages of up to batchMaxBytes (or mirrorBatchDelayMs after the first byte) that only
 * say where the bytes are.
 *
 * Why not transfer a buffer per write: every transferred buffer is fresh memory on one thread
 * and freed on the other, and on the VMs we run on a page fault on fresh memory costs more than
 * the copy itself — under a flood, that doubled the Hub thread's work. The ring is faulted in
 * once and reused. When it is full (the worker is far behind), output goes as a transferred copy
 * instead: slower, never lost, and still in order (messages are handled in the order posted).
 *
 * Single writer (this thread), single reader (the worker): the worker publishes how far it has
 * read in `readPosition` (Atomics); positions stay below the ring's size.
 */
import type { MirrorRequest } from './mirrorProtocol.ts';

/** What the worker needs to read the ring (passed as workerData). */
export interface MirrorRing {
  /** The ring's bytes. */
  bytes: SharedArrayBuffer;
  /** One Int32: the position just after the last byte the worker has read. */
  readPosition: SharedArrayBuffer;
}

export const mirrorRingBytes = 8 * 1024 * 1024;
const batchMaxBytes = 2 * 1024 * 1024;
/** A batch is posted at most this long after its first byte (so a steady stream arrives in steps this far apart). */
export const mirrorBatchDelayMs = 50;

interface Batch {
  mirrorId: number;
  start: number;
  length: number;
  chars: number;
}

export class MirrorChannel {
  readonly ring: MirrorRing;
  readonly #bytes: Uint8Array;
  readonly #readPosition: Int32Array;
  readonly #post: (request: MirrorRequest, transfer?: ArrayBuffer[]) => void;
  /** Where the next byte goes. */
  #writePosition = 0;
  /** Bytes written to the ring and not posted yet (one mirror's, contiguous). */
  #batch: Batch | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(post: (request: MirrorRequest, transfer?: ArrayBuffer[]) => void, size = mirrorRingBytes) {
    this.ring = { bytes: new SharedArrayBuffer(size), readPosition: new SharedArrayBuffer(4) };
    this.#bytes = new Uint8Array(this.ring.bytes);
    this.#readPosition = new Int32Array(this.ring.readPosition);
    this.#post = post;
  }

  /** Send `bytes` (valid only during the call) to mirror `mirrorId`. */
  write(mirrorId: number, bytes: Uint8Array, chars: number): void {
    if (this.#batch && (this.#batch.mirrorId !== mirrorId || this.#batch.length + bytes.length > batchMaxBytes)) this.flush();
    const start = this.#reserve(bytes.length);
    if (start === null) {
      // The worker is far behind: the ring has no room. A copy keeps the order all the same.
      this.flush();
      const copy = new Uint8Array(bytes);
      this.#post({ type: 'writeCopy', mirrorId, bytes: copy, chars }, [copy.buffer]);
      return;
    }
    this.#bytes.set(bytes, start);
    this.#writePosition = start + bytes.length;
    if (this.#batch) {
      this.#batch.length += bytes.length;
      this.#batch.chars += chars;
    } else {
      this.#batch = { mirrorId, start, length: bytes.length, chars };
      this.#timer = setTimeout(() => this.flush(), mirrorBatchDelayMs);
    }
  }

  /** Post what was written and not posted yet; call before any other message, to keep the order. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#batch;
    if (!batch) return;
    this.#batch = undefined;
    this.#post({ type: 'write', ...batch });
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#batch = undefined;
  }

  /**
   * Where `length` bytes can go, contiguous, without touching what the worker has not read (one
   * byte stays free so that equal positions mean "empty"), or null. A batch is contiguous, so a
   * wrap to the ring's start posts the open batch first.
   */
  #reserve(length: number): number | null {
    const size = this.#bytes.length;
    const read = Atomics.load(this.#readPosition, 0);
    const write = this.#writePosition;
    if (write >= read) {
      if (write + length < size) return write;
      if (length < read) {
        this.flush();
        return 0;
      }
      return null;
    }
    return write + length < read ? write : null;
  }
}

/** The worker's side: the bytes of a 'write' message, and marking them read once used. */
export class MirrorRingReader {
  readonly #bytes: Uint8Array;
  readonly #readPosition: Int32Array;

  constructor(ring: MirrorRing) {
    this.#bytes = new Uint8Array(ring.bytes);
    this.#readPosition = new Int32Array(ring.readPosition);
  }

  /** The bytes at [start, start + length); valid until release(). */
  view(start: number, length: number): Uint8Array {
    return this.#bytes.subarray(start, start + length);
  }

  /** The bytes up to `end` are no longer needed; the writer may reuse them. */
  release(end: number): void {
    Atomics.store(this.#readPosition, 0, end);
  }
}
