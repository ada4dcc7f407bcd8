import { type ReactNode, useEffect, useRef } from 'react';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { keysFor, tooltipFor } from '../../app/keybindings.ts';
import { ActivityIcon, HistoryIcon, KeyboardIcon, LogoIcon, ReviewIcon, SettingsIcon, TerminalIcon } from '../../app/icons.tsx';
import { sidebarWidths, type MainView } from '../../app/workbench.ts';
import { allTerminalIds } from '../terminals/layoutModel.ts';
import { TerminalListItem } from './TerminalListItem.tsx';
import { HistoryNavIndicator } from '../history/RecordingIndicators.tsx';
import { ReviewNavBadge, useReviewNavTitle } from '../review/ReviewNavBadge.tsx';
import { RelayStatusIndicator } from '../relay/RelayIndicators.tsx';
import { WaitingForYou } from '../agents/WaitingForYou.tsx';
import { groupByRepository, RepositoryHeader, WorktreeOnlyItem } from '../workspaces/WorktreeLine.tsx';

/** The sidebar's right edge: drag to widen or narrow it, double-click for the default width. */
function SidebarResizer() {
  const workbench = useWorkbench();
  return (
    <div
      className="sidebar-resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label="Sidebar width"
      aria-valuemin={sidebarWidths.min}
      aria-valuemax={sidebarWidths.max}
      aria-valuenow={workbench.sidebar.value.width}
      title={`Drag to resize, double-click to reset; ${keysFor('sidebar.toggle')} hides the sidebar`}
      onDoubleClick={() => workbench.setSidebar({ width: sidebarWidths.default })}
      onPointerDown={(event) => {
        event.preventDefault();
        const handle = event.currentTarget;
        handle.setPointerCapture(event.pointerId);
        const startX = event.clientX;
        const startWidth = workbench.sidebar.value.width;
        const move = (moved: PointerEvent) => workbench.setSidebar({ width: startWidth + moved.clientX - startX });
        const stop = () => {
          handle.removeEventListener('pointermove', move);
          handle.removeEventListener('pointerup', stop);
          handle.removeEventListener('pointercancel', stop);
        };
        handle.addEventListener('pointermove', move);
        handle.addEventListener('pointerup', stop);
        handle.addEventListener('pointercancel', stop);
      }}
    />
  );
}

/** Navigation and the list of every terminal the Hub runs, including ones no pane shows. */
export function Sidebar() {
  const workbench = useWorkbench();
  const terminals = useObservable(workbench.terminals);
  const layout = useObservable(workbench.layout);
  const view = useObservable(workbench.view);
  const shown = new Set(allTerminalIds(layout));
  const sorted = [...terminals.values()].sort((a, b) => a.createdAt - b.createdAt);
  const running = sorted.filter((info) => info.state === 'running').length;
  // Agents in worktrees first, under their repository; the other terminals after them.
  const worktrees = useObservable(workbench.worktrees.worktrees);
  const { groups, others } = groupByRepository(sorted, worktrees);
  const reviewTitle = useReviewNavTitle();
  const listRef = useRef<HTMLUListElement>(null);
  // With more terminals than fit, keep the one being worked in visible (as the tab strip does).
  useEffect(() => {
    listRef.current?.querySelector('[data-current="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [layout.focusedTerminalId, sorted.length, view]);

  const navButton = (target: MainView, label: string, icon: ReactNode, title?: string, indicator?: ReactNode) => (
    <button
      type="button"
      className="nav-button"
      aria-current={view === target ? 'page' : undefined}
      title={title}
      onClick={() => workbench.showView(view === target && target !== 'terminals' ? 'terminals' : target)}
    >
      {icon}
      <span>{label}</span>
      {indicator}
    </button>
  );

  return (
    <nav className="sidebar" aria-label="Sidebar">
      <div className="sidebar-brand">
        <LogoIcon />
        <span className="brand-name">Switchboard</span>
        {workbench.appState.host === 'browser' && <span className="host-tag" title="Running in browser mode">browser</span>}
      </div>

      <div className="nav-group">
        {navButton('terminals', 'Terminals', <TerminalIcon />)}
        {navButton('activity', 'Activity', <ActivityIcon />, 'What agents did to terminals')}
        {navButton('history', 'History', <HistoryIcon />, tooltipFor('view.history', 'Past terminal sessions'), <HistoryNavIndicator />)}
        {navButton('review', 'Review', <ReviewIcon />, reviewTitle, <ReviewNavBadge />)}
      </div>

      <WaitingForYou />

      <div className="section-header">
        <span>Terminals</span>
        <span className="section-count" title={`${running} running, ${sorted.length - running} exited`}>
          {sorted.length > running ? `${running} running · ${sorted.length - running} exited` : running}
        </span>
      </div>
      <ul className="terminal-list" data-terminal-list aria-label="All terminals" ref={listRef}>
        {groups.map((group) => [
          <RepositoryHeader key={`repo:${group.repoRoot}`} group={group} />,
          ...group.entries.map(({ worktree, terminal }) =>
            terminal ? (
              <TerminalListItem
                key={terminal.id}
                info={terminal}
                worktree={worktree}
                shown={shown.has(terminal.id)}
                current={layout.focusedTerminalId === terminal.id && view === 'terminals'}
              />
            ) : (
              <WorktreeOnlyItem key={`worktree:${worktree.path}`} worktree={worktree} />
            ),
          ),
        ])}
        {groups.length > 0 && others.length > 0 && (
          <li className="repo-group-header" key="others">
            <span className="repo-group-name">Other terminals</span>
          </li>
        )}
        {others.map((info) => (
          <TerminalListItem
            key={info.id}
            info={info}
            shown={shown.has(info.id)}
            current={layout.focusedTerminalId === info.id && view === 'terminals'}
          />
        ))}
        {sorted.length === 0 && <li className="terminal-list-empty">No terminals yet.</li>}
      </ul>

      <div className="sidebar-footer">
        <RelayStatusIndicator />
        <button
          type="button"
          className="nav-button"
          onClick={() => workbench.dialog.set('shortcuts')}
          title={tooltipFor('view.shortcuts')}
        >
          <KeyboardIcon />
          <span>Shortcuts</span>
        </button>
        {navButton('settings', 'Settings', <SettingsIcon />, tooltipFor('view.settings'))}
      </div>
      <SidebarResizer />
    </nav>
  );
}
