/**
 * The last `capacity` bytes a terminal produced, addressed by absolute byte offsets (0 = the
 * first byte the process ever wrote). Reads name the offset they want; if that part was already
 * overwritten the read starts at the oldest byte still held and says it was truncated.
 *
 * The bytes live in fixed chunks allocated as output first reaches them, so a quiet terminal does
 * not pin the full ring, and growing never copies what is held. (It used to grow one buffer by
 * doubling: a 4 MiB ring then wrote 8 MiB of fresh memory before it was full, and on our VMs a
 * page fault on fresh memory costs ~15 µs — about 30 ms of the first flood of every terminal.)
 */
export interface RingRead {
  data: Buffer;
  startOffset: number;
  endOffset: number;
  /** The requested start had already been overwritten; `startOffset` is later than asked. */
  truncated: boolean;
}

/** Where a byte was last seen in a range, searched in place (OutputRing.lastIndexOf). */
export interface RingSearch {
  /** Absolute offset of the last occurrence, -1 when none is held in the range. */
  index: number;
  /** Where the range searched began: later than asked when the ring no longer holds its start. */
  heldFrom: number;
}

const chunkBytes = 64 * 1024;

export class OutputRing {
  readonly capacity: number;
  /** chunk i holds ring positions [i * chunkBytes, (i + 1) * chunkBytes); allocated on first write. */
  readonly #chunks: (Buffer | undefined)[];
  /** Total bytes ever written: the absolute offset of the next byte. */
  #end = 0;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`invalid ring capacity ${capacity}`);
    this.capacity = capacity;
    this.#chunks = new Array<Buffer | undefined>(Math.ceil(capacity / chunkBytes));
  }

  /** Absolute offset just after the newest byte. */
  get endOffset(): number {
    return this.#end;
  }

  /** Absolute offset of the oldest byte still held. */
  get startOffset(): number {
    return this.#end - Math.min(this.#end, this.capacity);
  }

  write(bytes: Uint8Array): void {
    const length = bytes.length;
    if (length === 0) return;
    // Only the last `capacity` bytes of an oversized write can survive.
    const skipped = Math.max(0, length - this.capacity);
    let position = (this.#end + skipped) % this.capacity;
    for (let read = skipped; read < length; ) {
      const index = Math.floor(position / chunkBytes);
      const within = position - index * chunkBytes;
      const chunk = (this.#chunks[index] ??= Buffer.allocUnsafe(Math.min(chunkBytes, this.capacity - index * chunkBytes)));
      const count = Math.min(chunk.length - within, length - read);
      chunk.set(bytes.subarray(read, read + count), within);
      read += count;
      position = (position + count) % this.capacity;
    }
    this.#end += length;
  }

  /** `into`: copy into this buffer (its first bytes) rather than a new one, when it is long enough. */
  read(fromOffset: number, maxBytes: number = this.capacity, into?: Buffer): RingRead {
    if (!Number.isSafeInteger(fromOffset) || fromOffset < 0) throw new RangeError(`invalid ring offset ${fromOffset}`);
    if (!(maxBytes >= 0)) throw new RangeError(`invalid maxBytes ${maxBytes}`);
    const oldest = this.startOffset;
    const truncated = fromOffset < oldest;
    const start = Math.min(Math.max(fromOffset, oldest), this.#end);
    const end = Math.min(this.#end, start + Math.floor(maxBytes));
    const length = end - start;
    const data = into && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
    let position = start % this.capacity;
    for (let written = 0; written < length; ) {
      const index = Math.floor(position / chunkBytes);
      const within = position - index * chunkBytes;
      // Every position between the oldest byte and the end has been written, so its chunk exists.
      const chunk = this.#chunks[index]!;
      const count = Math.min(chunk.length - within, length - written);
      chunk.copy(data, written, within, within + count);
      written += count;
      position = (position + count) % this.capacity;
    }
    return { data, startOffset: start, endOffset: end, truncated };
  }

  /**
   * The last `byte` in [fromOffset, toOffset), searched where it lies: looking back through output
   * for an escape sequence's start copies nothing (a copy per look was a fresh 256 KiB Buffer for
   * every plain-text `readLog`, and those made V8 collect the Hub's whole heap several times a second).
   */
  lastIndexOf(byte: number, fromOffset: number, toOffset: number): RingSearch {
    const heldFrom = Math.min(Math.max(fromOffset, this.startOffset), this.#end);
    let end = Math.min(Math.max(toOffset, heldFrom), this.#end);
    while (end > heldFrom) {
      const position = (end - 1) % this.capacity;
      const index = Math.floor(position / chunkBytes);
      const within = position - index * chunkBytes;
      // This chunk's bytes in the range: back to its first byte or the range's start.
      const count = Math.min(within + 1, end - heldFrom);
      const found = this.#chunks[index]!.subarray(within + 1 - count, within + 1).lastIndexOf(byte);
      if (found !== -1) return { index: end - count + found, heldFrom };
      end -= count;
    }
    return { index: -1, heldFrom };
  }
}
