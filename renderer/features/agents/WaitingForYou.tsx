import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { keysFor } from '../../app/keybindings.ts';
import { ReviewIcon } from '../../app/icons.tsx';
import { sourceLabel } from '../review/reviewFormat.ts';
import { AgentStateMark } from './AgentStateLine.tsx';
import { AgentAnswerButtons } from './AgentAnswerButtons.tsx';
import { formatElapsed, waitingReason, type WaitingEntry } from './agentFormat.ts';
import './agents.css';

/**
 * "Waiting for you", at the top of the sidebar: every agent that asks something and every pending
 * review, then every agent that finished its turn, each group oldest first (agentFormat's
 * waitingEntries). A row goes when its state changes (answering,
 * deciding), never by looking at it. Hidden while nothing waits, so it costs no room then.
 */
export function WaitingForYou() {
  const workbench = useWorkbench();
  const waiting = useObservable(workbench.agents.waiting);
  const now = useObservable(workbench.agents.now);
  if (waiting.length === 0) return null;
  return (
    <section className="waiting" aria-labelledby="waiting-heading">
      <div className="section-header waiting-header">
        <span id="waiting-heading" title={`${keysFor('agent.jumpToWaiting')} jumps to the first one`}>
          Waiting for you
        </span>
        <span className="section-count">{waiting.length}</span>
      </div>
      <ul className="waiting-list" aria-label="Waiting for you">
        {waiting.map((entry) => (
          <WaitingRow key={entry.key} entry={entry} elapsed={formatElapsed(now - entry.since)} />
        ))}
      </ul>
    </section>
  );
}

function WaitingRow({ entry, elapsed }: { entry: WaitingEntry; elapsed: string }) {
  const workbench = useWorkbench();
  if (entry.kind === 'review') {
    const { review } = entry;
    return (
      <li className="waiting-item" data-waiting-kind="review" data-review-id={review.id}>
        <button type="button" className="waiting-main" title={`Review: ${review.title} — ${sourceLabel(review.source)}`} onClick={() => workbench.agents.jumpTo(entry)}>
          <ReviewIcon className="waiting-review-icon" width={12} height={12} />
          <span className="waiting-text">
            <span className="waiting-title">
              <span className="waiting-who">Review</span>
              <span className="waiting-where">{review.title}</span>
            </span>
            <span className="waiting-reason">{sourceLabel(review.source)}</span>
          </span>
          <span className="agent-elapsed">{elapsed}</span>
        </button>
      </li>
    );
  }
  return <WaitingAgentRow entry={entry} elapsed={elapsed} />;
}

/** One waiting agent: a click jumps to its pane; its prompt's answers beside it (here and in the remote view). */
export function WaitingAgentRow({ entry, elapsed }: { entry: Extract<WaitingEntry, { kind: 'agent' }>; elapsed: string }) {
  const workbench = useWorkbench();
  const { agent } = entry;
  const reason = waitingReason(agent);
  return (
    <li className="waiting-item" data-waiting-kind="agent" data-waiting-terminal={entry.terminalId} data-agent-state={agent.state}>
      <button
        type="button"
        className="waiting-main"
        title={`${agent.label} in ${entry.terminalName}: ${reason}`}
        onClick={() => workbench.agents.jumpTo(entry)}
      >
        <AgentStateMark agent={agent} />
        <span className="waiting-text">
          {/* The pane's name (the task) tells agents apart; which CLI it is gives way first when the row is narrow. */}
          <span className="waiting-title">
            <span className="waiting-name">{entry.terminalName}</span>
            <span className="waiting-agent">{agent.label}</span>
          </span>
          <span className="waiting-reason">{reason}</span>
        </span>
        <span className="agent-elapsed">{elapsed}</span>
      </button>
      <AgentAnswerButtons terminalId={entry.terminalId} agent={agent} where="list" />
    </li>
  );
}
