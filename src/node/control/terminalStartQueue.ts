/**
 * Terminal starts asked for over the control socket, one at a time, with a turn of the event loop
 * before each.
 *
 * Starting a shell forks the Hub (node-pty's forkpty runs on the main thread: tens of ms for a
 * process of the Hub's size on a busy machine). The checks before it (cwd, executable) are async, so
 * a burst of `create`s from many clients finished them together and forked back to back within one
 * turn, and every other client waited for all of them: under a hostile burst of 16 connections a
 * `ping` was answered > 1 s late (issue 23). Queued, with the socket read between two forks, an
 * answer waits at most for one.
 */
export class TerminalStartQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #queued = 0;

  /** Starts waiting their turn (the one running included). */
  get queued(): number {
    return this.#queued;
  }

  run<T>(start: () => Promise<T>): Promise<T> {
    this.#queued++;
    const result = this.#tail
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(start)
      .finally(() => this.#queued--);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
