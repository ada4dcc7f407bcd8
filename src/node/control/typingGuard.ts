/**
 * Keeps agents from typing over a person. Three rules, checked before an agent's `send` or `exec`
 * is written:
 * - the person is typing: the Hub notes every keystroke a person sends to a terminal, and agent
 *   input waits until the person has been idle for `idleMs` (the `agentSendIdleMs` setting);
 * - the person left a line half typed at the prompt: agent input would join it (`echo half-typed
 *   echo agent-cmd` would run), so it waits for the line to be sent or cleared, bounded by
 *   `unsentInputMaxWaitMs`, and is then refused — a person's line is never typed into or cleared;
 * - the shell is still starting (its rc files run; our integration has not reported its first
 *   prompt): input then lands in the middle of the rc's startup, so it waits for the first prompt,
 *   bounded by `firstPromptMaxWaitMs`, after which the shell is treated as one without integration.
 *   A shell without our integration waits the same way for its first output: typed before its line
 *   editor starts, a line is echoed by the tty and then drawn again by the editor, and a `wait`
 *   for a pattern in the line would match that second drawing.
 * With `wait:false`, or after waiting too long, the input is refused.
 */
import { ControlConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { PtySession } from '../pty/ptySession.ts';
import { PendingSleeps } from './pendingSleeps.ts';
import { ControlError } from './protocol.ts';
import { isInteractiveShell } from '../pty/shellLaunch.ts';
import { type InputGuard, readScreenOrNull } from './terminalInput.ts';
import { type ILogger, nullLogger } from '../logger.ts';

export interface TypingGuardOptions {
  /** Read on every check, so a settings change applies to sends already waiting. */
  idleMs: () => number;
  /** Longest a send waits before it is refused as busy (default ControlConstants.agentSendMaxWaitMs). */
  maxWaitMs?: number;
  /** Longest input waits for a half-typed line to go (default ControlConstants.unsentInputMaxWaitMs). */
  unsentMaxWaitMs?: number;
  /** Longest input waits for a starting shell's first prompt (default ControlConstants.firstPromptMaxWaitMs). */
  firstPromptMaxWaitMs?: number;
  /** Where a mirror that cannot answer is reported (default: nowhere). */
  logger?: ILogger;
}

export interface GuardRequest {
  /** false: refuse at once when the person is typing, rather than wait. */
  wait: boolean;
  /** Stop waiting when this turns false (the agent disconnected, the exec timed out). */
  isConnected?: () => boolean;
  /** The terminal itself: with it, the guard also looks at its prompt line and its startup. */
  session?: PtySession;
  /** Told what the input waits for, as it changes (an exec's timeout message says it). */
  onWaiting?: (reason: string | null) => void;
}

/**
 * An interactive shell without our integration that has printed nothing yet: its line editor has
 * not started. (A shell running a command or a script, `bash -c …`, may never print anything.)
 */
function isSilentStartingShell(session: PtySession): boolean {
  if (session.integrationInjected || session.offset !== 0 || session.exitStatus !== null) return false;
  const { file, args } = session.info;
  return isInteractiveShell(file, args);
}

/** While waiting, look again at least this often: the agent may have disconnected meanwhile. */
const recheckMs = 250;

export function busyError(terminalId: string): ControlError {
  // The exact string of docs/protocol.md (claws clients read `error`); `code` for our own clients.
  return new ControlError(`terminal ${terminalId} is busy: the user is typing`, 'BUSY');
}

export function unsentInputError(terminalId: string, line: string): ControlError {
  // BUSY like busyError; `unsentInput` beside the error tells the two apart and holds the line,
  // for a client to show in its own words.
  return new ControlError(`terminal ${terminalId} has unsent input at the prompt: ${JSON.stringify(line)} (the person has not pressed Enter; nothing was typed)`, 'BUSY', { unsentInput: line });
}

/**
 * What a person's keystrokes leave on a line, as far as keys tell: without shell integration
 * there is no prompt mark to read the line from the screen, so the guard follows the keys.
 * Enter, Ctrl-C and Ctrl-U end the line; Backspace and Ctrl-W take from it; any other control
 * or escape sequence (arrows: history recall, cursor moves) leaves it "edited", as not empty.
 */
export class PersonLine {
  #text = '';
  #edited = false;

  get isEmpty(): boolean {
    return this.#text.length === 0 && !this.#edited;
  }
  get text(): string {
    return this.#text;
  }

  type(data: string): void {
    for (let index = 0; index < data.length; index++) {
      const char = data[index]!;
      if (char === '\r' || char === '\n' || char === '\x03' || char === '\x15') {
        this.#text = '';
        this.#edited = false;
      } else if (char === '\x7f' || char === '\b') {
        this.#text = this.#text.slice(0, -1);
      } else if (char === '\x17') {
        this.#text = this.#text.replace(/\S*\s*$/, '');
      } else if (char === '\x1b') {
        // A whole sequence (CSI/SS3) or a lone ESC: either way the line may have changed.
        this.#edited = true;
        const sequence = /^\x1b(\[[0-?]*[ -/]*[@-~]|O.|.)?/.exec(data.slice(index))!;
        index += sequence[0].length - 1;
      } else if (char < ' ') {
        this.#edited = true;
      } else {
        this.#text += char;
      }
    }
  }
}

interface PersonState {
  /** When the person last typed (epoch ms); gone once they count as idle. */
  lastInputAt: number | undefined;
  /** Whether the person typed since the terminal's last command started (or since it started). */
  typedSinceCommand: boolean;
  /** How many times the person has typed into the terminal: an exec compares it before and after. */
  inputs: number;
  line: PersonLine;
}

export class TypingGuard implements IDisposable {
  readonly #idleMs: () => number;
  readonly #maxWaitMs: number;
  readonly #unsentMaxWaitMs: number;
  readonly #firstPromptMaxWaitMs: number;
  readonly #logger: ILogger;
  readonly #people = new Map<string, PersonState>();
  readonly #sleeps = new PendingSleeps();
  #disposed = false;

  constructor(options: TypingGuardOptions) {
    this.#idleMs = options.idleMs;
    this.#maxWaitMs = options.maxWaitMs ?? ControlConstants.agentSendMaxWaitMs;
    this.#unsentMaxWaitMs = options.unsentMaxWaitMs ?? ControlConstants.unsentInputMaxWaitMs;
    this.#firstPromptMaxWaitMs = options.firstPromptMaxWaitMs ?? ControlConstants.firstPromptMaxWaitMs;
    this.#logger = options.logger ?? nullLogger;
  }

  /** A person typed `data` into the terminal just now. */
  notePersonInput(terminalId: string, data = '', at: number = Date.now()): void {
    const state = this.#state(terminalId);
    state.lastInputAt = at;
    state.typedSinceCommand = true;
    state.inputs++;
    state.line.type(data);
  }

  /** A command started in the terminal: what the person typed before went with it. */
  noteCommandStarted(terminalId: string): void {
    const state = this.#people.get(terminalId);
    if (!state) return;
    state.typedSinceCommand = false;
    state.line = new PersonLine();
  }

  /** The terminal is gone. */
  forget(terminalId: string): void {
    this.#people.delete(terminalId);
  }

  /** How many times a person has typed into the terminal so far (a count that only grows). */
  personInputCount(terminalId: string): number {
    return this.#people.get(terminalId)?.inputs ?? 0;
  }

  /** When a person last typed into the terminal, if recently enough to still matter. */
  lastPersonInputAt(terminalId: string): number | undefined {
    return this.#people.get(terminalId)?.lastInputAt;
  }

  /** Milliseconds until the person counts as idle (0: an agent may type now). */
  remainingMs(terminalId: string, now: number = Date.now()): number {
    const state = this.#people.get(terminalId);
    const last = state?.lastInputAt;
    if (last === undefined) return 0;
    const remaining = last + this.#idleMs() - now;
    if (remaining <= 0) {
      state!.lastInputAt = undefined;
      return 0;
    }
    return remaining;
  }

  /**
   * The line the person left at the prompt, unsent; null when there is none (or none of theirs).
   * With shell integration the screen tells (from the prompt's end mark); without, the keys do.
   */
  async unsentPersonLine(session: PtySession): Promise<string | null> {
    const state = this.#people.get(session.id);
    if (!state?.typedSinceCommand) return null;
    const info = session.info;
    if (!info.shellIntegration) {
      if (state.line.isEmpty) return null;
      // Keys given to a full-screen program (vim, less) make no line.
      const screen = await readScreenOrNull(session, this.#logger);
      return screen?.altScreen ? null : state.line.text;
    }
    if (!session.atPrompt) return null;
    const screen = await readScreenOrNull(session, this.#logger);
    const input = screen?.promptInput;
    return input ? input : null;
  }

  /** A guard for one agent input: its deadlines start now and cover every wait of that input. */
  guardFor(terminalId: string, request: GuardRequest): InputGuard {
    const start = Date.now();
    const busyDeadline = start + this.#maxWaitMs;
    const unsentDeadline = start + this.#unsentMaxWaitMs;
    const startupDeadline = start + this.#firstPromptMaxWaitMs;
    const session = request.session;
    const waiting = (reason: string | null) => request.onWaiting?.(reason);
    return {
      waitForTurn: async () => {
        try {
          for (;;) {
            if (this.#disposed) throw new ControlError('the control server is shutting down', 'CONNECTION_CLOSED');
            if (request.isConnected && !request.isConnected()) throw new ControlError('the client disconnected', 'CONNECTION_CLOSED');
            const now = Date.now();
            if (session?.integrationPending && now < startupDeadline && request.wait) {
              waiting('the shell to draw its first prompt (its startup files are still running)');
              await this.#whenPrompt(session, Math.min(recheckMs, startupDeadline - now));
              continue;
            }
            if (session && isSilentStartingShell(session) && now < startupDeadline && request.wait) {
              waiting('the shell to print its first prompt');
              await this.#whenOutputOrInput(session, Math.min(recheckMs, startupDeadline - now));
              continue;
            }
            const remaining = this.remainingMs(terminalId, now);
            if (remaining > 0) {
              if (!request.wait || now + remaining > busyDeadline) throw busyError(terminalId);
              waiting('the person typing in the pane to pause');
              await this.#sleep(Math.min(remaining, recheckMs));
              continue;
            }
            const unsent = session ? await this.unsentPersonLine(session) : null;
            if (unsent === null) return;
            if (!request.wait || Date.now() >= unsentDeadline) throw unsentInputError(terminalId, unsent);
            waiting(`the person to send or clear the line they typed at the prompt (${JSON.stringify(unsent)})`);
            await this.#whenOutputOrInput(session!, recheckMs);
          }
        } finally {
          waiting(null);
        }
      },
      isClear: () => this.remainingMs(terminalId) === 0,
    };
  }

  dispose(): void {
    this.#disposed = true;
    this.#sleeps.rejectAll(new ControlError('the control server is shutting down', 'CONNECTION_CLOSED'));
    this.#people.clear();
  }

  #state(terminalId: string): PersonState {
    let state = this.#people.get(terminalId);
    if (!state) {
      state = { lastInputAt: undefined, typedSinceCommand: false, inputs: 0, line: new PersonLine() };
      this.#people.set(terminalId, state);
    }
    return state;
  }

  /** Sleeps up to `ms`, sooner when the shell draws a prompt. */
  #whenPrompt(session: PtySession, ms: number): Promise<void> {
    return this.#sleepUntil(ms, (wake) => [session.onDidReachPrompt(wake), session.onDidExit(wake)]);
  }

  /** Sleeps up to `ms`, sooner when the terminal prints (the person's line changed or went). */
  #whenOutputOrInput(session: PtySession, ms: number): Promise<void> {
    return this.#sleepUntil(ms, (wake) => [session.onDidOutput(wake), session.onDidExit(wake)]);
  }

  async #sleepUntil(ms: number, listen: (wake: () => void) => IDisposable[]): Promise<void> {
    const controller = new AbortController();
    const listeners = listen(() => controller.abort());
    try {
      await this.#sleeps.sleep(ms, controller.signal);
    } finally {
      for (const listener of listeners) listener.dispose();
    }
  }

  #sleep(ms: number): Promise<void> {
    return this.#sleeps.sleep(ms);
  }
}
