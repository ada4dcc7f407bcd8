import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { tooltipFor } from '../../app/keybindings.ts';
import { TerminalIcon } from '../../app/icons.tsx';
import { TabBar } from './TabBar.tsx';
import { LayoutNodeView } from './SplitView.tsx';

/**
 * Tabs and their split panes. Every tab stays mounted (inactive ones are hidden but keep their
 * size), so switching tabs never re-creates a terminal or loses a pane's scroll position.
 */
export function TerminalWorkspace({ hidden }: { hidden: boolean }) {
  const workbench = useWorkbench();
  const layout = useObservable(workbench.layout);
  const ready = useObservable(workbench.ready);
  const activeTabId = layout.tabs.some((tab) => tab.id === layout.activeTabId) ? layout.activeTabId : layout.tabs[0]?.id;

  return (
    <section className="workspace" aria-label="Terminals" aria-hidden={hidden || undefined} inert={hidden}>
      <TabBar />
      <div className="tab-panels">
        {layout.tabs.map((tab) => {
          const active = tab.id === activeTabId;
          return (
            <div
              key={tab.id}
              id={`tabpanel-${tab.id}`}
              role="tabpanel"
              aria-labelledby={`tab-${tab.id}`}
              className="tab-panel"
              data-tab-panel
              data-active={active}
              inert={!active}
            >
              <LayoutNodeView node={tab.root} tabId={tab.id} path={[]} tabActive={active} />
            </div>
          );
        })}
        {ready && layout.tabs.length === 0 && (
          <div className="empty-workspace">
            <TerminalIcon width={32} height={32} />
            <p>No terminals open.</p>
            <button type="button" className="primary-button" onClick={() => void workbench.newTerminal({ takeKeys: true })} title={tooltipFor('terminal.new')}>
              Start a terminal
            </button>
            <p className="hint">Running terminals stay listed on the left; click one to show it here.</p>
          </div>
        )}
        {!ready && <div className="workspace-loading" aria-busy="true" />}
      </div>
    </section>
  );
}
