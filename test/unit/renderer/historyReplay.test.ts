import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReplayScheduler, type ReplayClock, type ReplaySink } from '../../../renderer/features/history/replayScheduler.ts';
import { ReplayTimeline, commandMarks } from '../../../renderer/features/history/replayTimeline.ts';

/** A clock the test moves by hand; timers fire in due order when it advances. */
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

/** Records what the player did to the screen: the event indexes applied since the last reset. */
class RecordingSink implements ReplaySink {
  shown: number[] = [];
  resets = 0;
  reset(): void {
    this.resets++;
    this.shown = [];
  }
  apply(from: number, to: number): void {
    for (let index = from; index < to; index++) this.shown.push(index);
  }
}

function player(times: number[], idleCapMs: number | null = null) {
  const clock = new ManualClock();
  const sink = new RecordingSink();
  const scheduler = new ReplayScheduler({ timeline: new ReplayTimeline(times, idleCapMs), sink, clock });
  return { clock, sink, scheduler };
}

describe('replay timeline', () => {
  it('keeps real time without skip idle and caps every gap with it', () => {
    const real = new ReplayTimeline([0, 100, 5_100, 5_200], null);
    assert.equal(real.duration, 5_200);
    const capped = new ReplayTimeline([0, 100, 5_100, 5_200], 500);
    assert.equal(capped.duration, 100 + 500 + 100);
    assert.deepEqual([0, 1, 2, 3].map((index) => capped.playTimeOf(index)), [0, 100, 600, 700]);
  });

  it('caps the pause before the first output too', () => {
    const capped = new ReplayTimeline([3_000, 3_010], 500);
    assert.equal(capped.playTimeOf(0), 500);
    assert.equal(capped.duration, 510);
  });

  it('counts the events due at a play time, including those exactly at it', () => {
    const timeline = new ReplayTimeline([0, 10, 10, 20], null);
    assert.equal(timeline.countAt(-1), 0);
    assert.equal(timeline.countAt(0), 1);
    assert.equal(timeline.countAt(9.9), 1);
    assert.equal(timeline.countAt(10), 3);
    assert.equal(timeline.countAt(1_000), 4);
  });

  it('maps session time to play time and back, landing inside a capped gap at its cap', () => {
    const timeline = new ReplayTimeline([0, 400, 60_400], 500);
    assert.equal(timeline.toPlayTime(300), 300, 'gaps under the cap keep real time');
    assert.equal(timeline.toPlayTime(600), 400 + 200);
    assert.equal(timeline.toPlayTime(30_000), 900, 'a moment deep in an idle minute shows at the end of the cap');
    assert.equal(timeline.toPlayTime(60_400), 900);
    assert.equal(timeline.toSessionTime(600), 600);
    assert.equal(timeline.toSessionTime(900), 60_400);
  });

  it('does not let an out-of-order time run the clock backwards', () => {
    const timeline = new ReplayTimeline([0, 50, 40, 60], null);
    assert.deepEqual([0, 1, 2, 3].map((index) => timeline.playTimeOf(index)), [0, 50, 50, 60]);
  });

  it('places command marks by byte offset when it knows offsets, else by clock, coloured by exit code', () => {
    const started = 1_700_000_000_000;
    const byOffset = new ReplayTimeline([0, 1_000, 2_000, 4_000], null, [0, 10, 30, 70]);
    const marks = commandMarks(
      [
        { id: 2, commandLine: 'false', exitCode: 1, startedAt: started + 1_900, endedAt: started + 2_100, startOffset: 40 },
        { id: 1, commandLine: 'echo hi', exitCode: 0, startedAt: started + 900, endedAt: started + 1_000, startOffset: 10 },
        { id: 3, commandLine: 'sleep 9', exitCode: null, startedAt: started + 3_000, endedAt: null, startOffset: 70 },
      ],
      started,
      byOffset,
    );
    assert.deepEqual(
      marks.map((mark) => [mark.commandId, mark.playTime, mark.fraction, mark.outcome]),
      [
        [1, 1_000, 0.25, 'success'],
        [2, 2_000, 0.5, 'failure'],
        [3, 4_000, 1, 'unknown'],
      ],
    );

    const byClock = new ReplayTimeline([0, 1_000, 2_000, 4_000], null);
    const clockMarks = commandMarks([{ id: 1, commandLine: 'ls', exitCode: 0, startedAt: started + 3_000, endedAt: null, startOffset: 0 }], started, byClock);
    assert.equal(clockMarks[0]?.playTime, 3_000);
    assert.equal(clockMarks[0]?.fraction, 0.75);
  });

  it('maps timeline fractions and survives an empty session', () => {
    const timeline = new ReplayTimeline([0, 400], null);
    assert.equal(timeline.playTimeAtFraction(0.5), 200);
    assert.equal(timeline.playTimeAtFraction(7), 400);
    const empty = new ReplayTimeline([], 500);
    assert.equal(empty.duration, 0);
    assert.equal(empty.fractionOf(0), 0);
    assert.equal(empty.countAt(10), 0);
    assert.equal(empty.playTimeAtOffset(10), null);
  });
});

describe('replay scheduler', () => {
  it('plays events at their time, at the chosen speed', () => {
    const { clock, sink, scheduler } = player([0, 1_000, 2_000, 4_000]);
    scheduler.play();
    assert.deepEqual(sink.shown, [0], 'the event at 0 shows at once');
    clock.advance(999);
    assert.deepEqual(sink.shown, [0]);
    clock.advance(1);
    assert.deepEqual(sink.shown, [0, 1]);
    scheduler.setSpeed(4);
    clock.advance(249);
    assert.deepEqual(sink.shown, [0, 1], '1 s of session at 4× takes 250 ms');
    clock.advance(1);
    assert.deepEqual(sink.shown, [0, 1, 2]);
    assert.equal(scheduler.position, 2_000);
    clock.advance(500);
    assert.deepEqual(sink.shown, [0, 1, 2, 3]);
    assert.equal(scheduler.state, 'ended');
    assert.equal(scheduler.position, 4_000);
    assert.equal(clock.pendingTimers, 0, 'nothing left ticking at the end');
  });

  it('pauses and resumes where it stopped', () => {
    const { clock, sink, scheduler } = player([0, 1_000, 2_000]);
    scheduler.play();
    clock.advance(600);
    scheduler.pause();
    assert.equal(scheduler.position, 600);
    clock.advance(10_000);
    assert.deepEqual(sink.shown, [0], 'a paused player shows nothing new');
    assert.equal(clock.pendingTimers, 0);
    scheduler.play();
    clock.advance(399);
    assert.deepEqual(sink.shown, [0]);
    clock.advance(1);
    assert.deepEqual(sink.shown, [0, 1]);
  });

  it('skips idle: a minute of silence plays as the cap', () => {
    const { clock, sink, scheduler } = player([0, 60_000, 60_100], 500);
    scheduler.setSpeed(1);
    scheduler.play();
    clock.advance(500);
    assert.deepEqual(sink.shown, [0, 1]);
    clock.advance(100);
    assert.equal(scheduler.state, 'ended');
  });

  it('seeks backwards by resetting and applying everything up to the target at once', () => {
    const { clock, sink, scheduler } = player([0, 100, 200, 300, 400]);
    scheduler.showEnd();
    assert.deepEqual(sink.shown, [0, 1, 2, 3, 4]);
    assert.equal(scheduler.state, 'ended');
    scheduler.seek(250);
    assert.equal(sink.resets, 1);
    assert.deepEqual(sink.shown, [0, 1, 2]);
    assert.equal(scheduler.state, 'paused');
    scheduler.play();
    clock.advance(50);
    assert.deepEqual(sink.shown, [0, 1, 2, 3]);
  });

  it('seeks forwards without a reset, and keeps playing after a seek while playing', () => {
    const { clock, sink, scheduler } = player([0, 100, 200, 300, 400]);
    scheduler.play();
    scheduler.seek(300);
    assert.equal(sink.resets, 0);
    assert.deepEqual(sink.shown, [0, 1, 2, 3]);
    assert.equal(scheduler.state, 'playing');
    clock.advance(100);
    assert.deepEqual(sink.shown, [0, 1, 2, 3, 4]);
    assert.equal(scheduler.state, 'ended');
  });

  it('seeks to an exact event count, telling apart events that share a timestamp', () => {
    const { clock, sink, scheduler } = player([0, 100, 100, 100, 200]);
    scheduler.showEnd();
    scheduler.seekToEventCount(2);
    assert.deepEqual(sink.shown, [0, 1]);
    assert.equal(scheduler.position, 100);
    assert.equal(scheduler.state, 'paused');
    scheduler.seekToEventCount(4);
    assert.equal(sink.resets, 1, 'forwards without another reset');
    assert.deepEqual(sink.shown, [0, 1, 2, 3]);
    scheduler.play();
    clock.advance(100);
    assert.deepEqual(sink.shown, [0, 1, 2, 3, 4]);
    assert.equal(scheduler.state, 'ended');
  });

  it('starts over when played at the end', () => {
    const { clock, sink, scheduler } = player([0, 100]);
    scheduler.showEnd();
    scheduler.play();
    assert.equal(sink.resets, 1);
    assert.deepEqual(sink.shown, [0]);
    clock.advance(100);
    assert.deepEqual(sink.shown, [0, 1]);
  });

  it('keeps the same moment of the session when skip idle is switched during playback', () => {
    const times = [0, 1_000, 31_000, 31_500];
    const { clock, sink, scheduler } = player(times, null);
    scheduler.play();
    clock.advance(11_000); // 10 s into the 30 s gap
    scheduler.setTimeline(new ReplayTimeline(times, 500));
    // Inside a capped gap: the position lands at the cap, where the next output is due (the
    // first gap, 1 s, is capped to 0.5 s too).
    assert.equal(scheduler.position, 1_000);
    assert.deepEqual(sink.shown, [0, 1], 'the screen is unchanged by the switch');
    clock.advance(0);
    assert.deepEqual(sink.shown, [0, 1, 2]);
    clock.advance(500);
    assert.equal(scheduler.state, 'ended');
  });

  it('fires a change for commands, not for clock ticks', () => {
    const { clock, scheduler } = player([0, 100, 200]);
    let changes = 0;
    scheduler.onDidChange(() => changes++);
    scheduler.play();
    scheduler.setSpeed(2);
    clock.advance(40);
    assert.equal(changes, 2);
    clock.advance(100);
    assert.equal(changes, 3, 'reaching the end is a change');
    scheduler.dispose();
    assert.equal(clock.pendingTimers, 0);
  });
});
