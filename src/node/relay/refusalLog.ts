/**
 * Logging of refused input that a hostile or broken peer can produce at any rate: the first
 * refusal of each kind is logged (warn, with its error text), later ones of that kind are only
 * counted and summarised at most once per interval. So a relay flooding garbage costs a counter
 * increment per frame, never a log line per frame.
 */
import { RelayConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';

/** Distinct kinds remembered; past this, new kinds share one bucket (kinds are ours, but be safe). */
const maxKinds = 64;

export class RefusalLog implements IDisposable {
  readonly #logger: ILogger;
  readonly #intervalMs: number;
  /** Every refusal counted, by kind, since start (for status and tests). */
  readonly #totals = new Map<string, number>();
  /** Refusals since the last summary, by kind (the first of each kind is logged at once, not counted here). */
  readonly #unreported = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { logger: ILogger; summaryIntervalMs?: number }) {
    this.#logger = options.logger;
    this.#intervalMs = options.summaryIntervalMs ?? RelayConstants.refusalSummaryIntervalMs;
  }

  /** A frame was refused. `kind` groups it (e.g. `schema`, `unknown-terminal`); `error` says exactly why. */
  refuse(kind: string, error: string, fields?: Record<string, unknown>): void {
    const key = this.#totals.has(kind) || this.#totals.size < maxKinds ? kind : 'other';
    const seen = this.#totals.get(key) ?? 0;
    this.#totals.set(key, seen + 1);
    if (seen === 0) {
      this.#logger.warn(`refused a relay frame (${key}): ${error}; further ${key} refusals are counted, not logged`, fields);
      return;
    }
    this.#unreported.set(key, (this.#unreported.get(key) ?? 0) + 1);
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.#summarise(), this.#intervalMs);
      this.#timer.unref();
    }
  }

  /** Count of refusals of one kind (or of all kinds) since start. */
  count(kind?: string): number {
    if (kind !== undefined) return this.#totals.get(kind) ?? 0;
    let total = 0;
    for (const value of this.#totals.values()) total += value;
    return total;
  }

  get totals(): ReadonlyMap<string, number> {
    return this.#totals;
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #summarise(): void {
    this.#timer = undefined;
    if (this.#unreported.size === 0) return;
    const counts = Object.fromEntries(this.#unreported);
    this.#unreported.clear();
    this.#logger.info('more relay frames refused since the last report', { counts, windowMs: this.#intervalMs });
  }
}
