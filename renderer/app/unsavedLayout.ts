/**
 * The window's layout change the Hub has not confirmed yet. It is kept for the whole window rather
 * than per Workbench because a reconnect replaces the Workbench: a split made just before the
 * connection dropped — its save still waiting out the debounce, or lost in the closing socket —
 * would otherwise be undone by the Hub's older layout when the window comes back.
 */
import type { Layout } from '../../src/common/api/contract.ts';

export class UnsavedLayout {
  #layout: Layout | undefined;
  /** The layout the Hub holds as far as this window knows (JSON): what the unsaved change was made on. */
  #hubHolds = 'null';

  /** This window changed its layout; the change is unsaved until the Hub holds it. */
  noteChanged(layout: Layout): void {
    this.#layout = layout;
  }

  /** The Hub holds `layout`: loaded from it, confirmed by it, or announced by it after another window's change. */
  noteHubHolds(layout: Layout | null): void {
    this.#hubHolds = JSON.stringify(layout);
    if (this.#layout !== undefined && JSON.stringify(this.#layout) === this.#hubHolds) this.#layout = undefined;
  }

  /**
   * The unsaved change, taken, when the Hub still holds the layout it was made on. When the Hub's
   * layout is another one (another window changed it meanwhile, or the Hub restarted with new
   * panes), the Hub's is newer and the unsaved change is dropped.
   */
  takeIfHubHolds(hubLayout: Layout | null): Layout | undefined {
    const layout = this.#layout;
    this.#layout = undefined;
    return layout !== undefined && JSON.stringify(hubLayout) === this.#hubHolds ? layout : undefined;
  }
}
