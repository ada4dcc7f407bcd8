/**
 * The remote view's sidebar: which machine this is (and that it is remote), what waits for the
 * person (agents that ask or are done, pending reviews), its shared terminals with their agents'
 * states and the terminals this tab opened, and the way to its pending approvals. Views the relay cannot
 * serve (History, Activity, Settings) are not offered.
 */
import type { TerminalInfo } from '../../../src/common/api/contract.ts';
import type { RelayHubClient } from '../../../src/browser/relayHubClient.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { tooltipFor } from '../../app/keybindings.ts';
import { CloseIcon, KeyboardIcon, LogoIcon, ReviewIcon, TerminalIcon } from '../../app/icons.tsx';
import { compactPath } from '../../app/paths.ts';
import { AgentStateLine } from '../agents/AgentStateLine.tsx';
import { ServerChips } from '../servers/ServerChips.tsx';
import { StatusDot, statusText } from '../sidebar/StatusDot.tsx';
import { allTerminalIds } from '../terminals/layoutModel.ts';
import { MachineIcon } from './remoteIcons.tsx';
import { useApprovals } from './remoteClient.ts';
import { RemoteWaitingForYou } from './RemoteWaitingForYou.tsx';

export function RemoteSidebar({ client, connected }: { client: RelayHubClient | undefined; connected: boolean }) {
  const workbench = useWorkbench();
  const terminals = useObservable(workbench.terminals);
  const layout = useObservable(workbench.layout);
  const view = useObservable(workbench.view);
  const { pending } = useApprovals(client);
  const machineId = client?.machineId ?? 'remote machine';
  const shown = new Set(allTerminalIds(layout));
  const sorted = [...terminals.values()].sort((a, b) => a.createdAt - b.createdAt);
  const reviewing = view === 'review';

  return (
    <nav className="sidebar remote-sidebar" aria-label="Sidebar">
      <div className="sidebar-brand">
        <LogoIcon />
        <span className="brand-name">Switchboard</span>
        <span className="host-tag remote-tag" title="Remote view: this page reaches the machine through the relay">
          remote
        </span>
      </div>

      <div className="remote-machine" data-machine-id={machineId}>
        <MachineIcon width={18} height={18} />
        <span className="remote-machine-text">
          <span className="remote-machine-name" title={machineId}>
            {machineId}
          </span>
          <span className="remote-machine-detail">
            <span className="remote-online-dot" aria-hidden="true" />
            {connected ? 'online through the relay' : 'not connected'}
          </span>
        </span>
      </div>

      <div className="nav-group">
        <button type="button" className="nav-button" aria-current={!reviewing ? 'page' : undefined} onClick={() => workbench.showView('terminals')}>
          <TerminalIcon />
          <span>Terminals</span>
        </button>
        <button
          type="button"
          className="nav-button"
          aria-current={reviewing ? 'page' : undefined}
          title={pending.length > 0 ? `${pending.length} review${pending.length === 1 ? '' : 's'} waiting for a decision` : 'Reviews of proposed file changes'}
          onClick={() => workbench.showView(reviewing ? 'terminals' : 'review')}
        >
          <ReviewIcon />
          <span>Reviews</span>
          {pending.length > 0 && (
            <span className="remote-badge" aria-label={`${pending.length} pending`}>
              {pending.length}
            </span>
          )}
        </button>
      </div>

      <RemoteWaitingForYou client={client} />

      <div className="section-header">
        <span>Terminals on {machineId}</span>
        <span className="section-count">{sorted.length}</span>
      </div>
      <ul className="terminal-list" data-terminal-list aria-label="All terminals">
        {sorted.map((info) => (
          <RemoteTerminalItem key={info.id} info={info} shown={shown.has(info.id)} current={layout.focusedTerminalId === info.id && !reviewing} />
        ))}
        {sorted.length === 0 && (
          <li className="terminal-list-empty">
            No shared terminals. Start one with <strong>+</strong>, or share a pane on {machineId}.
          </li>
        )}
      </ul>

      <div className="sidebar-footer">
        <button type="button" className="nav-button" onClick={() => workbench.dialog.set('shortcuts')} title={tooltipFor('view.shortcuts')}>
          <KeyboardIcon />
          <span>Shortcuts</span>
        </button>
      </div>
    </nav>
  );
}

/** One terminal of the machine: click shows it; the cross ends it (on the machine too). */
function RemoteTerminalItem({ info, shown, current }: { info: TerminalInfo; shown: boolean; current: boolean }) {
  const workbench = useWorkbench();
  const exited = info.state === 'exited';
  // Terminals this tab started are "yours"; the rest are the machine's own panes it shares.
  const yours = info.createdBy.name === 'you';
  const agent = info.agent ?? null;
  return (
    <li
      className="terminal-item"
      data-terminal-item={info.id}
      data-current={current}
      data-shown={shown}
      data-state={info.state}
      data-opened-here={yours || undefined}
      data-agent-state={agent?.state}
    >
      <button
        type="button"
        className="terminal-item-main"
        aria-current={current || undefined}
        title={`${statusText(info)} — ${info.cwd}${shown ? '' : ' (not open in a tab)'}`}
        onClick={() => workbench.revealTerminal(info.id)}
      >
        <StatusDot info={info} />
        <span className="terminal-item-text">
          <span className="terminal-item-name">
            <span className="name-text">{info.name}</span>
            {yours && (
              <span className="creator-tag remote-here-tag" title="Started from this browser tab">
                here
              </span>
            )}
          </span>
          {agent && <AgentStateLine agent={agent} />}
          <span className="terminal-item-detail">{compactPath(info.cwd || '—', 26)}</span>
        </span>
        {exited && (
          <span className="exit-pill" data-failed={info.exitCode !== 0 || info.signal !== null} title={statusText(info)}>
            {info.signal ? info.signal : `exit ${info.exitCode ?? '?'}`}
          </span>
        )}
      </button>
      <button
        type="button"
        className="terminal-item-end"
        aria-label={exited ? `Remove ${info.name}` : `End ${info.name}`}
        title={exited ? 'Remove from the list' : 'End this terminal (on the machine too)'}
        onClick={() => workbench.requestClose([info.id])}
      >
        <CloseIcon width={12} height={12} />
      </button>
      {/* The pane's dev servers: each opens its preview through the relay in a new tab (relayHubClient.ts). */}
      {!exited && <ServerChips servers={info.servers} where="sidebar" />}
    </li>
  );
}
