/**
 * Reviews of the machine as the remote view shows them: each pending approval (a file change an
 * agent proposes) with its unified diff, and Accept / Reject, which answer with
 * `permissionResponse` and apply on the machine exactly as its own buttons do; each card says what
 * Accept does to its file (the machine writes it, or the requester does). Below, what was decided
 * lately (here, on the machine, or by another viewer). Ages count from when the review was opened
 * on the machine and are redrawn while the view is open.
 */
import type { PendingApproval, SettledApproval } from '../../../src/browser/relayApprovals.ts';
import type { RelayHubClient } from '../../../src/browser/relayHubClient.ts';
import { ReviewIcon, CheckIcon } from '../../app/icons.tsx';
import { ViewPage } from '../../app/ViewPage.tsx';
import { CrossIcon } from './remoteIcons.tsx';
import { useApprovals, useNow } from './remoteClient.ts';
import { acceptEffect, diffLines, formatAgo, formatBytes } from './remoteFormat.ts';

export function RemoteReviewView({ client }: { client: RelayHubClient | undefined }) {
  const { pending, settled } = useApprovals(client);
  const now = useNow();
  const machineId = client?.machineId ?? 'the machine';
  return (
    <ViewPage
      label="Reviews"
      title="Reviews"
      description={`File changes proposed on ${machineId}. Each says who writes the file if you accept it; Reject turns the change down and tells whoever proposed it.`}
    >
      <div className="remote-reviews">
        {pending.length === 0 ? (
          <div className="empty-state remote-reviews-empty">
            <ReviewIcon width={32} height={32} />
            <p className="empty-title">No reviews waiting</p>
            <p>When an agent on {machineId} proposes a change to a file, it appears here.</p>
          </div>
        ) : (
          <ul className="remote-review-list" aria-label="Pending reviews">
            {pending.map((item) => (
              <PendingReview key={item.requestId} item={item} machineId={machineId} now={now} onDecide={(approved) => client?.approvals.decide(item.requestId, approved)} />
            ))}
          </ul>
        )}
        {settled.length > 0 && (
          <section className="remote-settled" aria-label="Decided reviews">
            <h2>Decided</h2>
            <ul>
              {settled.map((item) => (
                <SettledReview key={`${item.requestId}-${item.at}`} item={item} now={now} />
              ))}
            </ul>
          </section>
        )}
      </div>
    </ViewPage>
  );
}

function PendingReview({ item, machineId, now, onDecide }: { item: PendingApproval; machineId: string; now: number; onDecide(approved: boolean): void }) {
  const review = item.review;
  const title = review?.title ?? review?.path ?? item.toolName;
  const source = review?.source;
  const stats = review?.stats;
  const effect = review && acceptEffect(review, machineId);
  return (
    <li className="remote-review" data-request-id={item.requestId} data-sent={item.sent}>
      <div className="remote-review-head">
        <div className="remote-review-heading">
          <span className="remote-review-title">{title}</span>
          {review?.change && review.change !== 'modify' && <span className="remote-change" data-change={review.change}>{review.change === 'create' ? 'new file' : review.change}</span>}
          {stats && (
            <span className="remote-stats" aria-label={`${stats.added} lines added, ${stats.removed} removed`}>
              <span className="remote-added">+{stats.added}</span> <span className="remote-removed">−{stats.removed}</span>
            </span>
          )}
        </div>
        {review && (
          <div className="remote-review-path" title={review.path}>
            {review.path}
            {review.outsideWorkspace && <span className="remote-outside"> outside the workspace</span>}
          </div>
        )}
        <div className="remote-review-meta">
          {source ? `from ${source.name}${source.terminalName ? ` in “${source.terminalName}”` : ''}` : `${item.toolName} request`}
          {' · '}
          <time dateTime={new Date(item.openedAt).toISOString()} title={new Date(item.openedAt).toLocaleString()}>
            {formatAgo(now - item.openedAt)}
          </time>
        </div>
        {effect && (
          <div className="remote-review-effect" data-apply={review?.apply ? 'machine' : 'requester'}>
            {effect}
          </div>
        )}
        <div className="remote-review-actions">
          {item.sent ? (
            <span className="remote-sending" role="status">
              <span className="spinner" aria-hidden="true" /> {item.sent === 'accept' ? 'Accepting' : 'Rejecting'}…
            </span>
          ) : (
            <>
              <button type="button" className="secondary-button remote-reject" onClick={() => onDecide(false)}>
                <CrossIcon width={13} height={13} /> Reject
              </button>
              <button type="button" className="primary-button remote-accept" onClick={() => onDecide(true)}>
                <CheckIcon width={13} height={13} /> Accept
              </button>
            </>
          )}
        </div>
      </div>
      {review ? <ReviewDiff item={item} /> : <pre className="remote-diff remote-raw">{item.preview}</pre>}
    </li>
  );
}

function ReviewDiff({ item }: { item: PendingApproval }) {
  const review = item.review!;
  if (review.binary) {
    return <p className="remote-diff-note">Binary file ({formatBytes(review.binary.oldBytes)} → {formatBytes(review.binary.newBytes)}): no text diff to show.</p>;
  }
  if (review.diff === '') return <p className="remote-diff-note">No changes to show.</p>;
  return (
    <>
      <pre className="remote-diff" aria-label={`Diff of ${review.path}`}>
        {diffLines(review.diff).map((line, index) => (
          <span key={index} className="remote-diff-line" data-kind={line.kind}>
            {line.text}
            {'\n'}
          </span>
        ))}
      </pre>
      {review.diffTruncated && (
        <p className="remote-diff-note">
          The diff is shortened to fit the relay ({review.diffBytes !== undefined ? `${formatBytes(review.diffBytes)} in all` : 'it is large'}); the decision applies to the whole file.
        </p>
      )}
    </>
  );
}

function SettledReview({ item, now }: { item: SettledApproval; now: number }) {
  const words = item.outcome === 'withdrawn' ? 'Withdrawn by its requester' : `${item.outcome === 'accepted' ? 'Accepted' : 'Rejected'}${item.decidedBy ? ` by ${item.decidedBy}` : ''}`;
  return (
    <li className="remote-settled-item" data-outcome={item.outcome}>
      <span className="remote-settled-outcome">{words}</span>
      <span className="remote-settled-title">{item.title}</span>
      <span className="remote-settled-time">
        {item.confirmed ? '' : 'sent, not confirmed · '}
        {formatAgo(now - item.at)}
      </span>
    </li>
  );
}
