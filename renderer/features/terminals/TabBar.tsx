import { useEffect, useRef, useState } from 'react';
import type { TerminalInfo } from '../../../src/common/api/contract.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { tooltipFor } from '../../app/keybindings.ts';
import { CloseIcon, FolderIcon, NewAgentIcon, SidebarIcon, PlusIcon, SplitDownIcon, SplitRightIcon, TrashIcon } from '../../app/icons.tsx';
import { terminalIdsOf, type LayoutTab } from './layoutModel.ts';
import { StatusDot } from '../sidebar/StatusDot.tsx';
import { RenameField } from './RenameField.tsx';
import { NotRecordedMark, RecordingToggle } from '../history/RecordingIndicators.tsx';
import { RunAndHandButton } from '../history/RunAndHandDialog.tsx';
import { RelayShareToggle, SharedMark } from '../relay/RelayIndicators.tsx';

/** The tab strip and the actions on the focused pane. */
export function TabBar() {
  const workbench = useWorkbench();
  const layout = useObservable(workbench.layout);
  const terminals = useObservable(workbench.terminals);
  const hasFocusedPane = workbench.focusedTerminalId !== null;
  const activeTabId = layout.tabs.some((tab) => tab.id === layout.activeTabId) ? layout.activeTabId : layout.tabs[0]?.id;

  const sidebarHidden = useObservable(workbench.sidebar).hidden;
  const listRef = useRef<HTMLDivElement>(null);
  // Tabs keep a readable width and the strip scrolls: bring the active tab into view.
  useEffect(() => {
    listRef.current?.querySelector('.tab[data-active="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [activeTabId, layout.tabs.length]);
  // And when the strip narrows (a smaller window, the sidebar widened), the active tab stays in view.
  useEffect(() => {
    const list = listRef.current;
    if (!list) return;
    let width = list.clientWidth;
    const observer = new ResizeObserver(() => {
      if (list.clientWidth === width) return;
      width = list.clientWidth;
      list.querySelector('.tab[data-active="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    });
    observer.observe(list);
    return () => observer.disconnect();
  }, []);

  return (
    <div className="tab-bar">
      {sidebarHidden && (
        <button type="button" className="icon-button show-sidebar" aria-label="Show sidebar" title={tooltipFor('sidebar.toggle', 'Show the sidebar')} onClick={() => workbench.runCommand('sidebar.toggle')}>
          <SidebarIcon />
        </button>
      )}
      <div
        ref={listRef}
        className="tab-list"
        role="tablist"
        aria-label="Terminal tabs"
        onWheel={(event) => {
          // A mouse wheel scrolls the strip sideways (a vertical wheel cannot otherwise).
          if (event.deltaY !== 0 && Math.abs(event.deltaX) < Math.abs(event.deltaY)) event.currentTarget.scrollLeft += event.deltaY;
        }}
      >
        {layout.tabs.map((tab, index) => (
          <TabItem
            key={tab.id}
            index={index}
            tab={tab}
            active={tab.id === activeTabId}
            focusedTerminalId={layout.focusedTerminalId}
            terminals={terminals}
          />
        ))}
      </div>
      <div className="tab-actions">
        <button
          type="button"
          className="icon-button tab-add"
          aria-label="New terminal"
          title={tooltipFor('terminal.new')}
          onClick={() => void workbench.newTerminal({ takeKeys: true })}
        >
          <PlusIcon />
        </button>
        <button
          type="button"
          className="icon-button tab-add-folder"
          aria-label="Choose folder"
          title={tooltipFor('terminal.newInFolder')}
          onClick={() => workbench.dialog.set('newTerminal')}
        >
          <FolderIcon width={15} height={15} />
        </button>
        {workbench.appState.host !== 'remote' && (
          <button type="button" className="icon-button tab-add-agent" aria-label="New agent…" title={tooltipFor('agent.new')} onClick={() => workbench.runCommand('agent.new')}>
            <NewAgentIcon />
          </button>
        )}
      </div>
      <div className="pane-actions" role="toolbar" aria-label="Pane actions">
        <RecordingToggle terminalId={workbench.focusedTerminalId} />
        <RelayShareToggle terminalId={workbench.focusedTerminalId} />
        <RunAndHandButton />
        <button
          type="button"
          className="icon-button"
          aria-label="Split right"
          title={tooltipFor('terminal.splitRight')}
          onClick={() => void workbench.splitFocused('right')}
        >
          <SplitRightIcon />
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label="Split down"
          title={tooltipFor('terminal.splitDown')}
          onClick={() => void workbench.splitFocused('down')}
        >
          <SplitDownIcon />
        </button>
        <button
          type="button"
          className="icon-button danger"
          aria-label="Close terminal"
          title={tooltipFor('terminal.close')}
          disabled={!hasFocusedPane}
          onClick={() => workbench.focusedTerminalId && workbench.requestClose([workbench.focusedTerminalId])}
        >
          <TrashIcon />
        </button>
      </div>
    </div>
  );
}

/** Drag data type for reordering tabs; other drags (files, text) are not tabs. */
const tabDragType = 'application/x-switchboard-tab';

function TabItem({
  index,
  tab,
  active,
  focusedTerminalId,
  terminals,
}: {
  index: number;
  tab: LayoutTab;
  active: boolean;
  focusedTerminalId: string | null;
  terminals: ReadonlyMap<string, TerminalInfo>;
}) {
  const workbench = useWorkbench();
  const ids = terminalIdsOf(tab.root);
  const shownId = active && focusedTerminalId && ids.includes(focusedTerminalId) ? focusedTerminalId : ids[0];
  const shown = shownId ? terminals.get(shownId) : undefined;
  const title = tab.title ?? shown?.name ?? 'Terminal';
  const infos = ids.map((id) => terminals.get(id)).filter((info): info is TerminalInfo => info !== undefined);
  const attention = infos.some((info) => info.needsAttention || info.agent?.state === 'needs-input');
  const failed = infos.some((info) => info.state === 'exited' && info.exitCode !== 0);

  const [dropTarget, setDropTarget] = useState(false);
  const renamingId = useObservable(workbench.renamingTerminalId);
  const renamingInTab = useObservable(workbench.renamingInTab);
  const renaming = renamingInTab && shown !== undefined && renamingId === shown.id;

  return (
    <div
      className="tab"
      data-active={active}
      data-drop-target={dropTarget || undefined}
      draggable={!renaming}
      onDragStart={(event) => {
        event.dataTransfer.setData(tabDragType, tab.id);
        event.dataTransfer.effectAllowed = 'move';
      }}
      onDragOver={(event) => {
        if (!event.dataTransfer.types.includes(tabDragType)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'move';
        setDropTarget(true);
      }}
      onDragLeave={() => setDropTarget(false)}
      onDrop={(event) => {
        setDropTarget(false);
        const draggedId = event.dataTransfer.getData(tabDragType);
        if (!draggedId || draggedId === tab.id) return;
        event.preventDefault();
        workbench.moveTab(draggedId, index);
      }}
    >
      {renaming && shown ? (
        <div className="tab-rename">
          <RenameField info={shown} />
        </div>
      ) : (
        <button
          type="button"
          role="tab"
          id={`tab-${tab.id}`}
          aria-selected={active}
          aria-controls={`tabpanel-${tab.id}`}
          className="tab-button"
          title={shown ? `${shown.name} — ${shown.cwd}` : title}
          onClick={() => workbench.selectTab(tab.id)}
          onDoubleClick={() => shown && workbench.startRename(shown.id, 'tab')}
          onAuxClick={(event) => {
            if (event.button === 1) workbench.closeTab(tab.id);
          }}
        >
          {shown && <StatusDot info={shown} attention={attention} failed={failed} />}
          <span className="tab-title">{title}</span>
          <NotRecordedMark terminalIds={ids} />
          <SharedMark terminalIds={ids} />
          {ids.length > 1 && <span className="tab-count" aria-label={`${ids.length} panes`}>{ids.length}</span>}
        </button>
      )}
      <button
        type="button"
        className="tab-close"
        aria-label={`Close tab ${title}`}
        title={ids.length > 1 ? `Close ${title} and the tab's other ${ids.length - 1 === 1 ? 'pane' : `${ids.length - 1} panes`} (ends their terminals)` : `Close ${title} (ends its terminal)`}
        onClick={() => workbench.closeTab(tab.id)}
      >
        <CloseIcon width={12} height={12} />
      </button>
    </div>
  );
}
