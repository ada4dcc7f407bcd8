/** The Review view's list: reviews waiting for a decision, then the decided ones, filterable. */
import { useEffect, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { ReviewSummary } from '../../../src/common/api/reviewContract.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { ReviewUiConstants } from './reviewConstants.ts';
import { binaryLabel, decisionLabel, formatAge, formatDateTime, matchesQuery, sourceLabel } from './reviewFormat.ts';
import { CheckIcon } from '../../app/icons.tsx';
import { BinaryIcon, FileDiffIcon, FileMinusIcon, FilePlusIcon, RejectIcon } from './reviewIcons.tsx';
import { WorktreeListSection } from '../workspaces/changes/WorktreeListSection.tsx';

/** The current time, redrawn every `intervalMs` so ages stay true while the view is open. */
export function useNow(intervalMs: number = ReviewUiConstants.ageRefreshMs): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function ReviewList() {
  const workbench = useWorkbench();
  const review = workbench.review;
  const pending = useObservable(review.pending);
  const decided = useObservable(review.decided);
  const decidedComplete = useObservable(review.decidedComplete);
  const selectedId = useObservable(review.selectedId);
  // A review is current only while no worktree's changes are shown over it.
  const worktreeShown = useObservable(workbench.worktrees.changesShown) !== null;
  const [query, setQuery] = useState('');
  const now = useNow();
  const shownPending = pending.filter((summary) => matchesQuery(summary, query));
  const shownDecided = decided.filter((summary) => matchesQuery(summary, query));

  // Arrow keys walk the list, as in a file explorer.
  const onKeyDown = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const items = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('[data-review-id]')];
    const index = items.indexOf(document.activeElement as HTMLButtonElement);
    if (index === -1) return;
    event.preventDefault();
    const next = items[index + (event.key === 'ArrowDown' ? 1 : -1)];
    if (!next) return;
    next.focus();
    review.select(next.dataset.reviewId ?? null);
  };

  return (
    <div className="review-list" onKeyDown={onKeyDown}>
      <div className="review-list-search">
        <input type="search" placeholder="Filter by file, title or agent" aria-label="Filter reviews" value={query} onChange={(event) => setQuery(event.target.value)} />
      </div>
      <div className="review-list-scroll">
        <section aria-label="Pending">
          <h2 className="review-section-title">
            Pending
            <span className="review-section-count" data-tone={pending.length > 0 ? 'accent' : undefined}>
              {pending.length}
            </span>
          </h2>
          {shownPending.length > 0 ? (
            <ul className="review-items">
              {shownPending.map((summary) => (
                <li key={summary.id}>
                  <ReviewListItem summary={summary} selected={!worktreeShown && summary.id === selectedId} now={now} />
                </li>
              ))}
            </ul>
          ) : (
            <p className="review-list-empty">{pending.length === 0 ? 'Nothing to review.' : 'No pending review matches.'}</p>
          )}
        </section>
        <WorktreeListSection query={query} />
        <section aria-label="Decided">
          <h2 className="review-section-title">
            Decided
            <span className="review-section-count">{decided.length}{decidedComplete ? '' : '+'}</span>
          </h2>
          {shownDecided.length > 0 ? (
            <ul className="review-items">
              {shownDecided.map((summary) => (
                <li key={summary.id}>
                  <ReviewListItem summary={summary} selected={!worktreeShown && summary.id === selectedId} now={now} />
                </li>
              ))}
            </ul>
          ) : (
            <p className="review-list-empty">{decided.length === 0 ? 'Accepted and rejected changes are kept here.' : 'No decided review matches.'}</p>
          )}
          {!decidedComplete && (
            <button type="button" className="link-button review-list-more" onClick={() => void review.loadOlderDecided()}>
              Show older
            </button>
          )}
        </section>
      </div>
    </div>
  );
}

function ChangeIcon({ summary }: { summary: ReviewSummary }) {
  if (summary.binary) return <BinaryIcon />;
  if (summary.change === 'create') return <FilePlusIcon />;
  if (summary.change === 'delete') return <FileMinusIcon />;
  return <FileDiffIcon />;
}

function ReviewListItem({ summary, selected, now }: { summary: ReviewSummary; selected: boolean; now: number }) {
  const workbench = useWorkbench();
  const path = workbench.review.displayPath(summary.path);
  const decision = summary.decision;
  return (
    <button
      type="button"
      className="review-item"
      data-review-id={summary.id}
      data-state={summary.state}
      data-change={summary.change}
      aria-current={selected || undefined}
      onClick={() => workbench.review.select(summary.id)}
    >
      <span className="review-item-icon" aria-hidden="true">
        <ChangeIcon summary={summary} />
      </span>
      <span className="review-item-main">
        <span className="review-item-title">{summary.title}</span>
        <span className="review-item-path path-cut-at-start" title={summary.path}>
          {path.folder && <span className="review-item-folder">{path.folder} › </span>}
          {path.text}
        </span>
        {summary.outsideWorkspace && (
          <span className="review-flag" title="This file is outside every workspace folder of the app">
            outside workspace
          </span>
        )}
        <span className="review-item-meta">
          {decision ? (
            <>
              <span className="review-decision" data-decision={decision.decision}>
                {decision.decision === 'accepted' ? <CheckIcon width={12} height={12} /> : <RejectIcon width={12} height={12} />}
                {decisionLabel(decision)}
              </span>
              <span title={formatDateTime(decision.at)}> · {formatAge(decision.at, now)}</span>
            </>
          ) : (
            <>
              <span>{sourceLabel(summary.source)}</span>
              <span title={formatDateTime(summary.createdAt)}> · {formatAge(summary.createdAt, now)}</span>
            </>
          )}
        </span>
      </span>
      <span className="review-item-stats" aria-label={summary.binary ? 'binary file' : `${summary.stats.added} lines added, ${summary.stats.removed} removed`}>
        {summary.binary ? (
          <span className="review-stat-binary" title={binaryLabel(summary.binary.newBytes ?? summary.binary.oldBytes ?? 0)}>
            bin
          </span>
        ) : (
          <>
            <span className="review-stat-added">+{summary.stats.added}</span>
            <span className="review-stat-removed">−{summary.stats.removed}</span>
          </>
        )}
      </span>
    </button>
  );
}
