/**
 * The CodeMirror editor of one file tab: syntax highlighting, editing, a saved baseline to tell
 * whether it is dirty, and the selections it reports. It owns its host element; the React tab
 * lends it a slot (`mount`), so switching tabs keeps the text, the cursor and the undo history.
 */
import { Compartment, EditorState, type Text } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import type { Range } from '../../../src/common/api/reviewContract.ts';
import { Emitter } from '../../../src/common/event.ts';
import { toDisposable, type IDisposable } from '../../../src/common/lifecycle.ts';
import { editorSetup, offsetOf, selectionOf } from '../review/editorSetup.ts';
import { lineSeparatorOf, textOf } from '../review/hunkComposition.ts';
import { loadLanguage, type LanguageKey } from '../review/languages.ts';
import type { LiveFileEditor } from './fileTabs.ts';

export interface FileEditorOptions {
  contents: string;
  language: LanguageKey | null;
}

export class FileEditor implements LiveFileEditor {
  readonly element: HTMLDivElement;
  readonly view: EditorView;
  readonly #onDidEdit = new Emitter<boolean>();
  /** The text (or the saved baseline) changed; the value says whether the text now differs from the saved file. */
  readonly onDidEdit = this.#onDidEdit.event;
  readonly #onDidChangeSelection = new Emitter<ReturnType<typeof selectionOf>>();
  /** The person selected text or moved the cursor. */
  readonly onDidChangeSelection = this.#onDidChangeSelection.event;

  readonly #language = new Compartment();
  readonly #setup = new Compartment();
  #separator: string;
  #saved: Text;
  #dirty = false;
  #disposed = false;

  constructor({ contents, language }: FileEditorOptions) {
    this.#separator = lineSeparatorOf(contents);
    this.#saved = textOf(contents, this.#separator);
    this.element = document.createElement('div');
    this.element.className = 'file-editor-host';
    this.view = new EditorView({
      parent: this.element,
      state: EditorState.create({
        doc: this.#saved,
        extensions: [
          this.#setup.of(this.#setupFor(this.#separator)),
          this.#language.of([]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) this.#checkDirty();
            // The person's selections, and the one Claude Code asked for (openFile): not a rebuild's.
            const revealed = update.transactions.some((tr) => tr.isUserEvent('select.reveal'));
            if (update.selectionSet && (update.view.hasFocus || revealed)) this.#onDidChangeSelection.fire(selectionOf(update.state));
          }),
        ],
      }),
    });
    if (language) {
      loadLanguage(language).then(
        (support) => {
          if (!this.#disposed) this.view.dispatch({ effects: this.#language.reconfigure(support) });
        },
        (error: unknown) => console.warn('[switchboard] could not load syntax highlighting:', error),
      );
    }
  }

  get dirty(): boolean {
    return this.#dirty;
  }

  text(): string {
    return this.view.state.sliceDoc();
  }

  replaceWithSaved(text: string): void {
    if (this.#disposed) return;
    const separator = lineSeparatorOf(text);
    if (separator !== this.#separator) {
      this.#separator = separator;
      this.view.dispatch({ effects: this.#setup.reconfigure(this.#setupFor(separator)) });
    }
    this.#saved = textOf(text, separator);
    if (!this.view.state.doc.eq(this.#saved)) {
      this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: this.#saved }, userEvent: 'input.reload' });
    }
    this.#checkDirty();
  }

  markSaved(text: string): void {
    if (this.#disposed) return;
    this.#saved = textOf(text, this.#separator);
    this.#checkDirty();
  }

  reveal(range: Range): void {
    if (this.#disposed) return;
    const { state } = this.view;
    const anchor = offsetOf(state, range.start);
    const head = offsetOf(state, range.end);
    this.view.dispatch({ selection: { anchor, head }, effects: EditorView.scrollIntoView(Math.min(anchor, head), { y: 'center' }), userEvent: 'select.reveal' });
  }

  focus(): void {
    this.view.focus();
  }

  mount(slot: HTMLElement): IDisposable {
    slot.appendChild(this.element);
    this.view.requestMeasure();
    return toDisposable(() => {
      if (this.element.parentElement === slot) slot.removeChild(this.element);
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.view.destroy();
    this.element.remove();
    this.#onDidEdit.dispose();
    this.#onDidChangeSelection.dispose();
  }

  #setupFor(separator: string) {
    return editorSetup({ editable: true, lineSeparator: separator, label: 'File contents' });
  }

  #checkDirty(): void {
    this.#dirty = !this.view.state.doc.eq(this.#saved);
    this.#onDidEdit.fire(this.#dirty);
  }
}
