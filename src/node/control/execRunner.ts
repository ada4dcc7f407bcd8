/**
 * `exec`: run a command in a terminal and return its output and exit code — in every shell,
 * with or without shell integration (claws degrades without it; we do not).
 *
 * - Shell integration active and the shell at its prompt: type the command, take the command
 *   event the shell reports (OSC 633 C…D): output = the ring bytes between the marks, exit code
 *   from D.
 * - Otherwise: type the command wrapped with a nonce sentinel (see shellCommandLine.ts) and cut
 *   the output between the two markers.
 *
 * Before typing, the exec waits its turn (TypingGuard): for a shell started with our integration
 * to draw its first prompt (typed earlier, the line would land in the rc's startup and run the
 * sentinel way), for a person typing in the pane to pause, and for a line a person left half typed
 * at the prompt to be sent or cleared (else the exec is refused: it never joins a person's line).
 *
 * Execs of one terminal run one at a time, in arrival order. A terminal showing a full-screen
 * program (alt screen) is refused rather than typed into. While the shell reports a command that
 * is not a shell itself (a build, `sleep`, a Python REPL: runsAShell), the exec waits for the
 * shell's prompt rather than type into that program — and, when an agent sent a line with Enter
 * while that program ran, for that line to start (the shell reads it right after its prompt; typed
 * in between, the exec's line would be echoed inside that command's output). The timeout counts from the request,
 * queueing and waiting included; a timed-out exec that has not started yet is never typed. Every
 * way an exec ends answers: a timeout carries the output so far and the pane's last line, a shell
 * that exits carries its exit code.
 */
import { randomBytes } from 'node:crypto';
import { ControlConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { PtySession } from '../pty/ptySession.ts';
import type { CommandLog, LoggedCommand } from './commandLog.ts';
import type { SentInputTracker } from './sentInput.ts';
import { ControlError } from './protocol.ts';
import { evalCommand, isTypeableAsIs, runsAShell, sentinelLine, sentinelMarkers, shellFlavorOf } from './shellCommandLine.ts';
import { readScreenOrNull, type InputGuard, type TerminalInput } from './terminalInput.ts';
import { readPlainOutput, trimShellArtifacts } from './terminalOutput.ts';
import type { TypingGuard } from './typingGuard.ts';

export interface ExecOptions {
  timeoutMs: number;
  /** Called once the command was typed (for the audit log: queued execs that time out are not). */
  onTyped?: () => void;
  /** Aborted: the exec gives up (queued or waiting: never typed), rejecting with the signal's reason. */
  signal?: AbortSignal;
}

/** How long after a command's end an exec waits for a prompt the shell does not report. */
const promptGraceMs = 1_000;

/** How long after a command that says `exit` ended an exec waits to see the shell exit (fish reports the end first). */
const shellExitGraceMs = 500;

/** Resolves once the terminal's process exited, or after `ms`. */
async function exitsWithin(session: PtySession, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([session.exited, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * How long a prompt drawn after an exec typed its line must stay without a command start before
 * the line counts as refused: a shell starts a line it accepts within milliseconds, but fish
 * redraws its prompt now and then, and a loaded machine delays bash's PS0 fork.
 */
const lineRefusalGraceMs = 1_000;

/**
 * How long after a command's end an exec waits for a line an agent typed ahead while that command
 * ran to start. The shell reads such a line from the tty right after drawing its prompt; typed in
 * between, the exec's line would be echoed by the tty inside that command's output (and History's).
 */
const typedAheadGraceMs = 1_000;

/** What an exec is doing, for the answer it gives when it times out. */
interface ExecProgress {
  /** What the exec waits for before it can type (said in the timeout message). */
  waitingFor: string | null;
  /** Output offset when the command was typed; null while it was not. */
  typedAt: number | null;
  /** Where the command's own output begins, once known (its start mark). */
  outputStart: number | null;
  /** The person's input count (TypingGuard.personInputCount) when the command was typed. */
  personInputsWhenTyped: number | null;
}

/**
 * What an exec gives back: the command as logged, and whether a person typed into the terminal
 * while it ran — the terminal echoes their keys, so those are in the output too.
 */
export type ExecResult = LoggedCommand & { personTyped: boolean };

export class ExecRunner implements IDisposable {
  readonly #commandLog: CommandLog;
  readonly #input: TerminalInput;
  readonly #typingGuard: TypingGuard;
  readonly #sentInput: SentInputTracker;
  readonly #logger: ILogger;
  readonly #tails = new Map<string, Promise<void>>();
  readonly #running = new Set<AbortController>();
  #disposed = false;

  constructor(options: { commandLog: CommandLog; input: TerminalInput; typingGuard: TypingGuard; sentInput: SentInputTracker; logger: ILogger }) {
    this.#commandLog = options.commandLog;
    this.#sentInput = options.sentInput;
    this.#input = options.input;
    this.#typingGuard = options.typingGuard;
    this.#logger = options.logger;
  }

  run(session: PtySession, command: string, options: ExecOptions): Promise<ExecResult> {
    if (this.#disposed) return Promise.reject(new ControlError('the control server is shutting down', 'CONNECTION_CLOSED'));
    const controller = new AbortController();
    this.#running.add(controller);
    const progress: ExecProgress = { waitingFor: null, typedAt: null, outputStart: null, personInputsWhenTyped: null };
    const timer = setTimeout(() => {
      void this.#timeoutError(session, progress, options.timeoutMs).then((error) => controller.abort(error));
    }, options.timeoutMs);
    const signal = controller.signal;
    const cancel = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) cancel();
    else options.signal?.addEventListener('abort', cancel, { once: true });
    const id = session.id;

    let settle!: { resolve: (entry: ExecResult) => void; reject: (error: unknown) => void };
    const result = new Promise<ExecResult>((resolve, reject) => (settle = { resolve, reject }));
    const onAbort = () => settle.reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });

    const previous = this.#tails.get(id) ?? Promise.resolve();
    const tail = previous.then(async () => {
      if (signal.aborted) return; // timed out while queued: never typed
      try {
        const entry = await this.#execute(session, command, signal, progress, options.onTyped);
        const typedThen = progress.personInputsWhenTyped;
        settle.resolve({ ...entry, personTyped: typedThen !== null && this.#typingGuard.personInputCount(id) > typedThen });
      } catch (error) {
        settle.reject(error);
      }
    });
    this.#tails.set(id, tail);
    void tail.then(() => {
      if (this.#tails.get(id) === tail) this.#tails.delete(id);
    });

    return result.finally(() => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', cancel);
      signal.removeEventListener('abort', onAbort);
      this.#running.delete(controller);
    });
  }

  /** Fails every exec in progress or queued (the server is going away). */
  dispose(): void {
    this.#disposed = true;
    for (const controller of this.#running) controller.abort(new ControlError('the control server is shutting down', 'CONNECTION_CLOSED'));
    this.#running.clear();
  }

  /**
   * The answer to an exec that ran out of time: what it waited for, or — once typed — the output
   * so far and the pane's last line (what the command waits for: `name? `), and whether it still runs.
   */
  async #timeoutError(session: PtySession, progress: ExecProgress, timeoutMs: number): Promise<ControlError> {
    const base = `exec timeout after ${timeoutMs}ms`;
    if (progress.typedAt === null) {
      const waiting = progress.waitingFor === null ? '' : `: terminal ${session.id} was waiting for ${progress.waitingFor}; the command was not typed`;
      return new ControlError(base + waiting, 'TIMEOUT', { typed: false, running: false, output: '', lastLine: await lastScreenLine(session, this.#logger) });
    }
    // Before its start mark, nothing is the command's own yet (only the echo of what was typed).
    const start = progress.outputStart ?? session.offset;
    const output = readPlainOutput(session, start, session.offset, ControlConstants.execMaxOutputBytes);
    const lastLine = await lastScreenLine(session, this.#logger);
    const running = session.exitStatus === null;
    const waiting = progress.waitingFor === null ? '' : ` (waiting for ${progress.waitingFor})`;
    const shown = lastLine === '' ? '' : `; the pane's last line: ${JSON.stringify(lastLine)}`;
    const state = running ? `the command is still running in terminal ${session.id}${waiting}${shown}` : `terminal ${session.id} has exited`;
    return new ControlError(`${base}: ${state}`, 'TIMEOUT', { typed: true, running, output: output.text, truncated: output.truncated, lastLine });
  }

  async #execute(session: PtySession, command: string, signal: AbortSignal, progress: ExecProgress, onTyped: (() => void) | undefined): Promise<LoggedCommand> {
    const id = session.id;
    if (session.exitStatus) throw new ControlError(`terminal ${id} has exited`, 'TERMINAL_EXITED');
    const guard = this.#typingGuard.guardFor(id, {
      wait: true,
      isConnected: () => !signal.aborted,
      session,
      onWaiting: (reason) => (progress.waitingFor = reason),
    });
    const ended = this.#whenEnded(session, progress);
    try {
      for (;;) {
        await Promise.race([guard.waitForTurn(), ended.promise, aborted(signal)]);
        // Also flushes output read so far into the ring, so `session.offset` below is current.
        const screen = await readScreenOrNull(session, this.#logger);
        if (screen?.altScreen) throw new ControlError(`terminal ${id} is running a full-screen program`, 'BUSY');
        signal.throwIfAborted();
        if (session.exitStatus) throw new ControlError(`terminal ${id} has exited`, 'TERMINAL_EXITED');
        const running = session.info.runningCommand;
        if (running === null && marksTrusted(session) && this.#typedAheadPending(session)) {
          // A line typed while the last command ran is about to be read: let it start, then wait for it.
          progress.waitingFor = 'a line typed ahead to start';
          const started = await this.#untilTypedAheadStarts(session, signal, ended.promise);
          progress.waitingFor = null;
          if (started) continue;
          break;
        }
        if (!marksTrusted(session) || running === null || runsAShell(running)) break;
        // A command runs: type once the shell is back at its prompt, then look again (a line
        // typed ahead may start the next command at that prompt, a person may type meanwhile).
        progress.waitingFor = `\`${running}\` to finish`;
        await this.#untilCommandEnds(session, signal, ended.promise);
        progress.waitingFor = null;
      }
      const info = session.info;
      const flavor = shellFlavorOf(info.file, info.runningCommand);
      const useMarks = marksTrusted(session) && info.runningCommand === null;
      if (useMarks) return await this.#viaShellIntegration(session, command, flavor, signal, ended.promise, guard, progress, onTyped);
      return await this.#viaSentinel(session, command, flavor, signal, ended.promise, guard, progress, onTyped);
    } finally {
      ended.dispose();
    }
  }

  /**
   * Resolves once the command running now ended and the shell drew its prompt: typed before the
   * prompt, the line would be echoed twice (by the tty, then by the line editor). A shell that
   * reports no prompt end gets `promptGraceMs` after the command's end.
   */
  async #untilCommandEnds(session: PtySession, signal: AbortSignal, ended: Promise<never>): Promise<void> {
    const listeners: IDisposable[] = [];
    let grace: NodeJS.Timeout | undefined;
    const back = new Promise<void>((resolve) => {
      const check = () => {
        if (session.info.runningCommand !== null) return;
        if (session.atPrompt) resolve();
        else grace ??= setTimeout(resolve, promptGraceMs);
      };
      listeners.push(session.onDidChangeInfo(check), session.onDidReachPrompt(check));
      check();
    });
    try {
      await Promise.race([back, ended, aborted(signal)]);
    } finally {
      clearTimeout(grace);
      for (const listener of listeners) listener.dispose();
    }
  }

  /**
   * The terminal's last command ended moments ago, and a line an agent sent with Enter while it
   * ran has not started a command since: the shell is about to read it.
   */
  #typedAheadPending(session: PtySession): boolean {
    const last = this.#commandLog.finishedSince(session.id, 0);
    if (!last || Date.now() - last.endedAt >= typedAheadGraceMs) return false;
    return this.#sentInput.recent(session).some((input) => input.enter && input.offset >= last.startOffset && input.offset <= last.endOffset);
  }

  /**
   * Resolves true once a command starts, false `typedAheadGraceMs` after the last one ended without
   * one (the line went elsewhere: to `read`, or the shell refused it).
   */
  async #untilTypedAheadStarts(session: PtySession, signal: AbortSignal, ended: Promise<never>): Promise<boolean> {
    const last = this.#commandLog.finishedSince(session.id, 0);
    let timer: NodeJS.Timeout | undefined;
    let listener: IDisposable | undefined;
    const started = new Promise<boolean>((resolve) => {
      listener = session.onDidStartCommand(() => resolve(true));
      timer = setTimeout(() => resolve(false), Math.max(0, (last?.endedAt ?? 0) + typedAheadGraceMs - Date.now()));
    });
    try {
      return await Promise.race([started, ended, aborted(signal)]);
    } finally {
      clearTimeout(timer);
      listener?.dispose();
    }
  }

  async #viaShellIntegration(
    session: PtySession,
    command: string,
    flavor: ReturnType<typeof shellFlavorOf>,
    signal: AbortSignal,
    ended: Promise<never>,
    guard: InputGuard,
    progress: ExecProgress,
    onTyped: (() => void) | undefined,
  ): Promise<LoggedCommand> {
    const line = isTypeableAsIs(command, flavor) ? command : evalCommand(command, flavor);
    // The pane, History and the bus show the command as sent, not its `eval` form.
    const shownAs = line === command ? undefined : session.showCommandAs(line, command);
    // A prompt drawn after the line was typed that follows no command's end, and no command
    // starts within a grace: the shell refused the line (a syntax error) and will report nothing
    // for it, so say so now, not at the timeout. (A prompt right after a command's end is the one
    // that reads our line; fish also redraws its prompt now and then, hence the grace.)
    let refusedLine!: (error: ControlError) => void;
    const refused = new Promise<never>((_, reject) => (refusedLine = reject));
    refused.catch(() => {});
    let afterEnd = false;
    let startedAt = -1;
    let checking = false;
    let settled = false;
    const watch = [
      session.onDidStartCommand((start) => {
        if (progress.typedAt === null || start.startOffset < progress.typedAt) return;
        startedAt = start.startOffset;
        progress.outputStart ??= start.startOffset;
      }),
      session.onDidCommand((event) => {
        if (progress.typedAt !== null && event.endOffset >= progress.typedAt) afterEnd = true;
      }),
      session.onDidReachPrompt(() => {
        const typedAt = progress.typedAt;
        if (typedAt === null) return;
        if (afterEnd) {
          afterEnd = false;
          return;
        }
        if (checking) return;
        checking = true;
        const promptAt = session.promptStartOffset ?? session.offset;
        void (async () => {
          await new Promise((resolve) => setTimeout(resolve, lineRefusalGraceMs));
          checking = false;
          if (settled || startedAt >= promptAt || session.exitStatus || signal.aborted) return;
          // A shell that refuses a line says why; a prompt redrawn around a long line (fish
          // highlighting it) shows only the line itself, and the line still runs. (fish may draw
          // its message after the new prompt's mark: read up to now.)
          await readScreenOrNull(session, this.#logger); // flushes the output read so far
          const output = trimShellArtifacts(readPlainOutput(session, typedAt, session.offset, ControlConstants.execMaxOutputBytes).text);
          const said = whatTheShellSaid(output, line, flavor);
          if (said === null) return;
          // fish keeps a refused line in its editor for the person to fix: it is ours, so clear it
          // rather than leave the next input to join it — in fish with Ctrl-C (cancel the command
          // line; Ctrl-E would first accept an autosuggestion), elsewhere end of line + kill.
          const screen = await readScreenOrNull(session, this.#logger);
          // (What the editor shows may go on past the line: fish draws an autosuggestion after it.)
          if (screen?.promptInput && screen.promptInput.startsWith(line.slice(0, 16)) && !session.exitStatus) {
            const before = session.offset;
            session.write(flavor === 'fish' ? '\x03' : '\x05\x15');
            // Until the shell has redrawn the empty line (and its prompt marks): the next input
            // must not mistake that redraw for its own line's refusal, nor be cleared with it.
            for (let tries = 0; tries < 40 && !session.exitStatus; tries++) {
              await new Promise((resolve) => setTimeout(resolve, 50));
              const after = await readScreenOrNull(session, this.#logger);
              if (session.offset > before && after?.promptInput === '') break;
            }
          }
          refusedLine(new ControlError(`the shell in terminal ${session.id} did not run the command (a syntax error?); it said: ${JSON.stringify(said)}`, 'INVALID_PARAMS', { output, exitCode: null }));
        })();
      }),
    ];
    try {
      const typedAt = await this.#input.type(session, line + '\r', signal, guard);
      progress.typedAt = typedAt;
      progress.personInputsWhenTyped = this.#typingGuard.personInputCount(session.id);
      // Claimed only now, from the offset of the write, and by its line: a command someone else
      // typed while this exec waited for its turn, or typed before it and run after it was typed,
      // is not mistaken for ours.
      const claim = this.#commandLog.claimNext(session.id, typedAt, command, line);
      try {
        onTyped?.();
        const entry = await Promise.race([claim.promise, ended, refused, aborted(signal)]);
        const output = readPlainOutput(session, entry.startOffset, entry.endOffset, ControlConstants.execMaxOutputBytes);
        // The command ended because the shell did (`exit 4`): the process's exit says how. fish
        // reports the command's end before it exits, so a line that may end the shell gets a
        // moment to do so.
        if (entry.exitCode !== null && !session.exitStatus && /\bexit\b/.test(command)) await exitsWithin(session, shellExitGraceMs);
        if (session.exitStatus) throw exitedError(session, output.text);
        return { ...entry, output: output.text, truncated: output.truncated };
      } finally {
        claim.dispose();
      }
    } finally {
      settled = true;
      for (const listener of watch) listener.dispose();
      shownAs?.dispose();
    }
  }

  async #viaSentinel(
    session: PtySession,
    command: string,
    flavor: ReturnType<typeof shellFlavorOf>,
    signal: AbortSignal,
    ended: Promise<never>,
    guard: InputGuard,
    progress: ExecProgress,
    onTyped: (() => void) | undefined,
  ): Promise<LoggedCommand> {
    const nonce = randomBytes(8).toString('hex');
    const startedAt = Date.now();
    // Typed into a shell that runs inside the terminal's own (`bash --norc` in an integrated
    // bash): when that shell exits (`exit`), its end marker never comes — the outer shell's end
    // of that command says so instead.
    const nested = marksTrusted(session) ? session.info.runningCommand : null;
    const typedAt = await this.#input.type(session, sentinelLine(command, flavor, nonce) + '\r', signal, guard);
    progress.typedAt = typedAt;
    progress.personInputsWhenTyped = this.#typingGuard.personInputCount(session.id);
    const scanner = new SentinelScanner(session, nonce, typedAt);
    const listeners = [
      session.onDidOutput(() => {
        scanner.scan();
        progress.outputStart ??= scanner.outputStart;
      }),
    ];
    const nestedEnded = new Promise<never>((_, reject) => {
      if (nested === null) return;
      listeners.push(
        session.onDidCommand((event) => {
          if (event.startOffset > typedAt) return;
          const start = scanner.outputStart;
          const output = start === null ? { text: '' } : readPlainOutput(session, start, event.endOffset, ControlConstants.execMaxOutputBytes);
          reject(new ControlError(`the shell running in terminal ${session.id} (\`${nested}\`) exited while running the command`, 'TERMINAL_EXITED', { exitCode: event.exitCode, output: output.text }));
        }),
      );
    });
    nestedEnded.catch(() => {});
    try {
      onTyped?.();
      const found = await Promise.race([scanner.done, ended, nestedEnded, aborted(signal)]);
      const output = readPlainOutput(session, found.outputStart, found.outputEnd, ControlConstants.execMaxOutputBytes);
      const info = session.info;
      return this.#commandLog.append({
        terminalId: session.id,
        terminalName: info.name,
        commandLine: command,
        output: output.text,
        exitCode: found.exitCode,
        startedAt,
        endedAt: Date.now(),
        cwd: found.cwd,
        truncated: output.truncated,
        startOffset: found.outputStart,
        endOffset: found.outputEnd,
        source: 'exec',
      });
    } finally {
      for (const listener of listeners) listener.dispose();
    }
  }

  /** Rejects when the terminal's process exits before the command finished (with its exit code and the output so far). */
  #whenEnded(session: PtySession, progress: ExecProgress): { promise: Promise<never>; dispose(): void } {
    let listener: IDisposable | undefined;
    const promise = new Promise<never>((_, reject) => {
      const fail = () => {
        const start = progress.outputStart;
        const output = start === null ? '' : readPlainOutput(session, start, session.offset, ControlConstants.execMaxOutputBytes).text;
        reject(exitedError(session, output));
      };
      if (session.exitStatus) fail();
      else listener = session.onDidExit(fail);
    });
    // The race may have been settled otherwise by the time this rejects.
    promise.catch(() => {});
    return { promise, dispose: () => listener?.dispose() };
  }
}

/**
 * What a shell printed about a line it refused, from the output between the line's typing and
 * now (the prompt it drew again last, where the cursor waits): from its message, which starts
 * with the shell's name, without the prompt row and the shells' end-of-output marks (zsh's
 * `%`/`#`, fish's `⏎`). null without such a message (a prompt redrawn while the line is still
 * being read: fish highlighting a long line).
 */
export function whatTheShellSaid(output: string, typedLine: string, flavor: ReturnType<typeof shellFlavorOf>): string | null {
  const typed = typedLine.replace(/\s+/g, ' ').trim();
  let rows = output.split('\n').map((row) => overwriteRow(row).replace(/\s+/g, ' ').trim());
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  rows.pop(); // the prompt, drawn again
  // Shells start their messages with their name ("zsh: parse error near …"); before it on its row
  // is what is left of the line editor's redraw.
  // Without such a message it is no refusal (a prompt redrawn around a long line still being read).
  const named = rows.findIndex((row) => row.includes(`${flavor}: `) && !typed.includes(`${flavor}: `));
  if (named === -1) return null;
  rows = rows.slice(named);
  rows[0] = rows[0]!.slice(rows[0]!.indexOf(`${flavor}: `));
  const said = rows.filter((row) => row !== '' && !/^[%#⏎]$/.test(row));
  return said.length > 0 ? said.join(' ') : null;
}

/** A row as the terminal leaves it: text after a carriage return overwrites it from its start (line editors redraw so). */
function overwriteRow(row: string): string {
  const cells: string[] = [];
  for (const part of row.split('\r')) {
    [...part].forEach((char, index) => (cells[index] = char));
  }
  return cells.join('');
}

/**
 * Whether exec may rely on the terminal's command marks: only those of our own integration, which
 * carry its nonce. In a terminal without it (`bash --norc`, sh) marks may be any program's output
 * (`cat` of a recorded log, a printf), and an exec that waited for marks no shell sends would hang:
 * there the sentinel wrapper, which works in every shell, is used.
 */
function marksTrusted(session: PtySession): boolean {
  return session.integrationInjected && session.info.shellIntegration;
}

/** The terminal's process ended while the command ran; docs/protocol.md's message, with how it ended. */
function exitedError(session: PtySession, output: string): ControlError {
  const status = session.exitStatus;
  const how = status?.signal ? ` (killed by ${status.signal})` : status?.exitCode != null ? ` (its shell exited with code ${status.exitCode})` : '';
  return new ControlError(`terminal ${session.id} exited while running the command${how}`, 'TERMINAL_EXITED', {
    exitCode: status?.exitCode ?? null,
    signal: status?.signal ?? null,
    output,
  });
}

/** The line the pane's cursor is on, else the last line with text above it: what a waiting program asks. */
async function lastScreenLine(session: PtySession, logger: ILogger): Promise<string> {
  const screen = await readScreenOrNull(session, logger);
  if (!screen) return '';
  for (let y = Math.min(screen.cursorY, screen.lines.length - 1); y >= 0; y--) {
    const line = screen.lines[y]!.trimEnd();
    if (line !== '') return line;
  }
  return '';
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

interface SentinelResult {
  outputStart: number;
  outputEnd: number;
  exitCode: number | null;
  cwd: string | null;
}

/**
 * Watches a terminal's output (through the ring, byte-exact) for the two sentinel markers of one
 * exec. Each scan reads only the bytes that arrived since the last one (plus a marker's length of
 * overlap, for a marker split across batches).
 */
class SentinelScanner {
  readonly #session: PtySession;
  readonly #start: Buffer;
  readonly #end: Buffer;
  #scanFrom: number;
  #outputStart = -1;
  /** Where the command's output begins, once the start marker was seen. */
  get outputStart(): number | null {
    return this.#outputStart === -1 ? null : this.#outputStart;
  }
  #cwd: string | null = null;
  #resolve!: (result: SentinelResult) => void;
  readonly done: Promise<SentinelResult>;
  #finished = false;

  constructor(session: PtySession, nonce: string, fromOffset: number) {
    this.#session = session;
    const markers = sentinelMarkers(nonce);
    this.#start = markers.start;
    this.#end = markers.end;
    this.#scanFrom = fromOffset;
    this.done = new Promise((resolve) => (this.#resolve = resolve));
  }

  scan(): void {
    if (this.#finished) return;
    if (this.#outputStart === -1) {
      const marker = this.#find(this.#start);
      if (!marker) return;
      this.#outputStart = marker.end;
      this.#cwd = marker.value.length > 0 ? marker.value : null;
      this.#scanFrom = marker.end;
    }
    const marker = this.#find(this.#end);
    if (!marker) return;
    this.#finished = true;
    const code = /^-?\d{1,10}$/.test(marker.value) ? Number(marker.value) : null;
    this.#resolve({ outputStart: this.#outputStart, outputEnd: marker.start, exitCode: code, cwd: this.#cwd });
  }

  /** The next complete marker `prefix … BEL` at or after #scanFrom; advances #scanFrom past what cannot hold one. */
  #find(prefix: Buffer): { start: number; end: number; value: string } | null {
    const read = this.#session.readRing(this.#scanFrom);
    const data = read.data;
    const index = data.indexOf(prefix);
    if (index === -1) {
      this.#scanFrom = Math.max(this.#scanFrom, read.endOffset - (prefix.length - 1));
      return null;
    }
    const bell = data.indexOf(0x07, index + prefix.length);
    if (bell === -1) {
      // The marker's value has not fully arrived yet; look here again next time.
      this.#scanFrom = read.startOffset + index;
      return null;
    }
    return {
      start: read.startOffset + index,
      end: read.startOffset + bell + 1,
      value: data.toString('utf8', index + prefix.length, bell),
    };
  }
}
