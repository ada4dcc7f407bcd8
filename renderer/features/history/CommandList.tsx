import { useCallback } from 'react';
import type { HistoryCommand, HistoryFilter } from '../../../src/common/api/historyContract.ts';
import { AgentIcon, RestartIcon } from '../../app/icons.tsx';
import { compactPath, shortenPath } from '../../app/paths.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { runCommandAgain } from './historyActions.ts';
import { HistoryUiConstants } from './historyConstants.ts';
import { ExitPill } from './historyBits.tsx';
import { commandDuration, commandExitStatus, formatDuration, formatStart } from './historyFormat.ts';
import { onListKeyDown } from './historyHooks.ts';
import { usePagedHistory } from './usePagedHistory.ts';
import { type HistorySelection, SelectBox } from './HistorySelection.tsx';


/** Every recorded command, newest first, like a shell's history with exit codes; searchable by command line. */
export function CommandList({
  query,
  filter,
  filtered,
  onOpen,
  onReference,
  selection,
}: {
  query: string;
  /** Commands picked to hand to an agent together. */
  selection: HistorySelection;
  filter: HistoryFilter | undefined;
  filtered: boolean;
  /** Open the command's session at the command. */
  onOpen(command: HistoryCommand): void;
  onReference(command: HistoryCommand): void;
}) {
  const workbench = useWorkbench();
  const fetchPage = useCallback(
    async (limit: number, before: number | undefined) =>
      (
        await workbench.client.call('history.commands', {
          limit,
          ...(before !== undefined ? { before } : {}),
          ...(query ? { query } : {}),
          ...(filter ? { filter } : {}),
        })
      ).commands,
    [workbench, query, filter],
  );
  const { list, loadingMore, loadMore } = usePagedHistory({
    fetchPage,
    key: (command: HistoryCommand) => command.id,
    pageSize: HistoryUiConstants.commandsPageSize,
    maxRefresh: HistoryUiConstants.maxCommandsRefresh,
    what: 'commands',
  });

  if (list.kind === 'loading') return <p className="history-status-line">Loading commands…</p>;
  if (list.kind === 'failed') {
    return (
      <p className="history-status-line" role="alert">
        Could not load the commands: {list.message}
      </p>
    );
  }
  if (list.items.length === 0) {
    return (
      <p className="history-status-line">
        {query
          ? `No command matches “${query}”.`
          : filtered
            ? 'No command matches these filters.'
            : 'No commands recorded yet. Commands are recorded from shells with shell integration (bash, zsh, fish).'}
      </p>
    );
  }

  const now = Date.now();
  const homeDir = workbench.appState.homeDir;
  return (
    <>
      <table className="history-table history-commands" aria-label="Commands">
        <thead>
          <tr>
            <th scope="col">Command</th>
            <th scope="col">Exit</th>
            <th scope="col" className="numeric">
              Duration
            </th>
            <th scope="col">Folder</th>
            <th scope="col">When</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody onKeyDown={onListKeyDown}>
          {list.items.map((command, index) => {
            const duration = commandDuration(command);
            return (
              <tr key={command.id} data-command-id={command.id} onClick={() => onOpen(command)}>
                <td className="history-command-cell">
                  <div className="history-cell-row">
                    <SelectBox
                      selection={selection}
                      subject={{ sessionId: command.sessionId, sessionName: command.sessionName, commandId: command.id, commandLine: command.commandLine }}
                      label={`Select ${command.commandLine}`}
                    />
                    <button
                      type="button"
                      className="history-row-open history-command-line"
                      data-list-item
                      tabIndex={index === 0 ? 0 : -1}
                      title={`${command.commandLine}\nOpen the session at this command`}
                      onClick={(event) => {
                        event.stopPropagation();
                        onOpen(command);
                      }}
                    >
                      <code>{command.commandLine}</code>
                      <span className="history-session-program">in {command.sessionName}</span>
                    </button>
                  </div>
                </td>
                <td>
                  <ExitPill status={commandExitStatus(command)} />
                </td>
                <td className="numeric history-time">{duration === null ? '—' : formatDuration(duration)}</td>
                <td className="history-folder path-cut-at-start" title={command.cwd ?? undefined}>
                  {command.cwd ? compactPath(shortenPath(command.cwd, homeDir), 28) : '—'}
                </td>
                <td className="history-time" title={new Date(command.startedAt).toLocaleString()}>
                  {formatStart(command.startedAt, now)}
                </td>
                <td className="history-row-actions">
                  <button
                    type="button"
                    className="row-action-button"
                    aria-label={`Run again: ${command.commandLine}`}
                    title="Run again in a new terminal (typed at the prompt; press Enter to run it)"
                    onClick={(event) => {
                      event.stopPropagation();
                      void runCommandAgain(workbench, command);
                    }}
                  >
                    <RestartIcon width={13} height={13} />
                    <span>Run again</span>
                  </button>
                  <button
                    type="button"
                    className="row-action-button"
                    aria-label={`Reference in agent: ${command.commandLine}`}
                    title="Give this command and its output to an agent running in a terminal"
                    onClick={(event) => {
                      event.stopPropagation();
                      onReference(command);
                    }}
                  >
                    <AgentIcon width={13} height={13} />
                    <span>Reference</span>
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
            {loadingMore ? 'Loading…' : 'Load older commands'}
          </button>
        </div>
      )}
    </>
  );
}
