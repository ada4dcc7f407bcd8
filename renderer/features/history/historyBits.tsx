/** Small pieces the History lists and the viewer share: exit pills, creator tags, snippets. */
import type { Creator } from '../../../src/common/api/contractTypes.ts';
import type { Snippet } from '../../../src/common/api/historyContract.ts';
import type { ExitStatus } from './historyFormat.ts';
import { snippetParts } from './snippetModel.ts';

export function ExitPill({ status }: { status: ExitStatus }) {
  return (
    <span className="history-exit" data-kind={status.kind} title={status.description}>
      {status.label}
    </span>
  );
}

/** "you", or the agent's / remote viewer's name with its kind. */
export function CreatorTag({ creator }: { creator: Creator }) {
  if (creator.kind === 'person') return <span className="history-creator">{creator.name || 'you'}</span>;
  return (
    <span className="history-creator" data-kind={creator.kind} title={`Started by ${creator.kind} ${creator.name}`}>
      <span className="creator-tag" data-kind={creator.kind}>
        {creator.kind}
      </span>
      <span className="history-creator-name">{creator.name}</span>
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
