/** Something that owns a resource and releases it exactly once. */
export interface IDisposable {
  dispose(): void;
}

export function toDisposable(release: () => void): IDisposable {
  let disposed = false;
  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      release();
    },
  };
}

/** Owns a set of disposables; disposing the store disposes all of them, last added first. */
export class DisposableStore implements IDisposable {
  #items = new Set<IDisposable>();
  #disposed = false;

  get isDisposed(): boolean {
    return this.#disposed;
  }

  add<T extends IDisposable>(item: T): T {
    if (this.#disposed) {
      // Adding to a dead store would leak the item silently; release it at once instead.
      item.dispose();
      return item;
    }
    this.#items.add(item);
    return item;
  }

  delete(item: IDisposable): void {
    if (this.#items.delete(item)) item.dispose();
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const items = [...this.#items].reverse();
    this.#items.clear();
    const errors: unknown[] = [];
    for (const item of items) {
      try {
        item.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'several disposables failed');
  }
}

/** Base class for objects that own disposables. */
export abstract class Disposable implements IDisposable {
  protected readonly store = new DisposableStore();

  protected register<T extends IDisposable>(item: T): T {
    return this.store.add(item);
  }

  dispose(): void {
    this.store.dispose();
  }
}
