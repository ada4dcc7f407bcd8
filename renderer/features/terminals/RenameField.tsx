import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { TerminalInfo } from '../../../src/common/api/contract.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';

/**
 * Edits a terminal's name in place (in the sidebar and on its tab): Enter or leaving the field
 * saves, Escape cancels. Names point at one terminal (the Hub refuses a taken one), so a taken
 * name is said beside the field, which stays open with what was typed; leaving the field then
 * keeps the old name.
 */
export function RenameField({ info }: { info: TerminalInfo }) {
  const workbench = useWorkbench();
  const inputRef = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  const [taken, setTaken] = useState<string | null>(null);

  useEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, []);

  // Fixed under the field: the tab strip and the sidebar clip what overflows them.
  const [placed, setPlaced] = useState<{ top: number; left: number; width: number } | null>(null);
  useLayoutEffect(() => {
    const box = taken !== null ? inputRef.current?.getBoundingClientRect() : undefined;
    setPlaced(box ? { top: box.bottom + 4, left: box.left, width: Math.max(box.width, 220) } : null);
  }, [taken]);

  const nameTaken = (value: string) => {
    const name = value.trim();
    return [...workbench.terminals.value.values()].some((other) => other.id !== info.id && other.name === name) ? name : null;
  };

  const finish = (commit: boolean, leaving: boolean) => {
    if (done.current) return;
    const value = inputRef.current?.value ?? '';
    const clash = commit ? nameTaken(value) : null;
    if (clash !== null && !leaving) {
      setTaken(clash);
      inputRef.current?.select();
      return;
    }
    done.current = true;
    workbench.renamingTerminalId.set(null);
    if (commit && clash === null) void workbench.renameTerminal(info.id, value);
    workbench.requestPaneFocus();
  };

  return (
    <span className="rename-field">
      <input
        ref={inputRef}
        className="rename-input"
        aria-label="Terminal name"
        aria-invalid={taken !== null}
        aria-describedby={taken !== null ? `rename-taken-${info.id}` : undefined}
        defaultValue={info.name}
        maxLength={200}
        spellCheck={false}
        onChange={() => setTaken(null)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            finish(true, false);
          } else if (event.key === 'Escape') {
            event.preventDefault();
            finish(false, false);
          }
        }}
        onBlur={() => finish(true, true)}
      />
      {taken !== null && (
        <span
          className="rename-taken"
          id={`rename-taken-${info.id}`}
          role="alert"
          style={placed ? { top: placed.top, left: placed.left, maxWidth: placed.width } : { visibility: 'hidden' }}
        >
          Another terminal is named “{taken}”. Pick another name, or Esc to keep “{info.name}”.
        </span>
      )}
    </span>
  );
}
