/**
 * The diff of one review: side by side (@codemirror/merge's MergeView) or unified
 * (`unifiedMergeView`), with syntax highlighting, word-level changes, folded unchanged lines and
 * per-change Accept / Reject. The proposed side may be edited; `proposedText()` is exactly what it
 * shows, and what Accept sends.
 *
 * The editor owns its host element; the React view lends it a slot (`mount`), so switching reviews
 * and coming back keeps the edits, the undo history and the marks. Switching layouts rebuilds the
 * views and carries the proposed side's document, selection, undo history and marks over.
 */
import { historyField } from '@codemirror/commands';
import { MergeView, unifiedMergeView } from '@codemirror/merge';
import { Compartment, EditorSelection, EditorState, type Extension, type Text } from '@codemirror/state';
import { EditorView, type ViewUpdate } from '@codemirror/view';
import { Emitter } from '../../../src/common/event.ts';
import { toDisposable, type IDisposable } from '../../../src/common/lifecycle.ts';
import { editorSetup, selectionOf } from './editorSetup.ts';
import { acceptedHunks, goToHunk, hunkControls, hunkSummary, type HunkSummary } from './hunkControls.ts';
import { hunksOf, lineSeparatorOf, reviewDiffConfig, textOf } from './hunkComposition.ts';
import { loadLanguage, type LanguageKey } from './languages.ts';
import { ReviewUiConstants } from './reviewConstants.ts';
import type { DiffMode, LiveReviewDiff } from './reviewService.ts';

export interface DiffSelection {
  side: 'original' | 'proposed';
  text: string;
  range: ReturnType<typeof selectionOf>['range'];
  empty: boolean;
  lineStart: number;
  lineEnd: number;
}

/**
 * The unified view draws a change's removed lines as one block that is not virtualized and is
 * rebuilt on every edit inside that change; past this many removed lines in one change (a
 * rewritten file) the diff is shown side by side instead, where both sides stay virtualized.
 */
const maxUnifiedRemovedLines = 1_500;

/** The toolbar's view of the diff: its changes, the reviewer's marks, and whether they edited the proposal. */
export interface DiffStatus extends HunkSummary {
  /** The proposed side differs from the proposal as it came (the reviewer typed, or rejected a change). */
  edited: boolean;
  /** Unified was asked for but the diff is shown side by side (see maxUnifiedRemovedLines). */
  splitForSize: boolean;
}

export interface ReviewDiffEditorOptions {
  /** The file on disk ('' for a new file). */
  original: string;
  /** The proposal ('' for a deletion). */
  proposed: string;
  /** The proposed side can be edited. */
  editable: boolean;
  /**
   * A change to an existing file (not a whole new or deleted one): each change gets a header, word
   * changes are marked, and an editable proposal gets Accept / Reject per change.
   */
  partial: boolean;
  mode: DiffMode;
  collapseUnchanged: boolean;
  language: LanguageKey | null;
  /** "Change 2 of 5" headers (with Accept / Reject when editable) on a partial diff; default true. A worktree's diff has git's hunks instead. */
  chunkHeaders?: boolean;
  /** More for each side's editor (a worktree's hunk headers and line comments). */
  extensions?: { original?: Extension; proposed?: Extension };
  /** The proposed side's accessible name; default "Proposed contents". */
  proposedLabel?: string;
}

export class ReviewDiffEditor implements LiveReviewDiff {
  /** What the React view mounts. */
  readonly element: HTMLDivElement;
  readonly #onDidChangeStatus = new Emitter<DiffStatus>();
  /** The changes, marks, text or cursor changed: the toolbar's "Change 2 of 5 · 1 accepted · edited". */
  readonly onDidChangeStatus = this.#onDidChangeStatus.event;
  readonly #onDidChangeSelection = new Emitter<DiffSelection>();
  /** The person selected (or moved the cursor) on either side. */
  readonly onDidChangeSelection = this.#onDidChangeSelection.event;
  readonly #onDidBuildViews = new Emitter<void>();
  /** The editors were made again (another layout, folding switched in the unified view): state kept in fields of the extensions given is new. */
  readonly onDidBuildViews = this.#onDidBuildViews.event;

  readonly #options: ReviewDiffEditorOptions;
  readonly #original: Text;
  readonly #proposal: Text;
  readonly #originalSeparator: string;
  readonly #proposedSeparator: string;
  readonly #language = new Compartment();
  #languageSupport: Extension = [];
  #mode: DiffMode;
  #collapse: boolean;
  #merge: MergeView | null = null;
  #unified: EditorView | null = null;
  /** The proposed side's state when its views were last destroyed. */
  #lastState: EditorState | undefined;
  /** Whether one change removes too many lines for the unified view (computed when first asked). */
  #tooBigForUnified: boolean | undefined;
  /** F7 before any navigation goes to the first change, even when it starts at the cursor. */
  #navigated = false;
  #disposed = false;

  constructor(options: ReviewDiffEditorOptions) {
    this.#options = options;
    this.#mode = options.mode;
    this.#collapse = options.collapseUnchanged;
    this.#originalSeparator = lineSeparatorOf(options.original);
    this.#proposedSeparator = lineSeparatorOf(options.proposed);
    this.#original = textOf(options.original, this.#originalSeparator);
    this.element = document.createElement('div');
    this.element.className = 'review-diff-host';
    this.#proposal = textOf(options.proposed, this.#proposedSeparator);
    this.#build({ doc: this.#proposal, selection: undefined, carried: [] });
    if (options.language) {
      loadLanguage(options.language).then(
        (support) => {
          if (this.#disposed) return;
          this.#languageSupport = support;
          for (const view of this.#views()) view.dispatch({ effects: this.#language.reconfigure(support) });
        },
        (error: unknown) => console.warn('[switchboard] could not load syntax highlighting:', error),
      );
    }
  }

  /** The layout asked for. */
  get mode(): DiffMode {
    return this.#mode;
  }

  /** The layout shown: side by side when the unified view would be too slow for this diff. */
  get shownMode(): DiffMode {
    if (this.#mode === 'unified' && this.#tooBigForUnified === undefined) {
      const doc = this.#merge?.b.state.doc ?? this.#unified?.state.doc ?? this.#proposal;
      this.#tooBigForUnified = hunksOf(this.#original, doc).some(
        (chunk) => chunk.fromA < chunk.toA && this.#original.lineAt(chunk.endA).number - this.#original.lineAt(chunk.fromA).number >= maxUnifiedRemovedLines,
      );
    }
    return this.#mode === 'unified' && this.#tooBigForUnified ? 'split' : this.#mode;
  }

  /** The editor of the proposed side. */
  get proposedView(): EditorView {
    return (this.#merge?.b ?? this.#unified)!;
  }

  /** The proposed side's state (the last one once disposed, so a late Accept still reads what was shown). */
  get #proposedState(): EditorState {
    return this.#merge?.b.state ?? this.#unified?.state ?? this.#lastState!;
  }

  /** Exactly what the proposed side shows, in its own line endings. */
  proposedText(): string {
    return this.#proposedState.sliceDoc();
  }

  status(): DiffStatus {
    const state = this.#proposedState;
    return { ...hunkSummary(state), edited: !state.doc.eq(this.#proposal), splitForSize: this.shownMode !== this.#mode };
  }

  setMode(mode: DiffMode): void {
    if (mode === this.#mode || this.#disposed) return;
    const shown = this.shownMode;
    this.#mode = mode;
    if (this.shownMode !== shown) this.#rebuild();
    else this.#onDidChangeStatus.fire(this.status());
  }

  setCollapseUnchanged(collapse: boolean): void {
    if (collapse === this.#collapse || this.#disposed) return;
    this.#collapse = collapse;
    if (this.#merge) this.#merge.reconfigure({ collapseUnchanged: collapse ? ReviewUiConstants.collapseUnchanged : undefined });
    else this.#rebuild();
  }

  nextChange(): void {
    this.#goTo(1);
  }

  previousChange(): void {
    this.#goTo(-1);
  }

  focus(): void {
    if (!this.#disposed) this.proposedView.focus();
  }

  /** Put the diff into `slot` until the returned disposable takes it out again. */
  mount(slot: HTMLElement): IDisposable {
    slot.appendChild(this.element);
    for (const view of this.#views()) view.requestMeasure();
    return toDisposable(() => {
      if (this.element.parentElement === slot) slot.removeChild(this.element);
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#destroyViews();
    this.#onDidChangeStatus.dispose();
    this.#onDidChangeSelection.dispose();
    this.#onDidBuildViews.dispose();
    this.element.remove();
  }

  #goTo(direction: 1 | -1): void {
    if (this.#disposed) return;
    const view = this.proposedView;
    goToHunk(view, direction, !this.#navigated);
    this.#navigated = true;
    view.focus();
  }

  #views(): EditorView[] {
    if (this.#merge) return [this.#merge.a, this.#merge.b];
    return this.#unified ? [this.#unified] : [];
  }

  /** Rebuild in the current mode, carrying the proposed side's state over. */
  #rebuild(): void {
    const { state } = this.proposedView;
    const carried: Extension[] = [acceptedHunks.init(() => state.field(acceptedHunks))];
    const undo = state.field(historyField, false);
    if (undo !== undefined) carried.push(historyField.init(() => undo));
    this.#destroyViews();
    this.#build({ doc: state.doc, selection: state.selection, carried });
  }

  #destroyViews(): void {
    const view = this.#merge?.b ?? this.#unified;
    if (view) this.#lastState = view.state;
    this.#merge?.destroy();
    this.#merge = null;
    this.#unified?.destroy();
    this.#unified = null;
    this.element.replaceChildren();
  }

  /** `carried`: field values of a previous build of the proposed side (its undo history, its marks). */
  #build({ doc, selection, carried }: { doc: Text; selection: EditorSelection | undefined; carried: Extension[] }): void {
    const { editable, partial, extensions } = this.#options;
    const headers = partial && this.#options.chunkHeaders !== false;
    const proposedExtensions: Extension = [
      editorSetup({ editable, lineSeparator: this.#proposedSeparator, label: this.#options.proposedLabel ?? 'Proposed contents', diff: true }),
      carried,
      this.#language.of(this.#languageSupport),
      hunkControls({ side: 'b', original: this.#original, headers, interactive: editable && headers }),
      extensions?.proposed ?? [],
      EditorView.updateListener.of((update) => this.#onUpdate(update, 'proposed')),
    ];
    const collapse = this.#collapse ? ReviewUiConstants.collapseUnchanged : undefined;
    const mode = this.shownMode;
    this.element.dataset.mode = mode;
    if (mode === 'split') {
      this.#merge = new MergeView({
        a: {
          doc: this.#original,
          extensions: [
            editorSetup({ editable: false, lineSeparator: this.#originalSeparator, label: 'Original contents', diff: true }),
            this.#language.of(this.#languageSupport),
            hunkControls({ side: 'a', original: this.#original, headers, interactive: false, proposed: () => this.#merge?.b.state.doc ?? doc }),
            extensions?.original ?? [],
            EditorView.updateListener.of((update) => this.#onUpdate(update, 'original')),
          ],
        },
        b: { doc, ...(selection ? { selection } : {}), extensions: proposedExtensions },
        parent: this.element,
        // Word-level changes; in a wholly new or deleted file every word is one, which says nothing.
        highlightChanges: partial,
        gutter: true,
        diffConfig: reviewDiffConfig,
        ...(collapse ? { collapseUnchanged: collapse } : {}),
      });
    } else {
      const state = EditorState.create({
        doc,
        ...(selection ? { selection } : {}),
        extensions: [
          proposedExtensions,
          unifiedMergeView({
            original: this.#original,
            highlightChanges: partial,
            gutter: true,
            syntaxHighlightDeletions: true,
            mergeControls: false,
            diffConfig: reviewDiffConfig,
            ...(collapse ? { collapseUnchanged: collapse } : {}),
          }),
        ],
      });
      this.#unified = new EditorView({ state, parent: this.element });
    }
    this.#onDidBuildViews.fire();
    queueMicrotask(() => {
      if (!this.#disposed) this.#onDidChangeStatus.fire(this.status());
    });
  }

  #onUpdate(update: ViewUpdate, side: DiffSelection['side']): void {
    if (side === 'proposed' && (update.docChanged || update.selectionSet || update.transactions.some((tr) => tr.reconfigured || tr.effects.length > 0))) {
      this.#onDidChangeStatus.fire({ ...hunkSummary(update.state), edited: !update.state.doc.eq(this.#proposal), splitForSize: this.shownMode !== this.#mode });
    }
    // Selections made while the editor has focus: the person's (clicks, keys, F7), not a rebuild's.
    if (update.selectionSet && update.view.hasFocus) this.#onDidChangeSelection.fire({ side, ...selectionOf(update.state) });
  }
}
