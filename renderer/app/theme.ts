import type { Settings } from '../../src/common/api/contract.ts';
import { toDisposable, type IDisposable } from '../../src/common/lifecycle.ts';
import { ObservableValue } from './observable.ts';

export type ColorScheme = 'dark' | 'light';

const lastSchemeKey = 'switchboard.colorScheme';

function applyColorScheme(scheme: ColorScheme): void {
  document.documentElement.dataset.theme = scheme;
  document.documentElement.style.colorScheme = scheme;
}

/**
 * Before the Hub has sent the settings, paint in the scheme used last time (else the system's),
 * so a user who chose dark on a light desktop does not see a light flash at every start.
 */
export function applyInitialColorScheme(): void {
  let last: string | null = null;
  try {
    last = localStorage.getItem(lastSchemeKey);
  } catch {
    last = null;
  }
  const system: ColorScheme = window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  applyColorScheme(last === 'dark' || last === 'light' ? last : system);
}

/**
 * The colour scheme in use: the settings override, else the system's preference, followed live.
 * It is written to `<html data-theme>` so the stylesheet and xterm panes switch together.
 */
export class ColorSchemeTracker implements IDisposable {
  readonly scheme: ObservableValue<ColorScheme>;
  #preference: Settings['theme'];
  readonly #media = window.matchMedia('(prefers-color-scheme: dark)');
  readonly #subscription: IDisposable;

  constructor(preference: Settings['theme']) {
    this.#preference = preference;
    this.scheme = new ObservableValue<ColorScheme>(this.#resolve());
    const onSystemChange = () => this.scheme.set(this.#resolve());
    this.#media.addEventListener('change', onSystemChange);
    this.#subscription = toDisposable(() => this.#media.removeEventListener('change', onSystemChange));
    this.#apply(this.scheme.value);
    this.scheme.onDidChange((scheme) => this.#apply(scheme));
  }

  setPreference(preference: Settings['theme']): void {
    this.#preference = preference;
    this.scheme.set(this.#resolve());
  }

  #resolve(): ColorScheme {
    if (this.#preference !== 'system') return this.#preference;
    return this.#media.matches ? 'dark' : 'light';
  }

  #apply(scheme: ColorScheme): void {
    applyColorScheme(scheme);
    try {
      localStorage.setItem(lastSchemeKey, scheme);
    } catch {
      // Storage can be unavailable (privacy settings); the next start then follows the system.
    }
  }

  dispose(): void {
    this.#subscription.dispose();
    this.scheme.dispose();
  }
}
