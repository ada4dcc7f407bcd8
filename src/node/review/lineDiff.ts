/**
 * Line diffs for the review queue: the added/removed counts a review list shows, and the unified
 * diff a decided review keeps (`diff -u` format, checked against patch(1) in the tests). The
 * alignment comes from the `diff` package (Myers, on the arrays of lines: no re-tokenizing); the
 * common prefix and suffix are trimmed first (a typical edit touches a few lines of a long file)
 * and the edit distance is capped, so two unrelated files cost a bounded amount of time: past the
 * cap the differing middle is one replaced block, which is still a correct diff. Even bounded,
 * a 10 MiB file costs up to a second or two, so the Hub runs these on a worker thread
 * (reviewDiffer.ts); they stay plain functions for that worker and for tests.
 */
import { diffArrays } from 'diff';

export interface DiffOp {
  kind: 'equal' | 'delete' | 'insert';
  /** Lines with their line endings. */
  lines: string[];
}

export const LineDiffLimits = {
  /** Edit distance (lines) explored before giving up on a minimal diff. */
  maxEditDistance: 1_000,
  /** Unchanged lines shown around each change in a unified diff, as `diff -u`. */
  contextLines: 3,
} as const;

/** Lines including their endings; the last one may have none. "" has no lines. */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    if (newline === -1) {
      if (start < text.length) lines.push(text.slice(start));
      return lines;
    }
    lines.push(text.slice(start, newline + 1));
    start = newline + 1;
  }
}

export interface LineDiffOptions {
  /** Default LineDiffLimits.maxEditDistance; 0 skips the search (the middle is one replaced block: linear time). */
  maxEditDistance?: number;
}

export function diffLines(oldText: string, newText: string, options: LineDiffOptions = {}): DiffOp[] {
  return alignLines(oldText, newText, options).ops;
}

/** The alignment, and whether the differing middle had to be taken as one block (past the edit-distance cap). */
function alignLines(oldText: string, newText: string, options: LineDiffOptions): { ops: DiffOp[]; approximate: boolean } {
  const maxEditDistance = options.maxEditDistance ?? LineDiffLimits.maxEditDistance;
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const ops: DiffOp[] = [];
  push(ops, 'equal', a.slice(0, prefix));
  const middleA = a.slice(prefix, a.length - suffix);
  const middleB = b.slice(prefix, b.length - suffix);
  const middle = middleA.length === 0 || middleB.length === 0 || maxEditDistance <= 0 ? undefined : diffArrays(middleA, middleB, { maxEditLength: maxEditDistance });
  if (middle) {
    for (const change of middle) push(ops, change.added ? 'insert' : change.removed ? 'delete' : 'equal', change.value);
  } else {
    push(ops, 'delete', middleA);
    push(ops, 'insert', middleB);
  }
  push(ops, 'equal', a.slice(a.length - suffix));
  return { ops, approximate: !middle && middleA.length > 0 && middleB.length > 0 };
}

/**
 * Added and removed lines. `approximate: true` (only then present) when the differing middle was
 * counted as one replaced block (past the edit-distance cap): the counts are then upper bounds.
 */
export function diffStats(oldText: string, newText: string, options: LineDiffOptions = {}): { added: number; removed: number; approximate?: true } {
  let added = 0;
  let removed = 0;
  const { ops, approximate } = alignLines(oldText, newText, options);
  for (const op of ops) {
    if (op.kind === 'insert') added += op.lines.length;
    if (op.kind === 'delete') removed += op.lines.length;
  }
  return approximate ? { added, removed, approximate } : { added, removed };
}

/**
 * Added and removed lines of a unified diff made by `unifiedDiff` (two header lines, then hunks
 * whose every line starts with its tag): what its reader counts, in linear time, without
 * diffing again.
 */
export function unifiedDiffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  // Past the `--- ` and `+++ ` headers, which would otherwise count as a removed and an added line.
  let start = diff.indexOf('\n', diff.indexOf('\n') + 1) + 1;
  if (start === 0) return { added, removed };
  while (start < diff.length) {
    const tag = diff.charCodeAt(start);
    if (tag === 0x2b) added++;
    else if (tag === 0x2d) removed++;
    const end = diff.indexOf('\n', start);
    if (end === -1) break;
    start = end + 1;
  }
  return { added, removed };
}

/**
 * A unified diff with `--- a/<path>` / `+++ b/<path>` headers (`/dev/null` for a missing side),
 * hunks with LineDiffLimits.contextLines of context, and `\ No newline at end of file` markers.
 * "" when the texts are equal.
 */
export function unifiedDiff(path: string, oldText: string | null, newText: string | null, options: LineDiffOptions = {}): string {
  return unifiedDiffDetailed(path, oldText, newText, options).text;
}

/** unifiedDiff, and whether its middle was taken as one block (see diffStats). */
export function unifiedDiffDetailed(path: string, oldText: string | null, newText: string | null, options: LineDiffOptions = {}): { text: string; approximate: boolean } {
  const { ops, approximate } = alignLines(oldText ?? '', newText ?? '', options);
  return { text: formatUnified(path, oldText, newText, ops), approximate };
}

function formatUnified(path: string, oldText: string | null, newText: string | null, ops: DiffOp[]): string {
  if (!ops.some((op) => op.kind !== 'equal')) return '';
  const name = path.replace(/^\/+/, '');
  const out: string[] = [`--- ${oldText === null ? '/dev/null' : `a/${name}`}\n`, `+++ ${newText === null ? '/dev/null' : `b/${name}`}\n`];
  // Flatten to tagged lines, then cut hunks around the changes.
  const tagged: Array<{ tag: ' ' | '-' | '+'; line: string }> = [];
  for (const op of ops) for (const line of op.lines) tagged.push({ tag: op.kind === 'equal' ? ' ' : op.kind === 'delete' ? '-' : '+', line });
  const context = LineDiffLimits.contextLines;
  let index = 0;
  // Line numbers (1-based) of tagged[counted] in the old and new file, advanced as hunks are cut.
  let counted = 0;
  let oldLine = 1;
  let newLine = 1;
  while (index < tagged.length) {
    while (index < tagged.length && tagged[index]!.tag === ' ') index++;
    if (index >= tagged.length) break;
    const start = Math.max(0, index - context);
    let end = index;
    // Extend while the next change is within 2×context unchanged lines (hunks merge as in diff -u).
    for (;;) {
      while (end < tagged.length && tagged[end]!.tag !== ' ') end++;
      let next = end;
      while (next < tagged.length && tagged[next]!.tag === ' ') next++;
      if (next < tagged.length && next - end <= 2 * context) {
        end = next;
        continue;
      }
      end = Math.min(tagged.length, end + context);
      break;
    }
    for (; counted < start; counted++) {
      if (tagged[counted]!.tag !== '+') oldLine++;
      if (tagged[counted]!.tag !== '-') newLine++;
    }
    const oldStart = oldLine;
    const newStart = newLine;
    let oldCount = 0;
    let newCount = 0;
    const body: string[] = [];
    for (let i = start; i < end; i++) {
      const { tag, line } = tagged[i]!;
      if (tag !== '+') oldCount++;
      if (tag !== '-') newCount++;
      body.push(tag + line);
      if (!line.endsWith('\n')) body.push('\n\\ No newline at end of file\n');
    }
    out.push(`@@ -${rangeOf(oldStart, oldCount)} +${rangeOf(newStart, newCount)} @@\n`, body.join(''));
    index = end;
  }
  return out.join('');
}

function rangeOf(start: number, count: number): string {
  // diff -u names the line before an empty range.
  if (count === 0) return `${start - 1},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}

function push(ops: DiffOp[], kind: DiffOp['kind'], lines: string[]): void {
  if (lines.length === 0) return;
  const last = ops.at(-1);
  // concat, not push(...lines): spreading 200 000 lines as arguments overflows the stack.
  if (last && last.kind === kind) last.lines = last.lines.concat(lines);
  else ops.push({ kind, lines: lines.slice() });
}
