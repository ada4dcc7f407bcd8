import { isApiError } from '../../src/common/api/errors.ts';
import { ObservableValue } from './observable.ts';

export interface UiError {
  readonly id: number;
  /** What the user was doing, e.g. "Could not start a terminal". */
  readonly title: string;
  readonly message: string;
  readonly code: string | null;
}

/** Most messages kept on screen; older ones are dropped first so a burst cannot cover the window. */
const maxVisibleErrors = 4;

/**
 * Errors the user should see, shown as dismissible alerts. Errors caused by a lost connection are
 * not listed: the connection banner already says so, once, instead of one alert per keystroke.
 */
export class ErrorList {
  readonly items = new ObservableValue<readonly UiError[]>([]);
  #nextId = 1;

  report(title: string, error: unknown): void {
    const code = errorCode(error);
    if (code === 'CONNECTION_CLOSED') return;
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[switchboard] ${title}:`, error);
    const entry: UiError = { id: this.#nextId++, title, message, code };
    this.items.update((items) => [...items, entry].slice(-maxVisibleErrors));
  }

  dismiss(id: number): void {
    this.items.update((items) => items.filter((item) => item.id !== id));
  }

  dispose(): void {
    this.items.dispose();
  }
}

/** The ApiError code of a rejection, also when the error crossed a boundary as a plain object. */
export function errorCode(error: unknown): string | null {
  if (isApiError(error)) return error.code;
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return null;
}
