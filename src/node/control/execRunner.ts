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
 * Execs of one terminal run one at a time, in arrival order. A terminal showing a full-screen
 * program (alt screen) is refused rather than typed into. While the shell reports a command that
 * is not a shell itself (a build, `sleep`, a Python REPL: runsAShell), the exec waits for the
 * shell's prompt rather than type into that program. The timeout counts from the request,
 * queueing and waiting included; a timed-out exec that has not started yet is never typed.
 */
import { randomBytes } from 'node:crypto';
import { ControlConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { PtySession } from '../pty/ptySession.ts';
import type { CommandLog, LoggedCommand } from './commandLog.ts';
import { ControlError } from './protocol.ts';
import { evalCommand, isTypeableAsIs, runsAShell, sentinelLine, sentinelMarkers, shellFlavorOf } from './shellCommandLine.ts';
import { readScreenOrNull, type TerminalInput } from './terminalInput.ts';
import { readPlainOutput } from './terminalOutput.ts';

export interface ExecOptions {
  timeoutMs: number;
  /** Called once the command was typed (for the audit log: queued execs that time out are not). */
  onTyped?: () => void;
}

/** How long after a command's end an exec waits for a prompt the shell does not report. */
const promptGraceMs = 1_000;

interface ExecProgress {
  /** The running command the exec waits to end, if it does. */
  waitingFor: string | null;
}

export class ExecRunner implements IDisposable {
  readonly #commandLog: CommandLog;
  readonly #input: TerminalInput;
  readonly #logger: ILogger;
  readonly #tails = new Map<string, Promise<void>>();
  readonly #running = new Set<AbortController>();
  #disposed = false;

  constructor(options: { commandLog: CommandLog; input: TerminalInput; logger: ILogger }) {
    this.#commandLog = options.commandLog;
    this.#input = options.input;
    this.#logger = options.logger;
  }

  run(session: PtySession, command: string, options: ExecOptions): Promise<LoggedCommand> {
    if (this.#disposed) return Promise.reject(new ControlError('the control server is shutting down', 'CONNECTION_CLOSED'));
    const controller = new AbortController();
    this.#running.add(controller);
    /** What this exec waits for, when it times out: said in the error. */
    const progress: ExecProgress = { waitingFor: null };
    const timer = setTimeout(() => {
      const busy = progress.waitingFor === null ? '' : `: terminal ${session.id} is still running \`${progress.waitingFor}\` (exec types its command once the shell is back at its prompt)`;
      controller.abort(new ControlError(`exec timeout after ${options.timeoutMs}ms${busy}`, 'TIMEOUT'));
    }, options.timeoutMs);
    const signal = controller.signal;
    const id = session.id;

    let settle!: { resolve: (entry: LoggedCommand) => void; reject: (error: unknown) => void };
    const result = new Promise<LoggedCommand>((resolve, reject) => (settle = { resolve, reject }));
    const onAbort = () => settle.reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });

    const previous = this.#tails.get(id) ?? Promise.resolve();
    const tail = previous.then(async () => {
      if (signal.aborted) return; // timed out while queued: never typed
      try {
        settle.resolve(await this.#execute(session, command, signal, progress, options.onTyped));
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

  async #execute(session: PtySession, command: string, signal: AbortSignal, progress: ExecProgress, onTyped: (() => void) | undefined): Promise<LoggedCommand> {
    const id = session.id;
    if (session.exitStatus) throw new ControlError(`terminal ${id} has exited`, 'TERMINAL_EXITED');
    // Also flushes output read so far into the ring, so `session.offset` below is current.
    const screen = await readScreenOrNull(session, this.#logger);
    if (screen?.altScreen) throw new ControlError(`terminal ${id} is running a full-screen program`);
    signal.throwIfAborted();
    if (session.exitStatus) throw new ControlError(`terminal ${id} has exited`, 'TERMINAL_EXITED');

    const ended = this.#whenEnded(session);
    try {
      // Again after each wait: a line typed ahead may start the next command at that prompt.
      for (let running = session.info.runningCommand; session.info.shellIntegration && running !== null && !runsAShell(running); running = session.info.runningCommand) {
        progress.waitingFor = running;
        await this.#untilCommandEnds(session, signal, ended.promise);
        progress.waitingFor = null;
        const after = await readScreenOrNull(session, this.#logger);
        if (after?.altScreen) throw new ControlError(`terminal ${id} is running a full-screen program`);
        signal.throwIfAborted();
      }
      const info = session.info;
      const flavor = shellFlavorOf(info.file, info.runningCommand);
      const useMarks = info.shellIntegration && info.runningCommand === null;
      if (useMarks) return await this.#viaShellIntegration(session, command, flavor, signal, ended.promise, onTyped);
      return await this.#viaSentinel(session, command, flavor, signal, ended.promise, onTyped);
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

  async #viaShellIntegration(
    session: PtySession,
    command: string,
    flavor: ReturnType<typeof shellFlavorOf>,
    signal: AbortSignal,
    ended: Promise<never>,
    onTyped: (() => void) | undefined,
  ): Promise<LoggedCommand> {
    const line = isTypeableAsIs(command, flavor) ? command : evalCommand(command, flavor);
    const typedAt = await this.#input.type(session, line + '\r', signal);
    // Claimed only now, from the offset of the write, and by its line: a command someone else
    // typed while this exec waited for its turn, or typed before it and run after it was typed,
    // is not mistaken for ours.
    const claim = this.#commandLog.claimNext(session.id, typedAt, command, line);
    try {
      onTyped?.();
      const entry = await Promise.race([claim.promise, ended, aborted(signal)]);
      const output = readPlainOutput(session, entry.startOffset, entry.endOffset, ControlConstants.execMaxOutputBytes);
      return { ...entry, output: output.text, truncated: output.truncated };
    } finally {
      claim.dispose();
    }
  }

  async #viaSentinel(
    session: PtySession,
    command: string,
    flavor: ReturnType<typeof shellFlavorOf>,
    signal: AbortSignal,
    ended: Promise<never>,
    onTyped: (() => void) | undefined,
  ): Promise<LoggedCommand> {
    const nonce = randomBytes(8).toString('hex');
    const startedAt = Date.now();
    const typedAt = await this.#input.type(session, sentinelLine(command, flavor, nonce) + '\r', signal);
    const scanner = new SentinelScanner(session, nonce, typedAt);
    const listener = session.onDidOutput(() => scanner.scan());
    try {
      onTyped?.();
      const found = await Promise.race([scanner.done, ended, aborted(signal)]);
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
      listener.dispose();
    }
  }

  /** Rejects when the terminal's process exits before the command finished. */
  #whenEnded(session: PtySession): { promise: Promise<never>; dispose(): void } {
    let listener: IDisposable | undefined;
    const promise = new Promise<never>((_, reject) => {
      const fail = () => reject(new ControlError(`terminal ${session.id} exited while running the command`, 'TERMINAL_EXITED'));
      if (session.exitStatus) fail();
      else listener = session.onDidExit(fail);
    });
    // The race may have been settled otherwise by the time this rejects.
    promise.catch(() => {});
    return { promise, dispose: () => listener?.dispose() };
  }
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
