/**
 * Review: the changes agents propose (Claude Code's edits, `review.request` on the control
 * socket, the `review_request` MCP tool) waiting for a person's decision, the decided ones, and
 * the file tabs Claude Code opens. The diff and file editors (CodeMirror) load with the first one
 * shown, so the window's startup bundle does not carry them.
 */
import { lazy, Suspense, useEffect } from 'react';
import { ReviewIcon } from '../../app/icons.tsx';
import { commandForEvent } from '../../app/keybindings.ts';
import { useObservable } from '../../app/observable.ts';
import { ViewPage } from '../../app/ViewPage.tsx';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { FileTabStrip } from '../editor/FileTabStrip.tsx';
import { FinishNoticeLine } from '../workspaces/changes/FinishNoticeLine.tsx';
import { ReviewList } from './ReviewList.tsx';
import './review.css';

const ReviewDetail = lazy(() => import('./ReviewDetail.tsx').then((module) => ({ default: module.ReviewDetail })));
const WorktreeChanges = lazy(() => import('../workspaces/changes/WorktreeChanges.tsx').then((module) => ({ default: module.WorktreeChanges })));
const FileTabPanel = lazy(() => import('../editor/FileTabPanel.tsx').then((module) => ({ default: module.FileTabPanel })));

export function ReviewView() {
  const workbench = useWorkbench();
  const review = workbench.review;
  const pending = useObservable(review.pending);
  const decided = useObservable(review.decided);
  const withdrawn = useObservable(review.withdrawn);
  const selectedId = useObservable(review.selectedId);
  const activeFile = useObservable(review.files.activeId);
  const tabs = useObservable(review.files.tabs);
  const worktrees = useObservable(workbench.worktrees.worktrees);
  const changesShown = useObservable(workbench.worktrees.changesShown);
  const lastSelectAt = useObservable(review.lastSelectAt);
  // A worktree's changes, until a review is picked after they were asked for.
  const reviewPickedSince = changesShown !== null && lastSelectAt > workbench.worktrees.review.shownAt;
  const worktreeShown = changesShown !== null && !reviewPickedSince ? changesShown : null;
  useEffect(() => {
    if (reviewPickedSince) workbench.worktrees.changesShown.set(null);
  }, [reviewPickedSince, workbench]);

  // Opened with a review that came while the view was closed: that review, over a worktree shown
  // on an earlier visit (one asked for just now — the sidebar's Changes — stays). Then whatever is
  // pending counts as seen, here or when the view closes.
  useEffect(() => {
    const fresh = review.pending.value.find((summary) => !review.seenPending.has(summary.id));
    const shownBefore = workbench.worktrees.changesShown.value !== null && workbench.worktrees.review.shownAt < review.closedAt;
    if (fresh && shownBefore) review.select(fresh.id);
    return () => {
      review.closedAt = performance.now();
    };
  }, [review, workbench]);
  useEffect(() => {
    review.seenPending = new Set(pending.map((summary) => summary.id));
  }, [pending, review]);

  // Something to look at: the oldest pending review, unless the person picked one. Not a pick of
  // the person's (`select` would count as one and hide a worktree's changes).
  const selectionKnown =
    selectedId !== null && (pending.some((summary) => summary.id === selectedId) || decided.some((summary) => summary.id === selectedId) || withdrawn.has(selectedId));
  useEffect(() => {
    if (!selectionKnown && pending[0]) review.selectedId.set(pending[0].id);
  }, [selectionKnown, pending, review]);

  useReviewKeyboard();

  const empty = pending.length === 0 && decided.length === 0 && withdrawn.size === 0 && worktrees.size === 0 && worktreeShown === null;
  return (
    <ViewPage label="Review" title="Review" description="Changes agents propose to files: look, edit, then accept or reject them before anything is written.">
      <div
        className="review-view"
        data-panel={activeFile ? 'file' : 'reviews'}
        onKeyDown={(event) => {
          // Escape in an editor or a field belongs to it (closing search, a selection), not to the view.
          if (event.key === 'Escape' && (event.target as HTMLElement).closest('.cm-editor, input, textarea, [role="menu"]')) event.stopPropagation();
        }}
      >
        <FinishNoticeLine />
        {tabs.length > 0 && <FileTabStrip />}
        {activeFile ? (
          <Suspense fallback={<div className="review-loading" aria-busy="true" />}>
            <FileTabPanel key={activeFile} tabId={activeFile} />
          </Suspense>
        ) : empty ? (
          <div className="empty-state review-empty">
            <ReviewIcon width={28} height={28} />
            <p className="empty-title">Nothing to review</p>
            <p>
              When an agent proposes a change to a file — Claude Code running in a pane, or any agent through <code>review.request</code> or the{' '}
              <code>review_request</code> MCP tool — its diff appears here for you to accept or reject before the file is touched.
            </p>
          </div>
        ) : (
          <div className="review-layout">
            <ReviewList />
            <div className="review-detail-area">
              {worktreeShown !== null ? (
                <Suspense fallback={<div className="review-loading" aria-busy="true" />}>
                  <WorktreeChanges key={worktreeShown} path={worktreeShown} />
                </Suspense>
              ) : selectionKnown && selectedId ? (
                <Suspense fallback={<div className="review-loading" aria-busy="true" />}>
                  <ReviewDetail key={selectedId} reviewId={selectedId} />
                </Suspense>
              ) : (
                <div className="empty-state review-empty">
                  <ReviewIcon width={28} height={28} />
                  <p className="empty-title">Nothing to review</p>
                  <p>All caught up. Pick a decided review on the left to see what was decided and what changed.</p>
                </div>
              )}
            </div>
          </div>
        )}
      </div>
    </ViewPage>
  );
}

/**
 * The Review view's own shortcuts (scoped in keybindings.ts, so they mean nothing elsewhere):
 * accept, reject, next/previous change for the review shown; Ctrl+S for the file tab shown.
 * Caught before CodeMirror sees them (its Ctrl+Enter would insert a line).
 */
function useReviewKeyboard(): void {
  const workbench = useWorkbench();
  useEffect(() => {
    const review = workbench.review;
    const onKeyDown = (event: KeyboardEvent) => {
      if (workbench.dialog.value !== null || workbench.view.value !== 'review') return;
      const fileId = review.files.activeId.value;
      if (fileId !== null) {
        if (commandForEvent(event, 'fileTab') !== 'fileTab.save') return;
        event.preventDefault();
        event.stopPropagation();
        void review.files.save(fileId);
        return;
      }
      // A worktree's changes are shown: the review behind them is not the one to accept (its page has its own Ctrl+S).
      if (workbench.worktrees.changesShown.value !== null && review.lastSelectAt.value <= workbench.worktrees.review.shownAt) return;
      const command = commandForEvent(event, 'review');
      const id = review.selectedId.value;
      if (!command || !id || !review.pending.value.some((summary) => summary.id === id)) return;
      event.preventDefault();
      event.stopPropagation();
      switch (command) {
        case 'review.accept':
          void review.decide(id, 'accept', review.comment(id));
          return;
        case 'review.reject':
          void review.decide(id, 'reject', review.comment(id));
          return;
        case 'review.nextChange':
          review.liveDiff(id)?.nextChange();
          return;
        case 'review.previousChange':
          review.liveDiff(id)?.previousChange();
          return;
      }
    };
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, [workbench]);
}
