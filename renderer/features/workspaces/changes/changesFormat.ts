/**
 * The words of a worktree's changes page: the message "Send comments to agent" types, how a finish
 * went, and what the Hub's coded refusals name (conflicting files, the work a discard would lose).
 * Pure, so it is unit-tested in Node.
 */
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import type { DiffScope, FileChangeStatus, FinishMode, WorktreeFinishResult } from '../../../../src/common/api/workspaceContract.ts';
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
      if (result.merge === 'up-to-date' && result.committed === null) {
        return `Nothing to merge: ${result.branch} had nothing ${result.base} did not have. The worktree${result.branchDeleted ? ' and the branch were' : ' was'} removed.${pane}`;
      }
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

/** Whether merging would bring nothing into the base: no commit of its own, nothing uncommitted. */
export function nothingToMerge(info: { ahead: number; uncommittedCount: number }): boolean {
  return info.ahead === 0 && info.uncommittedCount === 0;
}

/** Comments typed into an agent's prompt without Enter: how many, and the agent's state then (its `since`). */
export interface UnsubmittedComments {
  readonly terminalId: string;
  readonly count: number;
  /** The agent's `since` when they were typed (null: no agent state known); a new state means the prompt was sent or left. */
  readonly agentSince: number | null;
}

export interface FinishRiskInput {
  mode: FinishMode;
  branch: string;
  base: string;
  /** The worktree's agent pane, if one runs there. */
  pane: { name: string; running: boolean; agent: Pick<AgentStatus, 'state' | 'label' | 'reason' | 'since'> | null } | null;
  unsubmitted: UnsubmittedComments | null;
  /** For discard: what it would lose besides. */
  uncommittedCount: number;
  ahead: number;
}

/** Whether comments typed into the agent's prompt are still there, unsent: the agent has not changed state since. */
export function unsubmittedStill(unsubmitted: UnsubmittedComments | null, pane: FinishRiskInput['pane']): number {
  if (!unsubmitted || !pane?.running) return 0;
  const agent = pane.agent;
  if (agent && unsubmitted.agentSince !== null && agent.since !== unsubmitted.agentSince) return 0;
  return unsubmitted.count;
}

/**
 * The question to ask before finishing a worktree whose agent would lose something when its pane
 * closes: a turn it is working on, a question it waits on, comments typed into its prompt and not
 * sent (plus, for a discard, the work the branch would lose). null: nothing to ask.
 */
export function finishConfirmation(input: FinishRiskInput): { title: string; message: string; confirmLabel: string } | null {
  const { pane } = input;
  const verb = input.mode === 'merge' ? 'Merging' : input.mode === 'branch' ? 'Keeping only the branch' : 'Discarding';
  const losses: string[] = [];
  const agent = pane?.running ? pane.agent : null;
  const who = agent && pane ? `${agent.label} in “${pane.name}”` : pane ? `The agent in “${pane.name}”` : 'The agent';
  if (agent?.state === 'working') losses.push(`${who} is still working on its turn; it would be stopped mid-turn.`);
  else if (agent?.state === 'needs-input') losses.push(`${who} waits for your answer${agent.reason ? ` (${agent.reason})` : ''}; it would never get one.`);
  const unsent = unsubmittedStill(input.unsubmitted, pane);
  if (unsent > 0) losses.push(`${plural(unsent, 'comment')} you sent ${unsent === 1 ? 'is' : 'are'} typed into its prompt but not submitted; ${unsent === 1 ? 'it' : 'they'} would be lost.`);
  if (losses.length === 0) return null;
  if (input.mode === 'discard' && (input.uncommittedCount > 0 || input.ahead > 0)) {
    const work = [
      ...(input.uncommittedCount > 0 ? [plural(input.uncommittedCount, 'uncommitted file')] : []),
      ...(input.ahead > 0 ? [`${plural(input.ahead, 'commit')} not merged into ${input.base}`] : []),
    ];
    losses.push(`The branch’s work goes too: ${work.join(' and ')}.`);
  }
  return {
    title: `${input.mode === 'merge' ? `Merge ${input.branch}` : input.mode === 'branch' ? 'Keep only the branch' : `Discard ${input.branch}`} and close the agent’s pane?`,
    message: `${verb} closes the agent’s pane. ${losses.join(' ')}`,
    confirmLabel: input.mode === 'merge' ? 'Merge anyway' : input.mode === 'branch' ? 'Keep branch anyway' : 'Discard anyway',
  };
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
