/**
 * Turns a stream of "something changed" notices into list refreshes: one refresh `delayMs` after
 * the last notice of a burst (a terminal closing sends a few at once), but never later than
 * `maxWaitMs` after the first notice still unanswered. Without that cap, notices arriving steadily
 * less than `delayMs` apart (an agent opening a terminal every 200 ms) would put the refresh off
 * for as long as they keep coming. The clock is injected so the timing is unit-tested without waiting.
 */
import type { IDisposable } from '../../../src/common/lifecycle.ts';
import { realClock, type ReplayClock } from './replayScheduler.ts';

export interface RefreshCoalescerOptions {
  /** Quiet time after the last notice before refreshing. */
  delayMs: number;
  /** Longest time from the first pending notice to its refresh, however many notices follow. */
  maxWaitMs: number;
  onRefresh(): void;
  clock?: ReplayClock;
}

export class RefreshCoalescer implements IDisposable {
  readonly #options: RefreshCoalescerOptions;
  readonly #clock: ReplayClock;
  #timer: unknown = undefined;
  /** When the first notice not yet answered by a refresh arrived; undefined when none is pending. */
  #pendingSince: number | undefined;
  #disposed = false;

  constructor(options: RefreshCoalescerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
  }

  notify(): void {
    if (this.#disposed) return;
    const now = this.#clock.now();
    this.#pendingSince ??= now;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    const due = Math.min(now + this.#options.delayMs, this.#pendingSince + this.#options.maxWaitMs);
    this.#timer = this.#clock.setTimeout(() => this.#refresh(), Math.max(0, due - now));
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #refresh(): void {
    this.#timer = undefined;
    this.#pendingSince = undefined;
    if (!this.#disposed) this.#options.onRefresh();
  }
}
