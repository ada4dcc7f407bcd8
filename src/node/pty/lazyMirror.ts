/**
 * Sits in front of a terminal's mirror and lets output wait a little before it goes there, so
 * that a flood (`cat` of a big log) is not parsed line by line only to scroll out of the
 * scrollback: while output streams in it piles up here (up to a few MB), and a pile that is
 * one plain flood loses every line that could only scroll away (floodSkip.ts). What remains goes
 * to the mirror once output is quiet for quietMs, or before a resize, a snapshot or a read — so
 * every answer the mirror gives still covers everything written before it, exactly.
 *
 * Skipped output counts as parsed for flow control. A skip only ever starts from a state the
 * mirror vouches for (skipSafe: it has parsed everything and sits between sequences), so only a
 * flood at the very start of the pile is cut; output before a flood goes to the mirror first.
 * In the worker, this runs beside the Hub's thread (mirrorWorker.ts); inline, in front of it.
 */
import { collectSoon } from '../idleCollector.ts';
import { findFloodRun } from './floodSkip.ts';
import { type ITerminalMirror, type MirrorSnapshot, type ScreenText, TerminalMirror, type TerminalMirrorOptions } from './terminalMirror.ts';

/**
 * Output may wait until this much has piled up — or, while the mirror is still parsing what it
 * got (so a flood cannot be skipped yet), twice as much. Both stay below the mirror's
 * flow-control high watermark (chars ≤ bytes), so waiting here never pauses the PTY by itself.
 */
export const defaultPileBytes = 4 * 1024 * 1024;
/**
 * Output waits at most this long after the last write before the mirror gets it (default; a
 * mirror fed through the worker channel waits longer, see mirrorWorker.ts).
 */
export const quietMs = 25;

/**
 * Flood-sized piles, reused: a fresh multi-MB buffer per pile costs a page fault per 4 KiB
 * (measured: in a 50 MB flood the mirror worker spent more time in malloc's page faults and in
 * copying growing piles than in parsing). Shared by the mirrors of a thread; a pile comes back
 * once the mirror has parsed it, and spare ones are let go when floods stop.
 */
class PilePool {
  static readonly #pools = new Map<number, PilePool>();
  static of(size: number): PilePool {
    let pool = PilePool.#pools.get(size);
    if (!pool) PilePool.#pools.set(size, (pool = new PilePool(size)));
    return pool;
  }

  readonly size: number;
  readonly #spare: Buffer[] = [];
  #releaseTimer: NodeJS.Timeout | undefined;

  private constructor(size: number) {
    this.size = size;
  }

  take(): Buffer {
    return this.#spare.pop() ?? Buffer.allocUnsafe(this.size);
  }

  give(pile: Buffer): void {
    if (pile.length !== this.size || this.#spare.length >= spareFloodPiles) return;
    this.#spare.push(pile);
    clearTimeout(this.#releaseTimer);
    this.#releaseTimer = setTimeout(() => {
      this.#spare.length = 0;
      collectSoon();
    }, spareFloodPilesKeptMs);
    this.#releaseTimer.unref();
  }
}
/** Spare flood piles kept per size (a flood has at most one pile filling and one or two parsing). */
const spareFloodPiles = 3;
const spareFloodPilesKeptMs = 2_000;
/** Piles start small (a prompt, a keystroke's echo) and double; past this they are flood-sized at once. */
const smallPileBytes = 256 * 1024;

/** A mirror in this thread: a TerminalMirror behind a LazyMirror. */
export function createLocalMirror(options: TerminalMirrorOptions & { quietMs?: number }): LazyMirror {
  return new LazyMirror(new TerminalMirror(options), options);
}

export interface LazyMirrorOptions {
  rows: number;
  scrollback: number;
  /** How much output may wait (default defaultPileBytes); smaller in tests. */
  pileBytes?: number;
  /** How long output must pause before what waits goes to the mirror (default quietMs). */
  quietMs?: number;
  /** The mirror's flow-control callback: skipped output is reported here as parsed. */
  onParsed?: ((chars: number) => void) | undefined;
}

export class LazyMirror implements ITerminalMirror {
  readonly #inner: TerminalMirror;
  readonly #onParsed: ((chars: number) => void) | undefined;
  readonly #scrollback: number;
  readonly #pileBytes: number;
  readonly #quietMs: number;
  readonly #hardPileBytes: number;
  readonly #floodPiles: PilePool;
  /** A skip smaller than this is not worth the copying. */
  readonly #minSkipBytes: number;
  /** Below this much waiting output, parsing it is cheaper than looking for a flood in it. */
  readonly #minDrainScanBytes: number;
  #rows: number;
  /** Waiting output: the first #pileLength bytes of #pile (small ones double; a flood's is a pooled full-size one). */
  #pile: Buffer | undefined;
  #pileLength = 0;
  #pileChars = 0;
  #quietTimer: NodeJS.Timeout | undefined;
  #skippedBytes = 0;
  #disposed = false;

  constructor(inner: TerminalMirror, options: LazyMirrorOptions) {
    this.#inner = inner;
    this.#rows = options.rows;
    this.#scrollback = options.scrollback;
    this.#pileBytes = options.pileBytes ?? defaultPileBytes;
    this.#quietMs = options.quietMs ?? quietMs;
    this.#hardPileBytes = 2 * this.#pileBytes;
    this.#floodPiles = PilePool.of(this.#hardPileBytes);
    this.#minSkipBytes = this.#pileBytes / 64;
    this.#minDrainScanBytes = this.#pileBytes / 8;
    this.#onParsed = options.onParsed;
  }

  /** Bytes of flood output that never reached the mirror because they could only scroll away. */
  get skippedBytes(): number {
    return this.#skippedBytes;
  }

  write(bytes: Uint8Array, chars: number): void {
    if (this.#disposed || bytes.length === 0) return;
    if (this.#pileLength + bytes.length > this.#pileBytes) this.#makeRoom(bytes.length);
    if (bytes.length > this.#pileBytes) {
      this.#flush();
      this.#inner.write(bytes, chars);
      return;
    }
    this.#reserve(this.#pileLength + bytes.length).set(bytes, this.#pileLength);
    this.#pileLength += bytes.length;
    this.#pileChars += chars;
    this.#restartQuietTimer();
  }

  resize(cols: number, rows: number): void {
    this.#drain();
    this.#rows = rows;
    this.#inner.resize(cols, rows);
  }

  snapshot(options?: { scrollback?: number }): Promise<MirrorSnapshot> {
    this.#drain();
    return this.#inner.snapshot(options);
  }

  readText(options?: { scrollback?: boolean }): Promise<ScreenText> {
    this.#drain();
    return this.#inner.readText(options);
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#quietTimer);
    if (this.#pile) this.#floodPiles.give(this.#pile);
    this.#pile = undefined;
    this.#pileLength = 0;
    this.#pileChars = 0;
    this.#inner.dispose();
  }

  /** The pile with room for `length` bytes (at most #hardPileBytes). */
  #reserve(length: number): Buffer {
    const pile = this.#pile;
    if (pile && pile.length >= length) return pile;
    let grown: Buffer;
    if (length > Math.min(smallPileBytes, this.#hardPileBytes / 4)) {
      grown = this.#floodPiles.take();
    } else {
      let capacity = Math.max(64 * 1024, pile?.length ?? 0);
      while (capacity < length) capacity *= 2;
      grown = Buffer.allocUnsafe(Math.min(capacity, this.#hardPileBytes));
    }
    if (pile) {
      grown.set(pile.subarray(0, this.#pileLength));
      this.#floodPiles.give(pile);
    }
    this.#pile = grown;
    return grown;
  }

  /** The pile is full: skip a flood in it if the mirror allows, else let it grow while the mirror is busy, else hand it over. */
  #makeRoom(incoming: number): void {
    if (this.#inner.skipSafe) this.#skipFlood();
    const needed = this.#pileLength + incoming;
    if (needed <= this.#pileBytes) return;
    // Still parsing what it got: wait for it rather than give up the flood.
    if (!this.#inner.skipSafe && needed <= this.#hardPileBytes) return;
    this.#flush();
  }

  /**
   * Cut the first flood in the pile down to the lines that stay visible. A flood that does not
   * start the pile cannot be cut yet (the mirror's state at its start is not known): what comes
   * before it goes to the mirror now, and the flood waits for the next try.
   */
  #skipFlood(): void {
    const pile = this.#pile;
    if (!pile) return;
    // Rows twice over: the skipped part may have left rows above the cursor; +2 for margin.
    const keepLineFeeds = 2 * this.#rows + this.#scrollback + 2;
    const run = findFloodRun(pile.subarray(0, this.#pileLength), keepLineFeeds, this.#minSkipBytes);
    if (!run) return;
    if (run.start > 0) {
      // The mirror gets the part before the flood; its chars stay with the pile (acknowledged
      // when the flood is skipped or parsed), so they need not be counted here.
      this.#inner.writeOwnedBytes(Uint8Array.prototype.slice.call(pile, 0, run.start), 0);
      pile.copyWithin(0, run.start, this.#pileLength);
      this.#pileLength -= run.start;
      return;
    }
    // Everything before the cut is plain (valid UTF-8), so its length in chars is exact.
    const skippedChars = run.cutChars - run.replay.length;
    // The replay is made of bytes from before the cut, so it fits in front of what is kept.
    pile.copyWithin(run.replay.length, run.cut, this.#pileLength);
    pile.set(run.replay, 0);
    this.#pileLength = run.replay.length + this.#pileLength - run.cut;
    this.#pileChars -= skippedChars;
    this.#skippedBytes += run.cut - run.replay.length;
    this.#onParsed?.(skippedChars);
  }

  /** Everything waiting goes to the mirror, less the lines of a flood in it that only scroll past. */
  #drain(): void {
    if (this.#pileLength >= this.#minDrainScanBytes && this.#inner.skipSafe) this.#skipFlood();
    this.#flush();
  }

  /** Hand everything waiting to the mirror (the pile goes with it; a new one is made when needed). */
  #flush(): void {
    clearTimeout(this.#quietTimer);
    this.#quietTimer = undefined;
    const pile = this.#pile;
    if (!pile || this.#pileLength === 0) return;
    const waiting = pile.subarray(0, this.#pileLength);
    const chars = this.#pileChars;
    this.#pile = undefined;
    this.#pileLength = 0;
    this.#pileChars = 0;
    const pool = this.#floodPiles;
    this.#inner.writeOwnedBytes(waiting, chars, pile.length === pool.size ? () => pool.give(pile) : undefined);
  }

  #restartQuietTimer(): void {
    clearTimeout(this.#quietTimer);
    this.#quietTimer = setTimeout(() => this.#drain(), this.#quietMs);
    // Waiting output must not keep the process alive.
    this.#quietTimer.unref();
  }
}
