import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Change } from '@codemirror/merge';
import { composeFromHunks, hunksOf, textOf } from '../../../renderer/features/review/hunkComposition.ts';
import { LineDiffConstants, lineFirstDiff, uniqueLineAnchors } from '../../../renderer/features/review/lineFirstDiff.ts';

/** Rebuilds b from a and the changes, checking they are ordered and the stretches between them agree. */
function apply(a: string, b: string, changes: readonly Change[]): string {
  let result = '';
  let posA = 0;
  let posB = 0;
  for (const change of changes) {
    assert.ok(change.fromA >= posA && change.fromB >= posB, 'changes are ordered and do not overlap');
    assert.equal(change.fromA - posA, change.fromB - posB, 'unchanged stretches have the same length');
    assert.equal(a.slice(posA, change.fromA), b.slice(posB, change.fromB), 'unchanged stretches are equal');
    result += a.slice(posA, change.fromA) + b.slice(change.fromB, change.toB);
    posA = change.toA;
    posB = change.toB;
  }
  assert.equal(a.slice(posA), b.slice(posB));
  return result + a.slice(posA);
}

const lines = Array.from({ length: 10_000 }, (_, index) => `export function f${index}(value: number) { return value * ${index}; }`);
const big = `${lines.join('\n')}\n`;

describe('lineFirstDiff', () => {
  it('turns a into b on small and edge-case inputs', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['', 'a\n'],
      ['a\n', ''],
      ['a\nb', 'a\nb\nc'],
      ['a\nb\nc\n', 'a\nB\nc\n'],
      ['one two three\n', 'one 2 three\n'],
      ['x\ny\nz', 'y\nz\nx'],
      ['same\n', 'same\n'],
      ['a\r\nb\r\n', 'a\r\nc\r\n'],
    ];
    for (const [a, b] of cases) assert.equal(apply(a, b, lineFirstDiff(a, b)), b, JSON.stringify([a, b]));
  });

  it('finds each of 20 one-word edits in 10 000 lines as its own change', () => {
    const edited = lines.map((line, index) => (index % 500 === 250 ? line.replace('value *', 'value /') : line));
    const proposed = `${edited.join('\n')}\n`;
    const changes = lineFirstDiff(big, proposed);
    assert.equal(apply(big, proposed, changes), proposed);
    // Word level: each change is the one character that differs.
    assert.equal(changes.length, 20);
    assert.ok(changes.every((change) => change.toA - change.fromA === 1 && change.toB - change.fromB === 1));
    assert.equal(hunksOf(textOf(big), textOf(proposed)).length, 20);
  });

  it('anchors on unique lines when the file changed too much for the bounded line diff', () => {
    // Every other line changed: far more edits than the line diff may spend.
    const edited = lines.map((line, index) => (index % 2 === 0 ? `// replaced ${index}` : line));
    assert.ok(edited.length / 2 > LineDiffConstants.maxLineEdits);
    const proposed = `${edited.join('\n')}\n`;
    const changes = lineFirstDiff(big, proposed);
    assert.equal(apply(big, proposed, changes), proposed);
    const hunks = hunksOf(textOf(big), textOf(proposed));
    assert.equal(hunks.length, 5_000);
    // Per-change decisions still compose exactly.
    const decisions = hunks.map((_, index) => (index % 2 === 0 ? ('reject' as const) : ('accept' as const)));
    const expected = `${lines.map((line, index) => (index % 4 === 2 ? `// replaced ${index}` : line)).join('\n')}\n`;
    assert.equal(composeFromHunks(big, proposed, decisions), expected);
  });

  it('makes a rewritten file one change', () => {
    const proposed = `header\n${lines.map((_, index) => `const g${index} = ${index};`).join('\n')}\nfooter\n`;
    const changes = lineFirstDiff(`header\n${big}footer\n`, proposed);
    assert.equal(apply(`header\n${big}footer\n`, proposed, changes), proposed);
    assert.equal(hunksOf(textOf(`header\n${big}footer\n`), textOf(proposed)).length, 1);
  });
});

describe('uniqueLineAnchors', () => {
  it('keeps the longest in-order run of lines unique on both sides', () => {
    const a = ['a\n', 'b\n', 'x\n', 'c\n', 'd\n', 'x\n'];
    const b = ['d\n', 'a\n', 'b\n', 'c\n', 'e\n'];
    // x is not unique; d moved before a, so only one of them can stay in order.
    assert.deepEqual(uniqueLineAnchors(a, b), [
      [0, 1],
      [1, 2],
      [3, 3],
    ]);
    assert.deepEqual(uniqueLineAnchors(['a\n'], ['b\n']), []);
  });
});
