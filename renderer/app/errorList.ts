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
/** A message goes by itself after this long: it must not sit over a terminal's text for good. */
export const errorShownMs = 12_000;

/**
 * Errors the user should see, shown as dismissible alerts. Errors caused by a lost connection are
 * not listed: the connection banner already says so, once, instead of one alert per keystroke.
 */
export class ErrorList {
  readonly items = new ObservableValue<readonly UiError[]>([]);
  #nextId = 1;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  report(title: string, error: unknown): void {
    const code = errorCode(error);
    if (code === 'CONNECTION_CLOSED') return;
    const message = errorMessage(error);
    console.error(`[switchboard] ${title}:`, error);
    const entry: UiError = { id: this.#nextId++, title, message, code };
    this.items.update((items) => [...items, entry].slice(-maxVisibleErrors));
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.dismiss(entry.id);
    }, errorShownMs);
    this.#timers.add(timer);
  }

  dismiss(id: number): void {
    this.items.update((items) => items.filter((item) => item.id !== id));
  }

  dispose(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.items.dispose();
  }
}

/** The ApiError code of a rejection, also when the error crossed a boundary as a plain object. */
export function errorCode(error: unknown): string | null {
  if (isApiError(error)) return error.code;
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return null;
}

/** The Hub's words for a folder it cannot start in, as a person would say them. */
const friendlierMessages: Array<[RegExp, string]> = [
  [/^cwd does not exist: /, 'No such folder: '],
  [/^cwd is not a directory: /, 'Not a folder: '],
];

/** An error's message for the UI. */
export function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);
  for (const [pattern, replacement] of friendlierMessages) if (pattern.test(message)) return message.replace(pattern, replacement);
  return message;
}
