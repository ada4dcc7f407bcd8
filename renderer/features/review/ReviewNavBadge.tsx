/** The sidebar's count of reviews waiting for a decision, on the Review button. */
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import './review.css';

export function ReviewNavBadge() {
  const workbench = useWorkbench();
  const pending = useObservable(workbench.review.pending);
  if (pending.length === 0) return null;
  // Hidden from the accessible name (the button stays "Review"); the tooltip says it in words.
  return (
    <span className="review-count-badge" data-review-count={pending.length} aria-hidden="true">
      {pending.length > 99 ? '99+' : pending.length}
    </span>
  );
}

/** The Review button's tooltip: what waits. */
export function useReviewNavTitle(): string {
  const workbench = useWorkbench();
  const pending = useObservable(workbench.review.pending);
  if (pending.length === 0) return 'Diffs agents propose, for you to accept or reject';
  return `${pending.length} ${pending.length === 1 ? 'change waits' : 'changes wait'} for your review`;
}
