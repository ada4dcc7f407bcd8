import { toDisposable, type IDisposable } from '../../src/common/lifecycle.ts';
import type { Workbench } from './workbench.ts';

/**
 * A read-only window for end-to-end tests: the text of a pane's screen (from the xterm buffer,
 * so it works with the WebGL and the DOM renderer alike) and whether the layout reached the Hub.
 * It exposes nothing the user cannot already see and changes nothing.
 */
export interface SwitchboardTestHook {
  /** The visible screen of the pane showing `terminalId`, or null when no pane shows it. */
  readPane(terminalId: string): string | null;
  /** Every line of that pane's buffer, scrollback and screen (wrapped lines joined), trailing blanks trimmed; null when no pane shows it. */
  readPaneBuffer(terminalId: string): string[] | null;
  /** Terminal ids with a live pane session. */
  paneIds(): string[];
  /** True when the latest layout change has been saved by the Hub. */
  isLayoutSaved(): boolean;
  /** The screen of the History view's session viewer, or null when no session is open. */
  readHistoryViewer(): string | null;
}

declare global {
  interface Window {
    __switchboardTest?: SwitchboardTestHook;
  }
}

export function installTestHook(workbench: Workbench): IDisposable {
  const hook: SwitchboardTestHook = {
    readPane: (terminalId) => workbench.sessions.get(terminalId)?.readScreen() ?? null,
    readPaneBuffer: (terminalId) => workbench.sessions.get(terminalId)?.readBuffer() ?? null,
    paneIds: () => workbench.sessions.terminalIds,
    isLayoutSaved: () => workbench.isLayoutSaved,
    readHistoryViewer: () => workbench.history.activeViewer?.readScreen() ?? null,
  };
  window.__switchboardTest = hook;
  return toDisposable(() => {
    if (window.__switchboardTest === hook) delete window.__switchboardTest;
  });
}
