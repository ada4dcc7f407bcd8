/**
 * An agent pane after a restart, as its pane says it: "resumed" beside the pane's name when the
 * profile brought the agent back with its conversation; when it could not (the profile cannot
 * resume, its CLI is gone, the worktree is gone), a line under the last screen that says why,
 * with **Start again** — the profile started afresh in the same folder, in this pane's place.
 */
import { useState } from 'react';
import type { AgentPaneInfo } from '../../../src/common/api/workspaceContract.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { notResumedText } from './agentPaneFormat.ts';
import './workspaces.css';

/** The pane's agent as started from a profile, if it was. */
export function useAgentPane(terminalId: string): AgentPaneInfo | undefined {
  return useObservable(useWorkbench().worktrees.agentPanes).get(terminalId);
}

export function ResumedLabel({ terminalId }: { terminalId: string }) {
  const pane = useAgentPane(terminalId);
  if (pane?.origin !== 'resumed') return null;
  return (
    <span className="pane-resumed" title={`${pane.profileName} was resumed after the restart with its conversation${pane.sessionId ? ` (session ${pane.sessionId})` : ''}, in ${pane.cwd}.`}>
      resumed
    </span>
  );
}

/** The Start again buttons: afresh, or with the task it was started with. */
export function StartAgainButtons({ pane, className }: { pane: AgentPaneInfo; className: string }) {
  const workbench = useWorkbench();
  const [starting, setStarting] = useState(false);
  const start = (prompt: boolean) => {
    setStarting(true);
    void workbench.restartAgent(pane.terminalId, { prompt }).finally(() => setStarting(false));
  };
  return (
    <>
      <button type="button" className={className} disabled={starting} onClick={() => start(false)} title={`Start ${pane.profileName} afresh in ${pane.cwd}, in this pane's place`}>
        Start again
      </button>
      {pane.prompt && (
        <button type="button" className={className} disabled={starting} onClick={() => start(true)} title={`Start it afresh and give it its task again: ${pane.prompt}`}>
          Start again with its task
        </button>
      )}
    </>
  );
}

export function AgentPaneNotice({ terminalId }: { terminalId: string }) {
  const workbench = useWorkbench();
  const pane = useAgentPane(terminalId);
  const shellCwd = useObservable(workbench.terminals).get(terminalId)?.cwd ?? null;
  const worktree = useObservable(workbench.worktrees.worktrees).get(pane?.worktreePath ?? '');
  if (pane?.origin !== 'not-resumed') return null;
  // Nothing to start again where the folder or the profile is gone.
  const canStart = pane.reason !== 'worktree-missing' && pane.reason !== 'profile-missing';
  const text = notResumedText(pane, shellCwd);
  return (
    <div className="agent-pane-notice" role="status" data-reason={pane.reason ?? undefined}>
      <span className="agent-pane-notice-text" title={text}>
        {text}
      </span>
      {canStart && (
        <span className="agent-pane-notice-actions">
          <StartAgainButtons pane={pane} className="banner-button" />
        </span>
      )}
      {pane.reason === 'worktree-missing' && worktree && (
        <span className="agent-pane-notice-actions">
          <button type="button" className="banner-button" onClick={() => workbench.showWorktreeChanges(worktree.path)} title={`Its branch ${worktree.branch} is still there: discard it or keep it, in Review`}>
            Branch {worktree.branch}…
          </button>
        </span>
      )}
    </div>
  );
}
