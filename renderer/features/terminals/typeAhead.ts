/**
 * Input held for terminals that cannot take it yet: keys and pastes given to a pane before it is
 * attached, or while the window reconnects to the Hub. It is held per terminal for the whole
 * window rather than per pane session, because a reconnect replaces every session: the new one
 * sends what was typed into the old one.
 */
import { TerminalConstants } from '../../../src/common/constants.ts';

export type HeldInputKind = 'typed' | 'paste';

/** A paste stays apart from typed keys: it is bracketed as the program asks at the time it is sent. */
export interface HeldInput {
  readonly kind: HeldInputKind;
  readonly text: string;
}

export interface TakenInput {
  /** In the order given. */
  items: HeldInput[];
  /** Characters held (what a person would count). */
  chars: number;
  /** Characters refused since the last take, past the bound. */
  refusedChars: number;
}

const encoder = new TextEncoder();

export class TypeAheadBuffer {
  readonly #maxBytes: number;
  #items: HeldInput[] = [];
  #bytes = 0;
  #chars = 0;
  #refusedChars = 0;
  /** The session taking input now, told of anything held after it went live (see whileLive). */
  #live: (() => void) | null = null;

  constructor(maxBytes: number = TerminalConstants.typeAheadMaxBytes) {
    this.#maxBytes = maxBytes;
  }

  /** Nothing held and nothing refused. */
  get isEmpty(): boolean {
    return this.#items.length === 0 && this.#refusedChars === 0;
  }

  /**
   * Holds `text`, or refuses it (false) when it would take the buffer past its bound. Once
   * something was refused, everything after it is refused too until the buffer is taken: sending
   * the keys on either side of a hole would type something nobody typed.
   */
  hold(kind: HeldInputKind, text: string): boolean {
    if (text.length === 0) return true;
    const bytes = encoder.encode(text).length;
    if (this.#refusedChars > 0 || this.#bytes + bytes > this.#maxBytes) {
      this.#refusedChars += text.length;
      return false;
    }
    const last = this.#items.at(-1);
    // Keystrokes arrive one by one: keep them as one piece, sent in one write.
    if (kind === 'typed' && last?.kind === 'typed') this.#items[this.#items.length - 1] = { kind, text: last.text + text };
    else this.#items.push({ kind, text });
    this.#bytes += bytes;
    this.#chars += text.length;
    this.#live?.();
    return true;
  }

  /**
   * `send` takes what is held whenever something is held from now until the returned function is
   * called: the session that takes input registers it. Keys typed while a reconnect swaps the
   * panes are held for the terminal (TypeAheadStore.holdKeysUntilFocus), and the new session
   * may have taken the buffer and gone live before they come.
   */
  whileLive(send: () => void): () => void {
    this.#live = send;
    return () => {
      if (this.#live === send) this.#live = null;
    };
  }

  /** Whether a paste is among what is held. */
  get holdsPaste(): boolean {
    return this.#items.some((item) => item.kind === 'paste');
  }

  /** Everything held, and how much was refused; empties the buffer. */
  take(): TakenInput {
    const taken = { items: this.#items, chars: this.#chars, refusedChars: this.#refusedChars };
    this.#items = [];
    this.#bytes = 0;
    this.#chars = 0;
    this.#refusedChars = 0;
    return taken;
  }
}

/** The held input of every terminal of one window. */
export class TypeAheadStore {
  readonly #buffers = new Map<string, TypeAheadBuffer>();
  #stopHoldingKeys: (() => void) | null = null;

  for(terminalId: string): TypeAheadBuffer {
    let buffer = this.#buffers.get(terminalId);
    if (!buffer) this.#buffers.set(terminalId, (buffer = new TypeAheadBuffer()));
    return buffer;
  }

  /**
   * Keys typed while nothing on the page has focus are held for `terminalId` until something takes
   * focus (or holdKeysMs pass). A reconnect replaces every pane: the old ones go with the focused
   * textarea, and the new Workbench loads its layout before its panes mount and take focus; keys
   * typed in between reached no element at all (the e2e "split made just before the connection
   * drops", under load: 1–7 keys of a line lost). Only what a terminal would get for the key
   * without modifiers (text, Enter, Backspace, Tab, Escape); shortcuts pass.
   */
  holdKeysUntilFocus(terminalId: string): void {
    this.#holdKeys({ buffer: this.for(terminalId) });
  }

  /**
   * Keys typed while a new terminal is being started from the keyboard or a button are for it. The
   * pane that had the keyboard gives it up at once (it kept it until the new pane took focus, and a
   * command typed right after Ctrl+Shift+` ran in the old terminal); what is typed until the new
   * pane takes focus is held and, once the terminal exists, handed to it. Returns what to call
   * with its id, or null when it could not start (what was typed then goes nowhere).
   */
  holdKeysForNewTerminal(): (terminalId: string | null) => void {
    const pending = new TypeAheadBuffer();
    const target = { buffer: pending };
    const focused = document.activeElement;
    if (focused instanceof HTMLElement) focused.blur();
    const stop = this.#holdKeys(target);
    return (terminalId) => {
      if (terminalId === null) return stop();
      const buffer = this.for(terminalId);
      for (const item of pending.take().items) buffer.hold(item.kind, item.text);
      target.buffer = buffer;
    };
  }

  /** Holds keys typed with nothing focused for `target.buffer` (which may change) until something takes focus; returns what stops it. */
  #holdKeys(target: { buffer: TypeAheadBuffer }): () => void {
    this.#stopHoldingKeys?.();
    const onKeyDown = (event: KeyboardEvent) => {
      const focused = document.activeElement;
      if (focused !== null && focused !== document.body && focused !== document.documentElement) return stop();
      const text = terminalTextForKey(event);
      if (text === null) return;
      event.preventDefault();
      event.stopPropagation();
      target.buffer.hold('typed', text);
    };
    const stop = () => {
      window.removeEventListener('keydown', onKeyDown, true);
      window.removeEventListener('focusin', stop, true);
      clearTimeout(timer);
      if (this.#stopHoldingKeys === stop) this.#stopHoldingKeys = null;
    };
    const timer = setTimeout(stop, holdKeysMs);
    window.addEventListener('keydown', onKeyDown, true);
    window.addEventListener('focusin', stop, true);
    this.#stopHoldingKeys = stop;
    return stop;
  }

  /** Forgets the input held for terminals not in `keep`: their panes are gone, and with them the place to send it. */
  retainOnly(keep: ReadonlySet<string>): void {
    for (const terminalId of this.#buffers.keys()) if (!keep.has(terminalId)) this.#buffers.delete(terminalId);
  }
}

/** How long keys typed with nothing focused are held for the terminal that had focus (a reconnect takes well under this). */
const holdKeysMs = 10_000;

/** What a terminal gets for a key pressed without Ctrl, Alt or Meta, for the keys a line is typed with; null for the rest. */
export function terminalTextForKey(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'altKey' | 'metaKey' | 'isComposing'>): string | null {
  if (event.ctrlKey || event.altKey || event.metaKey || event.isComposing) return null;
  if ([...event.key].length === 1) return event.key;
  switch (event.key) {
    case 'Enter':
      return '\r';
    case 'Backspace':
      return '\x7f';
    case 'Tab':
      return '\t';
    case 'Escape':
      return '\x1b';
    default:
      return null;
  }
}
