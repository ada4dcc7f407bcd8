/**
 * One pane's view of one Hub terminal: an xterm.js instance, its addons, and the attach / output
 * / input / flow-control loop with the Hub. The session owns its host element; React panes only
 * lend it a slot (`mount`), so moving a pane in the split tree re-parents the element instead of
 * re-creating the terminal and re-attaching.
 *
 * Input given before the terminal can take it (the pane still attaching, the window reconnecting)
 * is held in the terminal's TypeAheadBuffer and sent, in order, once it can; nothing typed into a
 * pane is dropped without the pane saying so.
 */
import { Terminal, type ITheme } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon, type ISearchOptions } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { WebglAddon } from '@xterm/addon-webgl';
import type { EventPayload, Settings } from '../../../src/common/api/contract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import { TerminalConstants } from '../../../src/common/constants.ts';
import { Disposable, DisposableStore, toDisposable, type IDisposable } from '../../../src/common/lifecycle.ts';
import { Emitter } from '../../../src/common/event.ts';
import { errorCode } from '../../app/errorList.ts';
import { ObservableValue } from '../../app/observable.ts';
import { openExternalLink } from '../../app/links.ts';
import type { HeldInputKind, TypeAheadBuffer } from './typeAhead.ts';
import type { OutputScheduler, PaneOutput } from './outputScheduler.ts';
import { paceRenders, type PacedRenders } from './renderPacing.ts';
import { forgetWebglProbe } from './webglSupport.ts';

export type SessionStatus =
  | { kind: 'attaching' }
  | { kind: 'attached' }
  | { kind: 'failed'; message: string };

export interface SearchResults {
  index: number;
  count: number;
}

export interface TerminalSessionOptions {
  client: IHubClient;
  terminalId: string;
  /**
   * The terminal's size as last known (its TerminalInfo). The pane starts at it, so attaching (which
   * sizes the pane to the PTY) usually resizes nothing: a resize makes xterm rebuild its rows.
   */
  size: { cols: number; rows: number } | undefined;
  settings: Settings;
  theme: ITheme;
  /** Input and resizes only go to a running process. */
  isRunning(): boolean;
  /** App shortcuts are left to the window's key handler instead of being typed into the pane. */
  isAppShortcut(event: KeyboardEvent): boolean;
  /** Whether panes use WebGL at all (the `gpuAcceleration` setting, and what this machine has). */
  webglWanted(): boolean;
  /** Whether this pane may take one of Chromium's limited WebGL contexts now (may take one from a hidden pane). */
  mayTakeWebglContext(): boolean;
  /** This pane gave its WebGL context back: another pane in view may take it. */
  onDidReleaseWebgl(): void;
  reportError(title: string, error: unknown): void;
  /** Where input waits until the terminal takes it; it outlives the session (see typeAhead.ts). */
  typeAhead: TypeAheadBuffer;
  /** The window's output pacing: the pane being typed in is parsed before the others (outputScheduler.ts). */
  output: OutputScheduler;
}

/** Wait this long after the last size change before telling the PTY, so a drag sends one resize. */
const resizeDebounceMs = 60;
/** A held paste waits at most this long for a silent program to ask for bracketed paste (see #sendHeldInputOnceAsked). */
const heldPasteWaitMs = 5_000;
/** Copy-on-select waits for the selection to stop changing (a drag changes it on every move). */
const copyOnSelectDelayMs = 120;
/** How long a hidden pane keeps its WebGL context before giving it back (setVisible). */
const webglHiddenGraceMs = 5_000;

export class TerminalSession extends Disposable {
  readonly terminalId: string;
  /** The element xterm renders into; panes re-parent it. */
  readonly element: HTMLDivElement;
  readonly terminal: Terminal;
  readonly status = this.register(new ObservableValue<SessionStatus>({ kind: 'attaching' }));
  readonly searchResults = this.register(new ObservableValue<SearchResults | null>(null));
  /** What the pane's find bar searched last, for it to open with again (SearchBar). */
  lastSearch: { query: string; caseSensitive: boolean; regex: boolean } = { query: '', caseSensitive: false, regex: false };
  /** What became of input typed before the terminal could take it, when some of it was refused or not sent. */
  readonly inputNotice = this.register(new ObservableValue<string | null>(null));

  readonly #onDidFocus = this.register(new Emitter<void>());
  /** The pane's keyboard focus moved into this terminal. */
  readonly onDidFocus = this.#onDidFocus.event;
  readonly #onDidChangeSelection = this.register(new Emitter<void>());
  /** The selection changed (on every move of a drag: listeners debounce, then read `terminal.getSelection()`). */
  readonly onDidChangeSelection = this.#onDidChangeSelection.event;

  readonly #options: TerminalSessionOptions;
  readonly #fit = new FitAddon();
  readonly #search = new SearchAddon();
  readonly #output: PaneOutput;
  #theme: ITheme;
  #currentMatchColor: string | null = null;
  #webgl: WebglAddon | undefined;
  /** The pane can be seen (its tab shown, the terminals view up); only then does it hold a WebGL context. */
  #visible = false;
  /**
   * xterm.js draws the pane: its screen intersects the page's viewport (xterm pauses its renderer
   * otherwise, and so does a tab hidden with content-visibility). Followed with an observer made
   * after xterm's own, so it is told after xterm has resumed.
   */
  #onScreen = false;
  /** A fit asked for while xterm was paused, made once it draws again (see #fitNow). */
  #fitWhenOnScreen = false;
  #webglReleaseTimer: ReturnType<typeof setTimeout> | undefined;
  /** The canvases the WebGL addon added (its context's and its 2D layers'). */
  #webglCanvases: HTMLCanvasElement[] = [];
  #opened = false;
  #attached = false;
  /** Output that arrived while the attach call was in flight. */
  #queuedOutput: EventPayload<'terminal.output'>[] = [];
  /** Byte offset (in the Hub's raw ring) of the last output written. */
  #offset = 0;
  #renderedSinceAck = 0;
  #resizeTimer: ReturnType<typeof setTimeout> | undefined;
  #copyOnSelect: boolean;
  #copyTimer: ReturnType<typeof setTimeout> | undefined;
  #exited = false;
  /** Input goes straight to the Hub: attached, what was held has been sent, and the connection is up. */
  #inputLive = false;
  /** The client lost its connection: this session will never take input again (the reconnect's session will). */
  #disconnected = false;
  /** While input is live: stops what is held for this terminal afterwards from coming here (TypeAheadBuffer.whileLive). */
  #heldInputTaker: (() => void) | null = null;
  /** Held input was dropped for good (the pane could not attach, or the terminal ended first). */
  #inputEnded = false;
  /**
   * Until when the program counts as still starting (a shell reading its rc, before its first
   * prompt asked for bracketed paste): a paste given meanwhile is held for that prompt, even with
   * input live (see #holdPasteWhileStarting). 0 once it asked, or was not starting at attach.
   */
  #startingUntil = 0;
  /** The pane's redraws, paced while output floods in (renderPacing.ts); set once the terminal is opened. */
  #pacedRenders: PacedRenders | undefined;

  constructor(options: TerminalSessionOptions) {
    super();
    this.#options = options;
    this.#theme = options.theme;
    this.terminalId = options.terminalId;
    this.#copyOnSelect = options.settings.copyOnSelect;
    this.element = document.createElement('div');
    this.element.className = 'xterm-host';
    this.terminal = new Terminal({
      // unicode11 and search decorations use the proposed API.
      allowProposedApi: true,
      cols: options.size?.cols ?? TerminalConstants.defaultCols,
      rows: options.size?.rows ?? TerminalConstants.defaultRows,
      scrollback: options.settings.scrollback,
      fontSize: options.settings.fontSize,
      fontFamily: options.settings.fontFamily,
      lineHeight: 1.2,
      cursorBlink: true,
      cursorInactiveStyle: 'outline',
      drawBoldTextInBrightColors: true,
      theme: options.theme,
      linkHandler: { activate: (_event, uri) => openExternalLink(uri), allowNonHttpProtocols: false },
    });
    this.register(toDisposable(() => this.terminal.dispose()));
    this.#output = this.register(options.output.open(this.terminal));
    this.terminal.loadAddon(this.#fit);
    this.terminal.loadAddon(this.#search);
    this.terminal.loadAddon(new Unicode11Addon());
    this.terminal.unicode.activeVersion = '11';
    this.terminal.loadAddon(new WebLinksAddon((_event, uri) => openExternalLink(uri)));
    this.terminal.attachCustomKeyEventHandler((event) => !options.isAppShortcut(event));

    this.register(this.terminal.onData((data) => this.#sendInput(data)));
    // Mouse reports in the legacy X10 encoding arrive as binary strings; they are input too.
    this.register(this.terminal.onBinary((data) => this.#sendInput(data)));
    this.register(
      options.client.onDidDisconnect(() => {
        this.#disconnected = true;
        this.#inputLive = false;
        this.#stopTakingHeldInput();
      }),
    );
    this.register(toDisposable(() => this.#stopTakingHeldInput()));
    // A paste into xterm's textarea (context menu, middle click, the fallback of Ctrl+Shift+V)
    // before the terminal takes input is held as a paste, so it is bracketed as the program asks
    // when it is sent. Capture phase: this runs before xterm's own paste handler on the textarea.
    const holdPaste = (event: ClipboardEvent) => {
      if (this.#inputLive && !this.#startingUp) return;
      event.preventDefault();
      event.stopPropagation();
      this.#holdPaste(event.clipboardData?.getData('text/plain') ?? '');
    };
    this.element.addEventListener('paste', holdPaste, true);
    this.register(toDisposable(() => this.element.removeEventListener('paste', holdPaste, true)));
    this.register(
      this.terminal.onSelectionChange(() => {
        this.#onDidChangeSelection.fire();
        // The selection changes on every mouse move of a drag; copy once it has settled.
        clearTimeout(this.#copyTimer);
        if (!this.#copyOnSelect || !this.terminal.hasSelection()) return;
        this.#copyTimer = setTimeout(() => this.copySelection(), copyOnSelectDelayMs);
      }),
    );
    this.register(toDisposable(() => clearTimeout(this.#copyTimer)));
    this.register(
      this.#search.onDidChangeResults(({ resultIndex, resultCount }) => this.searchResults.set({ index: resultIndex, count: resultCount })),
    );
    this.register(toDisposable(() => clearTimeout(this.#resizeTimer)));
    this.register(toDisposable(() => clearTimeout(this.#webglReleaseTimer)));
  }

  /** Attach to the Hub terminal: take its size, draw its snapshot, then follow its output. */
  async start(): Promise<void> {
    const { client, terminalId } = this.#options;
    try {
      const attached = await client.call('terminal.attach', { id: terminalId });
      if (this.store.isDisposed) return;
      // No reset: nothing is written to the terminal before its snapshot, and a reset costs a redraw.
      this.terminal.resize(attached.cols, attached.rows);
      this.#offset = attached.offset;
      this.#attached = true;
      this.terminal.write(attached.snapshot, () => {
        if (this.store.isDisposed) return;
        if (this.#exited) this.#showAsEnded();
        // After the snapshot, which set the program's modes: held pastes are bracketed as it asks now.
        // Starting: printed nothing yet, or the shell's integration says no prompt was drawn yet (its
        // PROMPT_COMMAND reports the cwd just before the first prompt asks for bracketed paste).
        const starting = attached.offset === 0 || attached.startingUp === true;
        this.#followStartingUp(starting);
        this.#sendHeldInputOnceAsked(attached.info.state === 'running');
        this.status.set({ kind: 'attached' });
        // The pane may differ from the PTY's size (new pane, or the window changed while away).
        this.#fitNow();
      });
      const queued = this.#queuedOutput;
      this.#queuedOutput = [];
      for (const event of queued) this.handleOutput(event);
    } catch (error) {
      if (this.store.isDisposed) return;
      this.#queuedOutput = [];
      this.status.set({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
      // A lost connection: held input waits for the reconnect, whose pane attaches and sends it.
      if (errorCode(error) === 'CONNECTION_CLOSED') return;
      this.#dropHeldInput((typed) => `${typed} typed into this pane and not sent: it could not attach to its terminal.`);
      this.#options.reportError('Could not attach to the terminal', error);
    }
  }

  /** Output pushed by the Hub for this terminal. */
  handleOutput(event: EventPayload<'terminal.output'>): void {
    if (this.store.isDisposed) return;
    if (!this.#attached) {
      this.#queuedOutput.push(event);
      return;
    }
    // Chunks that end at or before the snapshot's offset are already on screen.
    if (event.offset <= this.#offset) return;
    this.#offset = event.offset;
    this.#output.write(event.data, (chars) => this.#acknowledge(chars));
  }

  /**
   * Puts the terminal into `slot` and keeps it fitted to the slot's size. Returns the disposable
   * that takes it out again (the terminal itself lives on).
   */
  mount(slot: HTMLElement): IDisposable {
    slot.appendChild(this.element);
    if (!this.#opened) {
      this.#opened = true;
      this.terminal.open(this.element);
      this.#pacedRenders = this.register(paceRenders(this.terminal, this.#output));
      this.#followOnScreen();
      this.terminal.textarea?.addEventListener('focus', () => {
        this.#output.promote();
        this.#onDidFocus.fire();
      });
      this.updateWebgl();
    }
    const observer = new ResizeObserver(() => this.#scheduleFit());
    observer.observe(slot);
    this.#fitNow();
    return toDisposable(() => {
      observer.disconnect();
      if (this.element.parentElement === slot) slot.removeChild(this.element);
    });
  }

  focus(): void {
    this.terminal.focus();
  }

  /** The process ended: the last screen stays, without a cursor that invites typing. */
  markExited(): void {
    if (this.#exited) return;
    this.#exited = true;
    if (this.status.value.kind === 'attached') this.#showAsEnded();
  }

  #showAsEnded(): void {
    this.terminal.options.disableStdin = true;
    this.terminal.options.cursorBlink = false;
    // Hides the cursor in this pane's copy of the screen only; nothing is sent to the Hub. After
    // any output still waiting for its turn, which might show the cursor again.
    this.#output.write('\x1b[?25l');
  }

  applySettings(settings: Settings): void {
    const options = this.terminal.options;
    if (options.fontSize !== settings.fontSize) options.fontSize = settings.fontSize;
    if (options.fontFamily !== settings.fontFamily) options.fontFamily = settings.fontFamily;
    if (options.scrollback !== settings.scrollback) options.scrollback = settings.scrollback;
    this.#copyOnSelect = settings.copyOnSelect;
    this.updateWebgl();
    this.#scheduleFit();
  }

  get visible(): boolean {
    return this.#visible;
  }

  /**
   * Whether the pane can be seen. A shown pane takes a WebGL context (when wanted and one is free);
   * a hidden one gives its context back after webglHiddenGraceMs, so flipping between two tabs does
   * not rebuild the renderer each time, while the panes in view get Chromium's few contexts.
   */
  setVisible(visible: boolean): void {
    if (this.#visible === visible) return;
    this.#visible = visible;
    clearTimeout(this.#webglReleaseTimer);
    // After the rest of this change of view: the panes it hides must be hidden before a shown one
    // looks for a context to take from them (React sets the panes' visibility one by one).
    if (visible) {
      // A hidden tab is not laid out (content-visibility: hidden), so a window resized meanwhile
      // never reached this pane: fit now, before anything typed here reaches a shell of the old size.
      this.#fitNow();
      queueMicrotask(() => this.updateWebgl());
    } else if (this.#webgl) this.#webglReleaseTimer = setTimeout(() => this.releaseWebgl(), webglHiddenGraceMs);
  }

  /** Back to xterm's DOM renderer, freeing the WebGL context for another pane. */
  releaseWebgl(): void {
    clearTimeout(this.#webglReleaseTimer);
    if (!this.#webgl) return;
    this.#dropWebgl();
    this.#options.onDidReleaseWebgl();
  }

  applyTheme(theme: ITheme): void {
    this.#theme = theme;
    this.#applyTheme();
  }

  /**
   * While the find bar is open, the current match (which the search addon selects) is drawn in
   * this colour instead of the selection's: the focus is in the find bar, so xterm would draw it
   * in the faint inactive-selection grey, fainter than the other matches. Null restores it.
   */
  setCurrentMatchColor(color: string | null): void {
    this.#currentMatchColor = color;
    this.#applyTheme();
  }

  #applyTheme(): void {
    const color = this.#currentMatchColor;
    this.terminal.options.theme = color === null ? this.#theme : { ...this.#theme, selectionBackground: color, selectionInactiveBackground: color };
  }

  copySelection(): void {
    const text = this.terminal.getSelection();
    if (!text) return;
    navigator.clipboard.writeText(text).catch((error: unknown) => {
      // Browsers refuse clipboard writes without focus or permission; the selection stays, so the
      // user can still copy with the context menu. Not worth an alert on every selection.
      console.warn('[switchboard] copy to clipboard refused:', error);
    });
  }

  async pasteFromClipboard(): Promise<void> {
    let text: string;
    try {
      text = await navigator.clipboard.readText();
    } catch (error) {
      // Clipboard reads can be refused (a browser without the permission, Electron's permission
      // handler). The editing command still pastes into xterm's textarea where it is allowed,
      // and xterm's own paste handler then applies bracketed paste.
      this.terminal.focus();
      if (document.execCommand('paste')) return;
      this.#options.reportError('Could not read the clipboard (paste with the right-click menu instead)', error);
      return;
    }
    if (!text) return;
    // term.paste applies bracketed paste when the program asked for it; until the terminal takes
    // input, the paste is held and bracketed when it is sent.
    if (this.#inputLive && !this.#startingUp) this.terminal.paste(text);
    else this.#holdPaste(text);
  }

  findNext(term: string, options: ISearchOptions): boolean {
    return this.#search.findNext(term, options);
  }

  findPrevious(term: string, options: ISearchOptions): boolean {
    return this.#search.findPrevious(term, options);
  }

  clearSearch(): void {
    this.#search.clearDecorations();
    this.searchResults.set(null);
  }

  /** The visible screen as text, one line per row, trailing blanks trimmed. */
  readScreen(): string {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < this.terminal.rows; row++) {
      lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
    }
    return lines.join('\n');
  }

  /**
   * Every line of the buffer, scrollback and screen, a wrapped line joined back into one, trailing
   * blanks trimmed (for tests that check nothing was lost).
   */
  readBuffer(): string[] {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < buffer.length; row++) {
      const line = buffer.getLine(row);
      if (line?.isWrapped && lines.length > 0) lines[lines.length - 1] += line.translateToString(true);
      else lines.push(line?.translateToString(true) ?? '');
    }
    return lines;
  }

  override dispose(): void {
    if (this.store.isDisposed) return;
    if (this.#attached) {
      this.#options.client.call('terminal.detach', { id: this.terminalId }).catch((error: unknown) => {
        // The terminal may be gone already (closed, or the Hub went away): nothing to detach from.
        const code = errorCode(error);
        if (code !== 'NOT_FOUND' && code !== 'CONNECTION_CLOSED') this.#options.reportError('Could not detach from the terminal', error);
      });
    }
    this.releaseWebgl(); // its context goes back to the page at once (see #dropWebgl)
    super.dispose();
  }

  #sendInput(data: string): void {
    this.#output.noteInput();
    this.#pacedRenders?.hurry();
    if (!this.#inputLive) {
      this.#hold('typed', data);
      return;
    }
    if (!this.#options.isRunning()) return; // the exit banner says so
    // Keys go through again: a notice about earlier ones has been seen.
    if (this.inputNotice.value !== null) this.inputNotice.set(null);
    this.#write(data);
  }

  #write(data: string, onExited?: () => void): void {
    this.#options.client.call('terminal.write', { id: this.terminalId, data }).catch((error: unknown) => {
      const code = errorCode(error);
      if (code === 'TERMINAL_EXITED' || code === 'NOT_FOUND') {
        onExited?.();
        return; // the exit banner says so
      }
      this.#options.reportError('Could not send input to the terminal', error);
    });
  }

  #hold(kind: HeldInputKind, text: string): void {
    // The pane already says why nothing typed here can go anywhere.
    if (this.#inputEnded) return;
    if (this.#options.typeAhead.hold(kind, text)) return;
    this.inputNotice.set(`Terminal not ready: the first ${typeAheadLimit} typed is kept for it, keys past that are refused.`);
  }

  get #startingUp(): boolean {
    return this.#startingUntil > performance.now();
  }

  /**
   * Starting at attach (nothing printed yet, or no prompt drawn yet): the program counts as
   * starting until it asks for bracketed paste — a shell's first prompt does — or heldPasteWaitMs pass.
   */
  #followStartingUp(startingAtAttach: boolean): void {
    if (!startingAtAttach || this.terminal.modes.bracketedPasteMode) return;
    this.#startingUntil = performance.now() + heldPasteWaitMs;
    const following = this.register(new DisposableStore());
    const started = () => {
      this.#startingUntil = 0;
      following.dispose();
    };
    following.add(
      this.terminal.onWriteParsed(() => {
        if (this.terminal.modes.bracketedPasteMode) started();
      }),
    );
    const timer = setTimeout(started, heldPasteWaitMs);
    following.add(toDisposable(() => clearTimeout(timer)));
  }

  /**
   * A paste while the terminal cannot take input, or while its program is still starting. The
   * latter with input live (keys typed during a slow rc go straight to the PTY, which echoes them
   * and keeps them for the shell): sent at once, a multi-line paste would reach the shell as typed
   * lines, unbracketed, and run line by line. So input stops being live: the paste, and what is
   * typed after it, is held until the program is up and sent then, bracketed as it asks.
   */
  #holdPaste(text: string): void {
    if (this.#inputLive && this.#startingUp) {
      this.#inputLive = false;
      this.#stopTakingHeldInput();
      this.#hold('paste', text);
      this.#sendHeldInputOnceAsked(true);
      return;
    }
    this.#hold('paste', text);
  }

  /**
   * A paste held for a program still starting (a shell reading a slow rc, before its first prompt) waits
   * until the program asks for bracketed paste — a shell's first prompt does — so a multi-line
   * paste is inserted at the prompt, not run line by line; keys typed meanwhile stay held behind
   * it. At most heldPasteWaitMs after attach: a program that never asks gets the paste as it then asks.
   */
  #sendHeldInputOnceAsked(runningAtAttach: boolean): void {
    if (!this.#startingUp || !this.#options.typeAhead.holdsPaste) {
      this.#sendHeldInput(runningAtAttach);
      return;
    }
    const waiting = this.register(new DisposableStore());
    const send = () => {
      waiting.dispose();
      this.#sendHeldInput(runningAtAttach);
    };
    waiting.add(
      this.terminal.onWriteParsed(() => {
        if (!this.#startingUp) send();
      }),
    );
    const timer = setTimeout(send, this.#startingUntil - performance.now());
    waiting.add(toDisposable(() => clearTimeout(timer)));
  }

  /**
   * The terminal takes input now: send what was held, in the order it was given, then go live.
   * Each piece goes out once: anything typed from here on is queued behind it on the same
   * connection, and nothing is sent again after a reconnect (a write in flight when the
   * connection drops may or may not have arrived; sending it again could type it twice).
   */
  #sendHeldInput(runningAtAttach: boolean): void {
    if (this.#disconnected) return;
    if (!runningAtAttach || !this.#options.isRunning()) {
      this.#dropHeldInput(endedMessage);
      return;
    }
    const held = this.#options.typeAhead.take();
    this.#inputLive = true;
    // Held for this terminal from now on (keys typed while a reconnect swapped the panes): sent from here.
    this.#heldInputTaker ??= this.#options.typeAhead.whileLive(() => queueMicrotask(() => this.#sendHeldInput(true)));
    // It ended between the attach and these writes.
    const endedFirst = () => this.inputNotice.set(endedMessage(charactersWere(held.chars)));
    for (const item of held.items) {
      // xterm's paste turns newlines into CR and brackets the text as the program asked, then sends it through onData.
      if (item.kind === 'paste') this.terminal.paste(item.text);
      else this.#write(item.text, endedFirst);
    }
    if (held.refusedChars > 0) {
      this.inputNotice.set(`Sent what was typed before the terminal was ready; ${charactersWere(held.refusedChars)} refused (past the first ${typeAheadLimit}).`);
    } else if (this.inputNotice.value !== null) {
      this.inputNotice.set(null);
    }
  }

  #stopTakingHeldInput(): void {
    this.#heldInputTaker?.();
    this.#heldInputTaker = null;
  }

  /** `message` gets e.g. "12 characters were". */
  #dropHeldInput(message: (typed: string) => string): void {
    this.#inputEnded = true;
    const held = this.#options.typeAhead.take();
    const chars = held.chars + held.refusedChars;
    if (chars > 0) this.inputNotice.set(message(charactersWere(chars)));
  }

  /**
   * Flow control: tell the Hub, in whole steps, how much output xterm has processed. One call
   * carries every whole step a write completed (a 64 KiB batch is 13 steps): a call per step cost
   * the flood hundreds of round trips on the socket it shares with the output.
   */
  #acknowledge(chars: number): void {
    if (this.store.isDisposed) return;
    this.#renderedSinceAck += chars;
    const step = TerminalConstants.ackBatchChars;
    if (this.#renderedSinceAck < step) return;
    const acked = this.#renderedSinceAck - (this.#renderedSinceAck % step);
    this.#renderedSinceAck -= acked;
    this.#options.client.call('terminal.ack', { id: this.terminalId, chars: acked }).catch((error: unknown) => {
      const code = errorCode(error);
      if (code !== 'NOT_FOUND' && code !== 'CONNECTION_CLOSED') this.#options.reportError('Flow control failed', error);
    });
  }

  /** WebGL on for a pane that is open, shown and wants it (and gets a context); off when it is no longer wanted. */
  updateWebgl(): void {
    if (this.store.isDisposed || !this.#opened) return;
    const wanted = this.#options.webglWanted();
    if (!wanted) return this.releaseWebgl();
    if (this.#visible && !this.#webgl && this.#options.mayTakeWebglContext()) this.#loadWebgl();
  }

  #loadWebgl(): void {
    try {
      const before = new Set(this.element.querySelectorAll('canvas'));
      const webgl = new WebglAddon();
      webgl.onContextLoss(() => {
        forgetWebglProbe();
        this.#dropWebgl();
      });
      this.terminal.loadAddon(webgl);
      this.#webgl = webgl;
      this.#webglCanvases = [...this.element.querySelectorAll('canvas')].filter((canvas) => !before.has(canvas));
    } catch (error) {
      // No WebGL2 here (no GPU, or Chromium's context cap): the DOM renderer is already active.
      console.info('[switchboard] WebGL renderer unavailable, using the DOM renderer:', error);
    }
  }

  #dropWebgl(): void {
    const webgl = this.#webgl;
    if (!webgl) return;
    this.#webgl = undefined;
    const canvases = this.#webglCanvases;
    this.#webglCanvases = [];
    // Disposing the addon returns the terminal to the DOM renderer. It leaves its context to the
    // garbage collector, and until then Chromium counts it against the page's 16: lose it now, so
    // the context is free for a pane in view. (getContext returns a canvas's own context — null
    // for the addon's 2D layers — and these canvases all have one.)
    webgl.dispose();
    for (const canvas of canvases) canvas.getContext('webgl2')?.getExtension('WEBGL_lose_context')?.loseContext();
  }

  get usesWebgl(): boolean {
    return this.#webgl !== undefined;
  }

  #scheduleFit(): void {
    clearTimeout(this.#resizeTimer);
    this.#resizeTimer = setTimeout(() => this.#fitNow(), resizeDebounceMs);
  }

  #followOnScreen(): void {
    const screen = this.element.querySelector('.xterm-screen');
    if (!screen) return;
    const observer = new IntersectionObserver(
      (entries) => {
        this.#onScreen = entries.at(-1)?.isIntersecting ?? false;
        if (!this.#onScreen || !this.#fitWhenOnScreen) return;
        this.#fitWhenOnScreen = false;
        this.#fitNow();
      },
      { threshold: 0 },
    );
    observer.observe(screen);
    this.register(toDisposable(() => observer.disconnect()));
  }

  #fitNow(): void {
    clearTimeout(this.#resizeTimer);
    if (this.store.isDisposed || !this.#opened || !this.#attached) return;
    // A resize while xterm is paused (a tab being shown, not yet drawn) keeps the renderer's old
    // height until it resumes, and xterm's viewport, synced in between, scrolls the buffer back to
    // where the old height allowed: a pane that got fewer rows (a larger font, a smaller window,
    // changed while its tab was hidden) stayed scrolled up, its new output and prompt out of
    // reach until a reload. So a pane fits once xterm draws it.
    if (!this.#onScreen) {
      this.#fitWhenOnScreen = true;
      return;
    }
    // A slot with no size (hidden, not yet laid out) proposes nonsense; keep the current size.
    if (!this.element.isConnected || this.element.clientWidth === 0 || this.element.clientHeight === 0) return;
    const proposed = this.#fit.proposeDimensions();
    if (!proposed || !Number.isFinite(proposed.cols) || !Number.isFinite(proposed.rows)) return;
    const cols = clamp(proposed.cols, TerminalConstants.minCols, TerminalConstants.maxCols);
    const rows = clamp(proposed.rows, TerminalConstants.minRows, TerminalConstants.maxRows);
    if (cols === this.terminal.cols && rows === this.terminal.rows) return;
    this.terminal.resize(cols, rows);
    if (!this.#options.isRunning()) return;
    this.#options.client.call('terminal.resize', { id: this.terminalId, cols, rows }).catch((error: unknown) => {
      const code = errorCode(error);
      if (code !== 'NOT_FOUND' && code !== 'TERMINAL_EXITED' && code !== 'CONNECTION_CLOSED') {
        this.#options.reportError('Could not resize the terminal', error);
      }
    });
  }
}

const typeAheadLimit = `${TerminalConstants.typeAheadMaxBytes / 1024} KiB`;

/** "1 character was", "1,234 characters were". */
function charactersWere(count: number): string {
  return count === 1 ? '1 character was' : `${count.toLocaleString('en-US')} characters were`;
}

function endedMessage(typed: string): string {
  return `The terminal ended before it was ready: ${typed} typed into it and not sent.`;
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, Math.floor(value)));
}
