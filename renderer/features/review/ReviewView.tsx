import { ReviewIcon } from '../../app/icons.tsx';
import { ViewPage } from '../../app/ViewPage.tsx';

/** Diff review. Nothing feeds the review queue to this view yet, so it is honestly empty. */
export function ReviewView() {
  return (
    <ViewPage label="Review" title="Review">
      <div className="empty-state">
        <ReviewIcon width={28} height={28} />
        <p className="empty-title">Nothing to review</p>
        <p>When an agent proposes a change to a file, its diff appears here for you to accept or reject before the file is touched.</p>
      </div>
    </ViewPage>
  );
}
