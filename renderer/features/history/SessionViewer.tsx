import { useEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { HistorySession } from '../../../src/common/api/historyContract.ts';
import { AgentIcon, ArrowDownIcon, ArrowUpIcon, TrashIcon } from '../../app/icons.tsx';
import { useObservable } from '../../app/observable.ts';
import { shortenPath } from '../../app/paths.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { searchDecorations, xtermTheme } from '../terminals/xtermThemes.ts';
import { downloadTextFile } from './fileTransfer.ts';
import { CreatorTag, ExitPill } from './historyBits.tsx';
import { formatBytes, formatDuration, formatStart, programLine, sessionDuration, sessionExitStatus } from './historyFormat.ts';
import { BackIcon, DownloadIcon } from './historyIcons.tsx';
import type { HistoryOpenRequest } from './historyService.ts';
import { ReplayControls } from './ReplayControls.tsx';
import { SessionReplay } from './sessionReplay.ts';
import { TranscriptTerminal } from './transcriptTerminal.ts';
import { HistoryUiConstants } from './historyConstants.ts';

/** `load` counts the loads, so a reloaded session gets a fresh viewer once its new details are in. */
type SessionState = { kind: 'loading' } | { kind: 'failed'; message: string } | { kind: 'ready'; session: HistorySession; load: number };

/** Keys the viewer takes for itself, also when the transcript terminal has focus. */
function isViewerKey(event: KeyboardEvent): boolean {
  if (event.ctrlKey || event.altKey || event.metaKey) return false;
  return ['Space', 'Escape', 'ArrowLeft', 'ArrowRight', 'BracketLeft', 'BracketRight'].includes(event.code);
}

/** One recorded session: its details and actions, the read-only transcript, and the replay controls. */
export function SessionViewer({
  request,
  onBack,
  onReference,
  onDelete,
}: {
  request: HistoryOpenRequest;
  onBack(): void;
  onReference(session: HistorySession): void;
  onDelete(session: HistorySession): void;
}) {
  const workbench = useWorkbench();
  const [state, setState] = useState<SessionState>({ kind: 'loading' });
  // Bumped by "Reload" on a live session: loads it again with what was recorded since.
  const [loadCount, setLoadCount] = useState(0);

  useEffect(() => {
    let cancelled = false;
    workbench.client.call('history.get', { id: request.sessionId }).then(
      (session) => !cancelled && setState({ kind: 'ready', session, load: loadCount }),
      (error: unknown) => !cancelled && setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, [workbench, request.sessionId, loadCount]);

  const onKeyDown = (event: ReactKeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onBack();
    }
  };

  if (state.kind !== 'ready') {
    return (
      <div className="history-viewer" onKeyDown={onKeyDown}>
        <div className="history-viewer-bar">
          <BackButton onBack={onBack} />
        </div>
        <p className="history-status-line" role={state.kind === 'failed' ? 'alert' : undefined}>
          {state.kind === 'loading' ? 'Opening the session…' : `Could not open the session: ${state.message}`}
        </p>
      </div>
    );
  }
  return (
    <LoadedSession
      key={`${state.session.id}:${state.load}`}
      session={state.session}
      request={request}
      onBack={onBack}
      onReload={() => setLoadCount((count) => count + 1)}
      onReference={() => onReference(state.session)}
      onDelete={() => onDelete(state.session)}
    />
  );
}

function BackButton({ onBack }: { onBack(): void }) {
  return (
    <button type="button" className="history-back" aria-label="Back to the list" title="Back to the list (Escape)" onClick={onBack}>
      <BackIcon />
      <span>All sessions</span>
    </button>
  );
}

/**
 * The session's replay, created in the effect rather than in state: React may run an effect,
 * its cleanup and the effect again on one mount (StrictMode does, on purpose), and a replay
 * created once and disposed by the first cleanup would stay "Loading" for ever. Null until the
 * effect has run.
 */
function useSessionReplay(session: HistorySession, request: HistoryOpenRequest): SessionReplay | null {
  const workbench = useWorkbench();
  const [replay, setReplay] = useState<SessionReplay | null>(null);
  useEffect(() => {
    const created = new SessionReplay({
      client: workbench.client,
      session,
      settings: workbench.settings.value,
      theme: xtermTheme(workbench.colorScheme.scheme.value),
      searchDecorations: () => searchDecorations(workbench.colorScheme.scheme.value),
      isViewerKey,
      createTerminal: (options) => new TranscriptTerminal(options),
    });
    setReplay(created);
    const jump = request.offset !== undefined ? { offset: request.offset, terms: request.terms ?? [] } : undefined;
    void created.start(jump);
    return () => {
      created.dispose();
      setReplay((current) => (current === created ? null : current));
    };
  }, [workbench, session, request]);
  return replay;
}

function LoadedSession({
  session,
  request,
  onBack,
  onReload,
  onReference,
  onDelete,
}: {
  session: HistorySession;
  request: HistoryOpenRequest;
  onBack(): void;
  onReload(): void;
  onReference(): void;
  onDelete(): void;
}) {
  const workbench = useWorkbench();
  const replay = useSessionReplay(session, request);
  const rootRef = useRef<HTMLDivElement>(null);

  // After ViewPage's own focus on mount, when the view opens straight onto a session.
  useEffect(() => {
    const frame = requestAnimationFrame(() => rootRef.current?.focus());
    return () => cancelAnimationFrame(frame);
  }, []);

  const exportAs = async (format: 'cast' | 'text') => {
    try {
      const { fileName, contents } = await workbench.client.call('history.export', { id: session.id, format });
      downloadTextFile(fileName, contents, format === 'cast' ? 'application/x-asciicast' : 'text/plain;charset=utf-8');
    } catch (error) {
      workbench.errors.report(format === 'cast' ? 'Could not export the session as asciicast' : 'Could not export the session as text', error);
    }
  };

  const onKeyDown = (event: ReactKeyboardEvent) => {
    const target = event.target as HTMLElement;
    const inField = target.matches('input, select, textarea') && !target.classList.contains('xterm-helper-textarea');
    if (event.key === 'Escape') {
      if (inField && (target as HTMLInputElement).value) return; // the find field clears itself first
      event.preventDefault();
      event.stopPropagation();
      onBack();
      return;
    }
    if (!replay || inField || event.ctrlKey || event.altKey || event.metaKey) return;
    const onControl = target.matches('button, [role="slider"], a');
    if (event.code === 'Space' && !onControl) {
      event.preventDefault();
      replay.toggle();
    } else if ((event.key === 'ArrowLeft' || event.key === 'ArrowRight') && !target.matches('[role="slider"], [role="radio"]')) {
      event.preventDefault();
      const step = HistoryUiConstants.timelineStepMs * (event.key === 'ArrowLeft' ? -1 : 1);
      replay.seek(Math.max(0, replay.position + step));
    } else if (event.code === 'BracketLeft' || event.code === 'BracketRight') {
      event.preventDefault();
      replay.seekToAdjacentCommand(event.code === 'BracketLeft' ? -1 : 1);
    }
  };

  const duration = sessionDuration(session, Date.now());
  const homeDir = workbench.appState.homeDir;
  return (
    <div
      ref={rootRef}
      className="history-viewer"
      tabIndex={-1}
      aria-label={`Session ${session.name}`}
      role="region"
      data-session-id={session.id}
      onKeyDown={onKeyDown}
    >
      <div className="history-viewer-bar">
        <BackButton onBack={onBack} />
        <div className="history-viewer-title">
          <h2>{session.name}</h2>
          <ExitPill status={sessionExitStatus(session)} />
        </div>
        <div className="history-viewer-actions">
          {replay && <ReplayFind replay={replay} />}
          <button type="button" className="toolbar-button" onClick={() => void exportAs('cast')} title="Download as an asciicast v2 file (plays in asciinema)">
            <DownloadIcon width={14} height={14} />
            Export .cast
          </button>
          <button type="button" className="toolbar-button" onClick={() => void exportAs('text')} title="Download the output as plain text">
            <DownloadIcon width={14} height={14} />
            Export text
          </button>
          <button type="button" className="toolbar-button" onClick={onReference} title="Give this session to an agent running in a terminal">
            <AgentIcon width={14} height={14} />
            Reference in agent
          </button>
          <button type="button" className="icon-button danger" aria-label="Delete session" title="Delete this session" onClick={onDelete}>
            <TrashIcon />
          </button>
        </div>
      </div>
      <dl className="history-viewer-meta">
        <div>
          <dt>Program</dt>
          <dd>{session.source === 'imported' ? 'imported cast' : programLine(session)}</dd>
        </div>
        {session.cwd && (
          <div>
            <dt>Folder</dt>
            <dd title={session.cwd}>{shortenPath(session.cwd, homeDir)}</dd>
          </div>
        )}
        <div>
          <dt>Started by</dt>
          <dd>
            <CreatorTag creator={session.createdBy} />
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd title={new Date(session.startedAt).toLocaleString()}>{formatStart(session.startedAt, Date.now())}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{duration === null ? '—' : formatDuration(duration)}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>{formatBytes(session.byteCount)}</dd>
        </div>
      </dl>
      {session.live && (
        <p className="history-notice" role="status">
          This terminal is still open and being recorded: shown is its output up to when you opened it.{' '}
          <button type="button" className="link-button" onClick={onReload}>
            Reload
          </button>
        </p>
      )}
      {session.truncated && (
        <p className="history-notice" role="status">
          This session was larger than the per-session cap: its oldest output was dropped, so the transcript starts part way through.
        </p>
      )}
      {replay ? (
        <ReplayStage replay={replay} request={request} />
      ) : (
        <div className="transcript-box" data-load="loading">
          <p className="history-status-line">Loading the transcript…</p>
        </div>
      )}
    </div>
  );
}

/** The "match not on screen" notice, the transcript with its load state, and the replay controls. */
function ReplayStage({ replay, request }: { replay: SessionReplay; request: HistoryOpenRequest }) {
  const workbench = useWorkbench();
  const loadState = useObservable(replay.loadState);
  const terminal = useObservable(replay.terminal);
  const jumpFound = useObservable(replay.jumpFound);
  const slotRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const slot = slotRef.current;
    if (!terminal || !slot) return;
    const mounted = terminal.mount(slot);
    const probe = { readScreen: () => terminal.readScreen() };
    workbench.history.activeViewer = probe;
    const themes = workbench.colorScheme.scheme.onDidChange((scheme) => terminal.applyTheme(xtermTheme(scheme)));
    const settings = workbench.settings.onDidChange((value) => terminal.applySettings(value));
    return () => {
      if (workbench.history.activeViewer === probe) workbench.history.activeViewer = null;
      themes.dispose();
      settings.dispose();
      mounted.dispose();
    };
  }, [terminal, workbench]);

  return (
    <>
      {jumpFound === false && request.terms && request.terms.length > 0 && (
        <p className="history-notice" role="status" data-notice="match-off-screen">
          The match is in the recorded text, but not on screen any more (a full-screen program redrew it); the transcript shows the end.
        </p>
      )}
      <div className="transcript-box" ref={slotRef} data-load={loadState.kind}>
        {loadState.kind === 'loading' && (
          <p className="history-status-line">Loading the transcript…{loadState.loadedEvents > 0 ? ` ${loadState.loadedEvents.toLocaleString()} events` : ''}</p>
        )}
        {loadState.kind === 'failed' && (
          <p className="history-status-line" role="alert">
            Could not load the transcript: {loadState.message}
          </p>
        )}
      </div>
      {terminal && <ReplayControls replay={replay} />}
    </>
  );
}

function ReplayFind({ replay }: { replay: SessionReplay }) {
  const terminal = useObservable(replay.terminal);
  return terminal ? <TranscriptFind terminal={terminal} /> : null;
}

/** Find in the transcript (as in a pane): Enter and Shift+Enter step through the matches. */
function TranscriptFind({ terminal }: { terminal: TranscriptTerminal }) {
  const workbench = useWorkbench();
  const results = useObservable(terminal.searchResults);
  const [query, setQuery] = useState('');
  const options = (incremental: boolean) => ({ caseSensitive: false, incremental, decorations: searchDecorations(workbench.colorScheme.scheme.value) });
  const run = (direction: 'next' | 'previous', text = query, incremental = false) => {
    if (!text) {
      terminal.clearSearch();
      return;
    }
    if (direction === 'next') terminal.findNext(text, options(incremental));
    else terminal.findPrevious(text, options(false));
  };
  const counts = results && query ? (results.count === 0 ? 'No results' : results.index >= 0 ? `${results.index + 1}/${results.count}` : `${results.count}+`) : '';
  return (
    <div className="transcript-find" role="search">
      <input
        type="search"
        aria-label="Find in transcript"
        placeholder="Find in transcript"
        value={query}
        spellCheck={false}
        onChange={(event) => {
          setQuery(event.target.value);
          run('next', event.target.value, true);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            run(event.shiftKey ? 'previous' : 'next');
          } else if (event.key === 'Escape' && query) {
            event.preventDefault();
            event.stopPropagation();
            setQuery('');
            terminal.clearSearch();
          }
        }}
      />
      <span className="transcript-find-count" aria-live="polite">
        {counts}
      </span>
      <button type="button" className="icon-button small" aria-label="Previous match" title="Previous match (Shift+Enter)" onClick={() => run('previous')}>
        <ArrowUpIcon />
      </button>
      <button type="button" className="icon-button small" aria-label="Next match" title="Next match (Enter)" onClick={() => run('next')}>
        <ArrowDownIcon />
      </button>
    </div>
  );
}
