/** "Claude Code connected" on the header of a pane whose Claude Code talks to the app. */
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import './review.css';

/** The Claude Code client connected from `terminalId`'s pane, if any. */
export function useClaudeClient(terminalId: string) {
  const workbench = useWorkbench();
  const ide = useObservable(workbench.review.ide);
  return ide?.clients.find((client) => client.terminalId === terminalId);
}

export function ClaudeBadge({ terminalId }: { terminalId: string }) {
  const workbench = useWorkbench();
  const client = useClaudeClient(terminalId);
  if (!client) return null;
  const version = client.version ? ` ${client.version}` : '';
  const title = `${client.name}${version} is connected to Switchboard: its edits come to Review, and it sees what you select.`;
  if (client.pendingReviews > 0) {
    return (
      <button
        type="button"
        className="claude-badge"
        data-pending
        title={`${title} Click to review its ${client.pendingReviews === 1 ? 'change' : `${client.pendingReviews} changes`}.`}
        onClick={(event) => {
          event.stopPropagation();
          workbench.review.files.activeId.set(null);
          const first = workbench.review.pending.value.find((summary) => summary.source.kind === 'ide' && summary.source.terminalId === terminalId);
          if (first) workbench.review.select(first.id);
          workbench.showView('review');
        }}
      >
        <span className="claude-badge-dot" aria-hidden="true" />
        Claude Code connected · {client.pendingReviews} to review
      </button>
    );
  }
  return (
    <span className="claude-badge" title={title}>
      <span className="claude-badge-dot" aria-hidden="true" />
      Claude Code connected
    </span>
  );
}
