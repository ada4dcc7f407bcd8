/**
 * A scavenge (V8's collection of the young generation only) after every `releaseEveryBytes` that a
 * byte-moving path carried through Buffers it lets go of at once: the preview tunnel's bodies, on
 * the app's side and on the relay's.
 *
 * Why: Node puts every socket read, and every Buffer of 4 KiB or more, outside V8's heap, in an
 * ArrayBuffer freed only when V8 sweeps the small object that owns it — a young one at the next
 * scavenge. Scavenges come when the young generation is full of JS objects, and a path that moves
 * many bytes per object it makes (a proxy) fills it slowly (V8 grows it up to 64 MB in Node), so
 * the dead Buffers pile up outside the heap until V8, counting them against its limit, marks and
 * compacts the whole heap instead. In the preview-tunnel bench (docs/benchmarks.md) that was ~5
 * full collections per 50 MiB download on each side, ~a third of each side's CPU; a scavenge takes
 * 0.2–2 ms, since few young objects are alive, and frees all of them.
 *
 * The interval must be longer than a body Buffer lives — a stream holds at most its window and its
 * buffer (1 MiB each, RelayConstants) and a read in flight; a Buffer alive at two scavenges is
 * moved to the old generation, where only a full collection frees it — and short enough that V8
 * does not start a full collection first. Measured with both sides at the same interval, 14
 * downloads per run, four runs each: full collections in the app's side 2/6/2/2 at 4 MiB, 2/2/2/22
 * at 6, 2/3/2/2 at 8 (the same download rate, 270–300 MB/s median), against 76 with none; at 16 MiB
 * on the app's side the rate was that of none. 8 MiB: the fewest scavenges that hold. In about one
 * run of four V8 still falls into a stretch of full collections every ~10 MB for a while.
 * Many streams at once hold more in flight than the interval; then some Buffers are promoted and
 * collected the old way, at the cost of a scavenge per 8 MiB more than before.
 */
import { v8Gc } from './idleCollector.ts';

/** Bytes moved between two scavenges (see the header for why this many). */
export const releaseEveryBytes = 8 * 1024 * 1024;

let movedSinceRelease = 0;

/**
 * `bytes` just passed through Buffers that are dropped once sent on: count them, and scavenge this
 * thread's young generation once `releaseEveryBytes` have (a no-op where V8's gc cannot be had).
 */
export function movedThroughBuffers(bytes: number): void {
  movedSinceRelease += bytes;
  if (movedSinceRelease < releaseEveryBytes) return;
  movedSinceRelease = 0;
  v8Gc()?.({ type: 'minor', execution: 'sync' });
}
