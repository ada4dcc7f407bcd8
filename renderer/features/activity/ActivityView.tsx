import { useMemo, useState } from 'react';
import type { AuditEntry } from '../../../src/common/api/contract.ts';
import { ActivityIcon } from '../../app/icons.tsx';
import { useObservable } from '../../app/observable.ts';
import { ViewPage } from '../../app/ViewPage.tsx';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { TaskList } from './TaskList.tsx';

const allValue = '';

/** The tasks agents hand each other, then the agents' audit log; newest first, live, the log filterable by agent and by terminal. */
export function ActivityView() {
  const workbench = useWorkbench();
  const entries = useObservable(workbench.activity.entries);
  const tasks = useObservable(workbench.activity.tasks);
  const terminals = useObservable(workbench.terminals);
  const [peer, setPeer] = useState(allValue);
  const [terminalId, setTerminalId] = useState(allValue);

  const peers = useMemo(() => [...new Set(entries.map((entry) => entry.peer))].sort((a, b) => a.localeCompare(b)), [entries]);
  const terminalChoices = useMemo(() => {
    const names = new Map<string, string>();
    for (const entry of entries) {
      if (entry.terminalId && !names.has(entry.terminalId)) names.set(entry.terminalId, terminalLabel(entry, terminals.get(entry.terminalId)?.name));
    }
    return [...names].sort((a, b) => a[1].localeCompare(b[1]));
  }, [entries, terminals]);
  const shown = entries.filter((entry) => (peer === allValue || entry.peer === peer) && (terminalId === allValue || entry.terminalId === terminalId));

  return (
    <ViewPage label="Activity" title="Activity" description="What agents did to terminals through the control socket, and the tasks they handed each other, newest first.">
      {tasks.length > 0 && <TaskList tasks={tasks} />}
      {entries.length === 0 && tasks.length > 0 ? (
        <p className="activity-none-yet">No agent has acted on a terminal yet.</p>
      ) : entries.length === 0 ? (
        <div className="empty-state">
          <ActivityIcon width={28} height={28} />
          <p className="empty-title">No agent activity yet</p>
          <p>
            When an agent creates a terminal, types into one, runs a command, signals or closes it through the control socket
            (<code>switchboard</code> CLI, MCP or a claws client), it is listed here as it happens, and so are the tasks an
            orchestrator assigns to its workers (claws' <code>task.assign</code>).
          </p>
        </div>
      ) : (
        <>
          {tasks.length > 0 && <h2 className="activity-section-title">Terminal actions</h2>}
          <div className="activity-filters" role="group" aria-label="Filter activity">
            <label className="activity-filter">
              <span>Agent</span>
              <select value={peer} onChange={(event) => setPeer(event.target.value)} aria-label="Filter by agent">
                <option value={allValue}>All agents</option>
                {peers.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </label>
            <label className="activity-filter">
              <span>Terminal</span>
              <select value={terminalId} onChange={(event) => setTerminalId(event.target.value)} aria-label="Filter by terminal">
                <option value={allValue}>All terminals</option>
                {terminalChoices.map(([id, label]) => (
                  <option key={id} value={id}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            <span className="activity-count" aria-live="polite">
              {shown.length === entries.length ? `${entries.length} ${entries.length === 1 ? 'action' : 'actions'}` : `${shown.length} of ${entries.length}`}
            </span>
          </div>
          <table className="activity-table" aria-label="Agent activity">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Agent</th>
                <th scope="col">Action</th>
                <th scope="col">Terminal</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((entry) => (
                <ActivityRow key={entry.seq} entry={entry} />
              ))}
              {shown.length === 0 && (
                <tr>
                  <td colSpan={5} className="activity-none">
                    Nothing matches these filters.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </>
      )}
    </ViewPage>
  );
}

function ActivityRow({ entry }: { entry: AuditEntry }) {
  const workbench = useWorkbench();
  const live = useObservable(workbench.terminals).get(entry.terminalId ?? '');
  const at = new Date(entry.at);
  return (
    <tr data-audit-seq={entry.seq} data-cmd={entry.cmd}>
      <td className="activity-time" title={at.toLocaleString()}>
        {activityTime(at)}
      </td>
      <td className="activity-peer">{entry.peer}</td>
      <td>
        <span className="activity-cmd" data-cmd={entry.cmd}>
          {entry.cmd}
        </span>
      </td>
      <td className="activity-terminal">
        {live ? (
          <button type="button" className="link-button" title="Show this terminal" onClick={() => workbench.revealTerminal(live.id)}>
            {live.name}
          </button>
        ) : (
          <span className="activity-gone" title="This terminal has been closed">
            {terminalLabel(entry, undefined)}
          </span>
        )}
      </td>
      <td className="activity-summary" title={entry.summary}>
        {/* Typed input ends with Enter, escaped as \r in the log: show it as the key. */}
        <code>{entry.summary.replace(/\\r$/, ' ⏎')}</code>
      </td>
    </tr>
  );
}

function terminalLabel(entry: AuditEntry, liveName: string | undefined): string {
  return liveName ?? entry.terminalName ?? entry.terminalId ?? '—';
}

/**
 * Today's entries show their time; entries kept from an earlier day (the log outlives restarts)
 * show the day instead, which fits the same column (the tooltip has both).
 */
function activityTime(at: Date): string {
  if (at.toDateString() !== new Date().toDateString()) return at.toLocaleDateString([], { month: 'short', day: 'numeric' });
  return at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}
