import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RefreshCoalescer } from '../../../renderer/features/history/refreshCoalescer.ts';
import type { ReplayClock } from '../../../renderer/features/history/replayScheduler.ts';

/** A clock the test moves by hand; due timers fire in order as it advances. */
class ManualClock implements ReplayClock {
  #now = 0;
  #nextId = 1;
  readonly #timers = new Map<number, { due: number; callback: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    const id = this.#nextId++;
    this.#timers.set(id, { due: this.#now + delayMs, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }

  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let next: [number, { due: number; callback: () => void }] | undefined;
      for (const entry of this.#timers) if (entry[1].due <= end && (!next || entry[1].due < next[1].due)) next = entry;
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#now = Math.max(this.#now, next[1].due);
      next[1].callback();
    }
    this.#now = end;
  }
}

function coalescer(delayMs = 300, maxWaitMs = 1_000) {
  const clock = new ManualClock();
  const refreshedAt: number[] = [];
  const subject = new RefreshCoalescer({ delayMs, maxWaitMs, clock, onRefresh: () => refreshedAt.push(clock.now()) });
  return { clock, refreshedAt, subject };
}

describe('History list refresh coalescing', () => {
  it('refreshes once, the delay after the last notice of a burst', () => {
    const { clock, refreshedAt, subject } = coalescer();
    subject.notify();
    clock.advance(50);
    subject.notify();
    subject.notify();
    clock.advance(299);
    assert.deepEqual(refreshedAt, [], 'not before the burst has been quiet for the delay');
    clock.advance(1);
    assert.deepEqual(refreshedAt, [350]);
    clock.advance(5_000);
    assert.deepEqual(refreshedAt, [350], 'once per burst');
  });

  it('still refreshes at least every max wait while notices keep coming closer than the delay', () => {
    const { clock, refreshedAt, subject } = coalescer();
    // A notice every 200 ms for 3.1 s: a purely trailing debounce would never fire in that time.
    for (let elapsed = 0; elapsed <= 3_100; elapsed += 200) {
      subject.notify();
      clock.advance(200);
    }
    assert.deepEqual(refreshedAt, [1_000, 2_000, 3_000], 'one refresh per max wait, counted from the first notice each answers');
    // The stream stops (its last notice came at 3000): one last refresh the delay after it.
    clock.advance(1_000);
    assert.deepEqual(refreshedAt, [1_000, 2_000, 3_000, 3_300]);
  });

  it('starts the max wait again after each refresh', () => {
    const { clock, refreshedAt, subject } = coalescer(300, 1_000);
    subject.notify();
    clock.advance(300);
    assert.deepEqual(refreshedAt, [300]);
    // A new burst much later gets the plain delay, not what is left of an old max wait.
    clock.advance(2_000);
    subject.notify();
    clock.advance(300);
    assert.deepEqual(refreshedAt, [300, 2_600]);
  });

  it('refreshes nothing and leaves no timer once disposed', () => {
    const { clock, refreshedAt, subject } = coalescer();
    subject.notify();
    subject.dispose();
    assert.equal(clock.pendingTimers, 0);
    subject.notify();
    clock.advance(5_000);
    assert.deepEqual(refreshedAt, []);
    assert.equal(clock.pendingTimers, 0);
  });
});
