import { useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { HistoryCommand, HistorySearchHit, HistorySession } from '../../../src/common/api/historyContract.ts';
import { errorCode } from '../../app/errorList.ts';
import { SearchIcon } from '../../app/icons.tsx';
import { useObservable } from '../../app/observable.ts';
import { ViewPage } from '../../app/ViewPage.tsx';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { CommandList } from './CommandList.tsx';
import { importFileSizeProblem, importSizeProblem } from './fileTransfer.ts';
import { HistoryUiConstants } from './historyConstants.ts';
import { DeleteSessionDialog, ReferenceDialog, type ReferenceSubject } from './HistoryDialogs.tsx';
import { emptyFilterFields, hasActiveFilters, toHistoryFilter, type FilterFields } from './historyFilters.ts';
import { HistoryFiltersBar } from './HistoryFiltersBar.tsx';
import { formatBytes } from './historyFormat.ts';
import { useDebounced } from './historyHooks.ts';
import { UploadIcon } from './historyIcons.tsx';
import type { HistoryOpenRequest } from './historyService.ts';
import { RecordingBanners } from './RecordingBanners.tsx';
import { SearchResults } from './SearchResults.tsx';
import { SessionList } from './SessionList.tsx';
import { SessionViewer } from './SessionViewer.tsx';
import { SelectionBar, useHistorySelection } from './HistorySelection.tsx';
import { matchedTerms } from './snippetModel.ts';
import './history.css';

type Tab = 'sessions' | 'commands';

/**
 * Every recorded terminal session: a list (or full-text search results, or the commands run),
 * filters, import, and the session viewer with replay. The list keeps its state (tab, query,
 * filters, scroll) while a session is open, so Escape returns to where you were.
 */
export function HistoryView() {
  const workbench = useWorkbench();
  const openRequest = useObservable(workbench.history.openRequest);
  const [opened, setOpened] = useState<HistoryOpenRequest | null>(null);
  const [reference, setReference] = useState<{ subjects: ReferenceSubject[]; onSent?: () => void } | null>(null);
  const [deleting, setDeleting] = useState<{ id: string; name: string } | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  // Where focus was in the list when a session opened, to return there.
  const returnFocus = useRef<HTMLElement | null>(null);

  // Someone asked to open a session (a restored pane, a link elsewhere in the window).
  useEffect(() => {
    if (!openRequest) return;
    setOpened(openRequest);
    workbench.history.openRequest.set(null);
  }, [openRequest, workbench]);

  const open = (request: HistoryOpenRequest) => {
    returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setOpened(request);
  };
  const back = () => {
    setOpened(null);
    // After the list is shown again.
    requestAnimationFrame(() => {
      const target = returnFocus.current;
      if (target?.isConnected) target.focus();
      else listRef.current?.querySelector<HTMLElement>('[data-list-item], input[type="search"]')?.focus();
    });
  };

  return (
    <ViewPage label="History" title="History" description="Every terminal session, recorded: search what was printed, replay it, hand it to an agent.">
      <div className="history-view" data-mode={opened ? 'viewer' : 'list'}>
        <RecordingBanners />
        <div ref={listRef} hidden={opened !== null} className="history-list-mode">
          <HistoryBrowser
            onOpen={open}
            onReference={(subjects, onSent) => setReference({ subjects, ...(onSent ? { onSent } : {}) })}
            onDelete={(session) => setDeleting({ id: session.id, name: session.name })}
          />
        </div>
        {opened && (
          <SessionViewer
            key={`${opened.sessionId}:${opened.offset ?? ''}`}
            request={opened}
            onBack={back}
            onReference={(session) => setReference({ subjects: [{ sessionId: session.id, sessionName: session.name }] })}
            onDelete={(session) => setDeleting({ id: session.id, name: session.name })}
          />
        )}
      </div>
      {reference && <ReferenceDialog subjects={reference.subjects} onClose={() => setReference(null)} {...(reference.onSent ? { onSent: reference.onSent } : {})} />}
      {deleting && (
        <DeleteSessionDialog
          sessions={[deleting]}
          onClose={() => setDeleting(null)}
          onDeleted={(ids) => {
            setDeleting(null);
            if (opened && ids.includes(opened.sessionId)) back();
          }}
        />
      )}
    </ViewPage>
  );
}

function HistoryBrowser({
  onOpen,
  onReference,
  onDelete,
}: {
  onOpen(request: HistoryOpenRequest): void;
  /** Hand these to an agent; `onSent` once they were. */
  onReference(subjects: ReferenceSubject[], onSent?: () => void): void;
  onDelete(session: HistorySession): void;
}) {
  const workbench = useWorkbench();
  const selection = useHistorySelection();
  const status = useObservable(workbench.history.status);
  const terminals = useObservable(workbench.terminals);
  const [tab, setTab] = useState<Tab>('sessions');
  const [query, setQuery] = useState('');
  const [fields, setFields] = useState<FilterFields>(emptyFilterFields);
  const [importError, setImportError] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const searchInput = useRef<HTMLInputElement>(null);

  const settledQuery = useDebounced(query.trim(), HistoryUiConstants.searchDebounceMs);
  const settledFields = useDebounced(fields, HistoryUiConstants.searchDebounceMs);
  const filterResult = useMemo(() => toHistoryFilter(settledFields, workbench.appState.homeDir), [settledFields, workbench]);
  const filter = filterResult.ok ? filterResult.filter : undefined;
  const filtered = hasActiveFilters(settledFields);

  // Names to offer in "Started by": whoever started the terminals of this window.
  const creatorNames = useMemo(
    () => [...new Set([...terminals.values()].map((info) => info.createdBy.name).filter((name) => name))].sort((a, b) => a.localeCompare(b)),
    [terminals],
  );

  // After ViewPage has focused itself (parents' effects run after their children's).
  useEffect(() => {
    const frame = requestAnimationFrame(() => searchInput.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, []);

  const importFile = async (file: File) => {
    setImportError(null);
    setImporting(true);
    try {
      const host = workbench.appState.host;
      // Before reading: a file over the limit is refused without loading it into memory.
      const fileTooLarge = importFileSizeProblem(host, file.name, file.size);
      if (fileTooLarge) {
        setImportError(fileTooLarge);
        return;
      }
      const contents = await file.text();
      const requestTooLarge = importSizeProblem(host, file.name, contents);
      if (requestTooLarge) {
        setImportError(requestTooLarge);
        return;
      }
      const session = await workbench.client.call('history.import', { fileName: file.name, contents });
      onOpen({ sessionId: session.id });
    } catch (error) {
      if (errorCode(error) === 'CONNECTION_CLOSED') return;
      setImportError(`Could not import ${file.name}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setImporting(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const onDrop = (event: DragEvent) => {
    const file = event.dataTransfer.files[0];
    if (!file) return;
    event.preventDefault();
    void importFile(file);
  };

  const onTabKeyDown = (event: ReactKeyboardEvent) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    const next: Tab = tab === 'sessions' ? 'commands' : 'sessions';
    setTab(next);
    document.getElementById(`history-tab-${next}`)?.focus();
  };

  const openHit = (hit: HistorySearchHit) => onOpen({ sessionId: hit.sessionId, offset: hit.offset, terms: matchedTerms(hit.snippet) });
  const openCommand = (command: HistoryCommand) =>
    onOpen({ sessionId: command.sessionId, offset: command.startOffset, terms: [command.commandLine.split('\n')[0]!.slice(0, 200)] });

  return (
    <div
      className="history-browser"
      onDragOver={(event) => {
        if (event.dataTransfer.types.includes('Files')) event.preventDefault();
      }}
      onDrop={onDrop}
    >
      <div className="history-toolbar">
        <div className="history-tabs" role="tablist" aria-label="History lists" onKeyDown={onTabKeyDown}>
          {(['sessions', 'commands'] as const).map((value) => (
            <button
              key={value}
              id={`history-tab-${value}`}
              type="button"
              role="tab"
              className="history-tab"
              aria-selected={tab === value}
              aria-controls="history-tabpanel"
              tabIndex={tab === value ? 0 : -1}
              onClick={() => setTab(value)}
            >
              {value === 'sessions' ? 'Sessions' : 'Commands'}
            </button>
          ))}
        </div>
        <div className="history-search">
          <SearchIcon />
          <input
            ref={searchInput}
            type="search"
            aria-label={tab === 'sessions' ? 'Search history' : 'Search commands'}
            placeholder={tab === 'sessions' ? 'Search output and commands…' : 'Search command lines…'}
            spellCheck={false}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape' && query) {
                // Clear first; a second Escape leaves the view.
                event.preventDefault();
                event.stopPropagation();
                setQuery('');
              } else if (event.key === 'ArrowDown') {
                event.preventDefault();
                document.querySelector<HTMLElement>('#history-tabpanel [data-list-item]')?.focus();
              }
            }}
          />
        </div>
        <button type="button" className="toolbar-button" disabled={importing} onClick={() => fileInput.current?.click()} title="Import an asciicast v2 (.cast) recording (or drop one here)">
          <UploadIcon width={14} height={14} />
          {importing ? 'Importing…' : 'Import .cast'}
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".cast,application/x-asciicast"
          aria-label="Import asciicast file"
          hidden
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file) void importFile(file);
          }}
        />
      </div>
      {importError && (
        <div className="history-banner" data-severity="error" role="alert">
          <span>{importError}</span>
          <button type="button" className="banner-button" onClick={() => setImportError(null)}>
            Dismiss
          </button>
        </div>
      )}
      <HistoryFiltersBar fields={fields} creatorNames={creatorNames} error={filterResult.ok ? null : filterResult.error} onChange={setFields} />
      <SelectionBar selection={selection} onHandOver={() => onReference([...selection.items], selection.clear)} />
      <div id="history-tabpanel" role="tabpanel" aria-labelledby={`history-tab-${tab}`}>
        {!filterResult.ok ? null : tab === 'commands' ? (
          <CommandList
            query={settledQuery}
            filter={filter}
            filtered={filtered}
            onOpen={openCommand}
            selection={selection}
            onReference={(command) =>
              onReference([{ sessionId: command.sessionId, sessionName: command.sessionName, commandId: command.id, commandLine: command.commandLine }])
            }
          />
        ) : settledQuery ? (
          <SearchResults query={settledQuery} filter={filter} onOpenHit={openHit} />
        ) : (
          <SessionList filter={filter} filtered={filtered} selection={selection} onOpen={(session) => onOpen({ sessionId: session.id })} onDelete={onDelete} />
        )}
      </div>
      {status && status.capBytes > 0 && (
        <p className="history-storage">
          {formatBytes(status.storedBytes)} of {formatBytes(status.capBytes)} stored · the oldest sessions are removed first when History is full
        </p>
      )}
    </div>
  );
}
