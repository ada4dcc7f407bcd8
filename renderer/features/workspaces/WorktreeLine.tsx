/**
 * The sidebar's view of agents' worktrees: agent panes grouped under their repository, each with
 * its branch, commits ahead of its base and changed files (+/−), kept live from the Hub's
 * `worktree.changed` events; and a worktree whose agent no longer runs, so its work can still be
 * looked at and finished.
 */
import type { TerminalInfo } from '../../../src/common/api/contract.ts';
import type { WorktreeInfo } from '../../../src/common/api/workspaceContract.ts';
import { BranchIcon } from '../../app/icons.tsx';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import './workspaces.css';

export interface RepositoryGroup {
  repoRoot: string;
  /** The repository folder's name, as people call it. */
  name: string;
  entries: Array<{ worktree: WorktreeInfo; terminal: TerminalInfo | null }>;
}

/** Worktrees by repository (repositories and their worktrees in the order they were made); the terminals no worktree claims. */
export function groupByRepository(
  terminals: readonly TerminalInfo[],
  worktrees: ReadonlyMap<string, WorktreeInfo>,
): { groups: RepositoryGroup[]; others: TerminalInfo[] } {
  const byId = new Map(terminals.map((info) => [info.id, info]));
  const claimed = new Set<string>();
  const groups = new Map<string, RepositoryGroup>();
  for (const worktree of [...worktrees.values()].sort((a, b) => a.createdAt - b.createdAt)) {
    const terminal = worktree.terminalId ? (byId.get(worktree.terminalId) ?? null) : null;
    if (terminal) claimed.add(terminal.id);
    let group = groups.get(worktree.repoRoot);
    if (!group) {
      group = { repoRoot: worktree.repoRoot, name: worktree.repoRoot.split('/').filter(Boolean).at(-1) ?? worktree.repoRoot, entries: [] };
      groups.set(worktree.repoRoot, group);
    }
    group.entries.push({ worktree, terminal });
  }
  return { groups: [...groups.values()], others: terminals.filter((info) => !claimed.has(info.id)) };
}

/** The header of one repository's group. */
export function RepositoryHeader({ group }: { group: RepositoryGroup }) {
  const agents = group.entries.filter((entry) => entry.terminal?.state === 'running').length;
  return (
    <li className="repo-group-header" title={group.repoRoot}>
      <span className="repo-group-name">{group.name}</span>
      <span className="repo-group-count">{agents === 1 ? '1 agent' : `${agents} agents`}</span>
    </li>
  );
}

/** Under an agent's row: its branch, how far ahead, what it changed, and the way to its changes. */
export function WorktreeLine({ worktree }: { worktree: WorktreeInfo }) {
  const workbench = useWorkbench();
  const files = worktree.files.length;
  const summary = worktree.missing
    ? 'its folder is gone'
    : worktree.error
      ? 'could not read its changes'
      : files === 0 && worktree.ahead === 0
        ? 'no changes yet'
        : null;
  return (
    <div className="sidebar-worktree-line" data-worktree={worktree.path} title={worktreeTitle(worktree)}>
      <span className="sidebar-worktree-branch-row">
        <BranchIcon width={12} height={12} />
        <span className="sidebar-worktree-branch">{worktree.branch}</span>
      </span>
      <span className="sidebar-worktree-stats-row">
        {summary ? (
          <span className="sidebar-worktree-summary" data-problem={worktree.missing || worktree.error !== null || undefined}>
            {summary}
          </span>
        ) : (
          <>
            {worktree.ahead > 0 && (
              <span className="sidebar-worktree-ahead" aria-label={`${worktree.ahead} commits ahead of ${worktree.base}`}>
                ↑{worktree.ahead}
              </span>
            )}
            {files > 0 && (
              <span className="sidebar-worktree-files">
                {files}
                {worktree.filesTruncated ? '+' : ''} {files === 1 ? 'file' : 'files'} <span className="sidebar-worktree-added">+{worktree.additions}</span>{' '}
                <span className="sidebar-worktree-deleted">−{worktree.deletions}</span>
              </span>
            )}
          </>
        )}
        <button type="button" className="sidebar-worktree-changes-button" aria-label={`Changes of ${worktree.branch}`} onClick={() => workbench.showWorktreeChanges(worktree.path)}>
          Changes
        </button>
      </span>
    </div>
  );
}

/** A worktree no agent pane runs in now (it exited and was removed, or was never resumed). */
export function WorktreeOnlyItem({ worktree }: { worktree: WorktreeInfo }) {
  return (
    <li className="terminal-item sidebar-worktree-only" data-worktree-item={worktree.path}>
      <div className="sidebar-worktree-only-main">
        <span className="sidebar-worktree-only-name">{worktree.name}</span>
        <span className="sidebar-worktree-only-detail">no agent running</span>
      </div>
      <WorktreeLine worktree={worktree} />
    </li>
  );
}

function worktreeTitle(worktree: WorktreeInfo): string {
  const lines = [`${worktree.branch} (from ${worktree.base}) — ${worktree.path}`];
  if (worktree.missing) lines.push('The worktree folder was deleted: only Discard is left (Review → its changes).');
  else if (worktree.error) lines.push(`Reading its changes failed: ${worktree.error}`);
  else {
    lines.push(`${worktree.ahead} commits ahead of ${worktree.base}${worktree.behind > 0 ? `, ${worktree.behind} behind` : ''}`);
    lines.push(`${worktree.files.length} files changed (+${worktree.additions} −${worktree.deletions}), ${worktree.uncommittedCount} not committed`);
  }
  return lines.join('\n');
}
