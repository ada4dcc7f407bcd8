import type { ReactNode } from 'react';
import { hasActiveFilters, type ExitFilter, type FilterFields, emptyFilterFields } from './historyFilters.ts';

const exitChoices: { value: ExitFilter; label: string }[] = [
  { value: '', label: 'Any exit' },
  { value: 'success', label: 'Succeeded (0)' },
  { value: 'failure', label: 'Failed' },
  { value: 'running', label: 'Still running' },
];

/** Date range, folder, who started it and how it ended: the filters every History list shares. */
export function HistoryFiltersBar({
  fields,
  creatorNames,
  error,
  onChange,
}: {
  fields: FilterFields;
  /** Names seen as creators (agents, remote viewers, people), offered beside the kinds. */
  creatorNames: readonly string[];
  error: string | null;
  onChange(fields: FilterFields): void;
}) {
  const set = (change: Partial<FilterFields>) => onChange({ ...fields, ...change });
  return (
    <div className="history-filters" role="group" aria-label="Filter history">
      <Field label="From">
        <input type="date" aria-label="From date" value={fields.fromDate} max={fields.toDate || undefined} onChange={(event) => set({ fromDate: event.target.value })} />
      </Field>
      <Field label="To">
        <input type="date" aria-label="To date" value={fields.toDate} min={fields.fromDate || undefined} onChange={(event) => set({ toDate: event.target.value })} />
      </Field>
      <Field label="Folder">
        <input
          type="text"
          aria-label="Folder"
          className="history-folder-input"
          placeholder="~/project"
          spellCheck={false}
          value={fields.cwd}
          onChange={(event) => set({ cwd: event.target.value })}
        />
      </Field>
      <Field label="Started by">
        <select aria-label="Started by" value={fields.creator} onChange={(event) => set({ creator: event.target.value })}>
          <option value="">Anyone</option>
          <option value="person">People</option>
          <option value="agent">Agents</option>
          <option value="remote">Remote viewers</option>
          {creatorNames.length > 0 && (
            <optgroup label="By name">
              {creatorNames.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </Field>
      <Field label="Exit">
        <select aria-label="Exit status" value={fields.exit} onChange={(event) => set({ exit: event.target.value as ExitFilter })}>
          {exitChoices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </Field>
      {hasActiveFilters(fields) && (
        <button type="button" className="link-button history-clear-filters" onClick={() => onChange(emptyFilterFields)}>
          Clear filters
        </button>
      )}
      {error && (
        <p className="history-inline-error history-filter-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="history-filter">
      <span>{label}</span>
      {children}
    </label>
  );
}
