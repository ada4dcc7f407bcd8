/**
 * The changes ("hunks") of a proposed file and the contents composed from per-hunk decisions.
 * Pure: no DOM, so it is unit-tested in Node and shared by the diff view.
 *
 * The hunks are @codemirror/merge's chunks, built with the same diff as the diff view, so
 * "change 2" here is change 2 on screen. A chunk covers whole lines on both sides (either side may
 * be empty); positions are CodeMirror `Text` offsets, where every line break counts as one.
 *
 * Line endings: each side is split on its own separator (`lineSeparatorOf`) and the result is
 * joined with the proposal's — exactly what the proposal's editor does (its
 * `EditorState.lineSeparator` is set the same way) — so accepting everything gives back the
 * proposal byte for byte, CRLF and a missing final newline included.
 */
import { Chunk, type DiffConfig } from '@codemirror/merge';
import { ChangeSet, Text } from '@codemirror/state';
import { lineFirstDiff } from './lineFirstDiff.ts';

export type HunkDecision = 'accept' | 'reject';

/** The diff settings of every review diff: lines first, then words (see lineFirstDiff). */
export const reviewDiffConfig: DiffConfig = { override: lineFirstDiff };

/**
 * The separator to split `text` on and join it with so that it round-trips exactly: CRLF when
 * every line break is CRLF, else LF (a lone CR, or the CR of a mixed file, then stays in its line
 * as a visible character rather than being rewritten).
 */
export function lineSeparatorOf(text: string): '\n' | '\r\n' {
  let crlf = 0;
  let lf = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > 0 && lf === 0 ? '\r\n' : '\n';
}

/** `content` as a CodeMirror document split on `separator`. */
export function textOf(content: string, separator: string = lineSeparatorOf(content)): Text {
  return Text.of(content.split(separator));
}

/** A document back to a string, lines joined with `separator`. */
export function stringOf(text: Text, separator: string): string {
  return text.sliceString(0, text.length, separator);
}

/** The changed chunks between the original and the proposal, as the diff view shows them. */
export function hunksOf(original: Text, proposed: Text): readonly Chunk[] {
  return Chunk.build(original, proposed, reviewDiffConfig);
}

/**
 * The edit of the proposal that rejects one hunk: its lines are replaced by the original's. (The
 * same edit as @codemirror/merge's `rejectChunk`, but as a value, so the view and the composition
 * below make the very same change.)
 */
export function revertChange(chunk: Chunk, original: Text, proposed: Text): { from: number; to: number; insert: Text } {
  let insert = chunk.fromA === chunk.toA ? Text.empty : original.slice(chunk.fromA, chunk.endA);
  // The chunk's lines end with a line break unless they run to the end of the document.
  if (chunk.fromA !== chunk.toA && chunk.toB <= proposed.length) insert = insert.append(lineBreak);
  return { from: chunk.fromB, to: Math.min(proposed.length, chunk.toB), insert };
}

const lineBreak = Text.of(['', '']);

/**
 * The file made of the original where a hunk is rejected and of the proposal everywhere else
 * (`decisions[i]` is hunk i's; a missing decision accepts it). `proposed` may hold the reviewer's
 * own edits: a hunk they edited is composed with their edit when accepted.
 */
export function composeFromHunks(original: string, proposed: string, decisions: readonly (HunkDecision | undefined)[]): string {
  const separator = lineSeparatorOf(proposed);
  const originalText = textOf(original);
  const proposedText = textOf(proposed, separator);
  const hunks = hunksOf(originalText, proposedText);
  if (decisions.length > hunks.length) throw new RangeError(`${decisions.length} decisions for ${hunks.length} hunks`);
  const reverts = hunks.flatMap((hunk, index) => (decisions[index] === 'reject' ? [revertChange(hunk, originalText, proposedText)] : []));
  if (reverts.length === 0) return proposed;
  return stringOf(ChangeSet.of(reverts, proposedText.length).apply(proposedText), separator);
}

/** Where a hunk sits, 1-based, in the `@@ -12,3 +12,5 @@` form of unified diffs. */
export interface HunkLines {
  /** First line of the original the hunk covers (the line before it when it removes nothing). */
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

export function hunkLines(chunk: Chunk, original: Text, proposed: Text): HunkLines {
  const side = (doc: Text, from: number, to: number, end: number) => {
    const first = doc.lineAt(from).number;
    if (from === to) return { start: first - 1, lines: 0 };
    return { start: first, lines: doc.lineAt(end).number - first + 1 };
  };
  const old = side(original, chunk.fromA, chunk.toA, chunk.endA);
  const changed = side(proposed, chunk.fromB, chunk.toB, chunk.endB);
  return { oldStart: old.start, oldLines: old.lines, newStart: changed.start, newLines: changed.lines };
}

export function formatHunkLines({ oldStart, oldLines, newStart, newLines }: HunkLines): string {
  return `@@ -${oldStart},${oldLines} +${newStart},${newLines} @@`;
}
