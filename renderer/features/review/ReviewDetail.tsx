/**
 * One review: a pending one with its editable diff and the Accept / Reject bar, a decided one with
 * what was decided (read-only), or one its requester withdrew. Loaded lazily with CodeMirror.
 */
import { memo, useEffect, useMemo, useState } from 'react';
import type { ReviewItem, ReviewSummary } from '../../../src/common/api/reviewContract.ts';
import { CheckIcon, WarningIcon } from '../../app/icons.tsx';
import { tooltipFor } from '../../app/keybindings.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { BinaryCard, DiffCaptions, DiffToolbar, useDiffEditor } from './DiffParts.tsx';
import { languageForPath } from './languages.ts';
import { ReviewDiffEditor } from './reviewDiffEditor.ts';
import { changeLabel, decisionLabel, formatAge, formatDateTime, sourceLabel } from './reviewFormat.ts';
import { OpenFileIcon, RejectIcon } from './reviewIcons.tsx';
import { useNow } from './ReviewList.tsx';

export function ReviewDetail({ reviewId }: { reviewId: string }) {
  const workbench = useWorkbench();
  const review = workbench.review;
  const pending = useObservable(review.pending).find((summary) => summary.id === reviewId);
  const decided = useObservable(review.decided).find((summary) => summary.id === reviewId);
  const withdrawn = useObservable(review.withdrawn).get(reviewId);
  if (pending) return <PendingReview summary={pending} />;
  if (decided) return <DecidedReview key={decided.state} summary={decided} />;
  if (withdrawn) return <WithdrawnReview summary={withdrawn.summary} reason={withdrawn.reason} />;
  return null;
}

function useReviewItem(id: string): { item: ReviewItem | null; error: string | null } {
  const review = useWorkbench().review;
  const [state, setState] = useState<{ item: ReviewItem | null; error: string | null }>({ item: null, error: null });
  useEffect(() => {
    let live = true;
    review.loadItem(id).then(
      (item) => live && setState({ item, error: null }),
      (error: unknown) => live && setState({ item: null, error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
  }, [review, id]);
  return state;
}

// Memoized: the diff's status changes on every keystroke, the header does not.
const ReviewHeader = memo(function ReviewHeader({ summary }: { summary: ReviewSummary }) {
  const workbench = useWorkbench();
  const path = workbench.review.displayPath(summary.path);
  const now = useNow();
  return (
    <header className="review-detail-header">
      <div className="review-detail-titles">
        <h2 className="review-detail-title">{summary.title}</h2>
        <div className="review-detail-meta">
          <span className="review-detail-path" title={summary.path}>
            {path.folder && <span className="review-item-folder">{path.folder} › </span>}
            {path.text}
          </span>
          {summary.outsideWorkspace && (
            <span className="review-flag" title="This file is outside every workspace folder of the app">
              outside workspace
            </span>
          )}
          <span className="review-change-kind" data-change={summary.change}>
            {changeLabel(summary.change)}
          </span>
          {!summary.binary && (
            <span className="review-detail-stats">
              <span className="review-stat-added">+{summary.stats.added}</span> <span className="review-stat-removed">−{summary.stats.removed}</span>
            </span>
          )}
        </div>
        <div className="review-detail-source">
          {sourceLabel(summary.source)} · <span title={formatDateTime(summary.createdAt)}>{formatAge(summary.createdAt, now)}</span>
        </div>
      </div>
      <div className="review-detail-actions">
        {summary.change !== 'create' && (
          <button type="button" className="toolbar-button" title="Open the file on disk in a tab" onClick={() => workbench.review.openFile(summary.path)}>
            <OpenFileIcon width={14} height={14} /> Open file
          </button>
        )}
      </div>
    </header>
  );
});

function OutsideWorkspaceNotice({ summary }: { summary: ReviewSummary }) {
  if (!summary.outsideWorkspace) return null;
  return (
    <div className="review-notice" data-tone="warning" role="note">
      <WarningIcon width={14} height={14} />
      <span>
        This file is outside the app's workspace folders ({summary.path}). Make sure the agent should be writing there.
      </span>
    </div>
  );
}

function PendingReview({ summary }: { summary: ReviewSummary }) {
  const workbench = useWorkbench();
  const review = workbench.review;
  const { item, error } = useReviewItem(summary.id);
  const deciding = useObservable(review.deciding).has(summary.id);
  const [comment, setComment] = useState(() => review.comment(summary.id));
  const textual = summary.binary === null;

  // One editor per review, kept by the service while the review is pending (edits survive switching reviews).
  const editor = useMemo(() => {
    if (!item || !textual) return null;
    const existing = review.liveDiff(item.id);
    if (existing instanceof ReviewDiffEditor) return existing;
    const created = new ReviewDiffEditor({
      original: item.oldContents ?? '',
      proposed: item.newContents ?? '',
      editable: summary.change !== 'delete',
      partial: summary.change === 'modify',
      mode: review.shownDiffMode.value,
      collapseUnchanged: review.collapseUnchanged.value,
      language: languageForPath(summary.path),
    });
    review.attachDiff(item.id, created);
    return created;
  }, [item, textual, review, summary.change, summary.path]);
  const { status, send, slotRef } = useDiffEditor(editor, summary.path);

  const decide = (decision: 'accept' | 'reject') => void review.decide(summary.id, decision, comment);
  const captions = {
    original: summary.change === 'create' ? 'Original — new file, nothing on disk yet' : 'Original — on disk',
    proposed: summary.change === 'delete' ? 'Proposed — file deleted' : 'Proposed — editable: Accept sends what you see',
  };

  return (
    <article className="review-detail" aria-label={`Review of ${summary.title}`} data-review-id={summary.id} data-state="pending">
      <ReviewHeader summary={summary} />
      <OutsideWorkspaceNotice summary={summary} />
      {error && (
        <div className="review-notice" data-tone="error" role="alert">
          Could not load this review: {error}
        </div>
      )}
      {summary.binary ? (
        <BinaryCard binary={summary.binary} change={summary.change} />
      ) : (
        <>
          <DiffToolbar editor={editor} status={status} send={send} />
          <div className="review-diff-frame">
            <DiffCaptions {...captions} status={status} />
            <div className="review-diff-slot" ref={slotRef} aria-busy={editor === null} />
          </div>
        </>
      )}
      <footer className="review-decision-bar">
        <input
          type="text"
          className="review-comment"
          placeholder={summary.source.kind === 'ide' ? 'Comment (optional; kept in the decided list)' : 'Comment for the requester (optional)'}
          aria-label="Comment"
          maxLength={10_000}
          value={comment}
          onChange={(event) => {
            setComment(event.target.value);
            review.setComment(summary.id, event.target.value);
          }}
        />
        <button type="button" className="secondary-button review-reject" disabled={deciding} title={tooltipFor('review.reject', 'Reject the change')} onClick={() => decide('reject')}>
          <RejectIcon width={14} height={14} />
          Reject
        </button>
        <button
          type="button"
          className="primary-button review-accept"
          disabled={deciding || (textual && editor === null)}
          title={tooltipFor('review.accept', summary.change === 'delete' ? 'Accept: delete the file' : 'Accept the proposed side exactly as shown')}
          onClick={() => decide('accept')}
        >
          <CheckIcon width={14} height={14} />
          Accept
        </button>
      </footer>
    </article>
  );
}

function DecidedReview({ summary }: { summary: ReviewSummary }) {
  const workbench = useWorkbench();
  const { item, error } = useReviewItem(summary.id);
  const decision = item?.decision ?? null;
  const accepted = summary.state === 'accepted';

  // Read-only, made for this view and gone with it.
  const [editor, setEditor] = useState<ReviewDiffEditor | null>(null);
  useEffect(() => {
    if (!item || summary.binary || !item.decision) return;
    const created = new ReviewDiffEditor({
      original: item.oldContents ?? '',
      proposed: accepted ? (item.decision.finalContents ?? '') : (item.newContents ?? ''),
      editable: false,
      partial: summary.change === 'modify',
      mode: workbench.review.shownDiffMode.value,
      collapseUnchanged: workbench.review.collapseUnchanged.value,
      language: languageForPath(summary.path),
    });
    setEditor(created);
    return () => created.dispose();
  }, [item, summary.binary, summary.path, accepted, workbench]);
  const { status, send, slotRef } = useDiffEditor(editor, summary.path);

  return (
    <article className="review-detail" aria-label={`Review of ${summary.title}`} data-review-id={summary.id} data-state={summary.state}>
      <ReviewHeader summary={summary} />
      {summary.decision && (
        <div className="review-verdict" data-decision={summary.decision.decision}>
          {accepted ? <CheckIcon width={15} height={15} /> : <RejectIcon width={15} height={15} />}
          <span className="review-verdict-text">
            {decisionLabel(summary.decision)} <span title={formatDateTime(summary.decision.at)}>· {formatDateTime(summary.decision.at)}</span>
          </span>
          {summary.decision.comment && <q className="review-verdict-comment">{summary.decision.comment}</q>}
        </div>
      )}
      {error && (
        <div className="review-notice" data-tone="error" role="alert">
          Could not load this review: {error}
        </div>
      )}
      {summary.binary ? (
        <BinaryCard binary={summary.binary} change={summary.change} />
      ) : (
        <>
          <DiffToolbar editor={editor} status={status} send={send} />
          <div className="review-diff-frame">
            <DiffCaptions
              status={status}
              original="Original — when the review was asked for"
              proposed={accepted ? (decision?.edited ? 'Accepted — with the reviewer’s edits' : 'Accepted') : 'Proposed — rejected'}
            />
            <div className="review-diff-slot" ref={slotRef} aria-busy={editor === null} />
          </div>
        </>
      )}
    </article>
  );
}

const withdrawnReasons: Record<string, string> = {
  superseded: 'The requester replaced it with a newer proposal for the same file.',
  closed: 'The requester closed it (Claude Code closes its diffs when it moves on).',
  'requester-gone': 'The requester went away (disconnected or cancelled) before a decision.',
  'timed-out': 'The requester stopped waiting (its timeout passed).',
  shutdown: 'The app is shutting down.',
};

function WithdrawnReview({ summary, reason }: { summary: ReviewSummary; reason: string }) {
  const review = useWorkbench().review;
  return (
    <article className="review-detail" aria-label={`Review of ${summary.title}`} data-review-id={summary.id} data-state="withdrawn">
      <ReviewHeader summary={summary} />
      <div className="review-withdrawn" role="status">
        <p className="empty-title">This review was withdrawn</p>
        <p>{withdrawnReasons[reason] ?? reason} Nothing was written.</p>
        <button type="button" className="secondary-button" onClick={() => review.dismissWithdrawn(summary.id)}>
          Dismiss
        </button>
      </div>
    </article>
  );
}
