import { useEffect, useMemo, useRef } from 'react';
import { useObservable } from '../../app/observable.ts';
import { useTerminalInfo, useWorkbench } from '../../app/WorkbenchContext.tsx';
import { CloseIcon, RestartIcon } from '../../app/icons.tsx';
import { compactPath, shortenPath } from '../../app/paths.ts';
import { StatusDot } from '../sidebar/StatusDot.tsx';
import { SearchBar } from './SearchBar.tsx';
import { AgentInputLine, CreatorBadge } from '../activity/AgentInputLine.tsx';
import { ClaudeBadge, useClaudeClient } from '../review/ClaudeBadge.tsx';
import { PaneSendToClaude, usePaneSelection } from '../review/PaneSelection.tsx';
import { AgentStateLine } from '../agents/AgentStateLine.tsx';
import { AgentPromptBanner } from '../agents/AgentPromptBanner.tsx';
import { AgentPaneNotice, ResumedLabel, StartAgainButtons, useAgentPane } from '../workspaces/AgentPaneNotice.tsx';
import { ServerChips } from '../servers/ServerChips.tsx';

/**
 * One pane: lends its body to the terminal's session, follows focus, and shows the pane's
 * header (in splits), search bar and exit banner.
 */
export function TerminalPane({ terminalId, tabActive, inSplit }: { terminalId: string; tabActive: boolean; inSplit: boolean }) {
  const workbench = useWorkbench();
  const info = useTerminalInfo(terminalId);
  const layout = useObservable(workbench.layout);
  const focusRequest = useObservable(workbench.focusRequest);
  const view = useObservable(workbench.view);
  const dialog = useObservable(workbench.dialog);
  const searchTerminalId = useObservable(workbench.searchTerminalId);
  const agentInput = useObservable(workbench.activity.recentInput).get(terminalId);
  // Sessions outlive panes (a pane remounts when its split changes); acquiring is idempotent.
  const session = useMemo(() => workbench.sessions.acquire(terminalId), [workbench, terminalId]);
  const status = useObservable(session.status);
  const inputNotice = useObservable(session.inputNotice);
  // Selections go to Claude Code (selection_changed, Send to Claude); a pane running Claude Code says so.
  const selection = usePaneSelection(session, terminalId);
  const claudeConnected = useClaudeClient(terminalId) !== undefined;
  const bodyRef = useRef<HTMLDivElement>(null);
  const focused = tabActive && layout.focusedTerminalId === terminalId;

  useEffect(() => {
    const body = bodyRef.current;
    if (!body) return;
    const mounted = session.mount(body);
    return () => mounted.dispose();
  }, [session]);

  // Only panes that can be seen hold a WebGL context (TerminalSession.setVisible).
  const visible = tabActive && view === 'terminals';
  useEffect(() => {
    session.setVisible(visible);
  }, [session, visible]);
  useEffect(() => () => session.setVisible(false), [session]);

  useEffect(() => {
    if (!focused || view !== 'terminals' || dialog !== null || searchTerminalId === terminalId) return;
    session.focus();
  }, [focused, focusRequest, view, dialog, searchTerminalId, terminalId, session]);

  const exited = info?.state === 'exited';
  useEffect(() => {
    if (exited) session.markExited();
  }, [exited, session]);
  const homeDir = workbench.appState.homeDir;
  // A terminal started over the socket (or from a remote view) always says through what, even as the only pane of its tab.
  const byOther = info !== undefined && info.createdBy.kind !== 'person';
  // A pane that runs an agent CLI always shows which one and its state.
  const agent = info?.agent ?? null;
  // A pane brought back after a restart says so until it is closed: the screen above its prompt is from before.
  const restored = info?.restoredFrom ? info.restoredFrom : null;
  const agentPane = useAgentPane(terminalId);
  // A pane with a dev server shows it, to be opened with a click.
  const servers = info?.state === 'running' ? (info.servers ?? []) : [];
  const showHeader = info !== undefined && (inSplit || byOther || restored !== null || claudeConnected || agent !== null || servers.length > 0);

  return (
    <div
      className="pane"
      data-terminal-id={terminalId}
      data-focused={focused}
      data-in-split={inSplit}
      data-agent-active={agentInput ? true : undefined}
      onMouseDown={() => {
        if (!focused) workbench.focusPane(terminalId);
      }}
    >
      {showHeader && info && (
        <div className="pane-header" data-agent-active={agentInput ? true : undefined}>
          {/* Keyed by the input, so each new input replays the flash. */}
          {agentInput && <span className="pane-header-flash" key={agentInput.serial} aria-hidden="true" />}
          <StatusDot info={info} />
          <span className="pane-title">{info.name}</span>
          {agent && <AgentStateLine agent={agent} />}
          {byOther && <CreatorBadge creator={info.createdBy} />}
          <ClaudeBadge terminalId={terminalId} />
          {restored && (
            <button
              type="button"
              className="pane-restored"
              disabled={restored.sessionId === null}
              title={
                restored.sessionId === null
                  ? 'Restored after a restart as a fresh shell; nothing of its previous session was recorded.'
                  : 'Restored after a restart: above the prompt is the last screen of the previous session, whose programs ended with the app. Click to open that session in History.'
              }
              onMouseDown={(event) => event.stopPropagation()}
              onClick={() => restored.sessionId !== null && workbench.openHistorySession({ sessionId: restored.sessionId })}
            >
              restored
            </button>
          )}
          <ResumedLabel terminalId={terminalId} />
          <span className="pane-subtitle path-cut-at-start" title={info.cwd}>
            {compactPath(shortenPath(info.cwd, homeDir), 40)}
          </span>
          {/* An agent's pane shows the agent instead of the command that started it. */}
          {info.runningCommand && (agent === null || agent.state === 'exited') && <span className="pane-command">{info.runningCommand}</span>}
          <ServerChips servers={servers} where="pane" />
          <button
            type="button"
            className="pane-close"
            aria-label="Close pane"
            title="Close pane (ends its terminal)"
            onClick={(event) => {
              event.stopPropagation();
              workbench.requestClose([terminalId]);
            }}
          >
            <CloseIcon width={12} height={12} />
          </button>
        </div>
      )}
      {searchTerminalId === terminalId && <SearchBar session={session} />}
      <PaneSendToClaude selection={selection} />
      {/* The agent's prompt floats over the screen's top corner rather than taking a strip: a strip would
          resize the terminal each time the agent asks, and the agent would redraw the very prompt.
          At the top it leaves the agent's own dialog, drawn at the bottom, in view (agents.css). */}
      <div className="pane-slot">
        <div className="pane-body" ref={bodyRef} />
        {!exited && agent?.state === 'needs-input' && <AgentPromptBanner terminalId={terminalId} agent={agent} />}
      </div>
      {status.kind === 'failed' && (
        <div className="pane-message" role="status">
          Could not show this terminal: {status.message}
        </div>
      )}
      {inputNotice && (
        <div className="pane-input-notice" role="status">
          {inputNotice}
        </div>
      )}
      {!exited && <AgentPaneNotice terminalId={terminalId} />}
      {agentInput && <AgentInputLine key={agentInput.serial} input={agentInput} />}
      {exited && info && (
        <div className="exit-banner" data-failed={info.exitCode !== 0 || info.signal !== null} role="status">
          <span className="exit-text">
            {info.signal ? `Process exited (${info.signal})` : `Process exited with code ${info.exitCode ?? '?'}`}
          </span>
          <span className="exit-actions">
            {/* An agent started from a profile starts again as itself (a new session), not with its old command line. */}
            {agentPane ? (
              <StartAgainButtons pane={agentPane} className="banner-button" />
            ) : (
              <button type="button" className="banner-button" onClick={() => void workbench.restartTerminal(terminalId)}>
                <RestartIcon width={13} height={13} /> Restart
              </button>
            )}
            <button type="button" className="banner-button" onClick={() => workbench.closeTerminal(terminalId)}>
              Close
            </button>
          </span>
        </div>
      )}
    </div>
  );
}
