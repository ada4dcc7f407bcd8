/** The status line over the review queue after a worktree was finished: what happened to it. */
import { useEffect } from 'react';
import { CheckIcon, CloseIcon } from '../../../app/icons.tsx';
import { useObservable } from '../../../app/observable.ts';
import { useWorkbench } from '../../../app/WorkbenchContext.tsx';

/** Long enough to read two sentences; it can be dismissed sooner. */
const noticeShownMs = 20_000;

export function FinishNoticeLine() {
  const state = useWorkbench().worktrees.review;
  const notice = useObservable(state.notice);
  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => state.notice.update((current) => (current?.id === notice.id ? null : current)), noticeShownMs);
    return () => clearTimeout(timer);
  }, [notice, state]);
  if (!notice) return null;
  return (
    <div className="worktree-finish-notice" role="status" data-tone={notice.tone}>
      <CheckIcon width={14} height={14} />
      <span>{notice.text}</span>
      <button type="button" className="icon-button small" aria-label="Dismiss" title="Dismiss" onClick={() => state.notice.set(null)}>
        <CloseIcon />
      </button>
    </div>
  );
}
