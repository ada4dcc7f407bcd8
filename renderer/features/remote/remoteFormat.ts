/** Small formatting helpers of the remote view (pure; unit-tested). */

export type DiffLineKind = 'add' | 'remove' | 'hunk' | 'header' | 'context';

/** A unified diff as lines with their kind, for colouring. */
export function diffLines(diff: string): { kind: DiffLineKind; text: string }[] {
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n');
  return lines.map((text) => ({ kind: kindOf(text), text }));
}

function kindOf(line: string): DiffLineKind {
  if (line.startsWith('+++ ') || line.startsWith('--- ') || line.startsWith('diff ') || line.startsWith('index ')) return 'header';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'remove';
  return 'context';
}

/** "just now", "5 min ago", "2 h ago", "3 d ago". */
export function formatAgo(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

/**
 * What Accept does to a review's file, as its card says it: the machine writes it (`apply`), or
 * the requester gets the change and writes it itself (Claude Code always does). A daemon that does
 * not say gets no sentence rather than a guess.
 */
export function acceptEffect(review: { apply?: boolean | undefined; change?: string | undefined; source?: { name: string } | undefined }, machineId: string): string | undefined {
  const verb = review.change === 'delete' ? 'deletes the file' : 'writes the change to the file';
  if (review.apply === true) return `Accept: Switchboard ${verb} on ${machineId}.`;
  if (review.apply === false) {
    const requester = review.source?.name ?? 'the requester';
    return `Accept: ${requester} gets the change and ${review.change === 'delete' ? 'deletes the file' : 'writes the file'} itself; Switchboard writes nothing.`;
  }
  return undefined;
}

/** "812 B", "14.2 KB", "3.1 MB"; "none" for a side that does not exist. */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return 'none';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** One row of the remote view's "Waiting for you": an agent that waits (the app's own entry) or a pending review of the machine. */
export type RemoteWaitingEntry<Agent extends { since: number; key: string }, Review extends { requestId: string; openedAt: number }> =
  | { kind: 'agent'; key: string; since: number; entry: Agent }
  | { kind: 'review'; key: string; since: number; review: Review };

/**
 * The remote view's "Waiting for you", in the app's order: agents that wait and the machine's
 * pending reviews, oldest first (ties: agents by their key, then reviews by id).
 */
export function remoteWaitingEntries<Agent extends { since: number; key: string }, Review extends { requestId: string; openedAt: number }>(
  agents: readonly Agent[],
  reviews: readonly Review[],
): RemoteWaitingEntry<Agent, Review>[] {
  const entries: RemoteWaitingEntry<Agent, Review>[] = [
    ...agents.map((entry) => ({ kind: 'agent' as const, key: entry.key, since: entry.since, entry })),
    ...reviews.map((review) => ({ kind: 'review' as const, key: `review:${review.requestId}`, since: review.openedAt, review })),
  ];
  return entries.sort((a, b) => a.since - b.since || a.key.localeCompare(b.key));
}
