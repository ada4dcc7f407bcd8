/**
 * What the IDE tools know about the UI's editors: the file tabs it reported (`editor.setOpenEditors`)
 * and the selections it reported (`editor.setSelection`). The renderer owns the tabs; this is the
 * Hub's copy, so `getOpenEditors`, `checkDocumentDirty`, `saveDocument`, `getCurrentSelection`
 * and `getLatestSelection` can answer without a round trip to a UI that may not be there.
 *
 * Selections reach connected CLIs as `selection_changed`, debounced (IdeConstants.selectionDebounceMs)
 * so dragging a selection sends one notification, not one per mouse move.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OpenEditor, Range, SelectionReport } from '../../common/api/reviewContract.ts';
import { IdeConstants, ReviewConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';

/** A selection as Claude Code's tools and `selection_changed` describe it. */
export interface IdeSelection {
  text: string;
  filePath: string;
  fileUrl: string;
  selection: { start: { line: number; character: number }; end: { line: number; character: number }; isEmpty: boolean };
}

export class EditorState implements IDisposable {
  #editors: OpenEditor[] = [];
  /**
   * The mtime of each file as the Hub last read it for a tab or wrote it (`editor.readFile`,
   * `editor.saveFile`, `saveDocument`): what a tab's text is based on when the UI does not say.
   */
  readonly #diskMtimes = new Map<string, number>();
  /** The selection in the active editor (file tab or diff view); a pane selection does not replace it. */
  #current: IdeSelection | null = null;
  /** The last non-empty selection from anywhere (file tab, diff view, pane). */
  #latest: IdeSelection | null = null;
  #pending: IdeSelection | null = null;
  #timer: NodeJS.Timeout | undefined;
  readonly #terminalName: (terminalId: string) => string | undefined;

  readonly #onDidChangeSelection = new Emitter<IdeSelection>();
  /** Debounced: the selection to send as `selection_changed`. */
  readonly onDidChangeSelection: Event<IdeSelection> = this.#onDidChangeSelection.event;

  constructor(options: { terminalName: (terminalId: string) => string | undefined }) {
    this.#terminalName = options.terminalName;
  }

  setOpenEditors(editors: OpenEditor[]): void {
    this.#editors = editors.map((editor) => ({ ...editor, path: resolve(editor.path) }));
    const active = this.activeEditor;
    // The current selection belongs to the active editor; once that tab is gone or another is active, it is stale.
    if (this.#current && (!active || active.path !== this.#current.filePath)) this.#current = null;
  }

  get openEditors(): readonly OpenEditor[] {
    return this.#editors;
  }

  get activeEditor(): OpenEditor | undefined {
    return this.#editors.find((editor) => editor.active);
  }

  findEditor(path: string): OpenEditor | undefined {
    const normalized = resolve(path);
    return this.#editors.find((editor) => editor.path === normalized);
  }

  /** After the Hub wrote a tab's text to disk (saveDocument): it is clean now, and based on the new mtime. */
  markSaved(path: string, mtimeMs: number): void {
    const normalized = resolve(path);
    this.noteDiskMtime(normalized, mtimeMs);
    this.#editors = this.#editors.map((editor) => {
      if (editor.path !== normalized) return editor;
      const { text: _text, ...rest } = editor;
      return { ...rest, dirty: false, mtimeMs };
    });
  }

  /** The Hub read or wrote this file for a tab (see #diskMtimes). */
  noteDiskMtime(path: string, mtimeMs: number): void {
    const normalized = resolve(path);
    // Only files that are, or are about to be, in a tab: the map must not grow with every file read.
    this.#diskMtimes.delete(normalized);
    this.#diskMtimes.set(normalized, mtimeMs);
    if (this.#diskMtimes.size > ReviewConstants.maxOpenEditors * 2) this.#diskMtimes.delete(this.#diskMtimes.keys().next().value!);
  }

  /** The mtime a tab's text is based on: the tab's own report, else the Hub's last read or save; undefined when unknown. */
  baseMtimeOf(editor: OpenEditor): number | undefined {
    return editor.mtimeMs ?? this.#diskMtimes.get(editor.path);
  }

  setSelection(report: SelectionReport): void {
    const selection = toIdeSelection(report, this.#terminalName);
    if (report.source !== 'terminal') this.#current = selection;
    if (!selection.selection.isEmpty) this.#latest = selection;
    this.#pending = selection;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#flush(), IdeConstants.selectionDebounceMs);
  }

  /** `getCurrentSelection`: the active editor's selection (a cursor in it when nothing was reported), else null. */
  get currentSelection(): IdeSelection | null {
    if (this.#current) return this.#current;
    const active = this.activeEditor;
    if (!active) return null;
    return { text: '', filePath: active.path, fileUrl: pathToFileURL(active.path).href, selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 }, isEmpty: true } };
  }

  /** `getLatestSelection`: the last non-empty selection anywhere, else null. */
  get latestSelection(): IdeSelection | null {
    return this.#latest;
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#onDidChangeSelection.dispose();
  }

  #flush(): void {
    const selection = this.#pending;
    this.#pending = null;
    if (selection) this.#onDidChangeSelection.fire(selection);
  }
}

/**
 * A reported selection in Claude Code's terms. A pane selection has no file: it is named
 * `terminal:<pane name>` (Claude Code shows the name beside the selected text) with no URL.
 */
function toIdeSelection(report: SelectionReport, terminalName: (terminalId: string) => string | undefined): IdeSelection {
  const range: Range = report.range ?? endOfText(report.text);
  const isEmpty = range.start.line === range.end.line && range.start.character === range.end.character;
  if (report.path !== null) {
    const filePath = resolve(report.path);
    return { text: report.text, filePath, fileUrl: pathToFileURL(filePath).href, selection: { ...range, isEmpty } };
  }
  const name = report.terminalId !== undefined ? (terminalName(report.terminalId) ?? report.terminalId) : 'terminal';
  return { text: report.text, filePath: `terminal:${name}`, fileUrl: '', selection: { ...range, isEmpty } };
}

/** A range spanning a text from 0:0, for a selection reported without one. */
function endOfText(text: string): Range {
  const lines = text.split('\n');
  return { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: lines.at(-1)!.length } };
}
