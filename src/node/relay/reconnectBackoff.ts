/**
 * When to try the relay again: exponential backoff with jitter (spec: from 1 s doubling to 60 s,
 * ±20 %), reset only once a connection has proved stable by living `resetAfterMs` (spec: 2 min).
 * A relay that accepts and then drops us at once therefore sees us back off like one that refuses.
 */
import { RelayConstants } from '../../common/constants.ts';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** 0.2 = ±20 %. */
  jitter: number;
  resetAfterMs: number;
  /** Injected for tests; default Math.random. */
  random?: () => number;
}

export const defaultBackoffOptions: BackoffOptions = {
  initialMs: RelayConstants.backoffInitialMs,
  maxMs: RelayConstants.backoffMaxMs,
  jitter: RelayConstants.backoffJitter,
  resetAfterMs: RelayConstants.backoffResetAfterMs,
};

export class ReconnectBackoff {
  readonly #options: BackoffOptions;
  readonly #random: () => number;
  /** Failed or short-lived attempts since the last stable connection. */
  #failures = 0;

  constructor(options: Partial<BackoffOptions> = {}) {
    this.#options = { ...defaultBackoffOptions, ...options };
    if (!(this.#options.initialMs > 0) || !(this.#options.maxMs >= this.#options.initialMs)) throw new Error('backoff needs 0 < initialMs <= maxMs');
    if (!(this.#options.jitter >= 0 && this.#options.jitter < 1)) throw new Error('backoff jitter must be in [0, 1)');
    this.#random = options.random ?? Math.random;
  }

  get failures(): number {
    return this.#failures;
  }

  get resetAfterMs(): number {
    return this.#options.resetAfterMs;
  }

  /** The delay before the next attempt; counts this as one more failure. */
  next(): number {
    const exponent = Math.min(this.#failures, 30);
    this.#failures++;
    return this.#jittered(Math.min(this.#options.initialMs * 2 ** exponent, this.#options.maxMs));
  }

  /** The longest delay (with jitter), for a refusal that retrying sooner will not fix (bad token). */
  nextAfterRefusal(): number {
    this.#failures++;
    return this.#jittered(this.#options.maxMs);
  }

  /** A connection ended after living `livedMs`: if that was long enough, start over from the initial delay. */
  connectionEnded(livedMs: number): void {
    if (livedMs >= this.#options.resetAfterMs) this.#failures = 0;
  }

  reset(): void {
    this.#failures = 0;
  }

  #jittered(base: number): number {
    const factor = 1 + this.#options.jitter * (2 * this.#random() - 1);
    return Math.max(1, Math.round(base * factor));
  }
}
