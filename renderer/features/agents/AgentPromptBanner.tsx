import type { AgentStatus } from '../../../src/common/api/agentContract.ts';
import { AgentStateMark, useAgentElapsed } from './AgentStateLine.tsx';
import { AgentAnswerButtons } from './AgentAnswerButtons.tsx';
import { waitingReason } from './agentFormat.ts';

/** A strip under a pane whose agent asks something: what it asks, for how long, and the answers it offers. */
export function AgentPromptBanner({ terminalId, agent }: { terminalId: string; agent: AgentStatus }) {
  const elapsed = useAgentElapsed(agent);
  const reason = waitingReason(agent);
  return (
    <div className="agent-prompt-banner" role="group" aria-label={`${agent.label} asks`} data-prompt-kind={agent.prompt?.kind ?? 'unknown'}>
      <AgentStateMark agent={agent} />
      <span className="agent-prompt-text" title={reason}>
        <span className="agent-prompt-who">{agent.label} asks:</span> <span className="agent-prompt-reason">{reason}</span>
      </span>
      <span className="agent-elapsed">{elapsed}</span>
      <AgentAnswerButtons terminalId={terminalId} agent={agent} where="banner" />
    </div>
  );
}
