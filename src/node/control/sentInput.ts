/**
 * What agents typed into each terminal lately, and at which output offset, so that `wait` can
 * tell the terminal's echo of that input from the output the input causes: `send 'make; echo
 * built'` followed by `wait --pattern built` must not stop at the shell echoing the typed line.
 *
 * Kept here, not in a `wait`, because the send and the wait are usually separate requests (often
 * separate CLI processes): the send returns, then a new connection asks to wait.
 */
import { ControlConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { PtySession } from '../pty/ptySession.ts';

export interface SentInput {
  /** The terminal's output offset when the input was written: its echo comes after this. */
  readonly offset: number;
  /** Date.now() at the write: how long to keep looking for the echo counts from here. */
  readonly at: number;
  /** The text as its echo shows it, in order (see echoPieces); never empty. */
  readonly pieces: readonly string[];
  /** It ended with Enter: its echo ends with a line break (a draw of the line without one is not the last). */
  readonly enter: boolean;
  /**
   * Written while the shell, by its integration's marks, was not at its prompt (a command ran, or
   * the shell was still starting): the shell draws the line when it reads it, at its next prompt —
   * maybe its only echo, when the terminal did not echo it as it arrived (EchoGate).
   */
  readonly typedAhead?: boolean;
}

export class SentInputTracker implements IDisposable {
  /** Per session object, so a closed terminal's inputs go with it. */
  readonly #recent = new WeakMap<PtySession, SentInput[]>();
  readonly #onDidRecord = new Emitter<{ session: PtySession; input: SentInput }>();
  /** An input was written: a `wait` in progress on that terminal skips its echo too. */
  readonly onDidRecord: Event<{ session: PtySession; input: SentInput }> = this.#onDidRecord.event;

  /**
   * Remember `typed`, just written to `session` — all of it, the Enter that ends it included (a
   * paste's brackets may be left out). Call it in the same turn of the event loop as the write:
   * output is processed on later turns, so `session.offset` is then where the echo starts.
   */
  record(session: PtySession, typed: string, offset: number = session.offset): void {
    const pieces = echoPieces(typed);
    // Nothing printable (Ctrl-C, a bare Enter, arrow keys): no echo to tell apart.
    if (pieces.length === 0) return;
    const typedAhead = session.integrationInjected && !session.integrationPending && !session.atPrompt;
    const input: SentInput = { offset, at: Date.now(), pieces, enter: /[\r\n]$/.test(typed), typedAhead };
    let list = this.#recent.get(session);
    if (!list) this.#recent.set(session, (list = []));
    list.push(input);
    if (list.length > ControlConstants.sentInputsKept) list.shift();
    this.#onDidRecord.fire({ session, input });
  }

  /** The inputs remembered for `session`, oldest first. */
  recent(session: PtySession): readonly SentInput[] {
    return this.#recent.get(session) ?? [];
  }

  dispose(): void {
    this.#onDidRecord.dispose();
  }
}

/** Keys sent as escape sequences (arrows, function keys, Alt+key): they move or edit, nothing of them is echoed. */
const keySequence = /\x1b(?:\[[\x20-\x3f]*[\x40-\x7e]|O.|.)?/gs;
/** Control chars end a piece: Enter ends a line, Tab may be completed into other text, Ctrl-U erases. */
const controlRun = /[\x00-\x1f\x7f-\x9f]+/;

/**
 * The runs of printable text in `text`, trimmed, in order: what its echo shows contiguously
 * (each typed line, each part of a line around a Tab). Only the last pieces are kept, and of a
 * very long piece its tail: the end of the echo is what a `wait` needs to find.
 */
export function echoPieces(text: string): string[] {
  const pieces: string[] = [];
  for (const run of text.replace(keySequence, '\x00').split(controlRun)) {
    const piece = run.trim();
    if (piece.length > 0) pieces.push(piece.length > ControlConstants.echoPieceMaxChars ? piece.substring(piece.length - ControlConstants.echoPieceMaxChars) : piece);
  }
  return pieces.length > ControlConstants.echoMaxPieces ? pieces.slice(pieces.length - ControlConstants.echoMaxPieces) : pieces;
}
