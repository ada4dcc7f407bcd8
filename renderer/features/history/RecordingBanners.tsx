import { WarningIcon } from '../../app/icons.tsx';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { RecordIcon } from './historyIcons.tsx';

/**
 * The recording state, in the History view: a warning while recording is paused (disk full, a
 * database error; terminals keep working), a note when it is off, and once each, the news that a
 * database that could not be opened was moved aside and that the last run stopped while recording.
 */
export function RecordingBanners() {
  const workbench = useWorkbench();
  const status = useObservable(workbench.history.status);
  const movedAside = useObservable(workbench.history.movedAsideNotice);
  const interrupted = useObservable(workbench.history.interruptedNotice);
  return (
    <>
      {status?.state === 'paused' && (
        <div className="history-banner" data-severity="warning" role="alert" data-recording="paused">
          <WarningIcon />
          <span>
            <strong>Recording is paused.</strong> {status.reason ? `${status.reason}. ` : ''}Terminals keep working, but their output is not being
            recorded until this is fixed.
          </span>
        </div>
      )}
      {status?.state === 'disabled' && (
        <div className="history-banner" data-severity="info" role="status" data-recording="disabled">
          <RecordIcon off />
          <span>Recording is turned off: new terminal sessions are not added to History.</span>
        </div>
      )}
      {interrupted && (
        <div className="history-banner" data-severity="info" role="status" data-recording="interrupted">
          <WarningIcon />
          <span>
            Switchboard stopped without closing {interrupted.sessions === 1 ? 'a terminal session' : `${interrupted.sessions} terminal sessions`} it was
            recording (it crashed or was killed). {interrupted.sessions === 1 ? 'It ends' : 'They end'} where recording stopped, at{' '}
            {new Date(interrupted.lastRecordedAt).toLocaleTimeString()}, and {interrupted.sessions === 1 ? 'is' : 'are'} marked <em>interrupted</em>;
            the output of the last moment before that may be missing.
          </span>
          <button type="button" className="banner-button" onClick={() => workbench.history.dismissInterrupted()}>
            Dismiss
          </button>
        </div>
      )}
      {movedAside && (
        <div className="history-banner" data-severity="info" role="status">
          <WarningIcon />
          <span>
            The history database could not be opened, so it was moved aside to <code>{movedAside}</code> and a new one was started. Sessions recorded
            before are in that file.
          </span>
          <button type="button" className="banner-button" onClick={() => workbench.history.dismissMovedAside()}>
            Dismiss
          </button>
        </div>
      )}
    </>
  );
}
