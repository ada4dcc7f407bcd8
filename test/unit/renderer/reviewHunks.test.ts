import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  composeFromHunks,
  formatHunkLines,
  hunkLines,
  hunksOf,
  lineSeparatorOf,
  revertChange,
  stringOf,
  textOf,
} from '../../../renderer/features/review/hunkComposition.ts';

/** Twenty numbered lines; far apart edits to them become separate hunks. */
function numbered(count = 20, separator = '\n', finalNewline = true): string {
  const lines = Array.from({ length: count }, (_, index) => `line ${index + 1}`);
  return lines.join(separator) + (finalNewline ? separator : '');
}

/** `text` with 1-based line `number` replaced by `replacement` (several lines allowed). */
function replaceLine(text: string, number: number, replacement: string, separator = '\n'): string {
  const lines = text.split(separator);
  lines[number - 1] = replacement;
  return lines.join(separator);
}

function hunkCount(original: string, proposed: string): number {
  return hunksOf(textOf(original), textOf(proposed)).length;
}

describe('composeFromHunks', () => {
  const original = numbered();
  // Three separate changes: a modified line, two inserted lines, a deleted line (made bottom-up,
  // so the line numbers are the original's).
  const proposed = replaceLine(replaceLine(original.replace('line 17\n', ''), 10, 'line 10\nextra a\nextra b'), 3, 'line three');

  it('finds three hunks', () => {
    assert.equal(hunkCount(original, proposed), 3);
  });

  it('accept all gives the proposal, reject all gives the original', () => {
    assert.equal(composeFromHunks(original, proposed, []), proposed);
    assert.equal(composeFromHunks(original, proposed, ['accept', 'accept', 'accept']), proposed);
    assert.equal(composeFromHunks(original, proposed, ['reject', 'reject', 'reject']), original);
  });

  it('composes a mix: each rejected hunk comes from the original', () => {
    const rejectMiddle = composeFromHunks(original, proposed, ['accept', 'reject', 'accept']);
    assert.equal(rejectMiddle, replaceLine(original, 3, 'line three').replace('line 17\n', ''));
    const onlyMiddle = composeFromHunks(original, proposed, ['reject', 'accept', 'reject']);
    assert.equal(onlyMiddle, replaceLine(original, 10, 'line 10\nextra a\nextra b'));
    // An undecided hunk counts as accepted.
    assert.equal(composeFromHunks(original, proposed, ['reject']), composeFromHunks(original, proposed, ['reject', 'accept', 'accept']));
  });

  it('keeps the reviewer’s edit inside an accepted hunk and drops it with a rejected one', () => {
    const edited = proposed.replace('extra a', 'extra a, edited by the reviewer');
    assert.equal(hunkCount(original, edited), 3);
    const accepted = composeFromHunks(original, edited, ['reject', 'accept', 'reject']);
    assert.equal(accepted, replaceLine(original, 10, 'line 10\nextra a, edited by the reviewer\nextra b'));
    assert.equal(composeFromHunks(original, edited, ['accept', 'reject', 'accept']), replaceLine(original, 3, 'line three').replace('line 17\n', ''));
  });

  it('treats an edit that makes a new hunk as a hunk of its own', () => {
    const edited = replaceLine(proposed, 6, 'line 6 (reviewer)');
    assert.equal(hunkCount(original, edited), 4);
    assert.equal(composeFromHunks(original, edited, ['reject', 'accept', 'reject', 'reject']), replaceLine(original, 6, 'line 6 (reviewer)'));
  });

  it('keeps CRLF line endings byte for byte', () => {
    const crlfOriginal = numbered(20, '\r\n');
    const crlfProposed = replaceLine(replaceLine(crlfOriginal, 2, 'two', '\r\n'), 15, 'fifteen\r\nand a half', '\r\n');
    assert.equal(lineSeparatorOf(crlfProposed), '\r\n');
    assert.equal(composeFromHunks(crlfOriginal, crlfProposed, []), crlfProposed);
    assert.equal(composeFromHunks(crlfOriginal, crlfProposed, ['reject', 'reject']), crlfOriginal);
    assert.equal(composeFromHunks(crlfOriginal, crlfProposed, ['reject', 'accept']), replaceLine(crlfOriginal, 15, 'fifteen\r\nand a half', '\r\n'));
  });

  it('keeps a missing final newline, and adding or removing one is a change', () => {
    const noNewline = numbered(20, '\n', false);
    const changed = replaceLine(noNewline, 20, 'line twenty');
    assert.equal(composeFromHunks(noNewline, changed, []), changed);
    assert.equal(composeFromHunks(noNewline, changed, ['reject']), noNewline);
    assert.ok(!composeFromHunks(noNewline, changed, []).endsWith('\n'));

    const withNewline = `${noNewline}\n`;
    assert.equal(hunkCount(noNewline, withNewline), 1);
    assert.equal(composeFromHunks(noNewline, withNewline, ['accept']), withNewline);
    assert.equal(composeFromHunks(noNewline, withNewline, ['reject']), noNewline);
    assert.equal(composeFromHunks(withNewline, noNewline, ['reject']), withNewline);
  });

  it('handles a new file (empty original) and a deleted file (empty proposal)', () => {
    const file = 'export const answer = 42;\n';
    assert.equal(hunkCount('', file), 1);
    assert.equal(composeFromHunks('', file, ['accept']), file);
    assert.equal(composeFromHunks('', file, ['reject']), '');
    assert.equal(composeFromHunks(file, '', ['accept']), '');
    assert.equal(composeFromHunks(file, '', ['reject']), file);
  });

  it('changes at the very start and end of the file', () => {
    const changed = `first\n${replaceLine(original, 20, 'last')}`;
    assert.equal(hunkCount(original, changed), 2);
    assert.equal(composeFromHunks(original, changed, ['reject', 'accept']), replaceLine(original, 20, 'last'));
    assert.equal(composeFromHunks(original, changed, ['accept', 'reject']), `first\n${original}`);
  });

  it('keeps characters outside the basic plane and a lone CR inside a line', () => {
    const emojiOriginal = 'a 😀 b\nkeep\n';
    const emojiProposed = 'a 😀😀 b\nkeep\n';
    assert.equal(composeFromHunks(emojiOriginal, emojiProposed, ['reject']), emojiOriginal);
    const mixed = 'one\r\ntwo\nthree\rstill three\n';
    assert.equal(lineSeparatorOf(mixed), '\n');
    assert.equal(composeFromHunks(mixed, `${mixed}four\n`, ['accept']), `${mixed}four\n`);
    assert.equal(composeFromHunks(mixed, `${mixed}four\n`, ['reject']), mixed);
  });

  it('refuses more decisions than hunks', () => {
    assert.throws(() => composeFromHunks('a\n', 'b\n', ['accept', 'reject']), RangeError);
  });
});

describe('revertChange', () => {
  it('is the edit that puts one hunk back, leaving the others', () => {
    const original = textOf(numbered());
    const proposed = textOf(replaceLine(replaceLine(numbered(), 4, 'four'), 16, 'sixteen'));
    const [first, second] = hunksOf(original, proposed);
    const reverted = revertChange(second!, original, proposed);
    const after = proposed.replace(reverted.from, reverted.to, reverted.insert);
    assert.equal(stringOf(after, '\n'), replaceLine(numbered(), 4, 'four'));
    assert.equal(hunksOf(original, after).length, 1);
    assert.equal(hunksOf(original, after)[0]!.fromA, first!.fromA);
  });
});

describe('lineSeparatorOf', () => {
  it('picks CRLF only when every line break is CRLF', () => {
    assert.equal(lineSeparatorOf(''), '\n');
    assert.equal(lineSeparatorOf('no breaks'), '\n');
    assert.equal(lineSeparatorOf('a\nb\n'), '\n');
    assert.equal(lineSeparatorOf('a\r\nb\r\n'), '\r\n');
    assert.equal(lineSeparatorOf('a\r\nb\n'), '\n');
    assert.equal(lineSeparatorOf('\nstarts with LF'), '\n');
  });

  it('round-trips any text through textOf and stringOf', () => {
    for (const text of ['', '\n', '\r\n', 'a\r\nb', 'a\rb\nc', 'x\r\n\r\ny\r\n', '\r', 'tail\r']) {
      const separator = lineSeparatorOf(text);
      assert.equal(stringOf(textOf(text, separator), separator), text, JSON.stringify(text));
    }
  });
});

describe('hunkLines', () => {
  it('describes hunks the way unified diffs do', () => {
    const original = textOf(numbered(10));
    const proposed = textOf(replaceLine(numbered(10).replace('line 8\n', ''), 2, 'two\ntwo and a half'));
    const [modified, removed] = hunksOf(original, proposed);
    assert.equal(formatHunkLines(hunkLines(modified!, original, proposed)), '@@ -2,1 +2,2 @@');
    assert.deepEqual(hunkLines(removed!, original, proposed), { oldStart: 8, oldLines: 1, newStart: 8, newLines: 0 });
    const added = hunksOf(textOf(''), textOf('a\nb\n'))[0]!;
    assert.deepEqual(hunkLines(added, textOf(''), textOf('a\nb\n')), { oldStart: 0, oldLines: 0, newStart: 1, newLines: 2 });
  });
});
