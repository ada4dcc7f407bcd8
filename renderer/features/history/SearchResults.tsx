import { useCallback, useEffect, useRef, useState } from 'react';
import type { HistoryFilter, HistorySearchHit } from '../../../src/common/api/historyContract.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { HistoryUiConstants } from './historyConstants.ts';
import { SnippetText } from './historyBits.tsx';
import { formatStart } from './historyFormat.ts';
import { onListKeyDown, useHistoryChanged } from './historyHooks.ts';
import { groupHitsBySession } from './snippetModel.ts';

type SearchState = { kind: 'searching' } | { kind: 'failed'; message: string } | { kind: 'ready'; hits: HistorySearchHit[] };

/** Full-text search over every session's output and command lines, hits grouped by session. */
export function SearchResults({
  query,
  filter,
  onOpenHit,
}: {
  query: string;
  filter: HistoryFilter | undefined;
  onOpenHit(hit: HistorySearchHit): void;
}) {
  const workbench = useWorkbench();
  const [state, setState] = useState<SearchState>({ kind: 'searching' });
  const generation = useRef(0);

  const search = useCallback(
    async (quiet: boolean) => {
      const current = ++generation.current;
      if (!quiet) setState({ kind: 'searching' });
      try {
        const { hits } = await workbench.client.call('history.search', {
          query,
          limit: HistoryUiConstants.searchLimit,
          ...(filter ? { filter } : {}),
        });
        if (current === generation.current) setState({ kind: 'ready', hits });
      } catch (error) {
        if (current === generation.current) setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
      }
    },
    [workbench, query, filter],
  );

  useEffect(() => {
    void search(false);
  }, [search]);
  useHistoryChanged(() => void search(true));

  if (state.kind === 'searching') return <p className="history-status-line">Searching…</p>;
  if (state.kind === 'failed') {
    return (
      <p className="history-status-line" role="alert">
        Search failed: {state.message}
      </p>
    );
  }
  if (state.hits.length === 0) return <p className="history-status-line">Nothing found for “{query}”.</p>;

  const groups = groupHitsBySession(state.hits);
  const now = Date.now();
  // One tab stop for the results: the first hit; the arrow keys move within them.
  const firstHit = groups[0]?.hits[0];
  return (
    <div className="history-hits" aria-label="Search results" role="region" onKeyDown={onListKeyDown}>
      <p className="history-count" aria-live="polite">
        {state.hits.length === HistoryUiConstants.searchLimit ? `First ${state.hits.length} matches` : `${state.hits.length} ${state.hits.length === 1 ? 'match' : 'matches'}`} in{' '}
        {groups.length} {groups.length === 1 ? 'session' : 'sessions'}
      </p>
      {groups.map((group) => (
        <section key={group.sessionId} className="history-hit-group" data-session-id={group.sessionId} aria-label={group.sessionName}>
          <h3 className="history-hit-session">
            <span>{group.sessionName}</span>
            <span className="history-hit-count">
              {formatStart(group.hits[0]!.at, now)} · {group.hits.length} {group.hits.length === 1 ? 'match' : 'matches'}
            </span>
          </h3>
          <ul className="history-hit-list">
            {group.hits.map((hit, index) => (
              <li key={`${hit.offset}-${hit.commandId ?? ''}-${index}`}>
                <button
                  type="button"
                  className="history-hit"
                  data-list-item
                  data-source={hit.source}
                  tabIndex={hit === firstHit ? 0 : -1}
                  onClick={() => onOpenHit(hit)}
                >
                  <span className="history-hit-source" title={hit.source === 'command' ? 'Matched a command line' : 'Matched the output'}>
                    {hit.source === 'command' ? 'command' : 'output'}
                  </span>
                  <SnippetText snippet={hit.snippet} />
                  <span className="history-hit-time" title={new Date(hit.at).toLocaleString()}>
                    {formatStart(hit.at, now)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
