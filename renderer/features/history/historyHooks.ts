/** React glue for the History browser: refresh on Hub changes, debounced values, list keys. */
import { useEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { HistoryUiConstants } from './historyConstants.ts';
import { RefreshCoalescer } from './refreshCoalescer.ts';

/**
 * Calls `onChange` when the Hub says sessions were added, ended, pruned, deleted or imported:
 * coalesced into one call per burst, and at least one per HistoryUiConstants.refreshMaxWaitMs
 * while the notices keep coming.
 */
export function useHistoryChanged(onChange: () => void): void {
  const workbench = useWorkbench();
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    const coalescer = new RefreshCoalescer({
      delayMs: HistoryUiConstants.refreshCoalesceMs,
      maxWaitMs: HistoryUiConstants.refreshMaxWaitMs,
      onRefresh: () => latest.current(),
    });
    const subscription = workbench.client.on('history.changed', () => coalescer.notify());
    return () => {
      subscription.dispose();
      coalescer.dispose();
    };
  }, [workbench]);
}

/** `value`, once it has stopped changing for `delayMs`. */
export function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

/**
 * Arrow keys, Home and End move focus between the list's items (elements marked
 * `data-list-item`), as in the sidebar's terminal list. Put it on the list's container.
 */
export function onListKeyDown(event: ReactKeyboardEvent<HTMLElement>): void {
  const keys: Record<string, 'next' | 'previous' | 'first' | 'last'> = { ArrowDown: 'next', ArrowUp: 'previous', Home: 'first', End: 'last' };
  const move = keys[event.key];
  const target = event.target as HTMLElement;
  if (!move || event.altKey || event.ctrlKey || event.metaKey || !target.matches('[data-list-item]')) return;
  const items = [...event.currentTarget.querySelectorAll<HTMLElement>('[data-list-item]')];
  const index = items.indexOf(target);
  const next = move === 'next' ? items[index + 1] : move === 'previous' ? items[index - 1] : move === 'first' ? items[0] : items[items.length - 1];
  if (!next) return;
  event.preventDefault();
  next.focus();
  next.scrollIntoView({ block: 'nearest' });
}
