/**
 * Git's hunks in a worktree's diff: a header above each ("Hunk 2 of 3 · @@ -12,7 +12,9 @@") and,
 * on the new side, a Discard button that undoes that hunk in the working tree (`worktree.discard`
 * with the hunk's text, which git applies in reverse). The headers follow git's hunks, not the
 * diff view's own changes, because git's hunk is what can be discarded; the view's "Change 2 of 5"
 * headers are off for this diff (ReviewDiffEditorOptions.chunkHeaders).
 *
 * Once the person edits the new side the hunks no longer describe the text shown: Discard is
 * disabled until the edits are saved (the diff is read again) or undone.
 */
import { RangeSetBuilder, StateField, type EditorState, type Extension, type Text } from '@codemirror/state';
import { Decoration, EditorView, WidgetType, type DecorationSet } from '@codemirror/view';
import type { DiffHunk } from '../../../../src/common/api/workspaceContract.ts';

export interface GitHunkHeadersConfig {
  side: 'a' | 'b';
  hunks: readonly DiffHunk[];
  /** Side `b`: discard hunk `index`; null: no Discard buttons (the committed scope, a read-only diff). */
  onDiscard: ((hunk: DiffHunk, index: number) => void) | null;
}

/** Where hunk `hunk`'s header goes in `doc`: the start of its first line on that side. */
export function hunkHeaderPosition(doc: Text, hunk: Pick<DiffHunk, 'oldStart' | 'oldLines' | 'newStart' | 'newLines'>, side: 'a' | 'b'): number {
  const start = side === 'a' ? hunk.oldStart : hunk.newStart;
  const lines = side === 'a' ? hunk.oldLines : hunk.newLines;
  // A side with no lines (a file added or deleted whole) names the line before the hunk: 0 for the file's start.
  const lineNumber = lines === 0 ? start + 1 : start;
  if (lineNumber < 1) return 0;
  if (lineNumber > doc.lines) return doc.length;
  return doc.line(lineNumber).from;
}

type ButtonState = 'none' | 'enabled' | { disabled: string };

class GitHunkHeaderWidget extends WidgetType {
  readonly index: number;
  readonly total: number;
  readonly hunk: DiffHunk;
  readonly buttonState: ButtonState;
  readonly onDiscard: GitHunkHeadersConfig['onDiscard'];

  constructor(index: number, total: number, hunk: DiffHunk, buttonState: ButtonState, onDiscard: GitHunkHeadersConfig['onDiscard']) {
    super();
    this.index = index;
    this.total = total;
    this.hunk = hunk;
    this.buttonState = buttonState;
    this.onDiscard = onDiscard;
  }

  override eq(other: GitHunkHeaderWidget): boolean {
    return (
      other.index === this.index &&
      other.total === this.total &&
      other.hunk.text === this.hunk.text &&
      JSON.stringify(other.buttonState) === JSON.stringify(this.buttonState)
    );
  }

  override get estimatedHeight(): number {
    return 30;
  }

  override toDOM(): HTMLElement {
    const header = document.createElement('div');
    header.className = 'cm-hunkHeader cm-gitHunkHeader';
    header.dataset.hunkIndex = String(this.index);
    const title = header.appendChild(document.createElement('span'));
    title.className = 'cm-hunkTitle';
    title.textContent = `Hunk ${this.index + 1} of ${this.total}`;
    if (this.buttonState !== 'none') {
      // Before the range: a header is as wide as the editor, and its right end may be out of view.
      const actions = header.appendChild(document.createElement('span'));
      actions.className = 'cm-hunkActions';
      const discard = actions.appendChild(document.createElement('button'));
      discard.type = 'button';
      discard.className = 'cm-hunkButton';
      discard.dataset.action = 'discard';
      discard.textContent = 'Discard';
      discard.setAttribute('aria-label', `Discard hunk ${this.index + 1}`);
      if (this.buttonState === 'enabled') {
        discard.title = 'Undo this hunk in the worktree’s files (the agent’s change is gone from disk)';
      } else {
        discard.disabled = true;
        discard.title = this.buttonState.disabled;
      }
      discard.addEventListener('mousedown', (event) => event.preventDefault());
      discard.addEventListener('click', () => this.onDiscard?.(this.hunk, this.index));
    }
    const range = header.appendChild(document.createElement('span'));
    range.className = 'cm-hunkRange';
    range.textContent = this.hunk.header;
    return header;
  }

  override ignoreEvent(): boolean {
    return true;
  }
}

interface HeaderState {
  decorations: DecorationSet;
  /** The document the hunks describe: edits make the buttons disabled. */
  readonly original: Text;
  edited: boolean;
}

export function gitHunkHeaders(config: GitHunkHeadersConfig): Extension {
  const buttonState = (edited: boolean): ButtonState => {
    if (config.side === 'a' || !config.onDiscard) return 'none';
    return edited ? { disabled: 'You edited this file: save or undo your edits first, then discard hunks' } : 'enabled';
  };
  const build = (state: EditorState, positions: readonly number[] | null, edited: boolean): DecorationSet => {
    const builder = new RangeSetBuilder<Decoration>();
    const entries = config.hunks.map((hunk, index) => ({ hunk, index, position: positions?.[index] ?? hunkHeaderPosition(state.doc, hunk, config.side) }));
    entries.sort((a, b) => a.position - b.position);
    for (const { hunk, index, position } of entries) {
      const widget = new GitHunkHeaderWidget(index, config.hunks.length, hunk, buttonState(edited), config.onDiscard);
      // side -2: above the merge view's own widgets at that spot (the unified view's deleted lines).
      builder.add(position, position, Decoration.widget({ widget, block: true, side: -2 }));
    }
    return builder.finish();
  };
  const field = StateField.define<HeaderState>({
    create: (state) => ({ decorations: build(state, null, false), original: state.doc, edited: false }),
    update(value, tr) {
      if (!tr.docChanged) return value;
      const decorations = value.decorations.map(tr.changes);
      const edited = !tr.state.doc.eq(value.original);
      if (edited === value.edited) return { ...value, decorations };
      // Enable or disable the buttons where the headers are now.
      const positions: number[] = [];
      decorations.between(0, tr.state.doc.length, (from, _to, decoration) => {
        const widget = decoration.spec.widget as GitHunkHeaderWidget;
        positions[widget.index] = from;
      });
      return { decorations: build(tr.state, positions, edited), original: value.original, edited };
    },
    provide: (field) => EditorView.decorations.from(field, (value) => value.decorations),
  });
  return field;
}
