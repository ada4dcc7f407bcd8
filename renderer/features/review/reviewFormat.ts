/**
 * How reviews read in the UI: paths relative to the workspace, who asked, how long ago, the
 * window title with the pending count. Pure, unit-tested.
 */
import type { ReviewSource, ReviewSummary } from '../../../src/common/api/reviewContract.ts';
import { shortenPath } from '../../app/paths.ts';

export interface DisplayPath {
  /** "src/app.ts" inside a workspace folder, "~/notes/todo.md" or "/etc/hosts" outside. */
  text: string;
  /** The workspace folder's name when the window has several (so two `src/index.ts` differ). */
  folder: string | null;
}

/**
 * A path as the person thinks of it: relative to the workspace folder that holds it (the longest
 * match when folders nest), else home-shortened and absolute.
 */
export function displayPath(path: string, workspaceFolders: readonly string[], homeDir: string | undefined): DisplayPath {
  let best: string | null = null;
  for (const folder of workspaceFolders) {
    const root = folder.replace(/[\\/]+$/, '');
    if (root === '') continue;
    if (path.startsWith(`${root}/`) || path.startsWith(`${root}\\`)) {
      if (best === null || root.length > best.length) best = root;
    }
  }
  if (best === null) return { text: shortenPath(path, homeDir), folder: null };
  const folderName = best.slice(Math.max(best.lastIndexOf('/'), best.lastIndexOf('\\')) + 1);
  return { text: path.slice(best.length + 1), folder: workspaceFolders.length > 1 ? folderName : null };
}

/** The file name of a path. */
export function fileName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1) || path;
}

/** "Claude Code in build", "deploy-bot over the control socket", "switchboard-mcp via MCP". */
export function sourceLabel(source: ReviewSource): string {
  switch (source.kind) {
    case 'ide':
      return source.terminalName ? `${source.name} in ${source.terminalName}` : `${source.name} (outside Switchboard's terminals)`;
    case 'control':
      return source.terminalName ? `${source.name} over the socket, in ${source.terminalName}` : `${source.name} over the control socket`;
    case 'mcp':
      return source.terminalName ? `${source.name} via MCP, in ${source.terminalName}` : `${source.name} via MCP`;
  }
}

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the date. */
export function formatAge(at: number, now: number): string {
  const elapsed = Math.max(0, now - at);
  if (elapsed < minute) return 'just now';
  if (elapsed < hour) return `${Math.floor(elapsed / minute)} min ago`;
  if (elapsed < day) return `${Math.floor(elapsed / hour)} h ago`;
  if (elapsed < 2 * day) return 'yesterday';
  if (elapsed < 7 * day) return `${Math.floor(elapsed / day)} days ago`;
  return dateFormat.format(at);
}

// Made once: building an Intl formatter costs about a millisecond, and lists format many dates.
const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A full local date and time, for tooltips. */
export function formatDateTime(at: number): string {
  return dateTimeFormat.format(at);
}

/**
 * "(2) Switchboard" while anything is in Waiting for you — pending reviews and agents that ask or
 * finished their turn (AgentWatch counts them) — else the plain title.
 */
export function windowTitle(baseTitle: string, waitingCount: number): string {
  return waitingCount > 0 ? `(${waitingCount}) ${baseTitle}` : baseTitle;
}

/** "binary file, 1,234 bytes" — exact, since a reviewer compares sizes. */
export function binaryLabel(bytes: number): string {
  return `binary file, ${bytes.toLocaleString('en-US')} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

/** "new file", "deleted", "modified". */
export function changeLabel(change: ReviewSummary['change']): string {
  switch (change) {
    case 'create':
      return 'new file';
    case 'delete':
      return 'deleted';
    case 'modify':
      return 'modified';
  }
}

/** "Accepted by you", "Rejected by ada", "Accepted with edits by you". */
export function decisionLabel(decision: NonNullable<ReviewSummary['decision']>): string {
  const verb = decision.decision === 'accepted' ? (decision.edited ? 'Accepted with edits' : 'Accepted') : 'Rejected';
  return `${verb} by ${decision.by}`;
}

/** Reviews whose title, path or requester contain every word of `query` (case-insensitive). */
export function matchesQuery(summary: ReviewSummary, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = `${summary.title}\n${summary.path}\n${sourceLabel(summary.source)}`.toLowerCase();
  return words.every((word) => haystack.includes(word));
}
