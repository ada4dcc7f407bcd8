/**
 * The replay player's clock: decides which recorded events are due and hands them, in order, to
 * a sink (the viewer's terminal). Play, pause, speed, seek and the skip-idle timeline swap live
 * here; the clock and the timers are injected, so the timing arithmetic is unit-tested without
 * waiting. A seek backwards resets the sink and applies everything up to the target at once
 * (the terminal parses that as fast as it can), then playback continues from there.
 */
import { Emitter } from '../../../src/common/event.ts';
import type { IDisposable } from '../../../src/common/lifecycle.ts';
import type { ReplayTimeline } from './replayTimeline.ts';

export interface ReplayClock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: ReplayClock = {
  now: () => performance.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface ReplaySink {
  /** Start again from an empty screen at the session's first size. */
  reset(): void;
  /** Apply events [from, to) in order. */
  apply(from: number, to: number): void;
}

export type ReplayState = 'paused' | 'playing' | 'ended';

export class ReplayScheduler implements IDisposable {
  #timeline: ReplayTimeline;
  readonly #sink: ReplaySink;
  readonly #clock: ReplayClock;
  #speed = 1;
  #state: ReplayState = 'paused';
  /** Play time shown while paused; while playing, the play time at `#anchorWall`. */
  #anchorPlay = 0;
  #anchorWall = 0;
  /** Events applied to the sink so far (always a prefix of the timeline). */
  #applied = 0;
  #timer: unknown = undefined;
  #disposed = false;

  readonly #onDidChange = new Emitter<void>();
  /** State, speed or position changed by a command (not by the clock ticking). */
  readonly onDidChange = this.#onDidChange.event;

  constructor(options: { timeline: ReplayTimeline; sink: ReplaySink; clock?: ReplayClock }) {
    this.#timeline = options.timeline;
    this.#sink = options.sink;
    this.#clock = options.clock ?? realClock;
  }

  get state(): ReplayState {
    return this.#state;
  }

  get speed(): number {
    return this.#speed;
  }

  get timeline(): ReplayTimeline {
    return this.#timeline;
  }

  /** How many events the sink has been given. */
  get appliedCount(): number {
    return this.#applied;
  }

  /** The current play time (moves with the clock while playing). */
  get position(): number {
    if (this.#state !== 'playing') return this.#anchorPlay;
    const elapsed = (this.#clock.now() - this.#anchorWall) * this.#speed;
    return Math.min(this.#timeline.duration, this.#anchorPlay + elapsed);
  }

  play(): void {
    if (this.#disposed || this.#state === 'playing') return;
    // Play at the end starts over, as a video player does.
    if (this.#state === 'ended' || this.#anchorPlay >= this.#timeline.duration) this.#seekTo(0);
    this.#anchorWall = this.#clock.now();
    this.#state = 'playing';
    this.#tick();
    this.#onDidChange.fire();
  }

  pause(): void {
    if (this.#state !== 'playing') return;
    this.#anchorPlay = this.position;
    this.#cancelTimer();
    this.#state = 'paused';
    this.#onDidChange.fire();
  }

  toggle(): void {
    if (this.#state === 'playing') this.pause();
    else this.play();
  }

  setSpeed(speed: number): void {
    if (!(speed > 0) || speed === this.#speed) return;
    // Re-anchor so the position does not jump: what has played so far played at the old speed.
    if (this.#state === 'playing') {
      this.#anchorPlay = this.position;
      this.#anchorWall = this.#clock.now();
    }
    this.#speed = speed;
    if (this.#state === 'playing') this.#schedule();
    this.#onDidChange.fire();
  }

  /** Jump to a play time; playing continues from there, a paused player stays paused. */
  seek(playTime: number): void {
    if (this.#disposed) return;
    this.#seekTo(playTime);
    if (this.#state === 'playing') {
      this.#anchorWall = this.#clock.now();
      this.#tick();
    } else {
      this.#state = this.#anchorPlay >= this.#timeline.duration ? 'ended' : 'paused';
    }
    this.#onDidChange.fire();
  }

  /**
   * Pauses with exactly the first `count` events applied (a place given as an event rather than
   * a time: events that share a timestamp are told apart).
   */
  seekToEventCount(count: number): void {
    if (this.#disposed) return;
    this.#cancelTimer();
    const target = Math.max(0, Math.min(count, this.#timeline.eventCount));
    if (target < this.#applied) {
      this.#sink.reset();
      this.#applied = 0;
    }
    this.#applyUpTo(target);
    this.#anchorPlay = target === 0 ? 0 : this.#timeline.playTimeOf(target - 1);
    this.#state = target >= this.#timeline.eventCount ? 'ended' : 'paused';
    this.#onDidChange.fire();
  }

  /** Shows the whole session at once, paused at its end (the viewer's opening state). */
  showEnd(): void {
    this.#cancelTimer();
    this.#state = 'paused';
    this.#seekTo(this.#timeline.duration);
    this.#state = 'ended';
    this.#onDidChange.fire();
  }

  /**
   * Swaps the timeline (skip idle on/off) without touching the screen: the same events stay
   * applied and the position moves to the same moment of the session on the new clock.
   */
  setTimeline(timeline: ReplayTimeline): void {
    const sessionTime = this.#timeline.toSessionTime(this.position);
    const wasEnded = this.#state === 'ended';
    this.#timeline = timeline;
    this.#anchorPlay = wasEnded ? timeline.duration : Math.min(timeline.toPlayTime(sessionTime), timeline.duration);
    this.#anchorWall = this.#clock.now();
    if (this.#state === 'playing') this.#schedule();
    this.#onDidChange.fire();
  }

  dispose(): void {
    this.#disposed = true;
    this.#cancelTimer();
    this.#onDidChange.dispose();
  }

  #seekTo(playTime: number): void {
    const target = Math.min(Math.max(0, playTime), this.#timeline.duration);
    const due = this.#timeline.countAt(target);
    if (due < this.#applied) {
      this.#sink.reset();
      this.#applied = 0;
    }
    this.#applyUpTo(due);
    this.#anchorPlay = target;
  }

  #applyUpTo(count: number): void {
    if (count <= this.#applied) return;
    const from = this.#applied;
    this.#applied = count;
    this.#sink.apply(from, count);
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#disposed || this.#state !== 'playing') return;
    const position = this.position;
    this.#applyUpTo(this.#timeline.countAt(position));
    if (this.#applied >= this.#timeline.eventCount && position >= this.#timeline.duration) {
      this.#anchorPlay = this.#timeline.duration;
      this.#state = 'ended';
      this.#onDidChange.fire();
      return;
    }
    this.#schedule();
  }

  #schedule(): void {
    this.#cancelTimer();
    const position = this.position;
    const nextAt = this.#applied < this.#timeline.eventCount ? this.#timeline.playTimeOf(this.#applied) : this.#timeline.duration;
    const delay = Math.max(0, (nextAt - position) / this.#speed);
    this.#timer = this.#clock.setTimeout(() => this.#tick(), delay);
  }

  #cancelTimer(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
