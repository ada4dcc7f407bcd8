/**
 * The New agent dialog's decisions that need no window: where it starts by default, and which
 * field a refusal is about. Pure, so they are tested without a browser.
 */
import type { WorktreeInfo } from '../../../src/common/api/workspaceContract.ts';

/** The dialog's starting repository and, when it came from an agent's worktree, the branch to start from. */
export interface NewAgentStart {
  folder: string;
  /** The base to start from instead of the branch checked out in `folder`; null: that one. */
  base: string | null;
}

/** The worktree Switchboard made that holds `path` (the worktree's folder or any folder inside it). */
export function worktreeHolding(path: string, worktrees: Iterable<WorktreeInfo>): WorktreeInfo | undefined {
  const folder = path.replace(/\/+$/, '');
  for (const info of worktrees) {
    const root = info.path.replace(/\/+$/, '');
    if (folder === root || folder.startsWith(`${root}/`)) return info;
  }
  return undefined;
}

/**
 * Where a new agent starts: the focused pane's folder — unless that is an agent's worktree, where
 * a new agent would be based on the other agent's unmerged branch and later merged into it. Then
 * the repository the worktree belongs to, from the worktree's own base: a second agent next to the
 * first, not on top of it. Picking the worktree in the folder field still works.
 */
export function newAgentStart(focusedCwd: string | undefined, fallback: string, worktrees: Iterable<WorktreeInfo>): NewAgentStart {
  if (!focusedCwd) return { folder: fallback, base: null };
  const worktree = worktreeHolding(focusedCwd, worktrees);
  if (worktree && !worktree.missing) return { folder: worktree.repoRoot, base: worktree.base };
  return { folder: focusedCwd, base: null };
}

export type NewAgentField = 'profile' | 'folder' | 'task' | 'branch';

/** The field a refused start is about (by the Hub's error code), so the keyboard goes back to it. */
export function fieldForError(code: string | null, message: string, worktreeOn: boolean): NewAgentField {
  switch (code) {
    case 'PROFILE_NOT_INSTALLED':
      return 'profile';
    case 'NOT_A_GIT_REPO':
      return 'folder';
    case 'NOT_FOUND':
      return /^folder not found/.test(message) ? 'folder' : 'task';
    case 'BRANCH_EXISTS':
    case 'INVALID_BRANCH':
      return worktreeOn ? 'branch' : 'task';
    case 'INVALID_PARAMS':
      return worktreeOn && /worktree folder/.test(message) ? 'branch' : 'task';
    default:
      // A failed setup script, the agent limit, git failing: nothing to correct in one field; the
      // task is where the person was.
      return 'task';
  }
}
