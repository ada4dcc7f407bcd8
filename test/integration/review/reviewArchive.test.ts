/**
 * The decided-reviews database on real SQLite files: paging that never skips a review, the bounds
 * on what it keeps, and an older database carried forward.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { ReviewDecision, ReviewItem } from '../../../src/common/api/reviewContract.ts';
import { ReviewConstants } from '../../../src/common/constants.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { FileContent } from '../../../src/node/review/fileContent.ts';
import { ReviewArchive } from '../../../src/node/review/reviewArchive.ts';
import { ReviewQueue } from '../../../src/node/review/reviewQueue.ts';

function decidedItem(id: string, at: number, text = 'new\n'): ReviewItem & { decision: ReviewDecision } {
  return {
    id,
    source: { kind: 'control', name: 'test', terminalId: null, terminalName: null, tabName: null },
    title: id,
    path: `/w/${id}.txt`,
    outsideWorkspace: false,
    change: 'modify',
    binary: null,
    stats: { added: 1, removed: 1 },
    state: 'accepted',
    createdAt: at - 10,
    oldContents: 'old\n',
    newContents: text,
    decision: { decision: 'accepted', by: 'you', at, comment: null, edited: false, finalContents: text, unifiedDiff: `-old\n+${text}` },
  };
}

const source = { kind: 'control' as const, name: 'test', terminalId: null, terminalName: null, tabName: null };

describe('decided reviews database', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-review-archive-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('pages by (decision time, id), so reviews decided in the same millisecond are never skipped', () => {
    const archive = new ReviewArchive({ path: join(dir, 'paging.db'), logger: nullLogger });
    try {
      for (const id of ['rv-a', 'rv-b', 'rv-c', 'rv-d', 'rv-e']) archive.add(decidedItem(id, 1_000));
      archive.add(decidedItem('rv-z', 2_000));
      const seen: string[] = [];
      let page = archive.list(2);
      while (page.length > 0) {
        seen.push(...page.map((summary) => summary.id));
        const last = page.at(-1)!;
        page = archive.list(2, { at: last.decision!.at, id: last.id });
      }
      assert.deepEqual(seen, ['rv-z', 'rv-e', 'rv-d', 'rv-c', 'rv-b', 'rv-a']);
      assert.deepEqual(archive.list(10, { at: 2_000 }).map((summary) => summary.id), ['rv-e', 'rv-d', 'rv-c', 'rv-b', 'rv-a'], 'a time alone still pages as before');
    } finally {
      archive.dispose();
    }
  });

  it('keeps texts for the newest reviews up to its byte budget; older ones keep metadata and line counts', () => {
    const archive = new ReviewArchive({ path: join(dir, 'budget.db'), logger: nullLogger, limits: { maxContentBytes: 250 } });
    try {
      const text = 'x'.repeat(49) + '\n'; // each review stores old (4) + new (50) + diff (55) bytes; final = new is stored once
      for (let i = 1; i <= 4; i++) archive.add(decidedItem(`rv-${i}`, i * 1_000, text));
      const kept = (id: string) => archive.get(id)!;
      assert.equal(kept('rv-4').newContents, text);
      assert.equal(kept('rv-4').decision!.finalContents, text, 'an unedited accept reads back its final contents');
      assert.equal(kept('rv-3').contentsPruned, undefined);
      assert.equal(kept('rv-2').contentsPruned, undefined, 'the review crossing the budget keeps its texts');
      const pruned = kept('rv-1');
      assert.deepEqual(
        { contentsPruned: pruned.contentsPruned, old: pruned.oldContents, new: pruned.newContents, final: pruned.decision!.finalContents, diff: pruned.decision!.unifiedDiff, stats: pruned.stats, by: pruned.decision!.by },
        { contentsPruned: true, old: null, new: null, final: null, diff: '', stats: { added: 1, removed: 1 }, by: 'you' },
      );
      assert.deepEqual(archive.list(10).map((summary) => summary.id), ['rv-4', 'rv-3', 'rv-2', 'rv-1'], 'all stay in the list');
    } finally {
      archive.dispose();
    }
  });

  it('carries a first-version database forward, texts included', () => {
    const path = join(dir, 'v1.db');
    const v1 = new DatabaseSync(path);
    v1.exec(`
      PRAGMA application_id = ${0x53775276};
      CREATE TABLE review_decisions (id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT NOT NULL, path TEXT NOT NULL, outside_workspace INTEGER NOT NULL,
        change TEXT NOT NULL, binary TEXT, added INTEGER NOT NULL, removed INTEGER NOT NULL, created_at INTEGER NOT NULL, decision TEXT NOT NULL,
        decided_by TEXT NOT NULL, decided_at INTEGER NOT NULL, comment TEXT, edited INTEGER NOT NULL, old_contents TEXT, new_contents TEXT,
        final_contents TEXT, unified_diff TEXT NOT NULL);
      CREATE INDEX review_decisions_decided_at ON review_decisions (decided_at);
      PRAGMA user_version = 1;
    `);
    v1.prepare('INSERT INTO review_decisions VALUES (?, ?, ?, ?, 0, ?, NULL, 1, 0, 5, ?, ?, 10, ?, 1, ?, ?, ?, ?)').run(
      'rv-old',
      JSON.stringify(source),
      'from v1',
      '/w/a.txt',
      'modify',
      'accepted',
      'you',
      'kept',
      'a\n',
      'a\nb\n',
      'a\nb (edited)\n',
      '--- a/w/a.txt\n+++ b/w/a.txt\n@@ -1 +1,2 @@\n a\n+b (edited)\n',
    );
    v1.close();
    const archive = new ReviewArchive({ path, logger: nullLogger });
    try {
      const item = archive.get('rv-old')!;
      assert.deepEqual(
        [item.title, item.oldContents, item.newContents, item.decision!.finalContents, item.decision!.comment, item.decision!.edited, item.stats],
        ['from v1', 'a\n', 'a\nb\n', 'a\nb (edited)\n', 'kept', true, { added: 1, removed: 0 }],
      );
      assert.match(item.decision!.unifiedDiff, /\+b \(edited\)/);
      assert.equal(archive.movedAside, null, 'migrated, not moved aside');
    } finally {
      archive.dispose();
    }
  });

  it('stores a review too big to keep whole without its texts, its diff cut short', async () => {
    const archive = new ReviewArchive({ path: null, logger: nullLogger });
    const queue = new ReviewQueue({ archive, workspaceFolders: [dir], logger: nullLogger });
    try {
      const path = join(dir, 'generated.csv');
      writeFileSync(path, '');
      const lines = Math.ceil((ReviewConstants.maxStoredReviewBytes * 1.5) / 20);
      const proposal = Array.from({ length: lines }, (_, i) => `row ${String(i).padStart(8, '0')},value\n`).join('');
      const opened = await queue.open({ source, path, proposed: FileContent.fromString(proposal) });
      queue.decide(opened.id, { decision: 'accept' }, 'you');
      assert.equal((await opened.outcome).kind, 'accepted');
      const stored = await queue.get(opened.id);
      assert.equal(stored.contentsPruned, true);
      assert.deepEqual([stored.oldContents, stored.newContents, stored.decision!.finalContents], [null, null, null]);
      assert.ok(Buffer.byteLength(stored.decision!.unifiedDiff) <= ReviewConstants.maxStoredReviewBytes + 200);
      assert.match(stored.decision!.unifiedDiff, /^--- a\/.*\n\+\+\+ b\/.*\n@@ -0,0 \+1,\d+ @@\n\+row 00000000,value\n/);
      assert.match(stored.decision!.unifiedDiff, /\n\[diff cut short: the first 2\.0 MiB of 3\.0 MiB are kept\]\n$/);
      assert.deepEqual(stored.stats, { added: lines, removed: 0 });
    } finally {
      queue.dispose();
      archive.dispose();
    }
  });

  it('flags paths outside the workspace by where they really are (symbolic links resolved)', async () => {
    const workspace = join(dir, 'ws');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(workspace);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(workspace, 'escape'));
    symlinkSync(workspace, join(elsewhere, 'back-in'));
    const archive = new ReviewArchive({ path: null, logger: nullLogger });
    const queue = new ReviewQueue({ archive, workspaceFolders: [workspace], logger: nullLogger });
    try {
      const flag = async (path: string) => (await queue.open({ source, path, proposed: FileContent.fromString('x\n') })).summary.outsideWorkspace;
      assert.equal(await flag(join(workspace, 'plain.txt')), false);
      assert.equal(await flag(join(workspace, 'escape', 'passwd')), true, 'inside by name, outside in fact');
      assert.equal(await flag(join(workspace, 'escape', 'new-dir', 'deeper', 'file.txt')), true, 'a new file judged by its nearest existing folder');
      assert.equal(await flag(join(elsewhere, 'back-in', 'file.txt')), false, 'outside by name, inside in fact');
      assert.equal(await flag(join(elsewhere, 'file.txt')), true);
    } finally {
      queue.dispose();
      archive.dispose();
    }
  });
});
