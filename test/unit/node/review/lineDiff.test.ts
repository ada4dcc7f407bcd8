import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffLines, diffStats, splitLines, unifiedDiff, unifiedDiffStats } from '../../../../src/node/review/lineDiff.ts';

/** A deterministic PRNG, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomText(next: () => number, lines: number): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', '}', '{', ''];
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(words[Math.floor(next() * words.length)]!);
  const text = out.join('\n');
  return next() < 0.5 ? text + '\n' : text;
}

function mutate(next: () => number, text: string): string {
  const lines = splitLines(text);
  const edits = Math.floor(next() * 6);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * (lines.length + 1));
    const roll = next();
    if (roll < 0.4 && lines.length > 0) lines.splice(Math.min(at, lines.length - 1), 1);
    else if (roll < 0.8) lines.splice(at, 0, `inserted ${i}\n`);
    else if (lines.length > 0) lines[Math.min(at, lines.length - 1)] = 'changed\n';
  }
  return lines.join('');
}

/** GNU diff's minimal edit counts: a minimal diff's size is unique even when its alignment is not. */
function gnuCounts(dir: string, oldText: string, newText: string): { added: number; removed: number } {
  writeFileSync(join(dir, 'old'), oldText);
  writeFileSync(join(dir, 'new'), newText);
  const result = spawnSync('diff', ['--minimal', '-U0', join(dir, 'old'), join(dir, 'new')], { encoding: 'utf8' });
  let added = 0;
  let removed = 0;
  for (const line of result.stdout.split('\n').slice(2)) {
    if (line.startsWith('+')) added++;
    if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}

describe('line diffs for reviews', () => {
  it('splits lines keeping their endings, the last one possibly without', () => {
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(splitLines('a\nb'), ['a\n', 'b']);
    assert.deepEqual(splitLines('a\r\nb\n'), ['a\r\n', 'b\n']);
  });

  it('finds diffs as small as GNU diff --minimal and that rebuild the new text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-linediff-'));
    try {
      const next = random(42);
      for (let round = 0; round < 150; round++) {
        const oldText = randomText(next, Math.floor(next() * 30));
        const newText = next() < 0.2 ? randomText(next, Math.floor(next() * 30)) : mutate(next, oldText);
        const ops = diffLines(oldText, newText);
        assert.equal(ops.filter((op) => op.kind !== 'insert').flatMap((op) => op.lines).join(''), oldText, `round ${round}: old side`);
        assert.equal(ops.filter((op) => op.kind !== 'delete').flatMap((op) => op.lines).join(''), newText, `round ${round}: new side`);
        assert.deepEqual(diffStats(oldText, newText), gnuCounts(dir, oldText, newText), `round ${round}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes unified diffs that patch(1) applies, including missing final newlines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-linediff-'));
    try {
      const next = random(7);
      for (let round = 0; round < 60; round++) {
        const oldText = randomText(next, 5 + Math.floor(next() * 40));
        const newText = mutate(next, oldText) + (next() < 0.3 ? 'tail' : '');
        const patch = unifiedDiff('/src/file.txt', oldText, newText);
        if (oldText === newText) {
          assert.equal(patch, '');
          continue;
        }
        writeFileSync(join(dir, 'target'), oldText);
        writeFileSync(join(dir, 'change.patch'), patch);
        execFileSync('patch', ['--quiet', '--force', join(dir, 'target'), join(dir, 'change.patch')]);
        assert.equal(readFileSync(join(dir, 'target'), 'utf8'), newText, `round ${round}:\n${patch}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts a unified diff\'s added and removed lines as diffStats does, headers and lines like "--- x" notwithstanding', () => {
    const next = random(17);
    for (let round = 0; round < 200; round++) {
      const oldText = randomText(next, Math.floor(next() * 30)).replace(/^/gm, () => (next() < 0.2 ? '-- ' : next() < 0.2 ? '++ ' : ''));
      const newText = randomText(next, Math.floor(next() * 30));
      const stats = diffStats(oldText, newText);
      assert.deepEqual(unifiedDiffStats(unifiedDiff('/w/f.txt', oldText, newText)), { added: stats.added, removed: stats.removed }, `round ${round}`);
    }
    assert.deepEqual(unifiedDiffStats(unifiedDiff('/w/f.txt', 'a', 'b')), { added: 1, removed: 1 }, 'with "No newline" markers');
    assert.deepEqual(unifiedDiffStats(''), { added: 0, removed: 0 });
  });

  it('names /dev/null for a created or deleted file', () => {
    assert.equal(unifiedDiff('/w/new.txt', null, 'x\n'), '--- /dev/null\n+++ b/w/new.txt\n@@ -0,0 +1 @@\n+x\n');
    assert.equal(unifiedDiff('/w/old.txt', 'x\ny\n', null), '--- a/w/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n');
  });

  it('stays bounded on two unrelated large files (a correct, if not minimal, diff)', () => {
    const oldText = Array.from({ length: 10_000 }, (_, i) => `old line ${i}\n`).join('');
    const newText = Array.from({ length: 10_000 }, (_, i) => `new line ${i}\n`).join('');
    assert.deepEqual(diffStats(oldText, newText), { added: 10_000, removed: 10_000, approximate: true }, 'counted as one block, and said so');
  });

  it('handles a 200 000-line file with a change in the middle', () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i}\n`);
    const oldText = lines.join('');
    lines[100_000] = 'changed\n';
    const patch = unifiedDiff('/big.txt', oldText, lines.join(''));
    assert.equal(patch, '--- a/big.txt\n+++ b/big.txt\n@@ -99998,7 +99998,7 @@\n line 99997\n line 99998\n line 99999\n-line 100000\n+changed\n line 100001\n line 100002\n line 100003\n');
    assert.deepEqual(diffStats(oldText, ''), { added: 0, removed: 200_000 });
  });
});
