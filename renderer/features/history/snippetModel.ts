/**
 * Search hits as the History browser shows them: snippet segments tidied for one line of text
 * (rendered as text nodes and <mark>, never as HTML), the words to highlight in the transcript,
 * and hits grouped under their session.
 */
import type { HistorySearchHit, Snippet } from '../../../src/common/api/historyContract.ts';

export interface SnippetPart {
  text: string;
  match: boolean;
}

/**
 * Segments for one line: whitespace runs (newlines, tabs, the padding of a TUI) become one space,
 * neighbouring segments of the same kind join, and the ends are trimmed.
 */
export function snippetParts(snippet: Snippet): SnippetPart[] {
  const parts: SnippetPart[] = [];
  for (const segment of snippet) {
    const text = segment.text.replace(/\s+/g, ' ');
    if (!text) continue;
    const last = parts[parts.length - 1];
    if (last && last.match === segment.match) last.text += text;
    else parts.push({ text, match: segment.match });
  }
  const first = parts[0];
  if (first && !first.match) first.text = first.text.trimStart();
  const last = parts[parts.length - 1];
  if (last && !last.match) last.text = last.text.trimEnd();
  return parts.filter((part) => part.text.length > 0);
}

/** The distinct matched words, in order, for highlighting in the transcript (case-insensitive). */
export function matchedTerms(snippet: Snippet): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const segment of snippet) {
    if (!segment.match) continue;
    const term = segment.text.replace(/\s+/g, ' ').trim();
    if (!term || seen.has(term.toLowerCase())) continue;
    seen.add(term.toLowerCase());
    terms.push(term);
  }
  return terms;
}

export interface HitGroup {
  sessionId: string;
  sessionName: string;
  hits: HistorySearchHit[];
}

/**
 * Hits grouped by session, groups in the order of their best hit (the store ranks hits), hits in
 * a group in the order they were printed.
 */
export function groupHitsBySession(hits: readonly HistorySearchHit[]): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const hit of hits) {
    let group = groups.get(hit.sessionId);
    if (!group) {
      group = { sessionId: hit.sessionId, sessionName: hit.sessionName, hits: [] };
      groups.set(hit.sessionId, group);
    }
    group.hits.push(hit);
  }
  for (const group of groups.values()) group.hits.sort((a, b) => a.offset - b.offset || a.at - b.at);
  return [...groups.values()];
}
