/**
 * Per-change controls in a review diff: a header above each changed chunk ("Change 2 of 5",
 * `@@ -12,3 +12,5 @@`, Accept / Reject), which changes the reviewer marked accepted, and the
 * Reject edit itself.
 *
 * The proposed side is always exactly what Accept sends: rejecting a change reverts its lines to
 * the original's right there (an ordinary, undoable edit — `revertChange` from the pure
 * hunkComposition module), so it is no longer a change. Accepting a change keeps it and marks it
 * reviewed; the original side stays the file on disk, so every change is still shown against it.
 * Marks are keyed by the chunk's start in the original, which never changes.
 */
import { getChunks, type Chunk } from '@codemirror/merge';
import { invertedEffects } from '@codemirror/commands';
import { Facet, RangeSetBuilder, StateEffect, StateField, type EditorState, type Extension, type Text } from '@codemirror/state';
import { Decoration, EditorView, WidgetType, type DecorationSet } from '@codemirror/view';
import { formatHunkLines, hunkLines, revertChange } from './hunkComposition.ts';

export interface HunkControlsConfig {
  /** Which side of the diff this editor is: `a` (original) shows the headers only; `b` (proposal) may show the buttons. */
  side: 'a' | 'b';
  /** The original document (never changes while a review is shown). */
  original: Text;
  /**
   * On side `a` of a side-by-side diff: the proposed side's current document (the other editor's),
   * for the `+l,s` half of the labels; null before that editor exists.
   */
  proposed?: () => Text | null;
  /** Show a header above each change (not for a whole new or deleted file: one change, all of it). */
  headers: boolean;
  /** Show Accept / Reject on each change's header (a pending review the person may edit). */
  interactive: boolean;
}

const hunkConfig = Facet.define<HunkControlsConfig, HunkControlsConfig | null>({ combine: (values) => values[0] ?? null });

/** Mark (or unmark) the change that starts at `key` in the original as accepted. */
export const setHunkAccepted = StateEffect.define<{ key: number; accepted: boolean }>();

/** Keys (chunk starts in the original) of the changes the reviewer accepted. */
export const acceptedHunks = StateField.define<ReadonlySet<number>>({
  create: () => new Set(),
  update(accepted, tr) {
    let next = accepted;
    for (const effect of tr.effects) {
      if (!effect.is(setHunkAccepted)) continue;
      if (next === accepted) next = new Set(accepted);
      if (effect.value.accepted) (next as Set<number>).add(effect.value.key);
      else (next as Set<number>).delete(effect.value.key);
    }
    return next;
  },
  toJSON: (accepted) => [...accepted],
  fromJSON: (json: unknown) => new Set(Array.isArray(json) ? json.filter((key): key is number => typeof key === 'number') : []),
});

/** The key of a chunk for `acceptedHunks`. */
export function hunkKey(chunk: Chunk): number {
  return chunk.fromA;
}

export interface HunkSummary {
  total: number;
  accepted: number;
  /** 0-based index of the change at (or after) the cursor of this editor, or -1. */
  current: number;
}

export function hunkSummary(state: EditorState): HunkSummary {
  const chunks = getChunks(state)?.chunks ?? [];
  const accepted = state.field(acceptedHunks, false) ?? new Set<number>();
  const config = state.facet(hunkConfig);
  const head = state.selection.main.head;
  const isA = config?.side === 'a';
  let current = -1;
  for (let index = 0; index < chunks.length; index++) {
    const chunk = chunks[index]!;
    const to = isA ? chunk.endA : chunk.endB;
    if (head <= to) {
      current = index;
      break;
    }
  }
  return { total: chunks.length, accepted: chunks.filter((chunk) => accepted.has(hunkKey(chunk))).length, current };
}

/** Reject a change: its lines become the original's again, and its accepted mark goes. */
export function rejectHunk(view: EditorView, chunk: Chunk): void {
  const config = view.state.facet(hunkConfig);
  if (!config) return;
  const key = hunkKey(chunk);
  const wasAccepted = view.state.field(acceptedHunks, false)?.has(key) ?? false;
  view.dispatch({
    changes: revertChange(chunk, config.original, view.state.doc),
    effects: wasAccepted ? setHunkAccepted.of({ key, accepted: false }) : [],
    userEvent: 'revert',
  });
}

/** Toggle a change's accepted mark (undoable). */
export function toggleHunkAccepted(view: EditorView, chunk: Chunk): void {
  const key = hunkKey(chunk);
  const accepted = view.state.field(acceptedHunks, false)?.has(key) ?? false;
  view.dispatch({ effects: setHunkAccepted.of({ key, accepted: !accepted }), userEvent: 'select.hunk' });
}

/**
 * Move the cursor to the next (or previous) change, wrapping around, with its header in view.
 * `includeCurrent`: a change starting right at the cursor counts as the next one (the first F7).
 */
export function goToHunk(view: EditorView, direction: 1 | -1, includeCurrent = false): boolean {
  const chunks = getChunks(view.state)?.chunks ?? [];
  const config = view.state.facet(hunkConfig);
  if (chunks.length === 0 || !config) return false;
  const isA = config.side === 'a';
  const from = (chunk: Chunk) => (isA ? chunk.fromA : chunk.fromB);
  const head = view.state.selection.main.head;
  // Back from inside a change stops at its start first, as in VS Code's diff editor.
  const target = direction > 0 ? (chunks.find((chunk) => from(chunk) > head || (includeCurrent && from(chunk) === head)) ?? chunks[0]) : ([...chunks].reverse().find((chunk) => from(chunk) < head) ?? chunks.at(-1));
  if (!target) return false;
  const position = Math.min(from(target), view.state.doc.length);
  view.dispatch({
    selection: { anchor: position },
    effects: EditorView.scrollIntoView(position, { y: 'start', yMargin: 64 }),
    userEvent: 'select.byChunk',
  });
  return true;
}

class HunkHeaderWidget extends WidgetType {
  readonly #index: number;
  readonly #total: number;
  readonly #label: string;
  readonly #accepted: boolean;
  readonly #buttons: boolean;

  constructor(index: number, total: number, label: string, accepted: boolean, buttons: boolean) {
    super();
    this.#index = index;
    this.#total = total;
    this.#label = label;
    this.#accepted = accepted;
    this.#buttons = buttons;
  }

  override eq(other: HunkHeaderWidget): boolean {
    return (
      other.#index === this.#index &&
      other.#total === this.#total &&
      other.#label === this.#label &&
      other.#accepted === this.#accepted &&
      other.#buttons === this.#buttons
    );
  }

  override get estimatedHeight(): number {
    return 30;
  }

  override toDOM(view: EditorView): HTMLElement {
    const header = document.createElement('div');
    header.className = 'cm-hunkHeader';
    header.dataset.hunkIndex = String(this.#index);
    if (this.#accepted) header.dataset.accepted = 'true';
    const title = header.appendChild(document.createElement('span'));
    title.className = 'cm-hunkTitle';
    title.textContent = `Change ${this.#index + 1} of ${this.#total}`;
    const range = document.createElement('span');
    range.className = 'cm-hunkRange';
    range.textContent = this.#label;
    if (!this.#buttons) {
      header.appendChild(range);
      return header;
    }

    // The buttons come before the range: a header is as wide as the longest line, so anything
    // pushed to its right end could be out of view.
    const actions = header.appendChild(document.createElement('span'));
    actions.className = 'cm-hunkActions';
    const chunkHere = () => {
      const position = view.posAtDOM(header);
      return getChunks(view.state)?.chunks.find((chunk) => Math.min(chunk.fromB, view.state.doc.length) === position);
    };
    const accept = actions.appendChild(document.createElement('button'));
    accept.type = 'button';
    accept.className = 'cm-hunkButton';
    accept.dataset.action = 'accept';
    accept.setAttribute('aria-pressed', String(this.#accepted));
    accept.setAttribute('aria-label', `Accept change ${this.#index + 1}`);
    accept.title = this.#accepted ? 'Accepted: click to unmark it' : 'Keep this change';
    accept.textContent = this.#accepted ? '✓ Accepted' : 'Accept';
    const reject = actions.appendChild(document.createElement('button'));
    reject.type = 'button';
    reject.className = 'cm-hunkButton';
    reject.dataset.action = 'reject';
    reject.setAttribute('aria-label', `Reject change ${this.#index + 1}`);
    reject.title = 'Put back the original lines (Ctrl+Z undoes it)';
    reject.textContent = 'Reject';
    // Mouse down would move the editor's cursor into the header; the click does the work.
    for (const button of [accept, reject]) button.addEventListener('mousedown', (event) => event.preventDefault());
    accept.addEventListener('click', () => {
      const chunk = chunkHere();
      if (chunk) toggleHunkAccepted(view, chunk);
    });
    reject.addEventListener('click', () => {
      const chunk = chunkHere();
      if (chunk) rejectHunk(view, chunk);
    });
    header.appendChild(range);
    return header;
  }

  override ignoreEvent(): boolean {
    return true;
  }
}

function buildHeaders(state: EditorState): DecorationSet {
  const config = state.facet(hunkConfig);
  const chunks = getChunks(state)?.chunks;
  if (!config?.headers || !chunks || chunks.length === 0) return Decoration.none;
  const accepted = state.field(acceptedHunks, false) ?? new Set<number>();
  const isA = config.side === 'a';
  const builder = new RangeSetBuilder<Decoration>();
  const proposed = isA ? (config.proposed?.() ?? null) : state.doc;
  chunks.forEach((chunk, index) => {
    const label = proposed ? formatHunkLines(hunkLines(chunk, config.original, proposed)) : '';
    const widget = new HunkHeaderWidget(index, chunks.length, label, !isA && accepted.has(hunkKey(chunk)), !isA && config.interactive);
    const position = Math.min(isA ? chunk.fromA : chunk.fromB, state.doc.length);
    // side -2: above the merge view's own widgets at that spot (the unified view's deleted lines).
    builder.add(position, position, Decoration.widget({ widget, block: true, side: -2 }));
  });
  return builder.finish();
}

const hunkHeaders = StateField.define<DecorationSet>({
  create: buildHeaders,
  update(headers, tr) {
    const chunksChanged = getChunks(tr.state)?.chunks !== getChunks(tr.startState)?.chunks;
    const marksChanged = tr.state.field(acceptedHunks, false) !== tr.startState.field(acceptedHunks, false);
    if (chunksChanged || marksChanged || tr.reconfigured) return buildHeaders(tr.state);
    return headers.map(tr.changes);
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** Undo puts an accepted mark back (or takes it away) along with the edit it came with. */
const invertMarks = invertedEffects.of((tr) =>
  tr.effects.filter((effect) => effect.is(setHunkAccepted)).map((effect) => setHunkAccepted.of({ key: effect.value.key, accepted: !effect.value.accepted })),
);

export function hunkControls(config: HunkControlsConfig): Extension {
  return [hunkConfig.of(config), acceptedHunks, hunkHeaders, invertMarks];
}
