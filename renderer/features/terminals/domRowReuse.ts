/**
 * Rows the DOM renderer already shows are kept instead of being built again (an xterm.js patch,
 * renderer/xtermPatches.ts, calls `renderRowsReusing` at the start of DomRenderer.renderRows).
 *
 * Why: xterm.js redraws every row of the viewport whenever the buffer scrolls, and its DOM renderer
 * builds each row's spans anew; Chromium then lays out and shapes the text of every row of every
 * pane that scrolled. With eight agents printing side by side that was most of each frame (a
 * trace of `forty-agents`: Layout 10.8 ms a frame, 78 000 text shapings in 6 s). A line that
 * scrolls up by one row has not changed, only moved: here each row element remembers exactly what
 * it was built from (the line's cells, the cursor on it), the elements of lines that only moved
 * are moved (a rotation of the row container's children), and only rows whose content is new are
 * built — by xterm's own row factory, with the arguments xterm would pass.
 *
 * Exactness: a row is kept only when everything its spans are made from is equal — the cells
 * (code points, colours, flags), their combined characters and extended attributes, the cursor on
 * that row and its style, and the renderer-wide state the row factory reads (theme colours,
 * minimum contrast, bold colours, cell width and letter spacing, focus). When anything the
 * comparison does not cover may be in play — decorations, character joiners, link underlines
 * drawn outside renderRows, a cleared renderer — the rows are built as xterm builds them and
 * forgotten, so the next render starts from scratch; rows under a selection are always built.
 */

/** What a row element was built from. */
interface RowSource {
  /** The line's cells (xterm's BufferLine data: three numbers per cell), copied: xterm reuses line objects. */
  cells: Uint32Array;
  /** Combined characters and extended attributes of the line, and the cursor on this row. */
  extra: string;
}

const sources = new WeakMap<HTMLElement, RowSource>();
/** The renderer-wide state each renderer's rows were built with. */
const environments = new WeakMap<object, string>();
/** Renderers whose theme changes are listened to. */
const watched = new WeakSet<object>();
/**
 * The xterm.js 6.0.0 code this module reads its internals from; a unit test checks each is in the
 * installed xterm.js, so an upgrade that renames one fails the build instead of drawing wrong rows.
 */
export const xtermInternalsRead: readonly string[] = [
  'handleSelectionChanged(t,e,i){this._selectionStart=t,this._selectionEnd=e,this._columnSelectMode=i}',
  'this._characterJoiners=[]',
  'this._decorations=new',
  'this._array=[];this._insertedValues=[]',
  'this._data=new Uint32Array',
  'this._combined={}',
  'this._extendedAttrs={}',
  'this._rowElements=[]',
  'this._rowContainer.appendChild(',
  'get isFocused',
  'get underlineColor',
  'get urlId',
  'get underlineVariantOffset',
  '_register(t){if(t===this)throw new Error("Cannot register a disposable on itself!")',
];

// xterm.js internals, reached through the patch: typed loosely on purpose (xtermInternalsRead is what is checked).
type DomRenderer = any;
type BufferLine = any;

/** Forget what every row was built from: the next render builds them all. */
function forgetRows(renderer: DomRenderer): void {
  for (const element of renderer._rowElements as HTMLElement[]) sources.delete(element);
  environments.delete(renderer);
}

/** A line of the buffer as a row wants it: the line itself (compared in place, copied only when a row is built) and its extra. */
interface WantedRow {
  line: BufferLine;
  extra: string;
}

function wantedRow(line: BufferLine, cursorPart: string): WantedRow {
  let extra = cursorPart;
  const combined: Record<number, string> = line._combined;
  for (const key in combined) extra += `|c${key}:${combined[key]}`;
  const extended: Record<number, any> = line._extendedAttrs;
  for (const key in extended) {
    const attrs = extended[key];
    if (attrs) extra += `|e${key}:${attrs.ext},${attrs.underlineColor},${attrs.urlId},${attrs.underlineVariantOffset}`;
  }
  return { line, extra };
}

function sameSource(source: RowSource | undefined, wanted: WantedRow): boolean {
  if (!source || source.extra !== wanted.extra) return false;
  const cells = source.cells;
  const data: Uint32Array = wanted.line._data;
  if (cells.length !== wanted.line.length * 3) return false;
  for (let i = 0; i < cells.length; i++) if (cells[i] !== data[i]) return false;
  return true;
}

/** Remember what `element` was built from, in its earlier record's buffer when the size is the same (a flood builds every row every frame). */
function remember(element: HTMLElement, wanted: WantedRow): void {
  const length = wanted.line.length * 3;
  const data: Uint32Array = wanted.line._data;
  const source = sources.get(element);
  if (source && source.cells.length === length) {
    source.cells.set(data.subarray(0, length));
    source.extra = wanted.extra;
  } else {
    sources.set(element, { cells: data.slice(0, length), extra: wanted.extra });
  }
}

/**
 * Called by an xterm.js patch at the start of DomRenderer.handleSelectionChanged: true when the
 * selection was empty and stays empty, so the renderer's full redraw can be skipped.
 *
 * xterm.js refreshes the selection on every line that scrolls (issue #4633), and the DOM renderer
 * answers each refresh by rebuilding every row. A click — how a person focuses a pane — leaves an
 * empty selection behind (start = end, xterm's finalSelectionEnd is start plus a length of 0), so
 * "no selection" must include that: after a click, a flood in that pane rebuilt all its rows once
 * per frame through this path (a trace of `pane-flood`: 34 ms of 40 in row building).
 */
export function selectionStaysEmpty(renderer: DomRenderer, start: [number, number] | undefined, end: [number, number] | undefined): boolean {
  const factory = renderer._rowFactory;
  return !selects(start, end) && !selects(factory._selectionStart, factory._selectionEnd);
}

/** Whether a selection from `start` to `end` covers any cell (a click leaves start = end, which colours none). */
function selects(start: [number, number] | undefined, end: [number, number] | undefined): boolean {
  return !!start && !!end && (start[0] !== end[0] || start[1] !== end[1]);
}

/**
 * Renders rows `start`–`end` keeping the elements whose content is unchanged or only moved.
 * Returns false (having forgotten those rows) when xterm's own renderRows must do it.
 */
export function renderRowsReusing(renderer: DomRenderer, start: number, end: number): boolean {
  const factory = renderer._rowFactory;
  const rowElements: HTMLElement[] = renderer._rowElements;
  const buffer = renderer._bufferService.buffer;
  const options = renderer._optionsService.rawOptions;
  const core = renderer._coreService;
  const joiners = factory._characterJoinerService?._characterJoiners;
  const plain =
    !renderer._sbStale &&
    Array.isArray(joiners) &&
    joiners.length === 0 &&
    isEmptyDecorations(factory._decorationService);
  if (!plain) {
    renderer._sbStale = false;
    forgetRows(renderer);
    return false;
  }
  const cellWidth: number = renderer.dimensions.css.cell.width;
  if (!watched.has(renderer)) {
    // Theme colours change in place (a new theme, OSC 4/10/11): rows built with the old ones go.
    watched.add(renderer);
    // Registered with the renderer: xterm disposes it with the renderer (a switch to WebGL, the pane closing).
    renderer._register(renderer._themeService.onChangeColors(() => forgetRows(renderer)));
  }
  const environment = [
    options.fontFamily,
    options.fontSize,
    options.fontWeight,
    options.fontWeightBold,
    options.letterSpacing,
    options.minimumContrastRatio,
    options.drawBoldTextInBrightColors,
    cellWidth,
    factory.defaultSpacing,
    renderer._coreBrowserService.isFocused,
  ].join('|');
  if (environments.get(renderer) !== environment) {
    for (const element of rowElements) sources.delete(element);
    environments.set(renderer, environment);
  }

  const cursorAbsoluteY: number = buffer.ybase + buffer.y;
  const cursorX = Math.min(buffer.x, renderer._bufferService.cols - 1);
  const cursorBlink: boolean = core.decPrivateModes.cursorBlink ?? options.cursorBlink;
  const cursorStyle: string = core.decPrivateModes.cursorStyle ?? options.cursorStyle;
  const cursorInactiveStyle: string = options.cursorInactiveStyle;
  const cursorPart = `C${cursorX},${cursorBlink},${cursorStyle},${cursorInactiveStyle},${core.isCursorHidden},${core.isCursorInitialized}`;

  // Rows a selection covers are built each time (the row factory colours selected cells) and not
  // remembered.
  const selectionStart: [number, number] | undefined = factory._selectionStart;
  const selectionEnd: [number, number] | undefined = factory._selectionEnd;
  const selected = selects(selectionStart, selectionEnd)
    ? [Math.min(selectionStart![1], selectionEnd![1]), Math.max(selectionStart![1], selectionEnd![1])]
    : null;

  const last = Math.min(end, rowElements.length - 1);
  const wanted: WantedRow[] = [];
  for (let y = start; y <= last; y++) {
    const row = y + buffer.ydisp;
    const line = buffer.lines.get(row);
    if (!line) break;
    wanted.push(wantedRow(line, row === cursorAbsoluteY ? cursorPart : ''));
  }
  const count = wanted.length;
  if (count === 0) return true;

  // The rows moved up (output scrolled) or down (scrolled back) by `shift`: rotate the elements.
  const shift = start === 0 && count === rowElements.length ? detectShift(rowElements, wanted) : 0;
  if (shift !== 0) rotate(renderer, shift);

  for (let index = 0; index < count; index++) {
    const y = start + index;
    const element = rowElements[y]!;
    const want = wanted[index]!;
    const row = y + buffer.ydisp;
    const inSelection = selected !== null && row >= selected[0]! && row <= selected[1]!;
    if (!inSelection && sameSource(sources.get(element), want)) continue;
    element.replaceChildren(
      ...factory.createRow(want.line, row, row === cursorAbsoluteY, cursorStyle, cursorInactiveStyle, cursorX, cursorBlink, cellWidth, renderer._widthCache, -1, -1),
    );
    if (inSelection) sources.delete(element);
    else remember(element, want);
  }
  return true;
}

/** No decoration at all (xterm's SortedList: the sorted array and the inserts not sorted in yet); anything unexpected counts as some. */
function isEmptyDecorations(service: any): boolean {
  const list = service?._decorations;
  return Array.isArray(list?._array) && list._array.length === 0 && Array.isArray(list._insertedValues) && list._insertedValues.length === 0;
}

/**
 * How far the shown lines moved: k > 0 when the element at row y + k shows what row y wants
 * (output scrolled up by k), k < 0 for the other way; 0 when neither fits all the rows that stay.
 */
function detectShift(rowElements: HTMLElement[], wanted: WantedRow[]): number {
  const rows = wanted.length;
  const fits = (k: number): boolean => {
    // Rows that stay must match, except the cursor's (their content may have changed on it).
    let matched = 0;
    for (let y = Math.max(0, -k); y < Math.min(rows, rows - k); y++) {
      if (sameSource(sources.get(rowElements[y + k]!), wanted[y]!)) matched++;
    }
    return matched >= (rows - Math.abs(k)) - 2;
  };
  // Most often the output scrolled by a few lines: try the first row's old position.
  for (let k = 1; k < rows; k++) {
    if (sameSource(sources.get(rowElements[k]!), wanted[0]!)) return fits(k) ? k : 0;
  }
  for (let k = 1; k < rows; k++) {
    if (sameSource(sources.get(rowElements[0]!), wanted[k]!)) return fits(-k) ? -k : 0;
  }
  return 0;
}

/** Moves the first `shift` row elements to the end (or the last -shift to the front), in the DOM and in xterm's list. */
function rotate(renderer: DomRenderer, shift: number): void {
  const rowElements: HTMLElement[] = renderer._rowElements;
  const container: HTMLElement = renderer._rowContainer;
  if (shift > 0) {
    const moved = rowElements.splice(0, shift);
    for (const element of moved) container.appendChild(element);
    rowElements.push(...moved);
  } else {
    const moved = rowElements.splice(rowElements.length + shift, -shift);
    container.prepend(...moved);
    rowElements.unshift(...moved);
  }
}
