/**
 * The headless twin of a terminal's screen: every byte the PTY produced is parsed by
 * `@xterm/headless` at the PTY's size, so the Hub can answer "what is on the screen" and hand an
 * attaching pane an exact snapshot.
 *
 * xterm parses writes asynchronously, in order. Resizes are queued behind the writes that came
 * before them (a plain `resize()` would apply to data still waiting to be parsed), and
 * `snapshot()` queues a marker so the serialization describes exactly the data written before it.
 */
import xtermHeadless from '@xterm/headless';
import xtermSerialize from '@xterm/addon-serialize';
import type { IDisposable } from '../../common/lifecycle.ts';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = xtermSerialize;
type HeadlessTerminal = InstanceType<typeof Terminal>;
type Serializer = InstanceType<typeof SerializeAddon>;
type IMarker = NonNullable<ReturnType<HeadlessTerminal['registerMarker']>>;

export interface MirrorSnapshot {
  /** Serialized screen and scrollback; written into a fresh terminal of cols×rows it reproduces the screen. */
  data: string;
  cols: number;
  rows: number;
}

export interface ScreenText {
  /** Lines of the active buffer, oldest first, right-trimmed (scrollback first when requested). */
  lines: string[];
  cols: number;
  rows: number;
  cursorX: number;
  cursorY: number;
  altScreen: boolean;
  /** The program enabled bracketed paste (DECSET 2004): pasted text should be wrapped in ESC[200~ … ESC[201~. */
  bracketedPaste: boolean;
  /**
   * What the person typed on the shell's command line after its prompt (from the last OSC 633/133
   * B mark to the cursor, then their own text past it, without an autosuggestion or a right prompt;
   * right-trimmed): '' when the line is empty, null when no prompt end is known (no shell
   * integration, the shell runs a command, the mark scrolled away).
   */
  promptInput: string | null;
}

/** What the session needs from a mirror; implemented in-process (TerminalMirror) and on a worker thread (see mirrorHost.ts). */
export interface ITerminalMirror extends IDisposable {
  /**
   * Queue output (UTF-8) for parsing; `onParsed(chars)` reports it back once parsed, `chars`
   * being its length as a string. `bytes` is valid only during the call (an implementation that
   * needs it later copies it).
   */
  write(bytes: Uint8Array, chars: number): void;
  /** Resize once everything written so far has been parsed at the old size. */
  resize(cols: number, rows: number): void;
  /** Serialize the screen as it is after everything written so far. */
  snapshot(options?: { scrollback?: number }): Promise<MirrorSnapshot>;
  /** The text of the screen after everything written so far. */
  readText(options?: { scrollback?: boolean }): Promise<ScreenText>;
}

export interface TerminalMirrorOptions {
  cols: number;
  rows: number;
  scrollback: number;
  /** Called in write order when the chars of one `write` have been parsed (for flow control). */
  onParsed?: (chars: number) => void;
  /**
   * The mirror was lost (its worker thread died) and answers nothing from now on; its
   * flow-control debt was released first. The owner may build a new one.
   */
  onLost?: (error: Error) => void;
}

/** xterm's internals that tell whether a flood may be skipped (see skipSafe). */
interface XtermInternals {
  _core?: {
    _inputHandler?: { _parser?: { currentState?: number }; _utf8Decoder?: { interim?: Uint8Array } };
    _bufferService?: { buffer?: { scrollTop?: number; scrollBottom?: number } };
  };
}

type BufferCell = NonNullable<ReturnType<NonNullable<ReturnType<HeadlessTerminal['buffer']['active']['getLine']>>['getCell']>>;

/**
 * A cell drawn the way line editors draw an autosuggestion: dim, or a grey foreground (palette 8
 * "bright black", the 256-colour greys, an RGB grey as fish's default `555`).
 */
function looksSuggested(cell: BufferCell): boolean {
  if (cell.isDim()) return true;
  const color = cell.getFgColor();
  if (cell.isFgPalette()) return color === 8 || (color >= 232 && color <= 250) || color === 59 || color === 102 || color === 145;
  if (!cell.isFgRGB()) return false;
  const red = (color >> 16) & 0xff;
  const green = (color >> 8) & 0xff;
  const blue = color & 0xff;
  return Math.max(red, green, blue) - Math.min(red, green, blue) <= 16 && Math.max(red, green, blue) <= 0xc0;
}

/**
 * The end of a row that is a right prompt: two blanks or more, then text (without two blanks in a
 * row) whose last column is one of the row's last two (zsh leaves one free: ZLE_RPROMPT_INDENT).
 */
const rightPrompt = / {2,}\S(?: ?\S)*(?= ?$)/;

/** The in-process mirror; the worker thread runs these too. */
export class TerminalMirror implements ITerminalMirror {
  readonly #terminal: HeadlessTerminal;
  readonly #serializer: Serializer;
  readonly #onParsed: ((chars: number) => void) | undefined;
  /** Char counts of writes not parsed yet, in order; `#parsedHead` is the next to complete. */
  readonly #pendingWrites: number[] = [];
  #pendingHead = 0;
  #pendingChars = 0;
  /** Rejecters of snapshot/readText calls still waiting for their marker. */
  readonly #waiting = new Set<(error: Error) => void>();
  /** Where the last prompt ended (OSC 633/133 B), while no command has started since. */
  #promptEnd: { marker: IMarker; x: number } | null = null;
  #disposed = false;

  constructor(options: TerminalMirrorOptions) {
    this.#terminal = new Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback,
      allowProposedApi: true,
      // The mirror only watches; the attached pane answers queries (DA, DSR) for the program.
      logLevel: 'off',
    });
    this.#serializer = new SerializeAddon();
    // The addon is typed against @xterm/xterm's Terminal; the headless one has the same API surface it uses.
    this.#terminal.loadAddon(this.#serializer as unknown as Parameters<HeadlessTerminal['loadAddon']>[0]);
    this.#onParsed = options.onParsed;
    // Returning false leaves the sequence to any other handler; xterm ignores unknown OSCs.
    this.#terminal.parser.registerOscHandler(633, (data) => this.#onShellMark(data));
    this.#terminal.parser.registerOscHandler(133, (data) => this.#onShellMark(data));
  }

  #onShellMark(data: string): boolean {
    const kind = data[0];
    if (kind === 'B' && (data.length === 1 || data[1] === ';')) {
      this.#promptEnd?.marker.dispose();
      const marker = this.#terminal.registerMarker(0);
      this.#promptEnd = marker ? { marker, x: this.#terminal.buffer.active.cursorX } : null;
    } else if (kind === 'A' || kind === 'C' || kind === 'D') {
      this.#promptEnd?.marker.dispose();
      this.#promptEnd = null;
    }
    return false;
  }

  /**
   * The text typed after the prompt (see ScreenText.promptInput): what stands between the prompt's
   * end and the cursor, then what the person's line holds past the cursor (they moved back into
   * it, or to its start). Past the cursor a line editor also draws what nobody typed: an
   * autosuggestion (fish, zsh-autosuggestions: grey or dim text right after the cursor) and a
   * right prompt (zsh's RPROMPT: right-aligned after padding). Those are left out.
   */
  #promptInput(): string | null {
    const promptEnd = this.#promptEnd;
    const buffer = this.#terminal.buffer.active;
    if (!promptEnd || promptEnd.marker.isDisposed || promptEnd.marker.line < 0 || buffer.type === 'alternate') return null;
    const cursorLine = buffer.baseY + buffer.cursorY;
    const first = promptEnd.marker.line;
    // A cursor above the prompt's end (a redraw in progress): read from the prompt's end on.
    const cursorAfterPrompt = cursorLine > first || (cursorLine === first && buffer.cursorX >= promptEnd.x);
    const cursor = cursorAfterPrompt ? { y: cursorLine, x: buffer.cursorX } : { y: first, x: promptEnd.x };
    let typed = '';
    for (let y = first; y <= cursor.y; y++) {
      const line = buffer.getLine(y);
      if (!line) break;
      const part = line.translateToString(false, y === first ? promptEnd.x : 0, y === cursor.y ? cursor.x : undefined);
      typed += y > first && !line.isWrapped ? '\n' + part : part;
    }
    return (typed + this.#typedPastCursor(cursor.y, cursor.x)).trimEnd();
  }

  /**
   * The person's text from the cursor to the end of its line (and the rows it wraps onto): up to
   * an autosuggestion's first cell, and without a right prompt.
   */
  #typedPastCursor(cursorY: number, cursorX: number): string {
    const buffer = this.#terminal.buffer.active;
    const cols = this.#terminal.cols;
    let text = '';
    let cell: BufferCell | undefined;
    for (let y = cursorY; ; y++) {
      const line = buffer.getLine(y);
      if (!line || (y > cursorY && !line.isWrapped)) break;
      let row = '';
      for (let x = y === cursorY ? cursorX : 0; x < cols; x++) {
        cell = line.getCell(x, cell);
        if (!cell) break;
        const chars = cell.getChars();
        if (chars !== '' && looksSuggested(cell)) return text + row;
        if (cell.getWidth() === 0) continue;
        row += chars === '' ? ' ' : chars;
      }
      // A right prompt: text after a gap of blanks, reaching the row's last columns, on a row that does not wrap on.
      const next = buffer.getLine(y + 1);
      if (!next?.isWrapped) row = row.replace(rightPrompt, '');
      text += row;
    }
    return text;
  }
  /** Chars written but not parsed yet. */
  get pendingChars(): number {
    return this.#pendingChars;
  }

  /** Parse UTF-8 (xterm decodes bytes ~15% faster than a string); copied, as the caller reuses its buffer. */
  write(bytes: Uint8Array, chars: number): void {
    this.writeOwnedBytes(new Uint8Array(bytes), chars);
  }

  /**
   * Like write(), for bytes the mirror may keep until they are parsed; `parsed` is called then
   * (the caller may reuse the buffer from that moment; never when the mirror is disposed first).
   */
  writeOwnedBytes(data: Uint8Array, chars: number, parsed?: () => void): void {
    if (this.#disposed || data.length === 0) return;
    this.#pendingWrites.push(chars);
    this.#pendingChars += chars;
    if (!parsed) {
      this.#terminal.write(data, this.#onWriteParsed);
      return;
    }
    this.#terminal.write(data, () => {
      this.#onWriteParsed();
      if (!this.#disposed) parsed();
    });
  }

  /**
   * Everything written has been parsed and the terminal is in a state from which a flood may be
   * skipped (see floodSkip.ts): parser between sequences, no partial UTF-8, no scroll region.
   */
  get skipSafe(): boolean {
    if (this.#disposed || this.#pendingHead < this.#pendingWrites.length) return false;
    const core = (this.#terminal as unknown as XtermInternals)._core;
    const parserState = core?._inputHandler?._parser?.currentState;
    const interim = core?._inputHandler?._utf8Decoder?.interim;
    const buffer = core?._bufferService?.buffer;
    // Read from xterm's internals; if they are not where we expect, never skip.
    return parserState === 0 && interim !== undefined && interim[0] === 0 && buffer?.scrollTop === 0 && buffer.scrollBottom === this.#terminal.rows - 1;
  }

  /** Resize once everything written so far has been parsed at the old size. */
  resize(cols: number, rows: number): void {
    if (this.#disposed) return;
    this.#terminal.write('', () => {
      if (!this.#disposed) this.#terminal.resize(cols, rows);
    });
  }

  /** Serialize the screen as it is after everything written so far. */
  snapshot(options: { scrollback?: number } = {}): Promise<MirrorSnapshot> {
    return this.#afterPendingWrites(() => ({
      data: this.#serializer.serialize(options.scrollback === undefined ? {} : { scrollback: options.scrollback }),
      cols: this.#terminal.cols,
      rows: this.#terminal.rows,
    }));
  }

  /** The text of the screen after everything written so far. */
  readText(options: { scrollback?: boolean } = {}): Promise<ScreenText> {
    return this.#afterPendingWrites(() => {
      const buffer = this.#terminal.buffer.active;
      const first = options.scrollback ? 0 : buffer.baseY;
      const last = buffer.baseY + this.#terminal.rows;
      const lines: string[] = [];
      for (let y = first; y < last; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
      return {
        lines,
        cols: this.#terminal.cols,
        rows: this.#terminal.rows,
        cursorX: buffer.cursorX,
        cursorY: buffer.cursorY,
        altScreen: buffer.type === 'alternate',
        bracketedPaste: this.#terminal.modes.bracketedPasteMode,
        promptInput: this.#promptInput(),
      };
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#serializer.dispose();
    this.#terminal.dispose();
    this.#pendingWrites.length = 0;
    this.#pendingChars = 0;
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const reject of waiting) reject(new Error('terminal mirror disposed'));
  }

  #afterPendingWrites<T>(read: () => T): Promise<T> {
    if (this.#disposed) return Promise.reject(new Error('terminal mirror disposed'));
    return new Promise<T>((resolve, reject) => {
      this.#waiting.add(reject);
      this.#terminal.write('', () => {
        if (!this.#waiting.delete(reject)) return; // already rejected by dispose()
        try {
          resolve(read());
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  readonly #onWriteParsed = (): void => {
    if (this.#disposed) return;
    const chars = this.#pendingWrites[this.#pendingHead] ?? 0;
    this.#pendingHead++;
    // Compact the queue now and then instead of shifting on every write.
    if (this.#pendingHead === this.#pendingWrites.length) {
      this.#pendingWrites.length = 0;
      this.#pendingHead = 0;
    } else if (this.#pendingHead > 1024 && this.#pendingHead * 2 > this.#pendingWrites.length) {
      this.#pendingWrites.splice(0, this.#pendingHead);
      this.#pendingHead = 0;
    }
    this.#pendingChars -= chars;
    this.#onParsed?.(chars);
  };
}
