/**
 * A full garbage collection of this thread's heap a moment after a burst — terminals opened or
 * closed together — once for the whole burst. V8 collects when a thread allocates and gives
 * memory back to the system only under pressure, so what a burst leaves behind stays resident
 * for as long as the thread is quiet:
 * - the mirror worker, every terminal closed, still held 150–240 MB of heap and 250–350 MB of
 *   ArrayBuffers (the closed terminals' scrollback lines) in the soak; collected, 7–8 MB and 10–12 MB;
 * - the Hub's thread keeps the young generation a burst grew, and the pages freed by it pooled:
 *   forty shells started at once added 0.62 MB of RSS per terminal, still there 30 s later with
 *   every terminal idle; one collection (~70 ms) gave back 33 MB (docs/benchmarks.md, forty agents).
 * A thread opts in with collectWhenIdle; code anywhere reports a burst with collectSoon, which is
 * a no-op on a thread that did not.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The options of V8's `gc()` (its gc extension). */
export type GcOptions =
  | {
      type: 'major';
      execution: 'sync';
      /**
       * 'last-resort': collect until nothing more is freed, then hand V8's pooled pages back to the
       * system. A plain collection left a scrollback's ArrayBuffers for the next one (19 MB of them
       * after one, none after two) and the freed pages pooled: in the soak 1 860 pages of 256 KiB
       * (460 MB resident) before, 830 after.
       */
      flavor: 'last-resort';
    }
  /** A scavenge: the young generation only (youngBufferRelease.ts). */
  | { type: 'minor'; execution: 'sync' };

let threadGc: ((options: GcOptions) => void) | null | undefined;

/**
 * V8's `gc()` for this thread, found once (null where it cannot be had). Node has no API that asks
 * for a collection; `--expose-gc` set at run time gives `gc` to the contexts created after it, so
 * one is created for it and the flag is put back at once (a process started with `--expose-gc` has
 * `gc` already: that one is used). Node and Electron leave V8's flags writable after start
 * (`--no-freeze-flags-after-init`); where that fails, nothing is collected and V8 is left to itself.
 */
export function v8Gc(): ((options: GcOptions) => void) | null {
  if (threadGc !== undefined) return threadGc;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return (threadGc = exposed as (options: GcOptions) => void);
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    threadGc = typeof gc === 'function' ? (gc as (options: GcOptions) => void) : null;
  } catch {
    threadGc = null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return threadGc;
}

let threadCollector: IdleCollector | undefined;

/** This thread collects its garbage `delayMs` after the last collectSoon (asked once, as the thread's owner starts: the mirror worker, the Hub). */
export function collectWhenIdle(delayMs: number): void {
  threadCollector ??= new IdleCollector(delayMs);
}

/** A burst just ended or left much garbage (a terminal opened or closed, spare buffers let go): collect soon, where this thread asked for it. */
export function collectSoon(): void {
  threadCollector?.collectSoon();
}

/**
 * Someone is using the thread's owner (typing, a client's request): a collection due soon waits
 * until `delayMs` after this. It stops the thread for its length (the Hub's: ~70 ms with forty
 * terminals, ~120 ms after the hostile burst's 64), which an echo or an answer should not wait
 * behind; so it runs once the Hub is quiet.
 */
export function postponeCollection(): void {
  threadCollector?.postpone();
}

class IdleCollector {
  readonly #delayMs: number;
  readonly #gc: ((options: GcOptions) => void) | null;
  #timer: NodeJS.Timeout | undefined;

  constructor(delayMs: number) {
    this.#delayMs = delayMs;
    this.#gc = v8Gc();
  }

  /** Collect `delayMs` from now (a pending collection is put off to then). */
  collectSoon(): void {
    if (!this.#gc) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#collect(), this.#delayMs);
    // A collection to come must not keep the thread alive; it is the thread's for its life, so
    // nothing disposes of it.
    this.#timer.unref();
  }

  /** A collection to come waits `delayMs` more (nothing happens when none is due). */
  postpone(): void {
    if (this.#timer) this.#timer.refresh();
  }

  #collect(): void {
    this.#timer = undefined;
    this.#gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  }
}
