/** The Review view's tab strip: the reviews, then one tab per open file (dirty dot, close button). */
import { CloseIcon } from '../../app/icons.tsx';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { fileName } from '../review/reviewFormat.ts';
import { FileIcon } from '../review/reviewIcons.tsx';
import type { FileTab } from './fileTabs.ts';

export function FileTabStrip() {
  const workbench = useWorkbench();
  const files = workbench.review.files;
  const tabs = useObservable(files.tabs);
  const activeId = useObservable(files.activeId);
  const pending = useObservable(workbench.review.pending);

  return (
    <div className="file-tab-strip" role="tablist" aria-label="Reviews and files">
      <button type="button" role="tab" className="file-tab" aria-selected={activeId === null} onClick={() => files.activeId.set(null)}>
        <span className="file-tab-name">Reviews</span>
        {pending.length > 0 && <span className="review-count-badge">{pending.length}</span>}
      </button>
      {tabs.map((tab) => (
        <FileTabButton key={tab.id} tab={tab} active={tab.id === activeId} />
      ))}
    </div>
  );
}

function FileTabButton({ tab, active }: { tab: FileTab; active: boolean }) {
  const workbench = useWorkbench();
  const files = workbench.review.files;
  const close = () => {
    if (tab.dirty && !window.confirm(`${fileName(tab.path)} has unsaved changes. Close it and lose them?`)) return;
    files.close(tab.id);
  };
  return (
    <div className="file-tab-item" data-active={active} data-preview={tab.preview || undefined} data-file-tab={tab.path}>
      <button
        type="button"
        role="tab"
        className="file-tab"
        aria-selected={active}
        title={tab.path}
        onClick={() => files.activeId.set(tab.id)}
        onAuxClick={(event) => {
          if (event.button === 1) close();
        }}
      >
        <FileIcon width={13} height={13} />
        <span className="file-tab-name">{fileName(tab.path)}</span>
        {tab.dirty && <span className="file-tab-dirty" role="img" aria-label="unsaved changes" title="Unsaved changes" />}
      </button>
      <button type="button" className="file-tab-close" aria-label={`Close ${fileName(tab.path)}`} title="Close" onClick={close}>
        <CloseIcon width={12} height={12} />
      </button>
    </div>
  );
}
