import { useEffect, useId, useRef, useState } from 'react';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { expandHome, shortenPath } from '../../app/paths.ts';
import { Dialog } from '../../app/Dialog.tsx';
import { errorMessage } from '../../app/errorList.ts';

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

  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const errorId = useId();

  // The dialog stays open until the terminal started: a folder that does not exist is said here,
  // beside what was typed, so it can be corrected.
  const submit = async (value: string) => {
    const cwd = expandHome(value.trim(), homeDir);
    setStarting(true);
    try {
      await workbench.newTerminal({ ...(cwd ? { cwd } : {}), throwErrors: true });
      workbench.closeDialog();
    } catch (failure) {
      setError(errorMessage(failure));
      setStarting(false);
      inputRef.current?.select();
    }
  };

  return (
    <Dialog title="New terminal in a folder" onClose={() => workbench.closeDialog()}>
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit(inputRef.current?.value ?? '');
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
            aria-invalid={error !== null}
            aria-describedby={error ? errorId : undefined}
            onChange={() => setError(null)}
          />
          {error && (
            <p id={errorId} className="field-error" role="alert">
              {error}
            </p>
          )}
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
          <button type="submit" className="primary-button" disabled={starting}>
            Start
          </button>
        </div>
      </form>
    </Dialog>
  );
}
