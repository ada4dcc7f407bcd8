/** How `switchboard history` prints sessions, search hits and commands for people. */
import type { HistoryCommand, HistoryReferenceResult, HistorySearchHit, HistorySession } from '../common/api/historyContract.ts';
import { printable } from './controlCommand.ts';

/** Local date and time to the minute: `2026-12-02 14:03`. */
export function formatWhen(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  return `${hours}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function exitStatusOf(session: Pick<HistorySession, 'live' | 'exitCode' | 'signal' | 'interrupted'>): string {
  if (session.live) return 'live';
  // The app stopped while recording it: how the session really ended is unknown.
  if (session.interrupted) return 'interrupted';
  if (session.signal) return session.signal;
  return session.exitCode === null ? '-' : `exit ${session.exitCode}`;
}

function shortenHome(path: string | null, home: string | undefined): string {
  if (path === null) return '';
  if (!home || home === '/') return path;
  if (path === home) return '~';
  return path.startsWith(home + '/') ? '~' + path.slice(home.length) : path;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = [header, ...rows.map((row) => row.map(printable))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return (
    cells
      .map((row) =>
        row
          .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export function formatSessionTable(sessions: readonly HistorySession[], home: string | undefined, now = Date.now(), filtered = false): string {
  if (sessions.length === 0) return filtered ? 'No recorded session matches these filters.\n' : 'No recorded sessions.\n';
  return table(
    ['ID', 'STARTED', 'DURATION', 'STATUS', 'SIZE', 'CREATED BY', 'NAME', 'CWD'],
    sessions.map((session) => [
      session.id,
      formatWhen(session.startedAt),
      formatDuration((session.endedAt ?? now) - session.startedAt),
      exitStatusOf(session),
      formatBytes(session.byteCount) + (session.truncated ? '+' : ''),
      session.createdBy.kind === 'person' ? session.createdBy.name : `${session.createdBy.kind}:${session.createdBy.name}`,
      session.name,
      shortenHome(session.cwd, home),
    ]),
  );
}

export function formatCommandTable(commands: readonly HistoryCommand[], home: string | undefined): string {
  if (commands.length === 0) return 'No commands.\n';
  return table(
    ['WHEN', 'EXIT', 'DURATION', 'SESSION', 'CMD', 'CWD', 'COMMAND'],
    commands.map((command) => [
      formatWhen(command.startedAt),
      command.exitCode === null ? '-' : String(command.exitCode),
      command.endedAt === null ? '-' : formatDuration(command.endedAt - command.startedAt),
      command.sessionId,
      String(command.id),
      shortenHome(command.cwd, home),
      command.commandLine,
    ]),
  );
}

/**
 * One line per hit: session, time, where, and the snippet on one line with the matched words
 * marked — bold on a terminal, `[word]` otherwise, so piped output stays greppable.
 */
export function formatSearchHits(hits: readonly HistorySearchHit[], options: { color: boolean }): string {
  if (hits.length === 0) return 'No matches.\n';
  return hits
    .map((hit) => {
      const snippet = hit.snippet
        .map((segment) => {
          const text = printable(segment.text.replace(/\s+/g, ' '));
          if (!segment.match) return text;
          return options.color ? `\x1b[1;33m${text}\x1b[0m` : `[${text}]`;
        })
        .join('')
        .trim();
      return `${hit.sessionId}  ${formatWhen(hit.at)}  ${printable(hit.sessionName)}  ${hit.source === 'command' ? '$ ' : ''}${snippet}`;
    })
    .join('\n')
    .concat('\n');
}

/** What `history reference` wrote and where the pointer went, for stderr (the pointer itself goes to stdout). */
export function formatReferenceSummary(result: HistoryReferenceResult, home: string | undefined): string {
  const lines = [`Wrote ${result.files.length === 1 ? '1 transcript file' : `${result.files.length} transcript files`} (plain text, 0600):`];
  for (const file of result.files) {
    const what = file.commandLine !== undefined ? `$ ${file.commandLine}` : `session ${file.sessionId}`;
    const status = file.live ? 'running' : file.exitCode === null ? '-' : `exit ${file.exitCode}`;
    lines.push(`  ${shortenHome(file.path, home)}  ${formatBytes(file.bytes)}  ${status}  ${printable(what)}`);
  }
  for (const warning of result.warnings) lines.push(`Note: ${warning}`);
  if (result.deliveredTo) lines.push(`Typed into terminal ${result.deliveredTo} (not sent: press Enter there).`);
  return lines.join('\n') + '\n';
}
