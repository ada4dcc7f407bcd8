import { HistoryIcon } from '../../app/icons.tsx';
import { ViewPage } from '../../app/ViewPage.tsx';

/** Session history. The Hub does not record history in this build, so the view says exactly that. */
export function HistoryView() {
  return (
    <ViewPage label="History" title="History">
      <div className="empty-state">
        <HistoryIcon width={28} height={28} />
        <p className="empty-title">No history recorded yet</p>
        <p>Past sessions, the commands run in them and their output will be listed and searchable here once the history store records them.</p>
      </div>
    </ViewPage>
  );
}
