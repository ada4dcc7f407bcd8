/**
 * The window's file tabs (what Claude Code's `openFile` opens, and files opened from a review):
 * which files are open, which one is shown, which have unsaved edits — reported to the Hub
 * (`editor.setOpenEditors`) whenever that changes, so Claude Code's `getOpenEditors`,
 * `checkDocumentDirty` and `saveDocument` see what the person sees.
 *
 * The text being edited lives in each tab's editor (CodeMirror, loaded lazily with the view); a
 * tab opened in the background has no editor yet and is clean. Owned by the ReviewService.
 */
import type { AppState } from '../../../src/common/api/contract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import type { EditorFile, OpenEditor, OpenFileRequest, Range } from '../../../src/common/api/reviewContract.ts';
import { ReviewConstants } from '../../../src/common/constants.ts';
import { Disposable, toDisposable, type IDisposable } from '../../../src/common/lifecycle.ts';
import { errorCode } from '../../app/errorList.ts';
import { ObservableValue } from '../../app/observable.ts';
import { fitsInOneCall } from '../review/messageBudget.ts';
import { ReviewUiConstants } from '../review/reviewConstants.ts';

/** What a file tab's editor offers the model. */
export interface LiveFileEditor extends IDisposable {
  /** The text as edited. */
  text(): string;
  /** Take `text` as the file's saved contents: replace the editor's text with it (one undoable change) and be clean. */
  replaceWithSaved(text: string): void;
  /** The file was saved with `text` (the editor may have changed since): compare against it from now on. */
  markSaved(text: string): void;
  /** Select `range` and scroll it into view. */
  reveal(range: Range): void;
}

export interface FileTab {
  readonly id: string;
  readonly path: string;
  /** A preview tab is replaced by the next preview (VS Code's single-click open); editing it keeps it. */
  readonly preview: boolean;
  readonly status: 'loading' | 'ready' | 'failed';
  /** The file as last read or saved (contents are those at that moment). */
  readonly file: EditorFile | null;
  readonly error: string | null;
  readonly dirty: boolean;
  readonly saving: boolean;
  /** Saving was refused because the file changed on disk since it was read: overwrite or reload. */
  readonly conflict: boolean;
}

export interface FileTabsOptions {
  client: IHubClient;
  host: AppState['host'];
  reportError(title: string, error: unknown): void;
}

export class FileTabs extends Disposable {
  readonly tabs = this.register(new ObservableValue<readonly FileTab[]>([]));
  /** The file tab shown in the Review view's strip; null while the reviews are shown. */
  readonly activeId = this.register(new ObservableValue<string | null>(null));

  readonly #options: FileTabsOptions;
  readonly #editors = new Map<string, LiveFileEditor>();
  /** Selections asked for (openFile) before the tab's editor existed. */
  readonly #pendingReveals = new Map<string, Range>();
  #reportTimer: ReturnType<typeof setTimeout> | undefined;
  #lastReport = '';

  constructor(options: FileTabsOptions) {
    super();
    this.#options = options;
    this.register(this.tabs.onDidChange(() => this.#report()));
    this.register(this.activeId.onDidChange(() => this.#report()));
    this.register(
      toDisposable(() => {
        clearTimeout(this.#reportTimer);
        for (const editor of this.#editors.values()) editor.dispose();
        this.#editors.clear();
      }),
    );
  }

  get(id: string): FileTab | undefined {
    return this.tabs.value.find((tab) => tab.id === id);
  }

  findByPath(path: string): FileTab | undefined {
    return this.tabs.value.find((tab) => tab.path === path);
  }

  /** Claude Code's `openFile` (or "Open file" on a review): open or focus the tab, select the range. */
  open(request: OpenFileRequest): FileTab {
    let tab = this.findByPath(request.path);
    if (tab) {
      // Opening a previewed file for good keeps its tab.
      if (tab.preview && !request.preview) this.#update(tab.id, { preview: false });
      // It could not be read last time (missing, too large): it may be there now.
      if (tab.status === 'failed') {
        this.#update(tab.id, { status: 'loading', error: null });
        void this.#load(tab.id);
      }
    } else {
      tab = this.#create(request.path, request.preview);
    }
    if (request.selection) this.#reveal(tab.id, request.selection);
    if (request.focus) this.activeId.set(tab.id);
    return tab;
  }

  close(id: string): void {
    const tabs = this.tabs.value;
    const index = tabs.findIndex((tab) => tab.id === id);
    if (index === -1) return;
    this.#editors.get(id)?.dispose();
    this.#editors.delete(id);
    this.#pendingReveals.delete(id);
    const remaining = tabs.filter((tab) => tab.id !== id);
    if (this.activeId.value === id) this.activeId.set(remaining[Math.min(index, remaining.length - 1)]?.id ?? null);
    this.tabs.set(remaining);
  }

  /** The editor of a tab was created (the tab was shown): it takes any selection asked for meanwhile. */
  attachEditor(id: string, editor: LiveFileEditor): void {
    this.#editors.get(id)?.dispose();
    this.#editors.set(id, editor);
    const reveal = this.#pendingReveals.get(id);
    this.#pendingReveals.delete(id);
    if (reveal) editor.reveal(reveal);
  }

  editorOf(id: string): LiveFileEditor | undefined {
    return this.#editors.get(id);
  }

  /** The tab's editor says whether its text differs from the saved file. */
  noteEdited(id: string, dirty: boolean): void {
    const tab = this.get(id);
    if (!tab) return;
    if (tab.dirty !== dirty || (dirty && tab.preview)) this.#update(id, { dirty, preview: dirty ? false : tab.preview });
    // The dirty text goes to the Hub too (for saveDocument), once typing pauses.
    else if (dirty) this.#reportSoon();
  }

  /** Ctrl+S: write the tab's text. `overwrite` saves even though the file changed on disk. */
  async save(id: string, { overwrite = false }: { overwrite?: boolean } = {}): Promise<boolean> {
    const tab = this.get(id);
    const editor = this.#editors.get(id);
    if (!tab || !editor || !tab.file || tab.saving) return false;
    const contents = editor.text();
    if (!fitsInOneCall(this.#options.host, contents)) {
      this.#options.reportError(`Could not save ${tab.path}`, new Error('the file is too large to save from a browser window (the limit is 2 MiB per message); save it from the desktop app'));
      return false;
    }
    this.#update(id, { saving: true });
    try {
      const saved = await this.#options.client.call('editor.saveFile', {
        path: tab.path,
        contents,
        ...(overwrite ? {} : { expectedMtimeMs: tab.file.mtimeMs }),
      });
      editor.markSaved(contents);
      const current = this.get(id);
      if (current?.file) {
        this.#update(id, {
          saving: false,
          conflict: false,
          dirty: editor.text() !== contents,
          file: { ...current.file, contents, size: saved.size, mtimeMs: saved.mtimeMs },
        });
      }
      return true;
    } catch (error) {
      const conflict = errorCode(error) === 'INVALID_PARAMS' && /changed on disk|deleted on disk/.test(String((error as Error).message));
      this.#update(id, { saving: false, conflict });
      if (!conflict) this.#options.reportError(`Could not save ${tab.path}`, error);
      return false;
    }
  }

  /** Read the file again, dropping unsaved edits (after a conflict, or on request). */
  async reload(id: string): Promise<void> {
    const tab = this.get(id);
    if (!tab) return;
    try {
      const file = await this.#options.client.call('editor.readFile', { path: tab.path });
      const editor = this.#editors.get(id);
      if (editor && file.contents !== null) editor.replaceWithSaved(file.contents);
      this.#update(id, { file, status: 'ready', error: null, dirty: false, conflict: false });
    } catch (error) {
      this.#options.reportError(`Could not reload ${tab.path}`, error);
    }
  }

  /**
   * The Hub wrote a file (Claude Code's `saveDocument`, another window's save, this window's own
   * save): a clean tab of it shows the new contents; a tab with newer edits keeps them.
   */
  applySaved({ path, contents, mtimeMs }: { path: string; contents: string; mtimeMs: number }): void {
    const tab = this.findByPath(path);
    if (!tab?.file) return;
    const editor = this.#editors.get(tab.id);
    let dirty = false;
    if (editor) {
      if (!tab.dirty) editor.replaceWithSaved(contents);
      else editor.markSaved(contents);
      dirty = editor.text() !== contents;
    }
    this.#update(tab.id, { dirty, conflict: false, file: { ...tab.file, contents, size: new TextEncoder().encode(contents).length, mtimeMs } });
  }

  /** What `editor.setOpenEditors` says about the tabs now. */
  openEditors(): OpenEditor[] {
    const active = this.activeId.value;
    return this.tabs.value.slice(0, ReviewConstants.maxOpenEditors).map((tab) => {
      const editor: OpenEditor = { path: tab.path, active: tab.id === active, dirty: tab.dirty };
      if (tab.file && tab.file.languageId !== 'plaintext') editor.languageId = tab.file.languageId.slice(0, 64);
      // What the tab's text is based on: Claude Code's saveDocument must not write over a newer file.
      if (tab.file) editor.mtimeMs = tab.file.mtimeMs;
      const text = tab.dirty ? this.#editors.get(tab.id)?.text() : undefined;
      // A dirty text too large for one message is left out: the Hub then cannot save it for Claude Code, but the window stays connected.
      if (text !== undefined && text.length <= ReviewConstants.maxFileBytes && fitsInOneCall(this.#options.host, text)) editor.text = text;
      return editor;
    });
  }

  #create(path: string, preview: boolean): FileTab {
    const tab: FileTab = { id: `file-${path}`, path, preview, status: 'loading', file: null, error: null, dirty: false, saving: false, conflict: false };
    const tabs = this.tabs.value;
    // A new preview replaces the current (clean) preview tab, in its place.
    const replaced = preview ? tabs.find((candidate) => candidate.preview && !candidate.dirty) : undefined;
    if (replaced) {
      this.#editors.get(replaced.id)?.dispose();
      this.#editors.delete(replaced.id);
      this.tabs.set(tabs.map((candidate) => (candidate === replaced ? tab : candidate)));
      if (this.activeId.value === replaced.id) this.activeId.set(tab.id);
    } else {
      this.tabs.set([...tabs, tab]);
    }
    void this.#load(tab.id);
    return tab;
  }

  async #load(id: string): Promise<void> {
    const tab = this.get(id);
    if (!tab) return;
    try {
      const file = await this.#options.client.call('editor.readFile', { path: tab.path });
      this.#update(id, { file, status: 'ready', error: null });
    } catch (error) {
      const message = errorCode(error) === 'NOT_FOUND' ? 'This file does not exist.' : error instanceof Error ? error.message : String(error);
      this.#update(id, { status: 'failed', error: message });
    }
  }

  #reveal(id: string, range: Range): void {
    const editor = this.#editors.get(id);
    if (editor) editor.reveal(range);
    else this.#pendingReveals.set(id, range);
  }

  #update(id: string, change: Partial<Omit<FileTab, 'id' | 'path'>>): void {
    if (this.store.isDisposed) return;
    this.tabs.set(this.tabs.value.map((tab) => (tab.id === id ? { ...tab, ...change } : tab)));
  }

  #reportSoon(): void {
    clearTimeout(this.#reportTimer);
    this.#reportTimer = setTimeout(() => this.#report(), ReviewUiConstants.dirtyTextReportDelayMs);
  }

  #report(): void {
    clearTimeout(this.#reportTimer);
    this.#reportTimer = undefined;
    if (this.store.isDisposed) return;
    const editors = this.openEditors();
    // Tab changes that do not change the report (a save starting) are not news.
    const key = JSON.stringify(editors);
    if (key === this.#lastReport) return;
    this.#lastReport = key;
    this.#options.client.call('editor.setOpenEditors', { editors }).catch((error: unknown) => {
      this.#lastReport = '';
      if (errorCode(error) !== 'CONNECTION_CLOSED') this.#options.reportError('Could not tell Claude Code about the open files', error);
    });
  }
}
