/**
 * A scavenge (V8's collection of the young generation only) after every `releaseEveryBytes` that a
 * byte-moving path carried through Buffers it lets go of at once: the preview tunnel's bodies, on
 * the app's side and on the relay's.
 *
 * Why: Node puts every socket read, and every Buffer of 4 KiB or more, outside V8's heap, in an
 * ArrayBuffer freed only when V8 sweeps the small object that owns it — a young one at the next
 * scavenge. Scavenges come when the young generation is full of JS objects, and a path that moves
 * many bytes per object it makes (a proxy) fills it slowly (V8 grows it up to 64 MB in Node), so the dead Buffers
 * pile up outside the heap until V8, counting them against its limit, marks and compacts the whole
 * heap instead. In the preview-tunnel bench (docs/benchmarks.md) that was ~5 full collections per
 * 50 MiB download on each side, ~a third of each side's CPU; a scavenge takes 0.2–2 ms, since few
 * young objects are alive, and frees all of them.
 *
 * The interval sits between two bounds, measured there (a 50 MiB download; the app's side holds
 * two Buffers per body byte for a moment: the dev server's read and the frame):
 * - longer than a body Buffer lives: a stream holds at most its window and its buffer (1 MiB each,
 *   RelayConstants) and one read in flight. A Buffer alive at two scavenges is moved to the old
 *   generation, where only a full collection frees it — every 4 MiB: 47 full collections in 14
 *   downloads;
 * - shorter than what V8 lets pile up before it starts a full collection — every 16 MiB on the
 *   app's side: about as many as with none (76 in 14 downloads).
 * Every 8 MiB: 2 full collections in 14 downloads in most runs (in some V8 still falls into a
 * collection every ~10 MB for a while: 37–66); GC 0.7–1.2 s → 0.12 s on the app's side and 0.94 →
 * 0.15 s on the relay's; the download 150–190 → 260–330 MB/s (docs/benchmarks.md).
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
