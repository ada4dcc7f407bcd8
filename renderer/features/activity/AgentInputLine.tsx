import type { RecentAgentInput } from './agentActivity.ts';

/**
 * "▸ claude-code sent: npm test" under a pane, while an agent's input is fresh; it fades out by
 * itself (CSS) and is removed when the Workbench forgets the input.
 */
export function AgentInputLine({ input }: { input: RecentAgentInput }) {
  return (
    <div className="agent-input-line" role="status" data-agent-input={input.peer}>
      <span className="agent-input-marker" aria-hidden="true">
        ▸
      </span>
      <span className="agent-input-peer">{input.peer}</span>
      <span className="agent-input-verb">sent:</span>
      <code className="agent-input-text" title={input.text}>
        {input.text || '(Enter)'}
      </code>
    </div>
  );
}

/** "agent · claude-code", for a pane header or a list, when someone other than the person started the terminal. */
export function CreatorBadge({ kind, name }: { kind: string; name: string }) {
  return (
    <span className="creator-badge" title={`Started by ${kind} ${name}`}>
      <span className="creator-tag" data-kind={kind}>
        {kind}
      </span>
      <span className="creator-name">by {name}</span>
    </span>
  );
}
