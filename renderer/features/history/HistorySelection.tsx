/**
 * Sessions and commands picked in the History lists, to hand to an agent in one message. The
 * selection spans both tabs (a failing command and the session of the server it ran against) and
 * keeps the order things were picked in, which is the order the pointer lists them.
 */
import { useMemo, useState } from 'react';
import { AgentIcon, CloseIcon } from '../../app/icons.tsx';
import { type ReferenceSubject, subjectKey } from './HistoryDialogs.tsx';

export interface HistorySelection {
  readonly items: readonly ReferenceSubject[];
  has(subject: ReferenceSubject): boolean;
  toggle(subject: ReferenceSubject): void;
  clear(): void;
}

export function useHistorySelection(): HistorySelection {
  const [picked, setPicked] = useState<ReadonlyMap<string, ReferenceSubject>>(new Map());
  return useMemo(
    () => ({
      items: [...picked.values()],
      has: (subject) => picked.has(subjectKey(subject)),
      toggle: (subject) =>
        setPicked((current) => {
          const next = new Map(current);
          const key = subjectKey(subject);
          if (next.has(key)) next.delete(key);
          else next.set(key, subject);
          return next;
        }),
      clear: () => setPicked(new Map()),
    }),
    [picked],
  );
}

/** The checkbox at the start of a row; its clicks stay off the row (which opens the session). */
export function SelectBox({ selection, subject, label }: { selection: HistorySelection; subject: ReferenceSubject; label: string }) {
  return (
    <input
      type="checkbox"
      className="history-select"
      aria-label={label}
      // Out of the list's single tab stop (the arrow keys move between rows); Space on a row's
      // open button does not select, the click does.
      tabIndex={-1}
      checked={selection.has(subject)}
      onClick={(event) => event.stopPropagation()}
      onChange={() => selection.toggle(subject)}
    />
  );
}

/** Shown while anything is selected: how many, hand them over, or start again. */
export function SelectionBar({ selection, onHandOver }: { selection: HistorySelection; onHandOver(): void }) {
  const count = selection.items.length;
  if (count === 0) return null;
  const sessions = selection.items.filter((item) => item.commandId === undefined).length;
  const commands = count - sessions;
  const parts = [sessions > 0 && `${sessions} ${sessions === 1 ? 'session' : 'sessions'}`, commands > 0 && `${commands} ${commands === 1 ? 'command' : 'commands'}`].filter(Boolean);
  return (
    <div className="history-selection-bar" role="region" aria-label="Selection">
      <span className="history-selection-count" role="status">
        {parts.join(' and ')} selected
      </span>
      <button type="button" className="primary-button history-selection-hand" onClick={onHandOver}>
        <AgentIcon width={13} height={13} />
        Hand to agent…
      </button>
      <button type="button" className="secondary-button" onClick={selection.clear}>
        <CloseIcon width={12} height={12} />
        Clear
      </button>
    </div>
  );
}
