import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { Dialog } from '../../app/Dialog.tsx';

/** "Close anyway?" for terminals that still run something (Workbench.requestClose). */
export function ConfirmCloseDialog() {
  const workbench = useWorkbench();
  const pending = useObservable(workbench.pendingClose);
  if (!pending) return null;
  const count = pending.terminalIds.length;
  const cancel = () => workbench.settlePendingClose(false);
  return (
    <Dialog title={count === 1 ? 'Close the terminal?' : `Close ${count} terminals?`} onClose={cancel}>
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          workbench.settlePendingClose(true);
        }}
      >
        <div className="dialog-text">
          <p>Closing ends what still runs:</p>
          <ul className="busy-list">
            {pending.busy.map((entry, index) => (
              <li key={index}>
                <code>{entry.running}</code> in <strong>{entry.name}</strong>
              </li>
            ))}
          </ul>
        </div>
        <div className="dialog-actions">
          {/* The keyboard starts on Cancel: Enter right after Ctrl+Shift+X must not end a build or an agent. */}
          <button type="button" className="secondary-button" onClick={cancel} autoFocus>
            Cancel
          </button>
          <button type="submit" className="primary-button danger-button">
            {count === 1 ? 'Close terminal' : 'Close terminals'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
