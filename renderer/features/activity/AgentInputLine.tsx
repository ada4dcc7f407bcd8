import type { Creator } from '../../../src/common/api/contract.ts';
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

/**
 * How a terminal came to be when the person did not open it here: "over the control socket by
 * e2e-agent", "from a remote view by …". Not "agent": that word is kept for panes that run an
 * agent CLI (TerminalInfo.agent).
 */
export function creatorText(creator: Creator): string {
  const who = creator.name || 'an unnamed client';
  return creator.kind === 'remote' ? `from a remote view by ${who}` : `over the control socket by ${who}`;
}

/** "via e2e-agent", "via phone (remote)": the short form of creatorText. */
export function viaText(creator: Creator): string {
  const who = creator.name || (creator.kind === 'remote' ? 'a viewer' : 'a socket client');
  return creator.kind === 'remote' ? `via ${who} (remote)` : `via ${who}`;
}

/** "via e2e-agent", for a pane header, when the terminal was started over the socket or from a remote view. */
export function CreatorBadge({ creator }: { creator: Creator }) {
  return (
    <span className="creator-badge" data-kind={creator.kind} title={`Started ${creatorText(creator)}`}>
      <span className="creator-name">{viaText(creator)}</span>
    </span>
  );
}
