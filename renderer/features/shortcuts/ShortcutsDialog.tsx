import { Dialog } from '../../app/Dialog.tsx';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { ShortcutsList } from './ShortcutsList.tsx';

export function ShortcutsDialog() {
  const workbench = useWorkbench();
  return (
    <Dialog title="Keyboard shortcuts" onClose={() => workbench.closeDialog()} wide>
      <div className="dialog-scroll">
        <ShortcutsList />
      </div>
    </Dialog>
  );
}
