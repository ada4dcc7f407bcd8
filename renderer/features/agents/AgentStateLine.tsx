import type { AgentStatus } from '../../../src/common/api/agentContract.ts';
import { AgentIcon } from '../../app/icons.tsx';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { agentStateText, formatElapsed, isInterrupted, waitingReason } from './agentFormat.ts';
import './agents.css';

/** The state's mark: a calm spinner while working, an amber dot when it asks, a hollow one when done (amber when its turn was cut short). */
export function AgentStateMark({ agent }: { agent: AgentStatus }) {
  return <span className="agent-state-mark" data-agent-state={agent.state} data-agent-interrupted={isInterrupted(agent) || undefined} aria-hidden="true" />;
}

/** "How long it has been in this state", re-read on the AgentWatch clock. */
export function useAgentElapsed(agent: AgentStatus): string {
  const now = useObservable(useWorkbench().agents.now);
  return formatElapsed(now - agent.since);
}

/** "[robot] Claude Code · ◌ working · 12 s": the agent a pane runs, its state and for how long (sidebar row, pane header). */
export function AgentStateLine({ agent, compact = false }: { agent: AgentStatus; compact?: boolean }) {
  const elapsed = useAgentElapsed(agent);
  const state = agentStateText(agent);
  const reason = agent.state === 'needs-input' || agent.state === 'exited' || isInterrupted(agent) ? waitingReason(agent) : null;
  return (
    <span
      className="agent-state-line"
      data-agent-state={agent.state}
      data-agent-interrupted={isInterrupted(agent) || undefined}
      data-agent-kind={agent.kind}
      title={`${agent.label}: ${state} for ${elapsed}${reason ? ` — ${reason}` : ''}`}
    >
      <AgentIcon className="agent-icon" width={12} height={12} />
      {!compact && <span className="agent-label">{agent.label}</span>}
      <AgentStateMark agent={agent} />
      <span className="agent-state-text">{state}</span>
      <span className="agent-elapsed">{elapsed}</span>
    </span>
  );
}
