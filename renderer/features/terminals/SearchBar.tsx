import { useEffect, useRef, useState } from 'react';
import type { ISearchOptions } from '@xterm/addon-search';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { ArrowDownIcon, ArrowUpIcon, CloseIcon } from '../../app/icons.tsx';
import type { TerminalSession } from './terminalSession.ts';
import { currentMatchSelection, searchDecorations } from './xtermThemes.ts';

/**
 * Find in a pane's scrollback. The newest output is at the bottom, so (as in VS Code's terminal)
 * typing finds the match nearest the bottom, Enter steps up to older ones, Shift+Enter back down;
 * Escape closes.
 */
export function SearchBar({ session }: { session: TerminalSession }) {
  const workbench = useWorkbench();
  const scheme = useObservable(workbench.colorScheme.scheme);
  const results = useObservable(session.searchResults);
  // Opened again, the bar picks up the pane's last search (as VS Code's terminal does), its text
  // selected to type over: the match it left selected is then the one it shows, not a stray highlight.
  const [query, setQuery] = useState(session.lastSearch.query);
  const [caseSensitive, setCaseSensitive] = useState(session.lastSearch.caseSensitive);
  const [regex, setRegex] = useState(session.lastSearch.regex);
  useEffect(() => {
    session.lastSearch = { query, caseSensitive, regex };
  }, [session, query, caseSensitive, regex]);
  const [invalid, setInvalid] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, []);

  // Leaving the bar (closing, or the pane going away) removes the highlights.
  useEffect(() => () => session.clearSearch(), [session]);
  useEffect(() => {
    session.setCurrentMatchColor(currentMatchSelection(scheme));
    return () => session.setCurrentMatchColor(null);
  }, [session, scheme]);

  const options = (incremental: boolean): ISearchOptions => ({
    caseSensitive,
    regex,
    incremental,
    decorations: searchDecorations(scheme),
  });

  const run = (direction: 'next' | 'previous', text = query, incremental = false) => {
    if (!text) {
      session.clearSearch();
      setInvalid(false);
      return;
    }
    if (regex && !isValidRegex(text)) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    if (direction === 'next') session.findNext(text, options(incremental));
    else session.findPrevious(text, options(incremental));
  };

  // Re-run when a match option changes (not on every keystroke: onChange already searched), and
  // on opening with the last search.
  useEffect(() => {
    if (query) run('previous', query, true);
  }, [caseSensitive, regex, scheme]);

  const close = () => {
    workbench.searchTerminalId.set(null);
    workbench.requestPaneFocus();
  };

  const count = results && query ? (results.count === 0 ? 'No results' : results.index >= 0 ? `${results.index + 1} of ${results.count}` : `${results.count}+ found`) : '';

  return (
    <div className="search-bar" role="search" onMouseDown={(event) => event.stopPropagation()}>
      <input
        ref={inputRef}
        type="search"
        aria-label="Find in terminal"
        placeholder="Find"
        value={query}
        aria-invalid={invalid || undefined}
        spellCheck={false}
        onChange={(event) => {
          setQuery(event.target.value);
          run('previous', event.target.value, true);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault();
            close();
          } else if (event.key === 'Enter') {
            event.preventDefault();
            run(event.shiftKey ? 'next' : 'previous');
          }
        }}
      />
      <button
        type="button"
        className="toggle-button"
        aria-label="Match case"
        aria-pressed={caseSensitive}
        title="Match case"
        onClick={() => setCaseSensitive((value) => !value)}
      >
        Aa
      </button>
      <button
        type="button"
        className="toggle-button"
        aria-label="Use regular expression"
        aria-pressed={regex}
        title="Use regular expression"
        onClick={() => setRegex((value) => !value)}
      >
        .*
      </button>
      <span className="search-count" aria-live="polite">
        {invalid ? 'Invalid pattern' : count}
      </span>
      <button type="button" className="icon-button small" aria-label="Previous match" title="Previous match, older (Enter)" onClick={() => run('previous')}>
        <ArrowUpIcon />
      </button>
      <button type="button" className="icon-button small" aria-label="Next match" title="Next match, newer (Shift+Enter)" onClick={() => run('next')}>
        <ArrowDownIcon />
      </button>
      <button type="button" className="icon-button small" aria-label="Close search" title="Close (Escape)" onClick={close}>
        <CloseIcon />
      </button>
    </div>
  );
}

function isValidRegex(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
