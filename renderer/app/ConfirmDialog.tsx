import { Dialog } from './Dialog.tsx';
import { useObservable } from './observable.ts';
import { useWorkbench } from './WorkbenchContext.tsx';

/** Workbench.confirm's question: Cancel (or Escape) leaves everything as it was. */
export function ConfirmDialog() {
  const workbench = useWorkbench();
  const request = useObservable(workbench.pendingConfirm);
  if (!request) return null;
  const cancel = () => workbench.settleConfirm(false);
  return (
    <Dialog title={request.title} onClose={cancel}>
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          workbench.settleConfirm(true);
        }}
      >
        <p className="dialog-text">{request.message}</p>
        <div className="dialog-actions">
          <button type="button" className="secondary-button" onClick={cancel}>
            Cancel
          </button>
          <button type="submit" className="primary-button danger-button" autoFocus>
            {request.confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
