/**
 * The paged, newest-first lists of the History view (sessions, commands): the first page, a
 * refresh on `history.changed` that keeps as many items as are shown, "Load more" by the
 * `startedAt` cursor, and answers to an older query dropped.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { mayHaveMore, mergePage, nextPageCursor } from './historyFilters.ts';
import { useHistoryChanged } from './historyHooks.ts';

export type PagedList<T> = { kind: 'loading' } | { kind: 'failed'; message: string } | { kind: 'ready'; items: T[]; more: boolean };

export interface PagedHistoryOptions<T extends { startedAt: number }> {
  /** One page: at most `limit` items started before `before` (all when undefined). A new function starts over. */
  fetchPage(limit: number, before: number | undefined): Promise<T[]>;
  key(item: T): string | number;
  pageSize: number;
  /** A refresh re-reads at most this many (so "Load more" pages stay, within reason). */
  maxRefresh: number;
  /** For the error toast: "Could not load more <what>". */
  what: string;
}

export function usePagedHistory<T extends { startedAt: number }>(options: PagedHistoryOptions<T>) {
  const { fetchPage, key, pageSize, maxRefresh, what } = options;
  const workbench = useWorkbench();
  const [list, setList] = useState<PagedList<T>>({ kind: 'loading' });
  const [loadingMore, setLoadingMore] = useState(false);
  const generation = useRef(0);
  const shownCountRef = useRef(0);
  shownCountRef.current = list.kind === 'ready' ? list.items.length : 0;

  const load = useCallback(
    async (keepShown: boolean) => {
      const current = ++generation.current;
      if (!keepShown) setList({ kind: 'loading' });
      const limit = Math.min(maxRefresh, Math.max(pageSize, keepShown ? shownCountRef.current : 0));
      try {
        const items = await fetchPage(limit, undefined);
        if (current === generation.current) setList({ kind: 'ready', items, more: mayHaveMore(items.length, limit) });
      } catch (error) {
        if (current === generation.current) setList({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
      }
    },
    [fetchPage, pageSize, maxRefresh],
  );

  useEffect(() => {
    void load(false);
  }, [load]);
  useHistoryChanged(() => void load(true));

  const loadMore = async () => {
    if (list.kind !== 'ready') return;
    const current = generation.current;
    setLoadingMore(true);
    try {
      const page = await fetchPage(pageSize, nextPageCursor(list.items));
      if (current !== generation.current) return;
      setList((previous) => (previous.kind === 'ready' ? { kind: 'ready', items: mergePage(previous.items, page, key), more: mayHaveMore(page.length, pageSize) } : previous));
    } catch (error) {
      workbench.errors.report(`Could not load more ${what}`, error);
    } finally {
      setLoadingMore(false);
    }
  };

  return { list, loadingMore, loadMore };
}
