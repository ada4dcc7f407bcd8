/**
 * Per-consumer flow control in characters (VS Code's scheme): every consumer that must not lose
 * data holds an account of chars sent but not yet acknowledged. The producer is paused while any
 * such account is above the high watermark and resumed once every one is below the low
 * watermark; the gap between the two stops it from flapping.
 *
 * Lossy consumers get accounts too (so callers can treat everyone alike) but never pause anyone.
 */
import type { IDisposable } from '../../common/lifecycle.ts';

export interface FlowControlOptions {
  highWatermark: number;
  lowWatermark: number;
  /** Called when the producer must stop (once per pause). */
  pause: () => void;
  /** Called when the producer may go on (once per resume). */
  resume: () => void;
}

export interface FlowAccount extends IDisposable {
  readonly lossless: boolean;
  readonly unacknowledged: number;
  /** Chars were sent to this consumer. */
  charge(chars: number): void;
  /** The consumer has processed this many chars. */
  ack(chars: number): void;
}

export class FlowController implements IDisposable {
  readonly #options: FlowControlOptions;
  readonly #accounts = new Set<Account>();
  #paused = false;
  #disposed = false;

  constructor(options: FlowControlOptions) {
    if (!(options.lowWatermark < options.highWatermark)) throw new Error('lowWatermark must be below highWatermark');
    this.#options = options;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /**
   * A new consumer. `watermarks` overrides the controller's for this consumer only (e.g. an
   * in-process consumer that is cheap to keep far ahead).
   */
  open(lossless: boolean, watermarks?: { high: number; low: number }): FlowAccount {
    const high = watermarks?.high ?? this.#options.highWatermark;
    const low = watermarks?.low ?? this.#options.lowWatermark;
    if (!(low < high)) throw new Error('low watermark must be below the high one');
    const account = new Account(this, lossless, high, low);
    this.#accounts.add(account);
    return account;
  }

  /** Re-evaluate after an account changed. Internal to accounts. */
  update(account: Account): void {
    if (this.#disposed || !account.lossless) return;
    if (!this.#paused) {
      if (account.unacknowledged > account.highWatermark) {
        this.#paused = true;
        this.#options.pause();
      }
    } else if (account.unacknowledged < account.lowWatermark) {
      this.#resumeIfAllLow();
    }
  }

  close(account: Account): void {
    if (!this.#accounts.delete(account)) return;
    if (this.#paused) this.#resumeIfAllLow();
  }

  /** Forget every debt and resume (e.g. when the process is being killed and must drain). */
  release(): void {
    for (const account of this.#accounts) account.forgive();
    if (this.#paused) this.#resumeIfAllLow();
  }

  dispose(): void {
    this.#disposed = true;
    this.#accounts.clear();
  }

  #resumeIfAllLow(): void {
    if (this.#disposed) return;
    for (const other of this.#accounts) {
      if (other.lossless && other.unacknowledged >= other.lowWatermark) return;
    }
    this.#paused = false;
    this.#options.resume();
  }
}

class Account implements FlowAccount {
  readonly lossless: boolean;
  readonly highWatermark: number;
  readonly lowWatermark: number;
  readonly #controller: FlowController;
  #unacknowledged = 0;
  #closed = false;

  constructor(controller: FlowController, lossless: boolean, highWatermark: number, lowWatermark: number) {
    this.#controller = controller;
    this.lossless = lossless;
    this.highWatermark = highWatermark;
    this.lowWatermark = lowWatermark;
  }

  get unacknowledged(): number {
    return this.#unacknowledged;
  }

  charge(chars: number): void {
    if (this.#closed || chars <= 0) return;
    this.#unacknowledged += chars;
    this.#controller.update(this);
  }

  ack(chars: number): void {
    if (this.#closed || !(chars > 0)) return;
    this.#unacknowledged = Math.max(0, this.#unacknowledged - chars);
    this.#controller.update(this);
  }

  forgive(): void {
    this.#unacknowledged = 0;
  }

  dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unacknowledged = 0;
    this.#controller.close(this);
  }
}
