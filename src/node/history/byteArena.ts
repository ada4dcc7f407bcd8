/**
 * Copies of short-lived bytes, carved out of reusable slabs.
 *
 * The recorder must copy every batch of output (the pipeline reuses its view), and keeps the
 * copies only until the next transaction has stored them. A fresh Buffer per batch cost a recorded
 * flood more than the copying itself: ~800 mallocs and frees per 50 MB, page faults on fresh memory
 * on the Hub's thread, and V8's ArrayBuffer sweeper freeing them on a helper thread (perf: about a
 * third of what recording added to a flood). Slabs are faulted in once and reused after `reset()`.
 *
 * The owner promises that no copy handed out before `reset()` is used after it.
 */
export class ByteArena {
  readonly #slabBytes: number;
  readonly #maxSpareSlabs: number;
  /** Slabs holding copies since the last reset; the last one is being filled. */
  #inUse: Buffer[] = [];
  #spare: Buffer[] = [];
  /** Bytes used of the last slab in use. */
  #used = 0;

  constructor(options: { slabBytes: number; maxSpareSlabs: number }) {
    this.#slabBytes = options.slabBytes;
    this.#maxSpareSlabs = options.maxSpareSlabs;
  }

  /** Bytes held by the arena (slabs in use and spare). */
  get retainedBytes(): number {
    return (this.#inUse.length + this.#spare.length) * this.#slabBytes;
  }

  /** A copy of `bytes`, valid until the next reset(). */
  copy(bytes: Uint8Array): Buffer {
    const target = this.#take(bytes.byteLength);
    target.set(bytes);
    return target;
  }

  /** The pieces one after the other (`totalBytes` is their summed length), valid until the next reset(). */
  concat(pieces: readonly Uint8Array[], totalBytes: number): Buffer {
    const target = this.#take(totalBytes);
    let offset = 0;
    for (const piece of pieces) {
      target.set(piece, offset);
      offset += piece.byteLength;
    }
    return target;
  }

  /**
   * Every copy handed out is dead: their slabs are reused. Spares are what the last cycle that
   * copied anything needed (so a flood's slabs are let go once output is small again).
   */
  reset(): void {
    if (this.#inUse.length === 0) return;
    this.#spare = this.#inUse.slice(0, this.#maxSpareSlabs);
    this.#inUse = [];
    this.#used = 0;
  }

  #take(length: number): Buffer {
    // Bigger than a slab: its own buffer (not reused).
    if (length > this.#slabBytes) return Buffer.allocUnsafeSlow(length);
    let slab = this.#inUse.at(-1);
    if (!slab || this.#used + length > slab.length) {
      slab = this.#spare.pop() ?? Buffer.allocUnsafeSlow(this.#slabBytes);
      this.#inUse.push(slab);
      this.#used = 0;
    }
    const view = slab.subarray(this.#used, this.#used + length);
    this.#used += length;
    return view;
  }
}
