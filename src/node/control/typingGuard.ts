/**
 * Keeps agents from typing over a person. The Hub notes every keystroke a person sends to a
 * terminal; an agent's `send` to that terminal is written only once the person has been idle for
 * `idleMs` (the `agentSendIdleMs` setting), so the agent's text never lands in the middle of a
 * line the person is typing. With `wait:false`, or after waiting too long, the send is refused.
 */
import { ControlConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { PendingSleeps } from './pendingSleeps.ts';
import { ControlError } from './protocol.ts';
import type { InputGuard } from './terminalInput.ts';

export interface TypingGuardOptions {
  /** Read on every check, so a settings change applies to sends already waiting. */
  idleMs: () => number;
  /** Longest a send waits before it is refused as busy (default ControlConstants.agentSendMaxWaitMs). */
  maxWaitMs?: number;
}

export interface GuardRequest {
  /** false: refuse at once when the person is typing, rather than wait. */
  wait: boolean;
  /** Stop waiting when this turns false (the agent disconnected). */
  isConnected?: () => boolean;
}

/** While waiting, look again at least this often: the agent may have disconnected meanwhile. */
const recheckMs = 250;

export function busyError(terminalId: string): ControlError {
  // The exact string of the issue and docs/protocol.md; no code, like claws' own errors.
  return new ControlError(`terminal ${terminalId} is busy: the user is typing`);
}

export class TypingGuard implements IDisposable {
  readonly #idleMs: () => number;
  readonly #maxWaitMs: number;
  /** Per terminal, when a person last typed into it (epoch ms). Entries go once idle or removed. */
  readonly #lastPersonInput = new Map<string, number>();
  readonly #sleeps = new PendingSleeps();
  #disposed = false;

  constructor(options: TypingGuardOptions) {
    this.#idleMs = options.idleMs;
    this.#maxWaitMs = options.maxWaitMs ?? ControlConstants.agentSendMaxWaitMs;
  }

  /** A person typed into the terminal just now. */
  notePersonInput(terminalId: string, at: number = Date.now()): void {
    this.#lastPersonInput.set(terminalId, at);
  }

  /** The terminal is gone. */
  forget(terminalId: string): void {
    this.#lastPersonInput.delete(terminalId);
  }

  /** When a person last typed into the terminal, if recently enough to still matter. */
  lastPersonInputAt(terminalId: string): number | undefined {
    return this.#lastPersonInput.get(terminalId);
  }

  /** Milliseconds until the person counts as idle (0: an agent may type now). */
  remainingMs(terminalId: string, now: number = Date.now()): number {
    const last = this.#lastPersonInput.get(terminalId);
    if (last === undefined) return 0;
    const remaining = last + this.#idleMs() - now;
    if (remaining <= 0) {
      this.#lastPersonInput.delete(terminalId);
      return 0;
    }
    return remaining;
  }

  /** A guard for one agent input: its deadline starts now and covers every wait of that input. */
  guardFor(terminalId: string, request: GuardRequest): InputGuard {
    const deadline = Date.now() + this.#maxWaitMs;
    return {
      waitForTurn: async () => {
        for (;;) {
          if (this.#disposed) throw new ControlError('the control server is shutting down', 'CONNECTION_CLOSED');
          if (request.isConnected && !request.isConnected()) throw new ControlError('the client disconnected', 'CONNECTION_CLOSED');
          const now = Date.now();
          const remaining = this.remainingMs(terminalId, now);
          if (remaining === 0) return;
          if (!request.wait || now + remaining > deadline) throw busyError(terminalId);
          await this.#sleep(Math.min(remaining, recheckMs));
        }
      },
      isClear: () => this.remainingMs(terminalId) === 0,
    };
  }

  dispose(): void {
    this.#disposed = true;
    this.#sleeps.rejectAll(new ControlError('the control server is shutting down', 'CONNECTION_CLOSED'));
    this.#lastPersonInput.clear();
  }

  #sleep(ms: number): Promise<void> {
    return this.#sleeps.sleep(ms);
  }
}
