/**
 * "Reference in agent": a past session (or one command of it) handed to a running agent without
 * pasting the transcript itself. The transcript goes to a private file under the data dir, and a
 * one-line pointer is typed into the agent's terminal, without Enter:
 *
 *   # switchboard: transcript of "npm test" (exit 1, 2026-12-02 14:03) at /…/references/s-…-cmd12.txt
 *
 * The leading `#` makes the line a harmless comment should it reach a shell. When the program in
 * the pane asked for bracketed paste (Claude Code and other TUIs), the pointer is sent as a paste,
 * so a TUI takes it as text and not as keystrokes (a typed `#` is a shortcut in some of them).
 */
import { join } from 'node:path';
import type { HistoryCommand, HistorySession } from '../../common/api/historyContract.ts';
import { ensurePrivateDir, writePrivateFileAtomic } from '../paths.ts';
import type { PtySession } from '../pty/ptySession.ts';
import { HistoryConstants } from './historyConstants.ts';

const pasteStart = '\x1b[200~';
const pasteEnd = '\x1b[201~';

/**
 * Where `at_mentioned` delivery plugs in once the IDE bridge exists: given the pane and the file,
 * it returns true when the pane's Claude Code took the reference as an at-mention; false (or no
 * hook) falls back to pasting the pointer.
 */
export type AtMentionDelivery = (terminalId: string, reference: { path: string; pointer: string }) => Promise<boolean>;

export interface ReferenceTarget {
  dataDir: string;
  session: HistorySession;
  command: HistoryCommand | null;
  /** The transcript text (ANSI stripped). */
  transcript: string;
}

export function referenceFilePath(dataDir: string, session: HistorySession, command: HistoryCommand | null): string {
  return join(dataDir, HistoryConstants.referencesDirName, `${session.id}-${command ? `cmd${command.id}` : 'session'}.txt`);
}

/** Write the transcript file (dir 0700, file 0600) and return its path and the pointer line. */
export async function writeReferenceFile(target: ReferenceTarget): Promise<{ path: string; pointer: string }> {
  const { session, command } = target;
  const path = referenceFilePath(target.dataDir, session, command);
  await ensurePrivateDir(join(target.dataDir, HistoryConstants.referencesDirName));
  const heading = command
    ? `$ ${command.commandLine}\n# cwd ${command.cwd ?? session.cwd ?? '?'}, exit ${command.exitCode ?? '?'}, ${formatTime(command.startedAt)} (session "${session.name}", ${session.id})\n\n`
    : `# session "${session.name}" (${session.id}), cwd ${session.cwd ?? '?'}, ${formatTime(session.startedAt)}, ${exitText(session)}\n\n`;
  await writePrivateFileAtomic(path, heading + target.transcript);
  return { path, pointer: pointerLine(session, command, path) };
}

export function pointerLine(session: HistorySession, command: HistoryCommand | null, path: string): string {
  const what = command ? `"${oneLine(command.commandLine)}"` : `session "${oneLine(session.name)}"`;
  const status = command ? `exit ${command.exitCode ?? '?'}` : exitText(session);
  const when = formatTime(command ? command.startedAt : session.startedAt);
  return `# switchboard: transcript of ${what} (${status}, ${when}) at ${oneLine(path, Number.POSITIVE_INFINITY)}`;
}

/** Type the pointer into the terminal, without Enter (as a bracketed paste when the program asked for that). */
export async function pastePointer(terminal: PtySession, pointer: string): Promise<void> {
  const screen = await terminal.readScreen();
  terminal.write(screen.bracketedPaste ? pasteStart + pointer + pasteEnd : pointer);
}

function exitText(session: HistorySession): string {
  if (session.live) return 'running';
  if (session.signal) return session.signal;
  return `exit ${session.exitCode ?? '?'}`;
}

/** No control characters (a newline would press Enter), and a bounded length. */
function oneLine(text: string, maxChars: number = HistoryConstants.pointerCommandChars): string {
  const clean = text.replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ').trim();
  return clean.length > maxChars ? `${clean.slice(0, maxChars - 1)}…` : clean;
}

/** Local time, to the minute: what a person reads in the pointer. */
function formatTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
