/**
 * What the sidebar, the "Waiting for you" list, the pane banner and the notifications say about
 * agents: pure, so the wording, the order and the durations are tested without a window.
 */
import type { TerminalInfo } from '../../../src/common/api/contract.ts';
import type { AgentPrompt, AgentState, AgentStatus } from '../../../src/common/api/agentContract.ts';
import type { ReviewSummary } from '../../../src/common/api/reviewContract.ts';

/** The states in which an agent waits for the person: asking mid-turn, or done with its turn. */
export function isWaiting(state: AgentState): boolean {
  return state === 'needs-input' || state === 'idle';
}

/** "12 s", "4 min", "2 h 5 min", "3 d": how long an agent has been in its state, short enough for a sidebar row. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d`;
}

/**
 * Whether an idle agent's turn was cut short rather than finished: the Hub gives such a turn the
 * reason "Interrupted" or "Interrupted — it was asking: Bash: …" (Claude Code's "Interrupted ·
 * What should Claude do instead?", also after a restart). Its work is not done: it waits to be told.
 */
export function isInterrupted(agent: Pick<AgentStatus, 'state' | 'reason'>): boolean {
  return agent.state === 'idle' && /^Interrupted\b/.test(agent.reason ?? '');
}

/** The state in a word or two: "working", "needs input", "done", "interrupted", "exited 3". */
export function agentStateText(agent: Pick<AgentStatus, 'state' | 'exitCode' | 'reason'>): string {
  switch (agent.state) {
    case 'working':
      return 'working';
    case 'needs-input':
      return 'needs input';
    case 'idle':
      return isInterrupted(agent) ? 'interrupted' : 'done';
    case 'exited':
      return agent.exitCode === null ? 'exited' : `exited ${agent.exitCode}`;
  }
}

/** Why it waits, in words: the agent's reason, or what its state means when it gave none. */
export function waitingReason(agent: Pick<AgentStatus, 'state' | 'reason'>): string {
  if (agent.reason) return agent.reason;
  return agent.state === 'needs-input' ? 'Needs your input' : 'Finished its turn';
}

/** One row of "Waiting for you": an agent that waits, or a review nobody decided yet. */
export type WaitingEntry =
  | {
      kind: 'agent';
      /** Stable across re-renders and distinct per wait (a new wait is a new row). */
      key: string;
      terminalId: string;
      terminalName: string;
      agent: AgentStatus;
      since: number;
    }
  | { kind: 'review'; key: string; review: ReviewSummary; since: number };

/**
 * Whether an entry holds an agent up until the person acts: a prompt it waits on (a permission, a
 * question) or a pending review (Claude Code's edit, `review.request`, waits for the decision).
 * An agent that finished its turn holds nothing up: it can wait.
 */
export function isBlocking(entry: WaitingEntry): boolean {
  return entry.kind === 'review' || entry.agent.state === 'needs-input';
}

/**
 * Every agent that waits and every pending review: first those that hold an agent up (asking,
 * a review), then agents done with their turn; in each group the one waiting longest leads. An
 * agent stuck on a permission prompt must not sit below the fold under agents that merely finished.
 */
export function waitingEntries(terminals: Iterable<TerminalInfo>, pendingReviews: readonly ReviewSummary[]): WaitingEntry[] {
  const entries: WaitingEntry[] = [];
  for (const info of terminals) {
    const agent = info.agent;
    if (!agent || !isWaiting(agent.state)) continue;
    entries.push({ kind: 'agent', key: `agent:${info.id}:${agent.since}`, terminalId: info.id, terminalName: info.name, agent, since: agent.since });
  }
  for (const review of pendingReviews) entries.push({ kind: 'review', key: `review:${review.id}`, review, since: review.createdAt });
  // Ties (same millisecond) keep a stable order: agents by terminal, then reviews by id.
  return entries.sort((a, b) => Number(isBlocking(b)) - Number(isBlocking(a)) || a.since - b.since || a.key.localeCompare(b.key));
}

/** A desktop notification's title and body for an agent that starts waiting: the agent, the pane and why. */
export function waitingNotification(terminalName: string, agent: AgentStatus): { title: string; body: string } {
  const title =
    agent.state === 'needs-input' ? `${agent.label} needs you` : isInterrupted(agent) ? `${agent.label} was interrupted` : `${agent.label} finished its turn`;
  return { title, body: `${terminalName}: ${waitingReason(agent)}` };
}

/** The answers a prompt offers as buttons: Approve/Deny for a permission, else its numbered options. */
export function promptAnswers(prompt: AgentPrompt): Array<{ label: string; answer: 'approve' | 'deny' | { option: number } }> {
  if (prompt.kind === 'permission') {
    return [
      { label: 'Approve', answer: 'approve' },
      { label: 'Deny', answer: 'deny' },
    ];
  }
  return prompt.options.map((option, index) => ({ label: option.replace(/^\s*\d+[.)]\s*/, ''), answer: { option: index + 1 } }));
}
