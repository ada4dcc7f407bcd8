/**
 * Line comments on the new side of a worktree's diff: a narrow gutter where a click on a line asks
 * for a comment there ("+" shows on hover; a line with comments shows how many), and each comment
 * drawn under its line with a button to remove it. The comments themselves live in the window's
 * WorktreeReviewState; the view gets them with `setLineComments`.
 */
import { RangeSetBuilder, StateEffect, StateField, type EditorState, type Extension } from '@codemirror/state';
import { Decoration, EditorView, gutter, GutterMarker, WidgetType, type DecorationSet } from '@codemirror/view';
import type { LineComment } from './worktreeReviewState.ts';

export interface LineCommentsConfig {
  /** The person clicked the gutter of 1-based `line`. */
  onAdd(line: number): void;
  onRemove(id: number): void;
}

/** Replace the comments shown (this file's). */
export const setLineComments = StateEffect.define<readonly LineComment[]>();

const commentList = StateField.define<readonly LineComment[]>({
  create: () => [],
  update(list, tr) {
    for (const effect of tr.effects) if (effect.is(setLineComments)) list = effect.value;
    return list;
  },
});

class CountMarker extends GutterMarker {
  readonly count: number;
  constructor(count: number) {
    super();
    this.count = count;
  }
  override eq(other: CountMarker): boolean {
    return other.count === this.count;
  }
  override toDOM(): Node {
    const marker = document.createElement('span');
    marker.className = 'cm-commentMarker';
    marker.textContent = this.count > 1 ? String(this.count) : '●';
    marker.title = `${this.count === 1 ? 'A comment' : `${this.count} comments`} on this line`;
    return marker;
  }
}

class CommentWidget extends WidgetType {
  readonly comment: LineComment;
  readonly onRemove: (id: number) => void;
  constructor(comment: LineComment, onRemove: (id: number) => void) {
    super();
    this.comment = comment;
    this.onRemove = onRemove;
  }
  override eq(other: CommentWidget): boolean {
    return other.comment.id === this.comment.id && other.comment.text === this.comment.text;
  }
  override toDOM(): HTMLElement {
    // The spacing is the outer block's padding, not the box's margin: CodeMirror measures a block
    // widget's border box, and the side-by-side diff aligns the other side by that height.
    const block = document.createElement('div');
    block.className = 'cm-lineCommentBlock';
    const box = block.appendChild(document.createElement('div'));
    box.className = 'cm-lineComment';
    box.dataset.commentId = String(this.comment.id);
    const text = box.appendChild(document.createElement('span'));
    text.className = 'cm-lineCommentText';
    text.textContent = this.comment.text;
    const remove = box.appendChild(document.createElement('button'));
    remove.type = 'button';
    remove.className = 'cm-lineCommentRemove';
    remove.textContent = '×';
    remove.title = 'Remove this comment';
    remove.setAttribute('aria-label', `Remove the comment on line ${this.comment.line}`);
    remove.addEventListener('mousedown', (event) => event.preventDefault());
    remove.addEventListener('click', () => this.onRemove(this.comment.id));
    return block;
  }
  override ignoreEvent(): boolean {
    return true;
  }
}

function commentDecorations(state: EditorState, onRemove: (id: number) => void): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const sorted = [...state.field(commentList)].sort((a, b) => a.line - b.line || a.id - b.id);
  for (const comment of sorted) {
    const lineNumber = Math.min(Math.max(comment.line, 1), state.doc.lines);
    const end = state.doc.line(lineNumber).to;
    builder.add(end, end, Decoration.widget({ widget: new CommentWidget(comment, onRemove), block: true, side: 1 }));
  }
  return builder.finish();
}

export function lineComments(config: LineCommentsConfig): Extension {
  const decorations = StateField.define<DecorationSet>({
    create: (state) => commentDecorations(state, config.onRemove),
    update(value, tr) {
      if (tr.docChanged || tr.effects.some((effect) => effect.is(setLineComments))) return commentDecorations(tr.state, config.onRemove);
      return value;
    },
    provide: (field) => EditorView.decorations.from(field),
  });
  return [
    commentList,
    decorations,
    gutter({
      class: 'cm-commentGutter',
      renderEmptyElements: true,
      lineMarker(view, line) {
        const lineNumber = view.state.doc.lineAt(line.from).number;
        const count = view.state.field(commentList).filter((comment) => comment.line === lineNumber).length;
        return count > 0 ? new CountMarker(count) : null;
      },
      lineMarkerChange: (update) => update.transactions.some((tr) => tr.effects.some((effect) => effect.is(setLineComments))),
      domEventHandlers: {
        mousedown(view, line) {
          config.onAdd(view.state.doc.lineAt(line.from).number);
          return true;
        },
      },
    }),
  ];
}
