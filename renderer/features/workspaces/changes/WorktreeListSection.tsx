/**
 * The Review list's "Worktrees" section: each worktree an agent works in, with its branch, how far
 * it is ahead of its base and what it changed; a click shows its changes in the Review view.
 */
import type { WorktreeInfo } from '../../../../src/common/api/workspaceContract.ts';
import { BranchIcon } from '../../../app/icons.tsx';
import { useObservable } from '../../../app/observable.ts';
import { useWorkbench } from '../../../app/WorkbenchContext.tsx';
import { plural } from './changesFormat.ts';
import './changes.css';

export function worktreeMatches(info: WorktreeInfo, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (!needle) return true;
  return [info.name, info.branch, info.base, info.path].some((text) => text.toLowerCase().includes(needle));
}

export function WorktreeListSection({ query }: { query: string }) {
  const workbench = useWorkbench();
  const worktrees = useObservable(workbench.worktrees.worktrees);
  const shown = useObservable(workbench.worktrees.changesShown);
  const all = [...worktrees.values()];
  // Nothing to say in a window where no agent ever got a worktree.
  if (all.length === 0) return null;
  const matching = all.filter((info) => worktreeMatches(info, query));
  return (
    <section aria-label="Worktrees">
      <h2 className="review-section-title">
        Worktrees
        <span className="review-section-count">{all.length}</span>
      </h2>
      {matching.length > 0 ? (
        <ul className="review-items">
          {matching.map((info) => (
            <li key={info.path}>
              <WorktreeListItem info={info} selected={info.path === shown} />
            </li>
          ))}
        </ul>
      ) : (
        <p className="review-list-empty">No worktree matches.</p>
      )}
    </section>
  );
}

function WorktreeListItem({ info, selected }: { info: WorktreeInfo; selected: boolean }) {
  const workbench = useWorkbench();
  const facts = [
    info.missing ? 'folder gone' : null,
    info.ahead > 0 ? `${info.ahead} ahead` : null,
    plural(info.files.length, 'file') + (info.filesTruncated ? '+' : ''),
    info.uncommittedCount > 0 ? `${info.uncommittedCount} uncommitted` : null,
  ].filter((fact): fact is string => fact !== null);
  return (
    <button
      type="button"
      className="review-item worktree-item"
      data-worktree-path={info.path}
      data-state={info.missing || info.error ? 'problem' : 'live'}
      aria-current={selected || undefined}
      title={info.path}
      onClick={() => workbench.showWorktreeChanges(info.path)}
    >
      <span className="review-item-icon" aria-hidden="true">
        <BranchIcon />
      </span>
      <span className="review-item-main">
        <span className="review-item-title">{info.name}</span>
        <span className="worktree-item-branch">
          {info.branch} → {info.base}
        </span>
        <span className="review-item-meta">{facts.join(' · ')}</span>
      </span>
      <span className="review-item-stats" aria-label={`${info.additions} lines added, ${info.deletions} removed`}>
        <span className="review-stat-added">+{info.additions}</span>
        <span className="review-stat-removed">−{info.deletions}</span>
      </span>
    </button>
  );
}
