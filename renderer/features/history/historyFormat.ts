/**
 * How the History browser writes sessions and commands for people: durations, sizes, exit
 * status, who started it, when. Pure functions, so they are unit-tested without a DOM.
 */
import type { Creator } from '../../../src/common/api/contractTypes.ts';
import type { HistoryCommand, HistorySession } from '../../../src/common/api/historyContract.ts';

const second = 1_000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

/** "0.4 s", "12 s", "3 m 05 s", "2 h 14 m", "3 d 4 h": two units at most, the larger first. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 10 * second) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  if (ms < minute) return `${Math.floor(ms / second)} s`;
  if (ms < hour) return `${Math.floor(ms / minute)} m ${pad2(Math.floor((ms % minute) / second))} s`;
  if (ms < day) return `${Math.floor(ms / hour)} h ${pad2(Math.floor((ms % hour) / minute))} m`;
  return `${Math.floor(ms / day)} d ${Math.floor((ms % day) / hour)} h`;
}

/** A replay clock: "1:05", "12:00", "1:02:03". */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / second));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${pad2(minutes)}:${pad2(seconds)}` : `${minutes}:${pad2(seconds)}`;
}

const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** "512 B", "12.3 KiB", "4.0 MiB": binary units, as the retention cap (2 GiB) is written. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${value} B`;
  return `${value < 100 ? value.toFixed(1) : Math.round(value)} ${byteUnits[unit]}`;
}

export type ExitKind = 'live' | 'success' | 'failure' | 'signal' | 'unknown';

export interface ExitStatus {
  kind: ExitKind;
  /** Short text for the pill: "✓ 0", "✗ 2", "SIGKILL", "live", "—". */
  label: string;
  /** The sentence for a tooltip or a screen reader. */
  description: string;
}

/** A session's end: still running, exited 0, exited non-zero, killed by a signal, or unknown (imported). */
export function sessionExitStatus(session: Pick<HistorySession, 'live' | 'exitCode' | 'signal' | 'interrupted'>): ExitStatus {
  if (session.live) return { kind: 'live', label: 'live', description: 'Still running (being recorded)' };
  if (session.interrupted) {
    return {
      kind: 'unknown',
      label: 'interrupted',
      description: 'Switchboard stopped (crashed or was killed) while recording this session: it ends where recording stopped, and the last moment of output before that may be missing',
    };
  }
  // SIGHUP is how a closed terminal ends its shell: not a failure, so not shown as one.
  if (session.signal) return { kind: 'signal', label: session.signal, description: `Ended by ${session.signal}${session.signal === 'SIGHUP' ? ' (the terminal was closed)' : ''}` };
  return exitCodeStatus(session.exitCode);
}

/** A command's end, from its exit code alone (null: still running, or the shell did not say). */
export function commandExitStatus(command: Pick<HistoryCommand, 'exitCode' | 'endedAt'>): ExitStatus {
  if (command.exitCode === null && command.endedAt === null) return { kind: 'live', label: 'running', description: 'Not finished' };
  return exitCodeStatus(command.exitCode);
}

function exitCodeStatus(exitCode: number | null): ExitStatus {
  if (exitCode === null) return { kind: 'unknown', label: '—', description: 'Exit status unknown' };
  if (exitCode === 0) return { kind: 'success', label: '✓ 0', description: 'Exited with code 0' };
  return { kind: 'failure', label: `✗ ${exitCode}`, description: `Exited with code ${exitCode}` };
}

/** Who started a session: "you", "claude (agent)", "viewer-3 (remote)". */
export function creatorLabel(creator: Creator): string {
  if (creator.kind === 'person') return creator.name || 'you';
  return `${creator.name || creator.kind} (${creator.kind})`;
}

/** How long a session ran (a live one: until `now`). Null for an imported cast without an end. */
export function sessionDuration(session: Pick<HistorySession, 'startedAt' | 'endedAt' | 'live'>, now: number): number | null {
  if (session.endedAt !== null) return Math.max(0, session.endedAt - session.startedAt);
  return session.live ? Math.max(0, now - session.startedAt) : null;
}

export function commandDuration(command: Pick<HistoryCommand, 'startedAt' | 'endedAt'>): number | null {
  return command.endedAt === null ? null : Math.max(0, command.endedAt - command.startedAt);
}

/** The calendar day of `epochMs` relative to `now` in local time: "Today", "Yesterday", else null. */
export function relativeDayName(epochMs: number, now: number): 'Today' | 'Yesterday' | null {
  const dayStart = (ms: number) => {
    const date = new Date(ms);
    return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  };
  const today = dayStart(now);
  const then = dayStart(epochMs);
  if (then === today) return 'Today';
  // Yesterday is the day that contains the ms before today started (DST-safe).
  if (then === dayStart(today - 1)) return 'Yesterday';
  return null;
}

/** "Today 14:03", "Yesterday 09:12", "Mon 3 Mar 14:03", "3 Mar 2024 14:03" (24-hour clock). */
export function formatStart(epochMs: number, now: number): string {
  const date = new Date(epochMs);
  const time = `${pad2(date.getHours())}:${pad2(date.getMinutes())}`;
  const relative = relativeDayName(epochMs, now);
  if (relative) return `${relative} ${time}`;
  const monthDay = `${date.getDate()} ${monthNames[date.getMonth()]}`;
  if (date.getFullYear() !== new Date(now).getFullYear()) return `${monthDay} ${date.getFullYear()} ${time}`;
  return `${weekdayNames[date.getDay()]} ${monthDay} ${time}`;
}

const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const weekdayNames = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Shell flags that only say "interactive shell" (the Hub adds some for shell integration). */
const shellModeFlags = new Set(['-i', '-l', '--login', '--interactive']);
/** Flags whose next argument is the Hub's shell-integration script. */
const integrationFlags = new Set(['--init-file', '--init-command']);

/** The program line of a session: "bash", "python3 -m http.server", without shell-integration flags. */
export function programLine(session: Pick<HistorySession, 'file' | 'args'>): string {
  const program = session.file.slice(session.file.lastIndexOf('/') + 1) || session.file;
  const shown: string[] = [];
  for (let index = 0; index < session.args.length; index++) {
    const arg = session.args[index]!;
    if (integrationFlags.has(arg)) {
      index++;
      continue;
    }
    if (!shellModeFlags.has(arg)) shown.push(arg);
  }
  return [program, ...shown].join(' ');
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}
