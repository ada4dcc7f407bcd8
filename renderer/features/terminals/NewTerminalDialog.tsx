import { useEffect, useId, useRef } from 'react';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { expandHome, shortenPath } from '../../app/paths.ts';
import { Dialog } from '../../app/Dialog.tsx';

/** Start a terminal in a folder the user types or picks from the workspace and open terminals. */
export function NewTerminalDialog() {
  const workbench = useWorkbench();
  const terminals = useObservable(workbench.terminals);
  const { workspaceFolders, homeDir } = workbench.appState;
  const inputRef = useRef<HTMLInputElement>(null);
  const listId = useId();

  const focused = workbench.focusedTerminalId ? terminals.get(workbench.focusedTerminalId) : undefined;
  const initial = focused?.cwd ?? workspaceFolders[0] ?? homeDir ?? '';
  const suggestions = [...new Set([...workspaceFolders, ...[...terminals.values()].map((info) => info.cwd)])];

  useEffect(() => {
    inputRef.current?.select();
  }, []);

  const submit = (value: string) => {
    const cwd = expandHome(value.trim(), homeDir);
    workbench.closeDialog();
    void workbench.newTerminal(cwd ? { cwd } : {});
  };

  return (
    <Dialog title="New terminal in a folder" onClose={() => workbench.closeDialog()}>
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          submit(inputRef.current?.value ?? '');
        }}
      >
        <label className="field">
          <span className="field-label">Working directory</span>
          <input
            ref={inputRef}
            name="cwd"
            autoFocus
            spellCheck={false}
            autoComplete="off"
            defaultValue={shortenPath(initial, homeDir)}
            list={listId}
            placeholder={workspaceFolders[0] ?? '/path/to/folder'}
          />
        </label>
        <datalist id={listId}>
          {suggestions.map((path) => (
            <option key={path} value={shortenPath(path, homeDir)} />
          ))}
        </datalist>
        <div className="dialog-actions">
          <button type="button" className="secondary-button" onClick={() => workbench.closeDialog()}>
            Cancel
          </button>
          <button type="submit" className="primary-button">
            Start
          </button>
        </div>
      </form>
    </Dialog>
  );
}
