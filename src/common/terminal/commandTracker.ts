/**
 * Follows the shell integration marks of one terminal and derives what the Hub shows: the cwd,
 * the command running now, the last finished command, and command events with the byte range of
 * the command's output. Pure state: offsets and time are passed in by the caller.
 */
import type { CommandSummary } from '../api/contract.ts';
import { Emitter, type Event } from '../event.ts';
import type { IDisposable } from '../lifecycle.ts';
import type { TerminalMark } from './terminalMarks.ts';

export interface CommandEvent {
  commandLine: string;
  /** The cwd when the command started (null if the shell never reported one). */
  cwd: string | null;
  exitCode: number | null;
  /** Absolute byte offset just after the command-start mark (OSC 633/133 C): where its output begins. */
  startOffset: number;
  /** Absolute byte offset of the command-finished mark (OSC 633/133 D): where its output ends. */
  endOffset: number;
  startedAt: number;
  endedAt: number;
}

/** A command the shell began running (OSC 633/133 C); its CommandEvent follows when it ends. */
export interface CommandStart {
  commandLine: string;
  cwd: string | null;
  /** Where its output begins (as CommandEvent.startOffset). */
  startOffset: number;
  startedAt: number;
}

/** Where a mark sits in the output stream, in absolute byte offsets. */
export interface MarkPosition {
  /** Offset of the ESC that starts the sequence. */
  start: number;
  /** Offset just after its terminator. */
  end: number;
}

export interface CommandTrackerOptions {
  /**
   * The nonce our shell script was given. When set, command marks (OSC 633 A–E) without it, and
   * OSC 133 marks, are ignored: they came from program output, not from our script.
   */
  nonce: string | null;
  /** The cwd the process was started in; replaced by what the shell reports. */
  initialCwd: string;
  /** Whether an OSC 7 host names this machine (a remote host's paths are not ours). */
  isLocalHost: (host: string) => boolean;
  /**
   * The line the shell echoed between two offsets (its prompt's end and a command's start),
   * when it can be told (echoedLine.ts): names a command the shell did not name.
   */
  echoedLine?: (from: number, to: number) => string | null;
}

type RunningCommand = CommandStart;

export class CommandTracker implements IDisposable {
  readonly #options: CommandTrackerOptions;
  #cwd: string;
  #cwdReported = false;
  #shellIntegration = false;
  #pendingCommandLine: string | null = null;
  #running: RunningCommand | null = null;
  #lastCommand: CommandSummary | null = null;
  /** Lines typed in another form than the command they run (see showCommandAs), oldest first. */
  readonly #shownAs: Array<{ typed: string; shown: string }> = [];

  readonly #onDidChange = new Emitter<void>();
  /** Fired when cwd, runningCommand, lastCommand or shellIntegration changed. */
  readonly onDidChange: Event<void> = this.#onDidChange.event;
  readonly #onDidFinishCommand = new Emitter<CommandEvent>();
  readonly onDidFinishCommand: Event<CommandEvent> = this.#onDidFinishCommand.event;
  readonly #onDidReachPrompt = new Emitter<void>();
  /** The shell finished drawing its prompt (OSC 633/133 B): it reads the next line now. */
  readonly onDidReachPrompt: Event<void> = this.#onDidReachPrompt.event;
  #atPrompt = false;
  /** Where the last prompt ended (after its B mark): the echo of the line typed there follows. */
  #promptEndOffset: number | null = null;
  #promptStartOffset: number | null = null;
  readonly #onDidStartCommand = new Emitter<CommandStart>();
  /** Every command start, also of a command that ends within the same batch of output (onDidChange may then show no change). */
  readonly onDidStartCommand: Event<CommandStart> = this.#onDidStartCommand.event;

  constructor(options: CommandTrackerOptions) {
    this.#options = options;
    this.#cwd = options.initialCwd;
  }

  get cwd(): string {
    return this.#cwd;
  }
  /** Between the end of a prompt (B) and the next command's start (C) or prompt (A). */
  get atPrompt(): boolean {
    return this.#atPrompt;
  }
  get shellIntegration(): boolean {
    return this.#shellIntegration;
  }
  get runningCommand(): string | null {
    return this.#running ? this.#running.commandLine : null;
  }
  /** Where the last prompt began (its A mark): what the shell printed before it is not the prompt. */
  get promptStartOffset(): number | null {
    return this.#promptStartOffset;
  }
  get lastCommand(): CommandSummary | null {
    return this.#lastCommand;
  }

  /**
   * The next command the shell reports as `typedLine` is shown (running command, last command,
   * command events) as `commandLine`: an agent's multi-line command typed as `eval "$(printf …)"`
   * is recorded as the agent sent it, not as its wrapper. Dispose to withdraw (the exec ended).
   */
  showCommandAs(typedLine: string, commandLine: string): IDisposable {
    const entry = { typed: typedLine.trim(), shown: commandLine };
    this.#shownAs.push(entry);
    return {
      dispose: () => {
        const index = this.#shownAs.indexOf(entry);
        if (index !== -1) this.#shownAs.splice(index, 1);
      },
    };
  }

  handle(mark: TerminalMark, position: MarkPosition, now: number): void {
    // With our script injected, command marks must carry its nonce: anything else is program
    // output (`cat` of a log recorded in another terminal) that would end or start commands.
    if (this.#options.nonce !== null && 'nonce' in mark && mark.nonce !== this.#options.nonce) return;
    switch (mark.kind) {
      case 'promptStart':
      case 'promptEnd': {
        let changed = this.#markIntegrated();
        // A prompt while a command is still "running" means the shell never sent D (e.g. a
        // shell that only emits A/B/C): close the command without an exit code.
        if (mark.kind === 'promptStart' && this.#running) {
          this.#finish(null, position.start, now);
          changed = true;
        }
        this.#atPrompt = mark.kind === 'promptEnd';
        this.#promptEndOffset = this.#atPrompt ? position.end : null;
        if (mark.kind === 'promptStart') this.#promptStartOffset = position.start;
        if (changed) this.#onDidChange.fire();
        if (this.#atPrompt) this.#onDidReachPrompt.fire();
        return;
      }
      case 'commandLine': {
        let changed = this.#markIntegrated();
        if (this.#running) {
          // bash names a line that did not enter history (ignorespace, ignoredups) only once it
          // runs, after its C mark (assets/shell-integration/bash), and only by its first simple
          // command: it names the running command unless the echo of the line already did.
          if (this.#running.commandLine === '') {
            this.#running.commandLine = this.#shown(mark.commandLine);
            changed = true;
          }
        } else {
          this.#pendingCommandLine = mark.commandLine;
        }
        if (changed) this.#onDidChange.fire();
        return;
      }
      case 'commandStart': {
        this.#markIntegrated();
        if (this.#running) this.#finish(null, position.start, now);
        const echoed = this.#pendingCommandLine === null && this.#promptEndOffset !== null ? this.#options.echoedLine?.(this.#promptEndOffset, position.start) : null;
        const reported = this.#pendingCommandLine ?? echoed ?? null;
        this.#running = {
          commandLine: reported === null ? '' : this.#shown(reported),
          cwd: this.#cwdReported ? this.#cwd : null,
          startOffset: position.end,
          startedAt: now,
        };
        this.#pendingCommandLine = null;
        this.#atPrompt = false;
        this.#promptEndOffset = null;
        this.#onDidStartCommand.fire({ ...this.#running });
        this.#onDidChange.fire();
        return;
      }
      case 'commandFinished': {
        const changed = this.#markIntegrated();
        if (this.#running) {
          this.#finish(mark.exitCode, position.start, now);
          this.#onDidChange.fire();
        } else if (changed) {
          this.#onDidChange.fire();
        }
        return;
      }
      case 'cwd': {
        if (mark.host !== undefined && !this.#options.isLocalHost(mark.host)) return;
        this.#cwdReported = true;
        if (mark.cwd === this.#cwd) return;
        this.#cwd = mark.cwd;
        this.#onDidChange.fire();
        return;
      }
      case 'notification':
        // Notifications are the session's business (attention badge), not command state.
        return;
    }
  }

  /** The process ended: a command still running ends with it, at the final offset. */
  endOfStream(offset: number, now: number): void {
    if (!this.#running) return;
    this.#finish(null, offset, now);
    this.#onDidChange.fire();
  }

  dispose(): void {
    this.#onDidChange.dispose();
    this.#onDidFinishCommand.dispose();
    this.#onDidStartCommand.dispose();
    this.#onDidReachPrompt.dispose();
  }

  #shown(reported: string): string {
    const index = this.#shownAs.findIndex((entry) => entry.typed === reported.trim());
    if (index === -1) return reported;
    const [entry] = this.#shownAs.splice(index, 1);
    return entry!.shown;
  }

  #markIntegrated(): boolean {
    if (this.#shellIntegration) return false;
    this.#shellIntegration = true;
    return true;
  }

  #finish(exitCode: number | null, endOffset: number, now: number): void {
    const running = this.#running;
    if (!running) return;
    this.#running = null;
    const event: CommandEvent = {
      commandLine: running.commandLine,
      cwd: running.cwd,
      exitCode,
      startOffset: running.startOffset,
      endOffset: Math.max(endOffset, running.startOffset),
      startedAt: running.startedAt,
      endedAt: now,
    };
    this.#lastCommand = {
      commandLine: event.commandLine,
      cwd: event.cwd,
      exitCode: event.exitCode,
      startedAt: event.startedAt,
      endedAt: event.endedAt,
    };
    this.#onDidFinishCommand.fire(event);
  }
}
