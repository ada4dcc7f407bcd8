/**
 * Review diffs of large files run on a real worker thread, and stay bounded when that worker is
 * slow, hangs or is missing: the Hub's thread — which also moves every pane's output — never runs
 * the expensive search itself.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReviewConstants } from '../../../src/common/constants.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { FileContent } from '../../../src/node/review/fileContent.ts';
import { diffStats, unifiedDiff } from '../../../src/node/review/lineDiff.ts';
import { ReviewArchive } from '../../../src/node/review/reviewArchive.ts';
import { ReviewDiffer } from '../../../src/node/review/reviewDiffer.ts';
import { ReviewQueue } from '../../../src/node/review/reviewQueue.ts';

/** 20 000 lines with a few edits: past the inline limit, so it goes to the worker. */
function largePair(): { oldText: string; newText: string } {
  const lines = Array.from({ length: 20_000 }, (_, i) => `const value${i} = ${i};\n`);
  const oldText = lines.join('');
  for (const at of [10, 5_000, 12_345, 19_999]) lines[at] = `const value${at} = -1; // edited\n`;
  lines.splice(7_000, 0, 'inserted();\n');
  return { oldText, newText: lines.join('') };
}

describe('review diffs off the Hub thread', () => {
  let dir: string;
  /** A worker that takes every job and never finishes it (a pathological diff, a starved core). */
  let hangingWorker: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-review-differ-'));
    hangingWorker = join(dir, 'hangingWorker.mjs');
    writeFileSync(hangingWorker, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => { for (;;) {} });\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('computes large diffs on the worker, exactly as the inline functions do', async () => {
    const differ = new ReviewDiffer({ logger: nullLogger });
    try {
      const { oldText, newText } = largePair();
      assert.ok(oldText.split('\n').length > ReviewConstants.diffInlineMaxLines, 'the case is past the inline limit');
      assert.deepEqual(await differ.stats(oldText, newText), { ...diffStats(oldText, newText), approximate: false });
      assert.deepEqual(await differ.unifiedDiff('/w/big.ts', oldText, newText), { text: unifiedDiff('/w/big.ts', oldText, newText), approximate: false });
      assert.deepEqual(await differ.unifiedDiff('/w/big.ts', null, newText), { text: unifiedDiff('/w/big.ts', null, newText), approximate: false });
      assert.deepEqual(await differ.stats('a\nb\n', 'a\nc\n'), { added: 1, removed: 1, approximate: false }, 'small ones inline');
    } finally {
      differ.dispose();
    }
  });

  it('gives up on a diff past its time budget, stops the worker and approximates, while the Hub thread keeps turning', async () => {
    const differ = new ReviewDiffer({ logger: nullLogger, workerPath: hangingWorker, timeoutMs: 300 });
    let turns = 0;
    const ticker = setInterval(() => turns++, 10);
    try {
      const { oldText, newText } = largePair();
      const stats = await differ.stats(oldText, newText);
      // The changed middle (lines 10..19 999, plus the insertion) as one replaced block: upper bounds.
      assert.deepEqual(stats, { added: 19_991, removed: 19_990, approximate: true });
      assert.ok(turns > 0, 'timers ran while the worker was busy');
      const diff = await differ.unifiedDiff('/w/big.ts', oldText, newText);
      assert.equal(diff.approximate, true);
      assert.equal(diff.text, unifiedDiff('/w/big.ts', oldText, newText, { maxEditDistance: 0 }));
    } finally {
      clearInterval(ticker);
      differ.dispose();
    }
  });

  it('diffs a medium file with a few edits on the Hub thread (a capped search), and sends one with many edits to the worker', async () => {
    const differ = new ReviewDiffer({ logger: nullLogger, workerPath: hangingWorker, timeoutMs: 300 });
    try {
      const lines = Array.from({ length: 8_000 }, (_, i) => `line ${i}\n`);
      const oldText = lines.join('');
      const fewEdits = lines.map((line, i) => (i % 2_000 === 7 ? `edited ${i}\n` : line)).join('');
      assert.deepEqual(await differ.stats(oldText, fewEdits), { added: 4, removed: 4, approximate: false }, 'exact, without the (hanging) worker');
      const diff = await differ.unifiedDiff('/w/medium.txt', oldText, fewEdits);
      assert.deepEqual(diff, { text: unifiedDiff('/w/medium.txt', oldText, fewEdits), approximate: false });
      const manyEdits = lines.map((line, i) => (i % 40 === 7 ? `edited ${i}\n` : line)).join('');
      assert.equal((await differ.stats(oldText, manyEdits)).approximate, true, 'past the inline cap: the worker (hanging here) had it');
    } finally {
      differ.dispose();
    }
  });

  it('approximates large diffs when no worker can run, and still diffs small ones exactly', async () => {
    const differ = new ReviewDiffer({ logger: nullLogger, workerPath: null });
    try {
      const { oldText, newText } = largePair();
      assert.equal((await differ.stats(oldText, newText)).approximate, true);
      assert.deepEqual(await differ.stats('x\n', 'y\nx\n'), { added: 1, removed: 0, approximate: false });
    } finally {
      differ.dispose();
    }
  });

  it('falls back to the worker beside the sources when a named script is missing', async () => {
    const differ = new ReviewDiffer({ logger: nullLogger, workerPath: join(dir, 'missing.cjs') });
    try {
      const { oldText, newText } = largePair();
      assert.equal((await differ.stats(oldText, newText)).approximate, false);
    } finally {
      differ.dispose();
    }
  });

  it('opens and decides reviews of large files with the worker busy: stats flagged approximate, the decision answered and listed at once', async () => {
    const archive = new ReviewArchive({ path: null, logger: nullLogger });
    const queue = new ReviewQueue({ archive, workspaceFolders: [dir], logger: nullLogger, diff: { workerPath: hangingWorker, timeoutMs: 300 } });
    try {
      const { oldText, newText } = largePair();
      const path = join(dir, 'big.ts');
      writeFileSync(path, oldText);
      const source = { kind: 'control' as const, name: 'test', terminalId: null, terminalName: null, tabName: null };
      const opened = await queue.open({ source, path, proposed: FileContent.fromString(newText) });
      assert.deepEqual(opened.summary.stats, { added: 19_991, removed: 19_990, approximate: true });
      const decided = queue.decide(opened.id, { decision: 'accept' }, 'you');
      const outcome = await opened.outcome;
      assert.equal(outcome.kind, 'accepted', 'the requester does not wait for the diff');
      assert.deepEqual(queue.list().decided.map((summary) => summary.id), [opened.id], 'listed while its diff is being computed');
      assert.throws(() => queue.decide(opened.id, { decision: 'reject' }, 'you'), /already accepted by you/);
      const item = await queue.get(opened.id);
      assert.equal(item.decision!.finalContents, newText);
      assert.equal(item.decision!.unifiedDiff, unifiedDiff(path, oldText, newText, { maxEditDistance: 0 }));
      assert.deepEqual(archive.get(opened.id)?.stats, decided.stats, 'archived with its flag');
    } finally {
      queue.dispose();
      archive.dispose();
    }
  });
});
