/**
 * The words of a worktree's changes page: the message "Send comments to agent" types, how a finish
 * went, and what the Hub's coded refusals name (conflicting files, the work a discard would lose).
 * Pure, so it is unit-tested in Node.
 */
import type { DiffScope, FileChangeStatus, WorktreeFinishResult } from '../../../../src/common/api/workspaceContract.ts';
import type { LineComment } from './worktreeReviewState.ts';

/**
 * One message for the agent: a `path:line — comment` line per comment, by file then line. A
 * comment's own line breaks become spaces, so each comment stays one line whether the pane takes a
 * bracketed paste (line breaks kept) or not (the Hub joins lines into spaces).
 */
export function commentsMessage(comments: readonly LineComment[]): string {
  return [...comments]
    .sort((a, b) => (a.file === b.file ? a.line - b.line || a.id - b.id : a.file < b.file ? -1 : 1))
    .map((comment) => `${comment.file}:${comment.line} — ${comment.text.replace(/\s*[\r\n]+\s*/g, ' ').trim()}`)
    .join('\n');
}

/**
 * The files a MERGE_CONFLICT names: "… would conflict in: a.txt, b/c.ts. Nothing was committed …"
 * (found before anything is touched) or "… conflicts in: a.txt. The merge was aborted …".
 */
export function conflictFiles(message: string): string[] {
  const match = /conflicts? in: (.*?)\. (?=[A-Z])/s.exec(message);
  if (!match) return [];
  return match[1]!
    .split(', ')
    .map((file) => file.trim())
    .filter((file) => file.length > 0);
}

/**
 * What an UNMERGED_WORK refusal says a discard would lose ("uncommitted changes in a.txt and 2
 * commit(s) not merged into main: …"), without its note for socket clients about `confirm`.
 */
export function unmergedWorkText(message: string): string {
  const match = /would lose (.*?)\.? Send confirm: true/s.exec(message);
  return match ? match[1]! : message;
}

export function shortCommit(commit: string | null): string {
  return commit ? commit.slice(0, 7) : '';
}

/** One sentence for the status line after a finish. */
export function finishSummary(result: WorktreeFinishResult): string {
  const committed = result.committed ? ` Uncommitted work was committed first (${shortCommit(result.committed)}).` : '';
  const pane = result.closedTerminalId ? ' The agent’s pane was closed.' : '';
  switch (result.mode) {
    case 'merge': {
      const how =
        result.merge === 'fast-forward'
          ? `fast-forward to ${shortCommit(result.mergedCommit)}`
          : result.merge === 'merge-commit'
            ? `merge commit ${shortCommit(result.mergedCommit)}`
            : `${result.base} already had every commit`;
      return `Merged ${result.branch} into ${result.base} (${how}); the worktree${result.branchDeleted ? ' and the branch were' : ' was'} removed.${committed}${pane}`;
    }
    case 'branch':
      return `Kept the branch ${result.branch}; the worktree was removed.${committed}${pane}`;
    case 'discard':
      return `Discarded ${result.branch}: the worktree${result.branchDeleted ? ' and the branch were' : ' was'} removed.${pane}`;
  }
}

export const scopeLabels: Record<DiffScope, string> = { all: 'All', committed: 'Committed', uncommitted: 'Uncommitted' };

export const scopeDescriptions: Record<DiffScope, string> = {
  all: 'Everything the agent changed: the base → the working tree',
  committed: 'Only the agent’s commits: the base → the branch’s last commit',
  uncommitted: 'Only what is not committed yet: the last commit → the working tree',
};

export const statusLetters: Record<FileChangeStatus, string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  copied: 'C',
  typechange: 'T',
};

/** "3 files · +12 −4" and the like for counts that may be zero. */
export function plural(count: number, one: string, many: string = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
