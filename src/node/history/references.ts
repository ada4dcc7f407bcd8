/**
 * References: past sessions (or single commands of them) handed to an agent without pasting the
 * transcripts. Each transcript goes to a private file under `$SWITCHBOARD_HOME/references/`, and
 * the agent gets a pointer: paths, commands, exit codes, times and the person's notes.
 *
 * A transcript file is plain text, ANSI stripped, each line as the screen last showed it (the
 * text export's rendering): that is what an agent's file-read tool can use. Colour codes and
 * cursor moves would cost it tokens and hide the words; the raw bytes stay available through
 * `history.read {strip:false}` and the asciicast export.
 *
 * One line for one item without notes:
 *   # switchboard: transcript of "npm test" (exit 1, 2026-12-02 14:03) at /…/references/s-…-cmd12.txt
 * Several items, or notes: one `#` line each (see `referencePointer`). Every line starts with `#`,
 * so should the pointer reach a shell and someone press Enter, it is a comment.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { HistoryCommand, HistoryReferenceFile, HistorySession } from '../../common/api/historyContract.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../paths.ts';
import { HistoryConstants } from './historyConstants.ts';

const pasteStart = '\x1b[200~';
const pasteEnd = '\x1b[201~';

/** One item, resolved against the store, its transcript rendered. */
export interface ResolvedReference {
  session: HistorySession;
  command: HistoryCommand | null;
  /** Renders the transcript text (ANSI stripped), when its file is written: one at a time, so 100 big sessions never sit in memory together. */
  transcript: () => string;
  /** The session (or the command) is still being written: the transcript is as of `asOf`. */
  live: boolean;
  /** Byte offset after the last byte the transcript covers. */
  endOffset: number;
  asOf: number;
}

/**
 * The file's name says what it holds; a transcript still being written also says up to which
 * byte, so a later reference of the same session never changes a file an earlier pointer named.
 */
export function referenceFileName(item: Pick<ResolvedReference, 'session' | 'command' | 'live' | 'endOffset'>): string {
  const what = item.command ? `cmd${item.command.id}` : 'session';
  return `${item.session.id}-${what}${item.live ? `-upto${item.endOffset}` : ''}.txt`;
}

export function referencesDir(dataDir: string): string {
  return join(dataDir, HistoryConstants.referencesDirName);
}

function fileContents(item: ResolvedReference): string {
  const { session, command } = item;
  const heading = command
    ? `$ ${command.commandLine}\n# cwd ${command.cwd ?? session.cwd ?? '?'}, ${command.endOffset === null ? 'running' : `exit ${command.exitCode ?? '?'}`}, ${formatTime(command.startedAt)} (session "${session.name}", ${session.id})\n`
    : `# session "${session.name}" (${session.id}), cwd ${session.cwd ?? '?'}, ${formatTime(session.startedAt)}, ${exitText(session)}\n`;
  const live = item.live ? `# still being recorded: this is its output up to ${formatTime(item.asOf, true)}\n` : '';
  return `${heading}${live}\n${item.transcript()}`;
}

/**
 * Write every transcript file, or none: all go to temp files first, then are renamed into place;
 * on any failure the temp files, and the files this call created, are removed again. A file that
 * already existed has the same contents (its name fixes them), so it is left alone.
 */
export async function writeReferenceFiles(dataDir: string, items: readonly ResolvedReference[]): Promise<HistoryReferenceFile[]> {
  const dir = referencesDir(dataDir);
  await ensurePrivateDir(dir);
  const planned = items.map((item) => ({ item, bytes: 0, path: join(dir, referenceFileName(item)), temp: join(dir, `.${randomBytes(6).toString('hex')}.tmp`) }));
  const temps: string[] = [];
  const created: string[] = [];
  try {
    for (const entry of planned) {
      const handle = await open(entry.temp, 'wx', PRIVATE_FILE_MODE);
      temps.push(entry.temp);
      try {
        const contents = fileContents(entry.item);
        entry.bytes = Buffer.byteLength(contents);
        await handle.writeFile(contents, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      // `open` applies the umask to the mode; set it exactly.
      await chmod(entry.temp, PRIVATE_FILE_MODE);
    }
    for (const entry of planned) {
      const existed = existsSync(entry.path);
      await rename(entry.temp, entry.path);
      if (!existed) created.push(entry.path);
    }
  } catch (error) {
    await Promise.all([...temps, ...created].map((path) => rm(path, { force: true })));
    throw error;
  }
  return planned.map(({ item, bytes, path }) => ({
    path,
    sessionId: item.session.id,
    ...(item.command ? { commandId: item.command.id, commandLine: item.command.commandLine } : {}),
    exitCode: item.command ? item.command.exitCode : item.session.exitCode,
    startedAt: item.command ? item.command.startedAt : item.session.startedAt,
    endedAt: item.command ? item.command.endedAt : item.session.endedAt,
    bytes,
    live: item.live,
  }));
}

/**
 * Remove the transcript files of these sessions: a session deleted from History (by the person,
 * or by retention) must not live on as a copy in references/. Missing files are fine.
 */
export async function removeReferenceFiles(dataDir: string, sessionIds: readonly string[]): Promise<number> {
  if (sessionIds.length === 0) return 0;
  let names: string[];
  try {
    names = await readdir(referencesDir(dataDir));
  } catch {
    return 0; // no reference was ever written
  }
  const ids = new Set(sessionIds);
  const doomed = names.filter((name) => {
    const match = /^(.+)-(?:session|cmd\d+)(?:-upto\d+)?\.txt$/.exec(name);
    return match !== null && ids.has(match[1]!);
  });
  await Promise.all(doomed.map((name) => rm(join(referencesDir(dataDir), name), { force: true })));
  return doomed.length;
}

/**
 * The pointer for the agent. One item without notes: the one line above. Otherwise:
 *   # switchboard: 2 transcripts from History (plain text files; read what you need):
 *   # 1. "npm test" (exit 1, 2026-12-02 14:03): /…/s-…-cmd12.txt
 *   # 2. session "build" (running, as of 2026-12-02 14:07:12): /…/s-…-session-upto5120.txt
 *   # notes: why does the build fail after the test run?
 */
export function referencePointer(items: readonly { item: ResolvedReference; path: string }[], notes: string | undefined): string {
  const trimmedNotes = notes?.trim() ?? '';
  if (items.length === 1 && !trimmedNotes) {
    const [{ item, path }] = items as [{ item: ResolvedReference; path: string }];
    return `# switchboard: transcript of ${describeItem(item)} at ${oneLine(path, Number.POSITIVE_INFINITY)}`;
  }
  const lines = [`# switchboard: ${items.length === 1 ? 'a transcript' : `${items.length} transcripts`} from History (plain text files; read what you need):`];
  items.forEach(({ item, path }, index) => lines.push(`# ${index + 1}. ${describeItem(item)}: ${oneLine(path, Number.POSITIVE_INFINITY)}`));
  if (trimmedNotes) {
    const noteLines = trimmedNotes.split(/\r\n|\r|\n/).map((line) => oneLine(line, Number.POSITIVE_INFINITY));
    lines.push(`# notes: ${noteLines[0]}`, ...noteLines.slice(1).map((line) => `#   ${line}`));
  }
  return lines.join('\n');
}

/**
 * What to type for a terminal: the pointer as a bracketed paste when the program asked for one
 * (Claude Code and other TUIs take it as text, newlines included, and a shell with bracketed
 * paste keeps it on its line); else one line, since a typed newline would press Enter.
 */
export function pointerInput(pointer: string, bracketedPaste: boolean): { text: string; paste: boolean } {
  if (bracketedPaste) return { text: pointer, paste: true };
  return { text: flattenPointer(pointer), paste: false };
}

export function flattenPointer(pointer: string): string {
  const [first = '', ...rest] = pointer.split('\n');
  return [first, ...rest.map((line) => line.replace(/^#\s*/, ''))].join(' | ');
}

/** Write the pointer into the terminal (the person handed it over from the UI: no typing guard). */
export async function typePointer(terminal: { readScreen(): Promise<{ bracketedPaste: boolean }>; write(data: string): void }, pointer: string): Promise<void> {
  const screen = await terminal.readScreen();
  const input = pointerInput(pointer, screen.bracketedPaste);
  terminal.write(input.paste ? pasteStart + input.text.split(pasteEnd).join('') + pasteEnd : input.text);
}

function describeItem(item: ResolvedReference): string {
  const { session, command } = item;
  const what = command ? `"${oneLine(command.commandLine)}"` : `session "${oneLine(session.name)}"`;
  const status = item.live ? `running, as of ${formatTime(item.asOf, true)}` : command ? `exit ${command.exitCode ?? '?'}` : exitText(session);
  const when = formatTime(command ? command.startedAt : session.startedAt);
  return item.live ? `${what} (started ${when}, ${status})` : `${what} (${status}, ${when})`;
}

function exitText(session: HistorySession): string {
  if (session.live) return 'running';
  if (session.interrupted) return 'recording interrupted';
  if (session.signal) return session.signal;
  return `exit ${session.exitCode ?? '?'}`;
}

/** No control characters (a newline would press Enter), and a bounded length. */
function oneLine(text: string, maxChars: number = HistoryConstants.pointerCommandChars): string {
  const clean = text.replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ').trim();
  return clean.length > maxChars ? `${clean.slice(0, maxChars - 1)}…` : clean;
}

/** Local time, to the minute (or second): what a person reads in the pointer. */
function formatTime(epochMs: number, seconds = false): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, '0');
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day} ${pad(date.getHours())}:${pad(date.getMinutes())}${seconds ? `:${pad(date.getSeconds())}` : ''}`;
}
