/**
 * The diff every review view uses (plugged into @codemirror/merge as its `override`): lines first,
 * then characters within each changed block.
 *
 * Why not merge's own character diff: on a whole file it either goes quadratic (a 10 000-line
 * rewrite takes minutes) or, with its `scanLimit`, gives up on long inputs and reports the whole
 * middle of the file as one change — 20 one-word edits in 10 000 lines became a single 10 000-line
 * "change". Lines first is fast and exact on files of any length; the character pass then only
 * sees the changed blocks, which are small, so word-level highlights stay precise.
 *
 * The line diff is jsdiff's Myers, bounded by `maxLineEdits` (its cost grows with lines × edits).
 * When a file changed more than that, lines that occur exactly once on both sides anchor it (as
 * in git's patience diff, which jsdiff does not offer) and the stretches between anchors are
 * diffed the same way; with no anchors at all the file was rewritten and is one change.
 */
import { diff as characterDiff, Change } from '@codemirror/merge';
import { diffArrays } from 'diff';

export const LineDiffConstants = {
  /** Myers stops past this many line edits (about 0.1 s on 10 000 lines) and anchoring takes over. */
  maxLineEdits: 1_000,
  /** The character pass inside a block: merge's default bound, so a huge block stays linear. */
  characterScanLimit: 500,
} as const;

/** A stretch of lines both sides share, or lines of one side replaced by lines of the other. */
type LinePart = { common: string } | { removed: string; added: string };

/** Lines with their line break ("a\n", "b\n", "last"), so equal tokens are equal text. */
function tokens(text: string): string[] {
  if (text === '') return [];
  return text.split(/(?<=\n)/);
}

export function lineFirstDiff(a: string, b: string): readonly Change[] {
  const parts: LinePart[] = [];
  diffLinesInto(tokens(a), tokens(b), parts);
  const changes: Change[] = [];
  let posA = 0;
  let posB = 0;
  // The block of removed and added lines being collected (adjacent parts join).
  let removed = '';
  let added = '';
  const flush = () => {
    if (removed === '' && added === '') return;
    for (const change of characterDiff(removed, added, { scanLimit: LineDiffConstants.characterScanLimit })) {
      changes.push(new Change(change.fromA + posA, change.toA + posA, change.fromB + posB, change.toB + posB));
    }
    posA += removed.length;
    posB += added.length;
    removed = '';
    added = '';
  };
  for (const part of parts) {
    if ('common' in part) {
      flush();
      posA += part.common.length;
      posB += part.common.length;
    } else {
      removed += part.removed;
      added += part.added;
    }
  }
  flush();
  return changes;
}

function diffLinesInto(a: readonly string[], b: readonly string[], out: LinePart[]): void {
  if (a.length === 0 && b.length === 0) return;
  if (a.length === 0 || b.length === 0) {
    out.push({ removed: a.join(''), added: b.join('') });
    return;
  }
  const parts = diffArrays(a as string[], b as string[], { maxEditLength: LineDiffConstants.maxLineEdits });
  if (parts) {
    for (const part of parts) {
      const text = part.value.join('');
      out.push(part.removed ? { removed: text, added: '' } : part.added ? { removed: '', added: text } : { common: text });
    }
    return;
  }
  const anchors = uniqueLineAnchors(a, b);
  if (anchors.length === 0) {
    out.push({ removed: a.join(''), added: b.join('') });
    return;
  }
  let fromA = 0;
  let fromB = 0;
  for (const [atA, atB] of anchors) {
    diffLinesInto(a.slice(fromA, atA), b.slice(fromB, atB), out);
    out.push({ common: a[atA]! });
    fromA = atA + 1;
    fromB = atB + 1;
  }
  diffLinesInto(a.slice(fromA), b.slice(fromB), out);
}

/**
 * Pairs (index in a, index in b) of lines that occur exactly once in each, as many as can be kept
 * in order on both sides (a longest increasing subsequence, by patience sorting).
 */
export function uniqueLineAnchors(a: readonly string[], b: readonly string[]): [number, number][] {
  const seen = new Map<string, { inA: number; inB: number; atA: number; atB: number }>();
  a.forEach((line, index) => {
    const entry = seen.get(line);
    if (entry) entry.inA++;
    else seen.set(line, { inA: 1, inB: 0, atA: index, atB: -1 });
  });
  b.forEach((line, index) => {
    const entry = seen.get(line);
    if (!entry) return;
    entry.inB++;
    entry.atB = index;
  });
  const pairs: [number, number][] = [];
  for (const entry of seen.values()) if (entry.inA === 1 && entry.inB === 1) pairs.push([entry.atA, entry.atB]);
  pairs.sort((x, y) => x[0] - y[0]);

  // tails[k]: index into pairs of the smallest b-index ending an increasing run of length k+1.
  const tails: number[] = [];
  const previous = new Array<number>(pairs.length).fill(-1);
  pairs.forEach(([, atB], index) => {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (pairs[tails[middle]!]![1] < atB) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[index] = tails[low - 1]!;
    tails[low] = index;
  });
  const anchors: [number, number][] = [];
  for (let index = tails.at(-1) ?? -1; index !== -1; index = previous[index]!) anchors.push(pairs[index]!);
  return anchors.reverse();
}
