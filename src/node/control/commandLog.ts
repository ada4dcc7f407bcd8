/**
 * Every finished command of every terminal, numbered, for `poll` (and the exec results built on
 * it). Commands come from shell integration (OSC 633/133 C…D marks, whoever typed them) and from
 * `exec` in terminals without integration (the sentinel path appends its own events).
 *
 * Bounded: the oldest events are dropped past `capacity`, and each event keeps only the tail of
 * its output (`exec` responses read their full, larger slice from the ring themselves).
 */
import { ControlConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { isExecSentinelLine } from '../../common/terminal/execSentinel.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { CommandEvent, PtySession } from '../pty/ptySession.ts';
import { readPlainOutput } from './terminalOutput.ts';
import type { LogFill } from './logFill.ts';

export interface LoggedCommand {
  seq: number;
  terminalId: string;
  terminalName: string;
  commandLine: string;
  output: string;
  exitCode: number | null;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number;
  cwd: string | null;
  /** `output` is not the whole output (only its tail was kept). */
  truncated: boolean;
  /** Absolute byte offsets of the output in the terminal's stream (readLog can fetch all of it while the ring holds it). */
  startOffset: number;
  endOffset: number;
  /** 'shell': reported by shell integration; 'exec': an exec that used the sentinel. */
  source: 'shell' | 'exec';
}

export type NewLoggedCommand = Omit<LoggedCommand, 'seq'>;

/** An `exec` waiting for the shell to report the command it typed. */
interface Claim {
  terminalId: string;
  fromOffset: number;
  commandLine: string;
  typedLine: string;
  resolve: (entry: LoggedCommand) => void;
}

/**
 * Whether `reported`, the command line a shell reported, can be the run of `typed`, the line an
 * exec typed. Shells report the line as typed (zsh, fish; bash from its history), bash only its
 * first simple command when the line did not enter history (history off), and shells without
 * OSC 633 E nothing — which matches anything, as offsets are all there is then. Without this
 * check an exec typed right after another line (a new terminal's first command, typed before its
 * first prompt) took that line's event: its output and exit code.
 */
export function isReportOfTypedLine(reported: string, typed: string): boolean {
  const line = reported.trim();
  const mine = typed.trim();
  if (line === '' || line === mine) return true;
  return mine.startsWith(line) && /^[\s;&|]/.test(mine.slice(line.length));
}

export class CommandLog implements IDisposable {
  readonly #ptyHost: PtyHost;
  readonly #capacity: number;
  readonly #outputBytes: number;
  readonly #entries: LoggedCommand[] = [];
  #nextSeq = 1;
  readonly #sessionListeners = new Map<string, IDisposable>();
  readonly #hostListeners: IDisposable[] = [];
  readonly #claims = new Set<Claim>();
  /** Tokens (exec sentinel nonces) whose command lines are an exec's wrapper, logged by the exec itself. */
  #started = false;

  readonly #onDidAppend = new Emitter<LoggedCommand>();
  readonly onDidAppend: Event<LoggedCommand> = this.#onDidAppend.event;

  constructor(options: { ptyHost: PtyHost; capacity?: number; outputBytes?: number }) {
    this.#ptyHost = options.ptyHost;
    this.#capacity = options.capacity ?? ControlConstants.commandLogEvents;
    this.#outputBytes = options.outputBytes ?? ControlConstants.commandLogOutputBytes;
  }

  /** Follow every terminal, present and future. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#hostListeners.push(
      this.#ptyHost.onDidAddTerminal(({ id }) => this.#follow(id)),
      this.#ptyHost.onDidRemoveTerminal(({ id }) => {
        this.#sessionListeners.get(id)?.dispose();
        this.#sessionListeners.delete(id);
      }),
    );
    for (const info of this.#ptyHost.list()) this.#follow(info.id);
  }

  get fill(): LogFill {
    return { kept: this.#entries.length, capacity: this.#capacity, full: this.#entries.length >= this.#capacity };
  }

  get lastSeq(): number {
    return this.#nextSeq - 1;
  }

  append(event: NewLoggedCommand): LoggedCommand {
    const entry: LoggedCommand = { seq: this.#nextSeq++, ...event };
    this.#entries.push(entry);
    if (this.#entries.length > this.#capacity) this.#entries.splice(0, this.#entries.length - this.#capacity);
    this.#onDidAppend.fire(entry);
    return entry;
  }

  /**
   * Events with seq > `since`, oldest first. When there are more than `limit`, the newest `limit`
   * are returned with `truncated: true` (claws' behaviour: a client that fell behind skips ahead).
   * `cursor` is the seq to pass next time.
   */
  since(since: number, limit: number): { events: LoggedCommand[]; cursor: number; truncated: boolean } {
    const entries = this.#entries;
    let first = entries.length;
    while (first > 0 && entries[first - 1]!.seq > since) first--;
    const available = entries.length - first;
    const events = entries.slice(Math.max(first, entries.length - limit));
    const cursor = events.length > 0 ? events[events.length - 1]!.seq : Math.max(since, 0);
    return { events, cursor, truncated: available > events.length };
  }

  /** The latest logged command of a terminal that ended at or after `offset`, if any. */
  finishedSince(terminalId: string, offset: number): LoggedCommand | undefined {
    for (let index = this.#entries.length - 1; index >= 0; index--) {
      const entry = this.#entries[index]!;
      if (entry.terminalId === terminalId && entry.endOffset >= offset) return entry;
    }
    return undefined;
  }

  /**
   * The next command the shell reports for `terminalId` that started at or after `fromOffset`
   * and whose line is `typedLine` (isReportOfTypedLine) is an exec's: it is logged under
   * `commandLine` (the `eval` form the shell saw may differ) and handed to the returned promise.
   */
  claimNext(terminalId: string, fromOffset: number, commandLine: string, typedLine: string): { promise: Promise<LoggedCommand>; dispose(): void } {
    let claim!: Claim;
    const promise = new Promise<LoggedCommand>((resolve) => {
      claim = { terminalId, fromOffset, commandLine, typedLine, resolve };
    });
    this.#claims.add(claim);
    return { promise, dispose: () => this.#claims.delete(claim) };
  }

  dispose(): void {
    for (const listener of this.#hostListeners) listener.dispose();
    this.#hostListeners.length = 0;
    for (const listener of this.#sessionListeners.values()) listener.dispose();
    this.#sessionListeners.clear();
    this.#claims.clear();
    this.#onDidAppend.dispose();
  }

  #follow(id: string): void {
    const session = this.#ptyHost.get(id);
    if (!session || this.#sessionListeners.has(id)) return;
    this.#sessionListeners.set(
      id,
      session.onDidCommand((event) => this.#onShellCommand(session, event)),
    );
  }

  #onShellCommand(session: PtySession, event: CommandEvent): void {
    // An exec's sentinel wrapper, run by a shell with integration (typed ahead, nested): the exec logs it itself.
    if (isExecSentinelLine(event.commandLine)) return;
    let claimed: Claim | undefined;
    for (const claim of this.#claims) {
      // The session shows an exec's `eval` form as the command it runs (PtySession.showCommandAs).
      const reportsClaim = event.commandLine === claim.commandLine || isReportOfTypedLine(event.commandLine, claim.typedLine);
      if (claim.terminalId === session.id && event.startOffset >= claim.fromOffset && reportsClaim) {
        claimed = claim;
        break;
      }
    }
    if (claimed) this.#claims.delete(claimed);
    const output = readPlainOutput(session, event.startOffset, event.endOffset, this.#outputBytes);
    const entry = this.append({
      terminalId: session.id,
      terminalName: session.info.name,
      commandLine: claimed ? claimed.commandLine : event.commandLine,
      output: output.text,
      exitCode: event.exitCode,
      startedAt: event.startedAt,
      endedAt: event.endedAt,
      cwd: event.cwd,
      truncated: output.truncated,
      startOffset: event.startOffset,
      endOffset: event.endOffset,
      source: 'shell',
    });
    claimed?.resolve(entry);
  }
}
