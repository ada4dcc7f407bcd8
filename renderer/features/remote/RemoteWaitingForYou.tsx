/**
 * "Waiting for you" in the remote view (issue 19): the same list as the app's sidebar — every
 * agent of the machine that asks something or finished its turn, and every pending review, oldest
 * first — built from what the relay carries: agents' states from the shared panes' announcements,
 * reviews from the machine's approvals. An agent's Approve / Deny or a question's options answer
 * through the relay (`agent.answer` → permissionResponse / questionResponse); an answer the
 * machine refused (the prompt had gone, or was answered there first) is said under the row, and in
 * a toast. A review opens the Reviews view, where Accept / Reject are.
 */
import type { PendingApproval } from '../../../src/browser/relayApprovals.ts';
import type { RelayHubClient } from '../../../src/browser/relayHubClient.ts';
import { ReviewIcon } from '../../app/icons.tsx';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { formatElapsed, type WaitingEntry } from '../agents/agentFormat.ts';
import { WaitingAgentRow } from '../agents/WaitingForYou.tsx';
import '../agents/agents.css';
import { useApprovals, useNow } from './remoteClient.ts';
import { remoteWaitingEntries } from './remoteFormat.ts';

type AgentEntry = Extract<WaitingEntry, { kind: 'agent' }>;

/** The rows of the list, live (for the list and the window title). */
export function useRemoteWaiting(client: RelayHubClient | undefined) {
  const workbench = useWorkbench();
  const agents = useObservable(workbench.agents.waiting).filter((entry): entry is AgentEntry => entry.kind === 'agent');
  const { pending } = useApprovals(client);
  return remoteWaitingEntries(agents, pending);
}

export function RemoteWaitingForYou({ client }: { client: RelayHubClient | undefined }) {
  const waiting = useRemoteWaiting(client);
  const agentsNow = useObservable(useWorkbench().agents.now);
  // The agents' clock ticks only while an agent is listed; reviews' ages move on this one.
  const now = Math.max(agentsNow, useNow(1000));
  if (waiting.length === 0) return null;
  return (
    <section className="waiting remote-waiting" aria-labelledby="waiting-heading">
      <div className="section-header waiting-header">
        <span id="waiting-heading">Waiting for you</span>
        <span className="section-count">{waiting.length}</span>
      </div>
      <ul className="waiting-list" aria-label="Waiting for you">
        {waiting.map((row) =>
          row.kind === 'agent' ? (
            <WaitingAgentRow key={row.key} entry={row.entry} elapsed={formatElapsed(now - row.since)} />
          ) : (
            <ReviewRow key={row.key} review={row.review} elapsed={formatElapsed(now - row.since)} />
          ),
        )}
      </ul>
    </section>
  );
}

function ReviewRow({ review, elapsed }: { review: PendingApproval; elapsed: string }) {
  const workbench = useWorkbench();
  const title = review.review?.title ?? review.review?.path ?? review.toolName;
  const source = review.review?.source;
  const from = source ? `${source.name}${source.terminalName ? ` in “${source.terminalName}”` : ''}` : `${review.toolName} request`;
  return (
    <li className="waiting-item" data-waiting-kind="review" data-request-id={review.requestId}>
      <button type="button" className="waiting-main" title={`Review: ${title} — ${from}`} onClick={() => workbench.showView('review')}>
        <ReviewIcon className="waiting-review-icon" width={12} height={12} />
        <span className="waiting-text">
          <span className="waiting-title">
            <span className="waiting-who">Review</span>
            <span className="waiting-where">{title}</span>
          </span>
          <span className="waiting-reason">{review.sent ? `${review.sent === 'accept' ? 'Accepting' : 'Rejecting'}…` : from}</span>
        </span>
        <span className="agent-elapsed">{elapsed}</span>
      </button>
    </li>
  );
}
