/**
 * Replay time. Recorded events carry `at`, ms since the session started; the player runs on
 * "play time", which is the same clock with every idle gap capped when "skip idle" is on (an
 * asciinema-style idle limit). This module maps between the two and places the timeline's
 * command marks. Pure and DOM-free, so the arithmetic is unit-tested.
 */

export class ReplayTimeline {
  /** Session time of each event (ms since start), non-decreasing. */
  readonly #sessionTimes: Float64Array;
  /** Play time of each event, non-decreasing. */
  readonly #playTimes: Float64Array;
  /** Byte offset in the session output of each event (empty when not given), non-decreasing. */
  readonly #offsets: Float64Array;
  /** null: real time; else the longest pause kept between two events (and before the first). */
  readonly idleCapMs: number | null;

  /**
   * `sessionTimes`: each event's `at`; `offsets`: each event's byte offset, when known, so that
   * places given as offsets (command starts) find their event exactly rather than by clock.
   */
  constructor(sessionTimes: ArrayLike<number>, idleCapMs: number | null, offsets?: ArrayLike<number>) {
    this.idleCapMs = idleCapMs;
    const count = sessionTimes.length;
    this.#offsets = new Float64Array(offsets && offsets.length === count ? offsets : []);
    this.#sessionTimes = new Float64Array(count);
    this.#playTimes = new Float64Array(count);
    let previousSession = 0;
    let previousPlay = 0;
    for (let index = 0; index < count; index++) {
      // Clocks are monotonic, but a stray out-of-order value must not make time run backwards.
      const at = Math.max(previousSession, sessionTimes[index] ?? 0);
      const gap = at - previousSession;
      const play = previousPlay + (idleCapMs === null ? gap : Math.min(gap, idleCapMs));
      this.#sessionTimes[index] = at;
      this.#playTimes[index] = play;
      previousSession = at;
      previousPlay = play;
    }
  }

  get eventCount(): number {
    return this.#playTimes.length;
  }

  /** Play time at which the last event is shown: the length of the replay. */
  get duration(): number {
    return this.eventCount === 0 ? 0 : this.#playTimes[this.eventCount - 1]!;
  }

  /** Play time of event `index`. */
  playTimeOf(index: number): number {
    return this.#playTimes[index] ?? this.duration;
  }

  /** How many events are due by `playTime` (the events to apply for the screen at that moment). */
  countAt(playTime: number): number {
    // First index whose play time is after playTime.
    let low = 0;
    let high = this.eventCount;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#playTimes[middle]! <= playTime) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Session time (ms since start) → play time; a moment inside a capped gap lands at its cap. */
  toPlayTime(sessionTime: number): number {
    const index = this.#lastIndexAtOrBefore(this.#sessionTimes, sessionTime);
    const baseSession = index < 0 ? 0 : this.#sessionTimes[index]!;
    const basePlay = index < 0 ? 0 : this.#playTimes[index]!;
    const into = Math.max(0, sessionTime - baseSession);
    const play = basePlay + (this.idleCapMs === null ? into : Math.min(into, this.idleCapMs));
    return Math.min(play, this.duration);
  }

  /** Play time → session time: the inverse of `toPlayTime` (a capped gap maps to its start). */
  toSessionTime(playTime: number): number {
    const index = this.#lastIndexAtOrBefore(this.#playTimes, playTime);
    const baseSession = index < 0 ? 0 : this.#sessionTimes[index]!;
    const basePlay = index < 0 ? 0 : this.#playTimes[index]!;
    return baseSession + Math.max(0, playTime - basePlay);
  }

  /**
   * The play time at which the byte at `offset` is on screen (the event that holds it), or null
   * when the timeline has no offsets. Before the first stored byte: 0.
   */
  playTimeAtOffset(offset: number): number | null {
    if (this.#offsets.length === 0) return null;
    const index = this.#lastIndexAtOrBefore(this.#offsets, offset);
    return index < 0 ? 0 : this.#playTimes[index]!;
  }

  /** Where `playTime` sits on the timeline, 0…1. */
  fractionOf(playTime: number): number {
    const duration = this.duration;
    if (duration <= 0) return playTime > 0 ? 1 : 0;
    return clamp01(playTime / duration);
  }

  /** The play time at a 0…1 position on the timeline. */
  playTimeAtFraction(fraction: number): number {
    return clamp01(fraction) * this.duration;
  }

  #lastIndexAtOrBefore(times: Float64Array, value: number): number {
    let low = 0;
    let high = times.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (times[middle]! <= value) low = middle + 1;
      else high = middle;
    }
    return low - 1;
  }
}

export interface CommandMarkSource {
  id: number;
  commandLine: string;
  exitCode: number | null;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number | null;
  /** Byte offset where the command's output starts. */
  startOffset: number;
}

export interface CommandMark {
  commandId: number;
  commandLine: string;
  /** Where the command started on the timeline, 0…1. */
  fraction: number;
  playTime: number;
  /** Green, red, or grey when the shell did not report an exit code (still running, or no integration). */
  outcome: 'success' | 'failure' | 'unknown';
  exitCode: number | null;
}

/**
 * One mark per command, where its output starts (found by byte offset when the timeline knows
 * offsets, else by the clock), ordered along the timeline.
 */
export function commandMarks(commands: readonly CommandMarkSource[], sessionStartedAt: number, timeline: ReplayTimeline): CommandMark[] {
  return commands
    .map((command) => {
      const playTime =
        timeline.playTimeAtOffset(command.startOffset) ?? timeline.toPlayTime(Math.max(0, command.startedAt - sessionStartedAt));
      return {
        commandId: command.id,
        commandLine: command.commandLine,
        fraction: timeline.fractionOf(playTime),
        playTime,
        outcome: command.exitCode === null ? 'unknown' : command.exitCode === 0 ? 'success' : 'failure',
        exitCode: command.exitCode,
      } satisfies CommandMark;
    })
    .sort((a, b) => a.playTime - b.playTime || a.commandId - b.commandId);
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
