/**
 * What a fuzzed boundary is: a name, a fast-check property over the real code, and how many inputs
 * `npm test` gives it. One definition serves both `npm test` (test/fuzz/*.test.ts, a few thousand
 * inputs) and `npm run fuzz` (fuzz/run.ts, a million), so the two can never drift apart.
 *
 * The properties every boundary shares: no exception escapes except the boundary's documented
 * coded error, no input takes longer than a time limit (a hang or a super-linear path), and no
 * promise is rejected without a handler.
 */
import fc from 'fast-check';

export interface FuzzSession {
  /** A property over the real code; its predicate throws (or returns false) on a failure. */
  readonly property: fc.IRawProperty<any, boolean>;
  /** Stops what `open()` started (servers, temp dirs). */
  dispose(): Promise<void> | void;
}

export interface FuzzBoundary {
  /** Short, for `--only` and the table: `line-framer`. */
  readonly name: string;
  /** What is fuzzed and where it lives. */
  readonly title: string;
  /** Inputs per `npm test` run (a few thousand, well under 20 s on a loaded 2-core machine). */
  readonly testRuns: number;
  /** Inputs per `npm run fuzz` when `--runs` is not given. */
  readonly fullRuns?: number;
  /**
   * fast-check's per-input timeout for async properties (ms): an input whose check has not settled
   * by then fails as a hang. Sync properties measure themselves with `withinTimeLimit`.
   */
  readonly asyncTimeoutMs?: number;
  open(): Promise<FuzzSession> | FuzzSession;
}

/** A sync input that takes longer than this is a failure: no boundary needs more for one input. */
export const perInputLimitMs = 2_000;

let runHook: () => void = () => {};

/** The runner's watchdog counts runs through this (a sync infinite loop stops the count). */
export function setRunHook(hook: () => void): void {
  runHook = hook;
}

/**
 * Runs one input's check and fails it when it took longer than `limitMs`. A sync hang cannot be
 * interrupted from inside the thread; the runner's watchdog reports those.
 */
export function withinTimeLimit<T>(what: string, check: () => T, limitMs: number = perInputLimitMs): T {
  runHook();
  const started = performance.now();
  const result = check();
  const took = performance.now() - started;
  if (took > limitMs) throw new Error(`${what} took ${took.toFixed(0)} ms for one input (limit ${limitMs} ms)`);
  return result;
}

/** The async form: counts the run and measures it (fast-check's `timeout` interrupts a real hang). */
export async function withinTimeLimitAsync<T>(what: string, check: () => Promise<T>, limitMs: number = perInputLimitMs): Promise<T> {
  runHook();
  const started = performance.now();
  const result = await check();
  const took = performance.now() - started;
  if (took > limitMs) throw new Error(`${what} took ${took.toFixed(0)} ms for one input (limit ${limitMs} ms)`);
  return result;
}

/**
 * Unhandled rejections while a property runs. Node would print and (by default) exit on the first;
 * collecting them lets the runner name the boundary and the seed instead.
 */
export class RejectionWatch {
  readonly rejections: unknown[] = [];
  readonly #listener = (reason: unknown) => {
    this.rejections.push(reason);
  };

  constructor() {
    process.on('unhandledRejection', this.#listener);
  }

  /** Throws when a rejection went unhandled since the watch began. */
  check(): void {
    if (this.rejections.length === 0) return;
    const first = this.rejections[0];
    throw new Error(`${this.rejections.length} unhandled rejection(s); the first: ${first instanceof Error ? (first.stack ?? first.message) : String(first)}`);
  }

  dispose(): void {
    process.off('unhandledRejection', this.#listener);
  }
}

/** `value` for an error message: JSON, cut short. */
export function show(value: unknown, max = 300): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
