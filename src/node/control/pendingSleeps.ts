/**
 * Timers an owner may still be waiting on when it is disposed: `sleep` resolves after `ms`, and
 * `rejectAll` ends every pending sleep at once with an error, so no caller waits on a dead owner
 * and no timer outlives it.
 */
export class PendingSleeps {
  readonly #entries = new Set<{ timer: NodeJS.Timeout; reject: (error: Error) => void }>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry = {
        timer: setTimeout(() => {
          this.#entries.delete(entry);
          resolve();
        }, ms),
        reject,
      };
      this.#entries.add(entry);
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
