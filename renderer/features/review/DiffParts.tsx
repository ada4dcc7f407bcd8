/** The pieces of a review's diff area: the editor slot, its toolbar, and the binary-file card. */
import { useEffect, useRef, useState } from 'react';
import type { ReviewBinaryInfo, ReviewSummary } from '../../../src/common/api/reviewContract.ts';
import { ArrowDownIcon, ArrowUpIcon } from '../../app/icons.tsx';
import { keysFor } from '../../app/keybindings.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import type { DiffSelection, DiffStatus, ReviewDiffEditor } from './reviewDiffEditor.ts';
import { binaryLabel } from './reviewFormat.ts';
import { BinaryIcon, FoldIcon, SideBySideIcon, UnifiedIcon } from './reviewIcons.tsx';
import type { SendPayload } from './reviewService.ts';
import { SendToClaudeButton } from './SendToClaude.tsx';

/** Lends the editor a slot, keeps it in the chosen layout, and reports its status and selections. */
export function useDiffEditor(
  editor: ReviewDiffEditor | null,
  /** The file's absolute path (what a selection is reported and sent as). */
  path: string,
): { status: DiffStatus | null; send: SendPayload; slotRef: React.RefObject<HTMLDivElement | null> } {
  const workbench = useWorkbench();
  const review = workbench.review;
  const mode = useObservable(review.shownDiffMode);
  const collapse = useObservable(review.collapseUnchanged);
  const slotRef = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<DiffStatus | null>(null);
  const [send, setSend] = useState<SendPayload>({ kind: 'file', path });

  useEffect(() => {
    const slot = slotRef.current;
    if (!editor || !slot) return;
    const mounted = editor.mount(slot);
    setStatus(editor.status());
    // Typing changes the status and moves the cursor on every key: re-render only when what is shown changes.
    const statusSubscription = editor.onDidChangeStatus((next) => setStatus((current) => (current && sameStatus(current, next) ? current : next)));
    const selectionSubscription = editor.onDidChangeSelection((selection) => {
      const payload = sendPayloadOf(selection, path);
      setSend((current) => (samePayload(current, payload) ? current : payload));
      review.reportSelection({ source: 'diff', path, text: selection.text, range: selection.range }, payload);
    });
    return () => {
      selectionSubscription.dispose();
      statusSubscription.dispose();
      mounted.dispose();
    };
  }, [editor, review, path]);

  useEffect(() => {
    const slot = slotRef.current;
    if (!slot) return;
    review.reportDiffWidth(slot.clientWidth);
    const observer = new ResizeObserver(() => review.reportDiffWidth(slot.clientWidth));
    observer.observe(slot);
    return () => observer.disconnect();
  }, [review, editor]);
  useEffect(() => editor?.setMode(mode), [editor, mode]);
  useEffect(() => editor?.setCollapseUnchanged(collapse), [editor, collapse]);
  return { status, send, slotRef };
}

function sameStatus(a: DiffStatus, b: DiffStatus): boolean {
  return a.total === b.total && a.accepted === b.accepted && a.current === b.current && a.edited === b.edited && a.splitForSize === b.splitForSize;
}

function samePayload(a: SendPayload, b: SendPayload): boolean {
  if (a.kind === 'text') return b.kind === 'text' && a.text === b.text;
  return b.kind === 'file' && a.path === b.path && a.lineStart === b.lineStart && a.lineEnd === b.lineEnd;
}

/**
 * A selection on the original side is in the file on disk: it goes as a file reference with its
 * lines. One on the proposed side exists nowhere else: its text goes. No selection: the file.
 */
function sendPayloadOf(selection: DiffSelection, path: string): SendPayload {
  if (selection.empty) return { kind: 'file', path };
  if (selection.side === 'original') return { kind: 'file', path, lineStart: selection.lineStart, lineEnd: selection.lineEnd };
  return { kind: 'text', text: selection.text };
}

export function DiffToolbar({ editor, status, send }: { editor: ReviewDiffEditor | null; status: DiffStatus | null; send: SendPayload }) {
  const workbench = useWorkbench();
  const review = workbench.review;
  const mode = useObservable(review.shownDiffMode);
  const chosen = useObservable(review.diffMode);
  const narrow = useObservable(review.narrowDiff);
  const collapse = useObservable(review.collapseUnchanged);
  const total = status?.total ?? 0;
  const position = status && status.current >= 0 ? `Change ${status.current + 1} of ${total}` : total === 1 ? '1 change' : `${total} changes`;

  return (
    <div className="review-toolbar" role="toolbar" aria-label="Diff" data-narrow={narrow}>
      <div className="segmented review-mode" role="radiogroup" aria-label="Diff layout">
        <button type="button" role="radio" className="segment" aria-checked={mode === 'split'} onClick={() => review.chooseDiffMode('split')} title="Original and proposal next to each other">
          <SideBySideIcon width={14} height={14} /> Side by side
        </button>
        <button type="button" role="radio" className="segment" aria-checked={mode === 'unified'} onClick={() => review.chooseDiffMode('unified')} title="Removed lines above the lines that replace them">
          <UnifiedIcon width={14} height={14} /> Unified
        </button>
      </div>
      {chosen === 'split' && mode === 'unified' && !status?.splitForSize && (
        <span className="review-mode-note" title="The diff area is too narrow for two sides; widen the window, or click Side by side to show it anyway.">
          unified: too narrow for side by side
        </span>
      )}
      {status?.splitForSize && (
        <span className="review-mode-note" title="One change here replaces so many lines that the unified view would be slow to edit; it is shown side by side.">
          shown side by side: a very large change
        </span>
      )}
      <button
        type="button"
        className="toolbar-button"
        aria-pressed={collapse}
        title={collapse ? 'Unchanged lines are folded (click a fold to open it). Click to show the whole file.' : 'Fold long stretches of unchanged lines'}
        onClick={() => review.collapseUnchanged.set(!collapse)}
      >
        <FoldIcon width={14} height={14} /> Fold unchanged
      </button>
      {/* One piece: the status grows and shrinks with what it says, the toolbar's rows do not (review.css). */}
      <span className="review-change-nav">
        <span className="review-change-status" aria-live="polite">
          {position}
          {status && status.accepted > 0 && <span className="review-change-accepted"> · {status.accepted} accepted</span>}
          {status?.edited && (
            <span className="review-edited-tag" title="The proposed side differs from the proposal (you edited it or rejected a change): Accept sends it as shown">
              edited
            </span>
          )}
        </span>
        <button
          type="button"
          className="icon-button small"
          aria-label="Previous change"
          title={`Previous change (${keysFor('review.previousChange')})`}
          disabled={!editor || total === 0}
          onClick={() => editor?.previousChange()}
        >
          <ArrowUpIcon />
        </button>
        <button
          type="button"
          className="icon-button small"
          aria-label="Next change"
          title={`Next change (${keysFor('review.nextChange')})`}
          disabled={!editor || total === 0}
          onClick={() => editor?.nextChange()}
        >
          <ArrowDownIcon />
        </button>
      </span>
      <span className="review-toolbar-divider" />
      <SendToClaudeButton payload={send} />
    </div>
  );
}

/** The two sides' captions above a side-by-side diff. */
export function DiffCaptions({ original, proposed, status }: { original: string; proposed: string; status: DiffStatus | null }) {
  const mode = useObservable(useWorkbench().review.shownDiffMode);
  if (mode !== 'split' && !status?.splitForSize) return null;
  return (
    <div className="review-diff-captions" aria-hidden="true">
      <span>{original}</span>
      <span>{proposed}</span>
    </div>
  );
}

export function BinaryCard({ binary, change }: { binary: ReviewBinaryInfo; change: ReviewSummary['change'] }) {
  return (
    <div className="review-binary" role="note">
      <BinaryIcon width={28} height={28} />
      <div>
        <p className="review-binary-title">{binaryLabel(binary.newBytes ?? binary.oldBytes ?? 0)}</p>
        <p className="review-binary-detail">
          {change === 'create' && 'A new file that is not text: it cannot be shown or edited here, only accepted or rejected.'}
          {change === 'delete' && 'This binary file would be deleted.'}
          {change === 'modify' &&
            `Replaces ${binary.oldBytes === null ? 'the file' : binaryLabel(binary.oldBytes).replace('binary file, ', 'a file of ')}. Binary contents cannot be shown or edited here, only accepted or rejected.`}
        </p>
      </div>
    </div>
  );
}
