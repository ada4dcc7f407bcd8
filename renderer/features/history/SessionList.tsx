import { useCallback } from 'react';
import type { HistoryFilter, HistorySession } from '../../../src/common/api/historyContract.ts';
import { TrashIcon } from '../../app/icons.tsx';
import { compactPath, shortenPath } from '../../app/paths.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { HistoryUiConstants } from './historyConstants.ts';
import { CreatorTag, ExitPill } from './historyBits.tsx';
import { formatBytes, formatDuration, formatStart, programLine, sessionDuration, sessionExitStatus } from './historyFormat.ts';
import { onListKeyDown } from './historyHooks.ts';
import { usePagedHistory } from './usePagedHistory.ts';
import { type HistorySelection, SelectBox } from './HistorySelection.tsx';


/** Recorded sessions, newest first, a page at a time; refreshed when the Hub reports a change. */
export function SessionList({
  filter,
  filtered,
  onOpen,
  onDelete,
  selection,
}: {
  filter: HistoryFilter | undefined;
  /** Whether any filter is set (for the empty message). */
  filtered: boolean;
  /** Sessions picked to hand to an agent together. */
  selection: HistorySelection;
  onOpen(session: HistorySession): void;
  onDelete(session: HistorySession): void;
}) {
  const workbench = useWorkbench();
  const fetchPage = useCallback(
    async (limit: number, before: number | undefined) =>
      (await workbench.client.call('history.list', { limit, ...(before !== undefined ? { before } : {}), ...(filter ? { filter } : {}) })).sessions,
    [workbench, filter],
  );
  const { list, loadingMore, loadMore } = usePagedHistory({
    fetchPage,
    key: (session: HistorySession) => session.id,
    pageSize: HistoryUiConstants.sessionsPageSize,
    maxRefresh: HistoryUiConstants.maxSessionsRefresh,
    what: 'sessions',
  });

  if (list.kind === 'loading') return <p className="history-status-line">Loading sessions…</p>;
  if (list.kind === 'failed') {
    return (
      <p className="history-status-line" role="alert">
        Could not load the sessions: {list.message}
      </p>
    );
  }
  if (list.items.length === 0) {
    return (
      <p className="history-status-line">
        {filtered ? 'No session matches these filters.' : 'No sessions recorded yet. Every terminal you or an agent opens is recorded here.'}
      </p>
    );
  }

  const now = Date.now();
  const homeDir = workbench.appState.homeDir;
  return (
    <>
      <table className="history-table history-sessions" aria-label="Sessions">
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Folder</th>
            <th scope="col">Started by</th>
            <th scope="col">Started</th>
            <th scope="col" className="numeric">
              Duration
            </th>
            <th scope="col">Exit</th>
            <th scope="col" className="numeric">
              Size
            </th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody onKeyDown={onListKeyDown}>
          {list.items.map((session, index) => {
            const duration = sessionDuration(session, now);
            return (
              <tr key={session.id} data-session-id={session.id} data-live={session.live || undefined} onClick={() => onOpen(session)}>
                <td className="history-session-cell">
                  <div className="history-cell-row">
                    <SelectBox selection={selection} subject={{ sessionId: session.id, sessionName: session.name }} label={`Select ${session.name}`} />
                    <button
                      type="button"
                      className="history-row-open"
                      data-list-item
                      // One tab stop for the list; the arrow keys move within it.
                      tabIndex={index === 0 ? 0 : -1}
                      title={`Open ${session.name}`}
                      onClick={(event) => {
                        event.stopPropagation();
                        onOpen(session);
                      }}
                      onKeyDown={(event) => {
                        if (event.key === 'Delete') {
                          event.preventDefault();
                          onDelete(session);
                        }
                      }}
                    >
                      <span className="history-session-name">{session.name}</span>
                      <span className="history-session-program">
                        {session.source === 'imported' ? 'imported cast' : programLine(session)}
                        {session.commandCount > 0 && ` · ${session.commandCount} ${session.commandCount === 1 ? 'command' : 'commands'}`}
                      </span>
                    </button>
                  </div>
                </td>
                <td className="history-folder path-cut-at-start" title={session.cwd ?? undefined}>
                  {session.cwd ? compactPath(shortenPath(session.cwd, homeDir), 32) : '—'}
                </td>
                <td>
                  <CreatorTag creator={session.createdBy} />
                </td>
                <td className="history-time" title={new Date(session.startedAt).toLocaleString()}>
                  {formatStart(session.startedAt, now)}
                </td>
                <td className="numeric history-time">{duration === null ? '—' : formatDuration(duration)}</td>
                <td>
                  <ExitPill status={sessionExitStatus(session)} />
                </td>
                <td className="numeric history-size">
                  {formatBytes(session.byteCount)}
                  {session.truncated && (
                    <span className="history-truncated" title="Older output was dropped by the per-session size cap; the newest is kept">
                      truncated
                    </span>
                  )}
                </td>
                <td className="history-row-actions">
                  <button
                    type="button"
                    className="icon-button small danger"
                    tabIndex={-1}
                    aria-label={`Delete ${session.name}`}
                    title="Delete this session (Delete)"
                    onClick={(event) => {
                      event.stopPropagation();
                      onDelete(session);
                    }}
                  >
                    <TrashIcon width={14} height={14} />
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {list.more && (
        <div className="history-more">
          <button type="button" className="secondary-button" disabled={loadingMore} onClick={() => void loadMore()}>
            {loadingMore ? 'Loading…' : 'Load older sessions'}
          </button>
        </div>
      )}
    </>
  );
}
