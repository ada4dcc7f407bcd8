import { type IDisposable, toDisposable } from './lifecycle.ts';

/** Subscribe with a listener; the returned disposable unsubscribes. */
export type Event<T> = (listener: (value: T) => void) => IDisposable;

/** Owns the listener list of one event. The owner exposes `emitter.event` as `onDidX`. */
export class Emitter<T> implements IDisposable {
  #listeners = new Set<(value: T) => void>();
  #disposed = false;

  readonly event: Event<T> = (listener) => {
    if (this.#disposed) return toDisposable(() => {});
    // Wrap so the same function subscribed twice gets two independent subscriptions.
    const entry = (value: T) => listener(value);
    this.#listeners.add(entry);
    return toDisposable(() => this.#listeners.delete(entry));
  };

  get hasListeners(): boolean {
    return this.#listeners.size > 0;
  }

  fire(value: T): void {
    for (const listener of [...this.#listeners]) listener(value);
  }

  dispose(): void {
    this.#disposed = true;
    this.#listeners.clear();
  }
}

/** Resolves with the next value of an event. */
export function eventToPromise<T>(event: Event<T>, filter: (value: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const subscription = event((value) => {
      if (!filter(value)) return;
      subscription.dispose();
      resolve(value);
    });
  });
}
