/**
 * The session viewer's terminal: a read-only xterm.js with the panes' theme, font and addons,
 * sized to the recorded session (not to the window: a replay must wrap lines exactly as they
 * wrapped live). It fits the recording into its box by shrinking the font, never by reflowing.
 * It is the replay scheduler's sink: output is written as bytes, resizes and resets travel
 * through xterm's write queue so they happen between the right chunks.
 */
import { Terminal, type IMarker, type ITheme } from '@xterm/xterm';
import { SearchAddon, type ISearchOptions } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { WebglAddon } from '@xterm/addon-webgl';
import type { Settings } from '../../../src/common/api/contract.ts';
import { TerminalConstants } from '../../../src/common/constants.ts';
import { Disposable, toDisposable, type IDisposable } from '../../../src/common/lifecycle.ts';
import { ObservableValue } from '../../app/observable.ts';
import { openExternalLink } from '../../app/links.ts';
import { forgetWebglProbe, webglWanted } from '../terminals/webglSupport.ts';
import { HistoryUiConstants } from './historyConstants.ts';
import type { ReplaySink } from './replayScheduler.ts';
import type { TranscriptEvent } from './transcript.ts';

/** ESC c: a full reset (screen, scrollback, modes), parsed in order with the output around it. */
const fullReset = '\x1bc';

export interface TranscriptTerminalOptions {
  settings: Settings;
  theme: ITheme;
  /** The session's size when it started. */
  cols: number;
  rows: number;
  /** Lines of output in the transcript, so the scrollback can hold all of it (within a cap). */
  lineCount: number;
  /** Keys the viewer handles itself (play/pause, back, seek) instead of the terminal. */
  isViewerKey(event: KeyboardEvent): boolean;
}

export interface SearchResults {
  index: number;
  count: number;
}

export class TranscriptTerminal extends Disposable implements ReplaySink {
  readonly terminal: Terminal;
  readonly element: HTMLDivElement;
  readonly searchResults = this.register(new ObservableValue<SearchResults | null>(null));
  readonly #search = new SearchAddon();
  readonly #options: TranscriptTerminalOptions;
  #events: readonly TranscriptEvent[] = [];
  #opened = false;
  #slotObserver: ResizeObserver | undefined;
  #slot: HTMLElement | undefined;
  /** The box follows the cursor (see mount) until the person scrolls it away from the cursor or finds a match. */
  #followCursor = true;
  /** The next scroll event of the box is ours (keepCursorInView), not the person's. */
  #scrollingToCursor = false;

  constructor(options: TranscriptTerminalOptions) {
    super();
    this.#options = options;
    this.element = document.createElement('div');
    this.element.className = 'transcript-host';
    const scrollback = Math.min(
      HistoryUiConstants.maxTranscriptScrollback,
      Math.max(options.settings.scrollback, options.lineCount + options.rows),
    );
    this.terminal = new Terminal({
      allowProposedApi: true,
      cols: clamp(options.cols, TerminalConstants.minCols, TerminalConstants.maxCols),
      rows: clamp(options.rows, TerminalConstants.minRows, TerminalConstants.maxRows),
      scrollback,
      fontSize: options.settings.fontSize,
      fontFamily: options.settings.fontFamily,
      lineHeight: 1.2,
      // A recording takes no input; the cursor is the recorded program's, but it does not blink at you.
      disableStdin: true,
      cursorBlink: false,
      cursorInactiveStyle: 'outline',
      drawBoldTextInBrightColors: true,
      theme: options.theme,
      linkHandler: { activate: (_event, uri) => openExternalLink(uri), allowNonHttpProtocols: false },
    });
    this.register(toDisposable(() => this.terminal.dispose()));
    this.terminal.loadAddon(this.#search);
    this.terminal.loadAddon(new Unicode11Addon());
    this.terminal.unicode.activeVersion = '11';
    this.terminal.loadAddon(new WebLinksAddon((_event, uri) => openExternalLink(uri)));
    // Keys the viewer handles (and Ctrl+C with a selection: the browser's copy) pass by the terminal.
    this.terminal.attachCustomKeyEventHandler((event) => {
      if (options.isViewerKey(event)) return false;
      if (event.ctrlKey && !event.shiftKey && event.code === 'KeyC' && this.terminal.hasSelection()) return false;
      return true;
    });
    this.register(
      this.#search.onDidChangeResults(({ resultIndex, resultCount }) => this.searchResults.set({ index: resultIndex, count: resultCount })),
    );
    this.register(toDisposable(() => this.#slotObserver?.disconnect()));
  }

  /** The events `apply` indexes into. */
  setEvents(events: readonly TranscriptEvent[]): void {
    this.#events = events;
  }

  mount(slot: HTMLElement): IDisposable {
    slot.appendChild(this.element);
    this.#slot = slot;
    if (!this.#opened) {
      this.#opened = true;
      this.terminal.open(this.element);
      this.#loadWebgl();
    }
    this.#slotObserver?.disconnect();
    this.#slotObserver = new ResizeObserver(() => {
      this.fitFont();
      this.#keepCursorInView();
    });
    this.#slotObserver.observe(slot);
    this.fitFont();
    // A recording taller than the box at a legible size makes the box scroll (fitFont): it follows
    // the cursor as the replay draws, as a terminal follows its output, so the end of a session —
    // its last lines and prompt — is what shows at the end, not rows hidden below the box. Until
    // the person scrolls the box away from the cursor themselves.
    const onScroll = () => {
      if (this.#scrollingToCursor) this.#scrollingToCursor = false;
      else this.#followCursor = this.#cursorInView();
    };
    slot.addEventListener('scroll', onScroll);
    const rendered = this.terminal.onRender(() => this.#keepCursorInView());
    // The first fit may have measured a fallback font: a web font (or a local one Chromium loads
    // lazily) arrives later with other proportions. Fit again once fonts are in, and whenever
    // another font finishes loading.
    let mounted = true;
    const refit = () => {
      if (!mounted || this.store.isDisposed) return;
      forgetGlyphProportions();
      this.fitFont();
    };
    const fonts = document.fonts;
    void fonts.ready.then(refit);
    fonts.addEventListener('loadingdone', refit);
    return toDisposable(() => {
      mounted = false;
      slot.removeEventListener('scroll', onScroll);
      rendered.dispose();
      fonts.removeEventListener('loadingdone', refit);
      this.#slotObserver?.disconnect();
      this.#slotObserver = undefined;
      this.#slot = undefined;
      if (this.element.parentElement === slot) slot.removeChild(this.element);
    });
  }

  /** A row of the screen drawn (0 = its top), in the box's scrolled content: its top and bottom. */
  #rowSpan(screenRow: number): { top: number; bottom: number } | null {
    const slot = this.#slot;
    const screen = this.terminal.element?.querySelector<HTMLElement>('.xterm-screen');
    if (!slot || !screen || screenRow < 0 || screenRow >= this.terminal.rows) return null;
    const rowHeight = screen.getBoundingClientRect().height / this.terminal.rows;
    const top = screen.getBoundingClientRect().top - slot.getBoundingClientRect().top + slot.scrollTop + screenRow * rowHeight;
    return { top, bottom: top + rowHeight };
  }

  /** The cursor's row on the drawn screen (null when xterm's view is scrolled away from it). */
  #cursorScreenRow(): number {
    const buffer = this.terminal.buffer.active;
    return buffer.baseY + buffer.cursorY - buffer.viewportY;
  }

  #inView(screenRow: number): boolean {
    const slot = this.#slot;
    const row = this.#rowSpan(screenRow);
    return !slot || !row || (row.top >= slot.scrollTop - 1 && row.bottom <= slot.scrollTop + slot.clientHeight + 1);
  }

  #cursorInView(): boolean {
    return this.#inView(this.#cursorScreenRow());
  }

  #keepCursorInView(): void {
    if (this.#followCursor) this.#reveal(this.#cursorScreenRow());
  }

  /** Scrolls the box (when it scrolls at all) just enough for `screenRow` to be in view. */
  #reveal(screenRow: number): void {
    const slot = this.#slot;
    if (!slot || slot.scrollHeight <= slot.clientHeight || this.#inView(screenRow)) return;
    const row = this.#rowSpan(screenRow);
    if (!row) return;
    const target = row.bottom > slot.scrollTop + slot.clientHeight ? row.bottom - slot.clientHeight + 8 : row.top - 8;
    const next = Math.max(0, Math.min(target, slot.scrollHeight - slot.clientHeight));
    if (Math.abs(next - slot.scrollTop) < 1) return;
    this.#scrollingToCursor = true;
    slot.scrollTop = next;
  }

  /** A match found: the box shows its row (and stops following the cursor, the person reads there). */
  #revealMatch(found: boolean): boolean {
    const selected = found ? this.terminal.getSelectionPosition() : undefined;
    if (!selected) return found;
    this.#followCursor = false;
    this.#reveal(selected.start.y - this.terminal.buffer.active.viewportY);
    return found;
  }

  // ---- ReplaySink ---------------------------------------------------------------------------

  reset(): void {
    const { cols, rows } = this.#options;
    this.terminal.write(fullReset);
    this.#resizeInOrder(cols, rows);
    this.clearSearch();
    this.terminal.clearSelection();
  }

  apply(from: number, to: number): void {
    for (let index = from; index < to; index++) {
      const event = this.#events[index];
      if (!event) break;
      if (event.kind === 'output') this.terminal.write(event.bytes);
      else this.#resizeInOrder(event.cols, event.rows);
    }
  }

  // ---- reading and finding ------------------------------------------------------------------

  /** Calls back once everything written so far has been parsed. */
  whenParsed(callback: () => void): void {
    this.terminal.write('', callback);
  }

  /**
   * Marks the line the cursor is on once everything written so far is parsed. The marker moves
   * with the buffer as older lines scroll out of the scrollback.
   */
  markCursorLine(callback: (marker: IMarker | undefined) => void): void {
    this.whenParsed(() => callback(this.terminal.registerMarker(0)));
  }

  /**
   * Finds the first of `terms` at or after buffer line `line` (any of them, case-insensitive),
   * highlights every occurrence and scrolls the first one into view.
   */
  revealTerms(terms: readonly string[], line: number, decorations: ISearchOptions['decorations']): boolean {
    if (terms.length === 0) return false;
    const pattern = terms.map(escapeRegex).join('|');
    const startLine = Math.max(0, Math.min(line, this.terminal.buffer.active.length - 1));
    // The addon searches onward from the selection: start it at the marked line.
    this.terminal.select(0, startLine, 1);
    const found = this.#search.findNext(pattern, { regex: true, caseSensitive: false, incremental: true, decorations });
    if (!found) this.terminal.clearSelection();
    return this.#revealMatch(found);
  }

  findNext(term: string, options: ISearchOptions): boolean {
    return this.#revealMatch(this.#search.findNext(term, options));
  }

  findPrevious(term: string, options: ISearchOptions): boolean {
    return this.#revealMatch(this.#search.findPrevious(term, options));
  }

  clearSearch(): void {
    this.#search.clearDecorations();
    this.searchResults.set(null);
  }

  /** The screen (the bottom rows of the buffer, where the program drew), trailing blanks trimmed. */
  readScreen(): string {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < this.terminal.rows; row++) lines.push(buffer.getLine(buffer.baseY + row)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  focus(): void {
    this.terminal.focus();
  }

  applyTheme(theme: ITheme): void {
    this.terminal.options.theme = theme;
  }

  applySettings(settings: Settings): void {
    if (this.terminal.options.fontFamily !== settings.fontFamily) this.terminal.options.fontFamily = settings.fontFamily;
    this.#options.settings = settings;
    this.fitFont();
  }

  /**
   * Picks the font size (never above the user's size) at which the recorded screen fits the box. Computed from the font's glyph proportions rather than
   * from xterm's last render, which may still be at an older size.
   */
  fitFont(): void {
    const slot = this.#slot;
    if (!slot || slot.clientWidth === 0 || slot.clientHeight === 0) return;
    const glyph = glyphProportions(this.#options.settings.fontFamily);
    // Room taken around the terminal: the box's and the host's padding and borders, the scrollbar.
    const chromeWidth = 56;
    const chromeHeight = 40;
    const lineHeight = this.terminal.options.lineHeight ?? 1;
    const widthFit = (slot.clientWidth - chromeWidth) / (this.terminal.cols * glyph.width);
    const heightFit = (slot.clientHeight - chromeHeight) / (this.terminal.rows * glyph.height * lineHeight);
    // Width always fits (sideways scrolling loses the line); height only down to a readable size,
    // past which the box scrolls instead: a tall recording shown in a short box stays legible.
    const fit = Math.max(Math.min(widthFit, heightFit), Math.min(widthFit, HistoryUiConstants.minHeightFitFontSize));
    const wanted = Math.floor(fit * 2) / 2;
    const next = Math.max(HistoryUiConstants.minViewerFontSize, Math.min(this.#options.settings.fontSize, wanted));
    if (next !== this.terminal.options.fontSize) this.terminal.options.fontSize = next;
  }

  #resizeInOrder(cols: number, rows: number): void {
    // terminal.resize acts at once, while writes are parsed later: run it from the write queue
    // so it lands between the same chunks as it did live.
    const safeCols = clamp(cols, TerminalConstants.minCols, TerminalConstants.maxCols);
    const safeRows = clamp(rows, TerminalConstants.minRows, TerminalConstants.maxRows);
    this.terminal.write('', () => {
      if (this.store.isDisposed) return;
      if (safeCols !== this.terminal.cols || safeRows !== this.terminal.rows) {
        this.terminal.resize(safeCols, safeRows);
        this.fitFont();
      }
    });
  }

  #loadWebgl(): void {
    if (!webglWanted(this.#options.settings.gpuAcceleration)) return;
    try {
      const webgl = new WebglAddon();
      // Disposing the addon on a lost context returns the terminal to the DOM renderer.
      webgl.onContextLoss(() => {
        forgetWebglProbe();
        webgl.dispose();
      });
      this.terminal.loadAddon(webgl);
    } catch (error) {
      console.info('[switchboard] WebGL renderer unavailable for the session viewer, using the DOM renderer:', error);
    }
  }
}

const glyphCache = new Map<string, { width: number; height: number }>();

function forgetGlyphProportions(): void {
  glyphCache.clear();
}

/**
 * Width and height of one cell of `fontFamily` per pixel of font size. Kept once every font has
 * loaded; while one is still loading the layout may use a fallback, so it is measured again next time.
 */
function glyphProportions(fontFamily: string): { width: number; height: number } {
  const cached = glyphCache.get(fontFamily);
  if (cached) return cached;
  const probeSize = 100;
  const probe = document.createElement('span');
  probe.textContent = 'W'.repeat(10);
  probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;line-height:normal;font-size:${probeSize}px`;
  probe.style.fontFamily = fontFamily;
  document.body.appendChild(probe);
  const rect = probe.getBoundingClientRect();
  probe.remove();
  // A font that did not lay out (no document yet) falls back to a typical monospace cell.
  const measured = rect.width > 0 ? { width: rect.width / 10 / probeSize, height: rect.height / probeSize } : { width: 0.6, height: 1.2 };
  if (rect.width > 0 && document.fonts.status === 'loaded') glyphCache.set(fontFamily, measured);
  return measured;
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, Math.floor(value)));
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
