/**
 * The last `capacity` bytes a terminal produced, addressed by absolute byte offsets (0 = the
 * first byte the process ever wrote). Reads name the offset they want; if that part was already
 * overwritten the read starts at the oldest byte still held and says it was truncated.
 *
 * Memory grows by doubling up to the capacity, so a quiet terminal does not pin the full ring.
 */
export interface RingRead {
  data: Buffer;
  startOffset: number;
  endOffset: number;
  /** The requested start had already been overwritten; `startOffset` is later than asked. */
  truncated: boolean;
}

const initialAllocation = 64 * 1024;

export class OutputRing {
  readonly capacity: number;
  #buffer: Buffer = Buffer.alloc(0);
  /** Total bytes ever written: the absolute offset of the next byte. */
  #end = 0;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`invalid ring capacity ${capacity}`);
    this.capacity = capacity;
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
    if (this.#buffer.length < this.capacity) this.#grow(this.#end + length);
    const buffer = this.#buffer;
    if (buffer.length < this.capacity) {
      // Not wrapped yet (the buffer grew to fit): plain append.
      buffer.set(bytes, this.#end);
      this.#end += length;
      return;
    }
    // Only the last `capacity` bytes of an oversized write can survive.
    const source = length > this.capacity ? bytes.subarray(length - this.capacity) : bytes;
    const skipped = length - source.length;
    const position = (this.#end + skipped) % this.capacity;
    const firstPart = Math.min(source.length, this.capacity - position);
    buffer.set(source.subarray(0, firstPart), position);
    if (firstPart < source.length) buffer.set(source.subarray(firstPart), 0);
    this.#end += length;
  }

  read(fromOffset: number, maxBytes: number = this.capacity): RingRead {
    if (!Number.isSafeInteger(fromOffset) || fromOffset < 0) throw new RangeError(`invalid ring offset ${fromOffset}`);
    if (!(maxBytes >= 0)) throw new RangeError(`invalid maxBytes ${maxBytes}`);
    const oldest = this.startOffset;
    const truncated = fromOffset < oldest;
    const start = Math.min(Math.max(fromOffset, oldest), this.#end);
    const end = Math.min(this.#end, start + Math.floor(maxBytes));
    const length = end - start;
    const data = Buffer.allocUnsafe(length);
    if (length > 0) {
      const buffer = this.#buffer;
      if (buffer.length < this.capacity) {
        buffer.copy(data, 0, start, end);
      } else {
        const position = start % this.capacity;
        const firstPart = Math.min(length, this.capacity - position);
        buffer.copy(data, 0, position, position + firstPart);
        if (firstPart < length) buffer.copy(data, firstPart, 0, length - firstPart);
      }
    }
    return { data, startOffset: start, endOffset: end, truncated };
  }

  #grow(needed: number): void {
    let size = Math.max(this.#buffer.length, Math.min(initialAllocation, this.capacity));
    while (size < needed && size < this.capacity) size *= 2;
    size = Math.min(size, this.capacity);
    if (size === this.#buffer.length) return;
    const next = Buffer.allocUnsafe(size);
    this.#buffer.copy(next, 0, 0, this.#end);
    this.#buffer = next;
  }
}
