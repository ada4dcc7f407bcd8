/**
 * Timers an owner may still be waiting on when it is disposed: `sleep` resolves after `ms`, and
 * `rejectAll` ends every pending sleep at once with an error, so no caller waits on a dead owner
 * and no timer outlives it.
 */
export class PendingSleeps {
  readonly #entries = new Set<{ timer: NodeJS.Timeout; reject: (error: Error) => void }>();

  /** Resolves after `ms`, or as soon as `wake` aborts (a sleep that waits for an event or a time). */
  sleep(ms: number, wake?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(entry.timer);
        this.#entries.delete(entry);
        wake?.removeEventListener('abort', done);
        resolve();
      };
      const entry = { timer: setTimeout(done, ms), reject };
      this.#entries.add(entry);
      if (wake?.aborted) done();
      else wake?.addEventListener('abort', done, { once: true });
    });
  }

  rejectAll(error: Error): void {
    for (const entry of this.#entries) {
      clearTimeout(entry.timer);
      entry.reject(error);
    }
    this.#entries.clear();
  }
}
