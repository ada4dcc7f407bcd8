/**
 * Turns for the control socket's connections: request lines read from the sockets are handled a
 * few at a time per connection, connections in a round, for a bounded time per turn of the event
 * loop; then the loop gets to run (sockets are read, PTY output flows, timers fire) before the next
 * turn.
 *
 * Without it, each chunk a connection read was handled whole at once: under a burst of 16 hostile
 * connections, each read brought hundreds of lines, and a well-behaved client's `ping` waited for
 * all of them — over a second (issue 23). Now a ping waits for at most a round of slices.
 *
 * A connection whose lines wait is not read (ControlConnection pauses it), so what waits is bounded
 * by one read per connection, and a client that sends faster than the Hub handles is slowed by its
 * socket, not buffered without end.
 */
import { ControlConstants } from '../../common/constants.ts';

/** Handles one slice of a connection's waiting lines; returns whether lines are still waiting. */
export type TurnWork = () => boolean;

export class RequestTurns {
  readonly #round: TurnWork[] = [];
  readonly #waiting = new Set<TurnWork>();
  #scheduled = false;
  readonly #budgetMs: number;
  readonly #now: () => number;

  constructor(options: { budgetMs?: number; now?: () => number } = {}) {
    this.#budgetMs = options.budgetMs ?? ControlConstants.requestTurnBudgetMs;
    this.#now = options.now ?? (() => performance.now());
  }

  /** `work` has lines waiting: it gets slices, in its place in the round, until it says it is done. */
  enqueue(work: TurnWork): void {
    if (this.#waiting.has(work)) return;
    this.#waiting.add(work);
    this.#round.push(work);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#turn());
  }

  #turn(): void {
    this.#scheduled = false;
    const deadline = this.#now() + this.#budgetMs;
    // At least one slice per turn, so progress never depends on the clock.
    do {
      const work = this.#round.shift();
      if (!work) break;
      let more = false;
      try {
        more = work();
      } finally {
        if (more) this.#round.push(work);
        else this.#waiting.delete(work);
      }
    } while (this.#round.length > 0 && this.#now() < deadline);
    if (this.#round.length > 0) this.#schedule();
  }
}
