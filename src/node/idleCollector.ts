/**
 * A full garbage collection of this thread's heap, a moment after it was asked for, once for a
 * burst of asks. For a worker thread that has just let go of much memory and may then sit idle:
 * V8 collects when a thread allocates, so an idle worker keeps its garbage for as long as it is
 * idle. Measured in the soak: the mirror worker, every terminal closed, still held 150–240 MB of
 * heap and 250–350 MB of ArrayBuffers (the closed terminals' scrollback lines); collected, 7–8 MB
 * and 10–12 MB.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { IDisposable } from '../common/lifecycle.ts';

/** The options of V8's `gc()` (its gc extension). */
interface GcOptions {
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

/**
 * V8's `gc()` for this thread. Node has no API that asks for a collection; `--expose-gc` set at
 * run time gives `gc` to the contexts created after it, so one is created for it and the flag is
 * put back at once (a process started with `--expose-gc` has `gc` already: that one is used).
 */
function gcFunction(): (options: GcOptions) => void {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as (options: GcOptions) => void;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as (options: GcOptions) => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

let threadCollector: IdleCollector | undefined;

/** This thread collects its garbage `delayMs` after it lets go of memory (see memoryReleased); a worker asks once, as it starts. */
export function collectWhenIdle(delayMs: number): void {
  threadCollector ??= new IdleCollector(delayMs);
}

/** Much memory just became garbage (a terminal's mirror, spare buffers): collected soon on a thread that asked for it, else left to V8. */
export function memoryReleased(): void {
  threadCollector?.collectSoon();
}

class IdleCollector implements IDisposable {
  readonly #delayMs: number;
  readonly #gc: (options: GcOptions) => void;
  #timer: NodeJS.Timeout | undefined;

  /** `delayMs`: how long after the last ask the collection runs. */
  constructor(delayMs: number) {
    this.#delayMs = delayMs;
    this.#gc = gcFunction();
  }

  /** Collect `delayMs` from now (a pending collection is put off to then). */
  collectSoon(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // Twice: the ArrayBuffers the first collection finds unreachable (a scrollback's lines) are
      // freed by the next one (measured: 19 MB of them left after one, none after two).
      // Measured with 40 full 10 000-line mirrors alive: 160–190 ms (a plain one: 75–85 ms), on the
      // worker's thread; once for terminals closed together.
      this.#gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    }, this.#delayMs);
    // A collection to come must not keep the thread alive.
    this.#timer.unref();
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
