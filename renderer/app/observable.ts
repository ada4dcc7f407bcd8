import { useSyncExternalStore } from 'react';
import { Emitter, type Event } from '../../src/common/event.ts';
import type { IDisposable } from '../../src/common/lifecycle.ts';

/**
 * A value that tells its readers when it changes. Values are treated as immutable: `set` with a
 * new object is a change, mutation in place is not. React reads it through `useObservable`.
 */
export class ObservableValue<T> implements IDisposable {
  #value: T;
  readonly #onDidChange = new Emitter<T>();
  readonly onDidChange: Event<T> = this.#onDidChange.event;

  constructor(initial: T) {
    this.#value = initial;
  }

  get value(): T {
    return this.#value;
  }

  set(value: T): void {
    if (Object.is(value, this.#value)) return;
    this.#value = value;
    this.#onDidChange.fire(value);
  }

  update(change: (value: T) => T): void {
    this.set(change(this.#value));
  }

  /** `useSyncExternalStore` subscription shape. */
  readonly subscribe = (listener: () => void): (() => void) => {
    const subscription = this.#onDidChange.event(listener);
    return () => subscription.dispose();
  };

  dispose(): void {
    this.#onDidChange.dispose();
  }
}

export function useObservable<T>(observable: ObservableValue<T>): T {
  return useSyncExternalStore(observable.subscribe, () => observable.value);
}
