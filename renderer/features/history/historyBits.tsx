/** Small pieces the History lists and the viewer share: exit pills, creator tags, snippets. */
import type { Creator } from '../../../src/common/api/contractTypes.ts';
import type { Snippet } from '../../../src/common/api/historyContract.ts';
import type { ExitStatus } from './historyFormat.ts';
import { snippetParts } from './snippetModel.ts';
import { creatorText, viaText } from '../activity/AgentInputLine.tsx';

export function ExitPill({ status }: { status: ExitStatus }) {
  return (
    <span className="history-exit" data-kind={status.kind} title={status.description}>
      {status.label}
    </span>
  );
}

/**
 * "you", or "via <client>" for a session started over the control socket or from a remote view
 * (the word "agent" and its badge mean a pane that runs an agent CLI).
 */
export function CreatorTag({ creator }: { creator: Creator }) {
  if (creator.kind === 'person') return <span className="history-creator">{creator.name || 'you'}</span>;
  return (
    <span className="history-creator" data-kind={creator.kind} title={`Started ${creatorText(creator)}`}>
      <span className="history-creator-name">{viaText(creator)}</span>
    </span>
  );
}

/** A search snippet: text nodes and <mark> elements only (the store's text is never parsed as HTML). */
export function SnippetText({ snippet }: { snippet: Snippet }) {
  return (
    <span className="history-snippet">
      {snippetParts(snippet).map((part, index) => (part.match ? <mark key={index}>{part.text}</mark> : <span key={index}>{part.text}</span>))}
    </span>
  );
}
