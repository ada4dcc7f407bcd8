/**
 * Typing into terminals on behalf of agents. Input of one terminal is serialized: a paste and its
 * delayed Enter, or a line `exec` types, never interleave with another client's input.
 */
import { ControlConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { PtySession } from '../pty/ptySession.ts';
import type { ScreenText } from '../pty/terminalMirror.ts';
import { PendingSleeps } from './pendingSleeps.ts';
import type { SentInputTracker } from './sentInput.ts';
import { ControlError } from './protocol.ts';

const pasteStart = '\x1b[200~';
const pasteEnd = '\x1b[201~';

export interface SendOptions {
  /** Press Enter after the text (default true). */
  newline: boolean;
  /** true: bracketed paste; false: never; undefined: paste multi-line text when the program asked for bracketed paste. */
  paste: boolean | undefined;
  /** Holds the write until the terminal is free for it (a person typing there); throws to refuse it. */
  guard?: InputGuard | undefined;
  /** Called right after the text is written (before a delayed Enter): the moment to audit it. */
  onTyped?: (() => void) | undefined;
}

/** Decides when an agent's input may be written (see TypingGuard). */
export interface InputGuard {
  /** Resolves once the input may be written; rejects with the reason it may not. */
  waitForTurn(): Promise<void>;
  /** Whether writing right now is still fine: checked again just before the write, after any await. */
  isClear(): boolean;
}

export interface SendResult {
  pasted: boolean;
  /** The terminal's output offset when the input was written: output it causes comes after this. */
  offset: number;
}

export class TerminalInput implements IDisposable {
  readonly #logger: ILogger;
  readonly #sentInput: SentInputTracker | undefined;
  readonly #tails = new Map<string, Promise<unknown>>();
  readonly #sleeps = new PendingSleeps();
  #disposed = false;

  constructor(options: { logger: ILogger; sentInput?: SentInputTracker }) {
    this.#logger = options.logger;
    this.#sentInput = options.sentInput;
  }

  /** Text as typed; bracketed paste as asked or as the foreground program's mode suggests. */
  send(session: PtySession, text: string, options: SendOptions): Promise<SendResult> {
    return this.#serialize(session.id, async () => {
      let screen: ScreenText | null;
      for (;;) {
        await options.guard?.waitForTurn();
        screen = await readScreenOrNull(session, this.#logger);
        // Reading the screen took a turn of the event loop, in which the person may have typed again.
        if (!options.guard || options.guard.isClear()) break;
      }
      if (session.exitStatus) throw new ControlError(`terminal ${session.id} has exited`, 'TERMINAL_EXITED');
      const bracketedPasteMode = screen?.bracketedPaste ?? false;
      const pasted = options.paste ?? (bracketedPasteMode && /[\r\n]/.test(text));
      const offset = session.offset;
      if (pasted) {
        // The body must not end the paste early (a paste-injection trick): drop any end marker in it.
        session.write(pasteStart + text.split(pasteEnd).join('') + pasteEnd);
      } else if (text.length > 0) {
        // A program in bracketed-paste mode (Ink, Claude Code) may take a chunk with a CR in it as
        // pasted text; Enter goes separately then.
        session.write(options.newline && !bracketedPasteMode ? text + '\r' : text);
      }
      // In the same turn as the write, Enter included even when it follows apart: a `wait`
      // skips the echo of what agents typed (SentInputTracker).
      this.#sentInput?.record(session, text + (options.newline ? '\r' : ''), offset);
      options.onTyped?.();
      if (options.newline && (pasted || bracketedPasteMode || text.length === 0)) {
        if (text.length > 0) await this.#sleep(ControlConstants.pasteEnterDelayMs);
        if (session.exitStatus) throw new ControlError(`terminal ${session.id} has exited`, 'TERMINAL_EXITED');
        session.write('\r');
      }
      return { pasted, offset };
    });
  }

  /**
   * Write `data` in one piece, after any input to this terminal still in progress. Resolves with
   * the output offset at the moment of the write (before anything the input causes); output is
   * processed on later turns of the event loop, so a caller continuing from this promise sees
   * none of that output yet.
   */
  type(session: PtySession, data: string, signal?: AbortSignal, guard?: InputGuard): Promise<number> {
    return this.#serialize(session.id, async () => {
      // A person may have typed while this waited for its turn: then wait for them again.
      while (guard && !guard.isClear()) {
        signal?.throwIfAborted();
        await guard.waitForTurn();
      }
      // Gave up (timed out) while waiting for its turn: then it must not be typed at all.
      signal?.throwIfAborted();
      const offset = session.offset;
      session.write(data);
      this.#sentInput?.record(session, data, offset);
      return offset;
    });
  }

  dispose(): void {
    this.#disposed = true;
    this.#sleeps.rejectAll(new ControlError('the control server is shutting down', 'CONNECTION_CLOSED'));
  }

  #serialize<T>(terminalId: string, job: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(terminalId) ?? Promise.resolve();
    const result = previous.then(job);
    const tail = result.then(
      () => {},
      () => {},
    );
    this.#tails.set(terminalId, tail);
    void tail.then(() => {
      if (this.#tails.get(terminalId) === tail) this.#tails.delete(terminalId);
    });
    return result;
  }

  #sleep(ms: number): Promise<void> {
    if (this.#disposed) return Promise.reject(new ControlError('the control server is shutting down', 'CONNECTION_CLOSED'));
    return this.#sleeps.sleep(ms);
  }
}

/** The mirror's view, or null when it cannot answer (its worker failed): callers fall back to plain typing. */
export async function readScreenOrNull(session: PtySession, logger: ILogger, options: { scrollback?: boolean } = {}): Promise<ScreenText | null> {
  try {
    return await session.readScreen(options);
  } catch (error) {
    logger.warn('terminal mirror unavailable', { id: session.id, error: (error as Error).message });
    return null;
  }
}
