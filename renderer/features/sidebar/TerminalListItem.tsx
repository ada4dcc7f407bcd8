import type { TerminalInfo } from '../../../src/common/api/contract.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { CloseIcon } from '../../app/icons.tsx';
import { compactPath, shortenPath } from '../../app/paths.ts';
import { StatusDot, statusText } from './StatusDot.tsx';
import { AgentStateLine } from '../agents/AgentStateLine.tsx';
import { creatorText, viaText } from '../activity/AgentInputLine.tsx';
import type { WorktreeInfo } from '../../../src/common/api/workspaceContract.ts';
import { WorktreeLine } from '../workspaces/WorktreeLine.tsx';
import { ServerChips } from '../servers/ServerChips.tsx';
import { RenameField } from '../terminals/RenameField.tsx';

/** One terminal in the sidebar: click shows it, double-click or F2 renames it. */
export function TerminalListItem({ info, shown, current, worktree }: { info: TerminalInfo; shown: boolean; current: boolean; worktree?: WorktreeInfo | undefined }) {
  const workbench = useWorkbench();
  const renamingId = useObservable(workbench.renamingTerminalId);
  const renamingInTab = useObservable(workbench.renamingInTab);
  const renaming = renamingId === info.id && !renamingInTab;
  const homeDir = workbench.appState.homeDir;
  const exited = info.state === 'exited';
  const failed = exited && (info.exitCode !== 0 || info.signal !== null);
  // Started over the control socket or from a remote view rather than in this window: say through what.
  const byOther = info.createdBy.kind !== 'person';
  const agent = info.agent ?? null;
  const agentRuns = agent !== null && agent.state !== 'exited';

  return (
    <li
      className="terminal-item"
      data-terminal-item={info.id}
      data-current={current}
      data-shown={shown}
      data-state={info.state}
      data-created-by={info.createdBy.kind}
      data-agent-state={agent?.state}
    >
      {renaming ? (
        <RenameField info={info} />
      ) : (
        <button
          type="button"
          className="terminal-item-main"
          aria-current={current || undefined}
          title={`${statusText(info)} — ${info.cwd}${shown ? '' : ' (not open in a tab)'}\nDouble-click or F2 to rename`}
          onClick={() => workbench.revealTerminal(info.id)}
          onDoubleClick={() => workbench.startRename(info.id, 'sidebar')}
          onKeyDown={(event) => {
            if (event.key === 'F2' && !event.ctrlKey && !event.shiftKey) {
              event.preventDefault();
              workbench.startRename(info.id, 'sidebar');
            } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
              event.preventDefault();
              moveListFocus(event.currentTarget, event.key === 'ArrowDown' ? 1 : -1);
            }
          }}
        >
          <StatusDot info={info} />
          <span className="terminal-item-text">
            <span className="terminal-item-name">
              <span className="name-text">{info.name}</span>
            </span>
            {agent && <AgentStateLine agent={agent} />}
            {/* An agent in a worktree: its branch (below) says where it works better than the path. */}
            {(!worktree || byOther) && (
              <span className="terminal-item-detail">
                {byOther && (
                  <span className="creator-name" title={`Started ${creatorText(info.createdBy)}`}>
                    {viaText(info.createdBy)}
                  </span>
                )}
                {!worktree && compactPath(shortenPath(info.cwd, homeDir), byOther ? 16 : 24)}
              </span>
            )}
            {/* An agent's row shows the agent (above) instead of the command that started it. */}
            {info.runningCommand && !exited && !agentRuns && <span className="terminal-item-command">{info.runningCommand}</span>}
            {!info.runningCommand && !exited && !agentRuns && info.lastCommand && info.lastCommand.exitCode !== null && (
              <LastCommand commandLine={info.lastCommand.commandLine} exitCode={info.lastCommand.exitCode} />
            )}
          </span>
          {info.needsAttention && (
            <span className="attention-badge" title="Needs attention (bell)">
              bell
            </span>
          )}
          {exited && (
            <span className="exit-pill" data-failed={failed} title={statusText(info)}>
              {info.signal ? info.signal : `exit ${info.exitCode ?? '?'}`}
            </span>
          )}
        </button>
      )}
      {!renaming && (
        <button
          type="button"
          className="terminal-item-end"
          aria-label={exited ? `Remove ${info.name}` : `End ${info.name}`}
          title={exited ? 'Remove from the list' : 'End this terminal'}
          onClick={() => workbench.requestClose([info.id])}
        >
          <CloseIcon width={12} height={12} />
        </button>
      )}
      {/* Links of their own, beside the row's button (a link inside a button is not clickable on its own). */}
      {!renaming && !exited && <ServerChips servers={info.servers} where="sidebar" />}
      {worktree && <WorktreeLine worktree={worktree} />}
    </li>
  );
}

/** The command that ran last and how it ended: ✓, or ✗ with its exit code. */
function LastCommand({ commandLine, exitCode }: { commandLine: string; exitCode: number }) {
  const failed = exitCode !== 0;
  return (
    <span className="terminal-item-last" data-failed={failed} title={`${commandLine} — ${failed ? `exit code ${exitCode}` : 'succeeded'}`}>
      <span className="last-mark" aria-label={failed ? `failed with exit code ${exitCode}` : 'succeeded'}>
        {failed ? `✗ ${exitCode}` : '✓'}
      </span>{' '}
      {commandLine}
    </span>
  );
}

function moveListFocus(from: HTMLElement, step: 1 | -1): void {
  const buttons = [...(from.closest('[data-terminal-list]')?.querySelectorAll<HTMLElement>('.terminal-item-main') ?? [])];
  const index = buttons.indexOf(from);
  buttons[index + step]?.focus();
}
