/**
 * History's marks outside its view: the sidebar's dot while recording is paused (or news waits),
 * and the tab bar's "Don't record" toggle for the focused pane, with a mark on tabs not recorded.
 */
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { RecordIcon } from './historyIcons.tsx';
import './history.css';

/** A dot on the sidebar's History button: amber while recording is paused, blue for unread news. */
export function HistoryNavIndicator() {
  const workbench = useWorkbench();
  const status = useObservable(workbench.history.status);
  const movedAside = useObservable(workbench.history.movedAsideNotice);
  const interrupted = useObservable(workbench.history.interruptedNotice);
  if (status?.state === 'paused') {
    return (
      <span className="history-nav-dot" data-severity="warning" title={`Recording is paused${status.reason ? `: ${status.reason}` : ''}`} aria-hidden="true" />
    );
  }
  if (movedAside) return <span className="history-nav-dot" data-severity="info" title="The history database was moved aside" aria-hidden="true" />;
  if (interrupted) return <span className="history-nav-dot" data-severity="info" title="The last run stopped while recording" aria-hidden="true" />;
  return null;
}

/** Toggle for the focused pane: record its session in History, or not (what was recorded of it is dropped). */
export function RecordingToggle({ terminalId }: { terminalId: string | null }) {
  const workbench = useWorkbench();
  const notRecorded = useObservable(workbench.history.notRecorded);
  const status = useObservable(workbench.history.status);
  const terminals = useObservable(workbench.terminals);
  // Only while recording: a paused or disabled recorder has no terminals to mark.
  if (status?.state !== 'recording') return null;
  const off = terminalId !== null && notRecorded.has(terminalId);
  // A terminal that ended has a finished session (or none): nothing to switch any more.
  const ended = terminalId !== null && terminals.get(terminalId)?.state === 'exited';
  const stopRecording = () => {
    if (!terminalId) return;
    if (off) {
      void workbench.history.setRecording(terminalId, true);
      return;
    }
    workbench.confirm({
      title: "Don't record this terminal?",
      message: 'What History recorded of it so far is deleted, and nothing more is recorded until you switch it back on.',
      confirmLabel: 'Delete and stop recording',
      onConfirm: () => void workbench.history.setRecording(terminalId, false),
    });
  };
  return (
    <button
      type="button"
      className="icon-button recording-toggle"
      aria-label="Don't record this terminal"
      aria-pressed={off}
      data-off={off || undefined}
      disabled={terminalId === null || ended}
      title={
        ended
          ? 'This terminal has ended: its session in History is complete (delete it there).'
          : off
            ? 'Not recorded in History. Click to record this terminal again (from now on).'
            : "Recorded in History. Click to stop recording this terminal: what was recorded of it so far is deleted."
      }
      onClick={stopRecording}
    >
      <RecordIcon off={off} />
    </button>
  );
}

/** A small mark on a tab whose terminals are not recorded. */
export function NotRecordedMark({ terminalIds }: { terminalIds: readonly string[] }) {
  const workbench = useWorkbench();
  const notRecorded = useObservable(workbench.history.notRecorded);
  if (!terminalIds.some((id) => notRecorded.has(id))) return null;
  return (
    <span className="not-recorded-mark" title="Not recorded in History">
      <RecordIcon off width={12} height={12} />
    </span>
  );
}
