/**
 * The full-text indexer over a real SQLite file: blocks are exact byte ranges of output (so a hit's
 * snippet, cut from those bytes, marks the word), a multi-MB backlog is indexed whole in bounded
 * slices, words on chunk boundaries are found, indexing resumes where it stopped (also inside a
 * chunk) without indexing anything twice, and a live session becomes searchable once its output
 * pauses.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { plainText } from '../../../../src/common/terminal/ansiStrip.ts';
import { HistoryConstants } from '../../../../src/node/history/historyConstants.ts';
import { openHistoryDatabase } from '../../../../src/node/history/historyDatabase.ts';
import { HistoryIndexer } from '../../../../src/node/history/historyIndexer.ts';
import { HistoryStore, type SessionWrites } from '../../../../src/node/history/historyStore.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome } from '../../../helpers/tempHome.ts';
import { syntheticSession } from './historyTestKit.ts';

let temp: ReturnType<typeof createTempHome> | undefined;
let close: (() => void) | undefined;
afterEach(() => {
  close?.();
  temp?.dispose();
  temp = close = undefined;
});

function openStore(): HistoryStore {
  temp ??= createTempHome('sb-history-index-');
  mkdirSync(temp.dataDir, { recursive: true });
  const opened = openHistoryDatabase({ path: join(temp.dataDir, 'switchboard.db'), logger: nullLogger });
  assert.ok(opened.ok);
  close = () => opened.db.close();
  return new HistoryStore(opened.db);
}

/** `text` as a session, cut into recorder-sized chunks (so words fall on chunk boundaries). */
function sessionOf(text: string, live = false): SessionWrites {
  const write = syntheticSession({ startedAt: Date.now() - 60_000 });
  const bytes = Buffer.from(text);
  write.events = [];
  for (let offset = 0; offset < bytes.length; offset += HistoryConstants.maxChunkBytes) {
    write.events.push({ kind: 'output', at: offset / 1000, offset, data: bytes.subarray(offset, offset + HistoryConstants.maxChunkBytes) });
  }
  if (live) {
    write.create!.live = true;
    delete write.patch;
  }
  return write;
}

/** Colourful log lines with a marker word every `every` lines. */
function logText(lines: number, every: number): { text: string; markers: string[] } {
  const parts: string[] = [];
  const markers: string[] = [];
  for (let index = 0; index < lines; index++) {
    const marker = index % every === 0 ? `marker${index}x` : '';
    if (marker) markers.push(marker);
    parts.push(`\x1b[32m[${String(index).padStart(6, '0')}]\x1b[0m building module ${index} ${marker} élan ✓\r\n`);
  }
  return { text: parts.join(''), markers };
}

/**
 * A clock that moves only while blocks are inserted, `msPerChar` per char of their text plus
 * `pauseMs(insertNumber)`: reading looks free, so only the indexer's insert estimate can end a
 * slice. Returns the clock and the chars of each insert (one per slice for a single session).
 */
function insertClock(store: HistoryStore, msPerChar: number, pauseMs: (insert: number) => number = () => 0): { now: () => number; slices: number[] } {
  let clock = 0;
  const slices: number[] = [];
  const indexBlocks = store.indexBlocks.bind(store);
  store.indexBlocks = (sessionId, blocks, indexedOffset) => {
    const chars = blocks.reduce((sum, block) => sum + block.text.length, 0);
    slices.push(chars);
    clock += chars * msPerChar + pauseMs(slices.length);
    indexBlocks(sessionId, blocks, indexedOffset);
  };
  return { now: () => clock, slices };
}

describe('History full-text indexer', () => {
  it('indexes exact byte ranges: every marker is found once, with its snippet marked', () => {
    const store = openStore();
    const { text, markers } = logText(6000, 97);
    const write = sessionOf(text);
    store.applyBatch([write], 1 << 30);
    new HistoryIndexer({ store, logger: nullLogger }).indexAll();
    const blocks = store.db.prepare('SELECT offset, end_offset FROM search_blocks WHERE source = 0 ORDER BY offset').all() as Array<{ offset: number; end_offset: number }>;
    assert.ok(blocks.length > 10);
    // The blocks tile the output exactly, with no gap or overlap.
    assert.equal(blocks[0]!.offset, 0);
    for (let index = 1; index < blocks.length; index++) assert.equal(blocks[index]!.offset, blocks[index - 1]!.end_offset);
    assert.equal(blocks.at(-1)!.end_offset, Buffer.byteLength(text));
    assert.ok(blocks.every((block) => block.end_offset - block.offset <= HistoryConstants.searchBlockChars));
    for (const marker of markers) {
      const hits = store.search(marker, 10);
      assert.equal(hits.length, 1, marker);
      assert.ok(hits[0]!.snippet.some((segment) => segment.match && segment.text === marker), `${marker}: ${JSON.stringify(hits[0]!.snippet)}`);
      const read = store.read(write.id, hits[0]!.offset, 64 * 1024)!;
      assert.ok(plainText(read.data.toString()).includes(marker), 'the hit offset is at or before its text');
    }
    assert.equal(store.search('élan', 1000).length, blocks.length, 'accented words too');
    assert.equal(store.search('32m', 10).length, 0, 'escape sequences are not text');
  });

  it('indexes a backlog of many MB in bounded slices: every block tiles the output and every marker is found', () => {
    const store = openStore();
    const { text, markers } = logText(100_000, 997);
    const write = sessionOf(text);
    store.applyBatch([write], 1 << 30);
    let writes = 0;
    new HistoryIndexer({ store, logger: nullLogger, onDidWrite: () => writes++ }).indexAll();
    const blocks = store.db.prepare('SELECT offset, end_offset FROM search_blocks WHERE source = 0 ORDER BY offset').all() as Array<{ offset: number; end_offset: number }>;
    assert.equal(blocks[0]!.offset, 0);
    for (let index = 1; index < blocks.length; index++) assert.equal(blocks[index]!.offset, blocks[index - 1]!.end_offset, `block ${index} follows the one before`);
    assert.equal(blocks.at(-1)!.end_offset, Buffer.byteLength(text));
    for (const marker of markers) assert.equal(store.search(marker, 10).length, 1, marker);
    assert.ok(writes >= 1);
    assert.deepEqual(store.sessionsToIndex(10), []);
  });

  it('finds a word that straddles two stored chunks', () => {
    const store = openStore();
    const filler = 'x'.repeat(HistoryConstants.maxChunkBytes - 5);
    const write = sessionOf(`${filler} straddling word here\r\n`);
    assert.equal(write.events.length, 2);
    store.applyBatch([write], 1 << 30);
    new HistoryIndexer({ store, logger: nullLogger }).indexAll();
    const hits = store.search('straddling', 10);
    assert.equal(hits.length, 1);
    assert.ok(hits[0]!.snippet.some((segment) => segment.match && segment.text === 'straddling'));
  });

  it('resumes where it stopped, inside a chunk, and indexes nothing twice', () => {
    const store = openStore();
    const { text, markers } = logText(3000, 50);
    const write = sessionOf(text);
    store.applyBatch([write], 1 << 30);
    new HistoryIndexer({ store, logger: nullLogger }).indexAll();
    const blocks = store.db.prepare('SELECT id, offset FROM search_blocks WHERE source = 0 ORDER BY offset').all() as Array<{ id: number; offset: number }>;
    // As if the app had been killed with the second half not indexed: drop its blocks, move the mark back.
    const resumeBlock = blocks[Math.floor(blocks.length / 2)]!;
    assert.notEqual(resumeBlock.offset % HistoryConstants.maxChunkBytes, 0, 'the resume point is inside a chunk');
    store.db.prepare('DELETE FROM search WHERE rowid IN (SELECT id FROM search_blocks WHERE offset >= ? AND source = 0)').run(resumeBlock.offset);
    store.db.prepare('DELETE FROM search_blocks WHERE offset >= ? AND source = 0').run(resumeBlock.offset);
    store.db.prepare('UPDATE sessions SET indexed_offset = ?').run(resumeBlock.offset);
    new HistoryIndexer({ store, logger: nullLogger }).indexAll();
    for (const marker of markers) assert.equal(store.search(marker, 10).length, 1, marker);
    const after = store.db.prepare('SELECT count(*) AS n FROM search_blocks WHERE source = 0').get() as { n: number };
    assert.equal(after.n, blocks.length);
    // A third indexer finds nothing left to do.
    new HistoryIndexer({ store, logger: nullLogger }).indexAll();
    assert.equal((store.db.prepare('SELECT count(*) AS n FROM search_blocks').get() as { n: number }).n, blocks.length);
  });

  it('a slice\'s budget covers inserting what it read: a slow FTS5 insert makes the next slices read less', () => {
    const store = openStore();
    const { text, markers } = logText(40_000, 997); // ~2.6 MB, ~1.6 M chars of text
    store.applyBatch([sessionOf(text)], 1 << 30);
    // Inserts cost 0.4 µs per char. (Budgeting the reading alone read everything at once.)
    const insertMsPerChar = 4e-4;
    const { now, slices } = insertClock(store, insertMsPerChar);
    new HistoryIndexer({ store, logger: nullLogger, now }).indexAll();

    const totalChars = slices.reduce((sum, chars) => sum + chars, 0);
    assert.ok(totalChars > 1_500_000, `the text was indexed (${totalChars} chars; every marker is checked below)`);
    assert.ok(slices.length > 20, `in many slices (${slices.length})`);
    // The first slice trusts the initial estimate; from the second on, the measured cost keeps
    // each slice within its budget, give or take one stored chunk.
    const budgetChars = HistoryConstants.indexSliceMs / insertMsPerChar;
    for (const [index, chars] of slices.slice(1).entries()) {
      assert.ok(chars <= budgetChars + HistoryConstants.maxChunkBytes, `slice ${index + 2} read ${chars} chars (budget ${budgetChars})`);
    }
    for (const marker of markers) assert.equal(store.search(marker, 5).length, 1, marker);
  });

  it('one slow insert (a GC pause) shrinks the next slice only: the estimate recovers, also for CJK text', () => {
    const store = openStore();
    // ~3 MB of CJK lines: a stored chunk of 16 000 bytes is only ~5 300 chars of text.
    const text = Array.from({ length: 40_000 }, (_, index) => `行${index} 日本語のテキストです 構築中\r\n`).join('');
    store.applyBatch([sessionOf(text)], 1 << 30);
    const insertMsPerChar = 1e-4;
    // The second insert is held up by a pause that has nothing to do with its size.
    const { now, slices } = insertClock(store, insertMsPerChar, (insert) => (insert === 2 ? 5_000 : 0));
    new HistoryIndexer({ store, logger: nullLogger, now }).indexAll();

    const budgetChars = HistoryConstants.indexSliceMs / insertMsPerChar;
    // Right after the pause one small slice; from the next one on, full slices again.
    assert.ok(slices[2]! < budgetChars / 4, `the slice after the pause read little (${slices[2]} chars)`);
    for (const [index, chars] of slices.slice(3, -1).entries()) {
      assert.ok(chars > budgetChars / 2, `slice ${index + 4} read ${chars} chars again (budget ${budgetChars}); all: ${slices.join(', ')}`);
    }
    assert.equal(store.search('構築中', 1).length, 1);
  });

  it('waits while recording is paused (a full disk), and goes on once it resumes', async () => {
    const store = openStore();
    store.applyBatch([sessionOf('$ echo heldword\r\nheldword\r\n$ ')], 1 << 30);
    const indexer = new HistoryIndexer({ store, logger: nullLogger });
    try {
      indexer.pause();
      indexer.noteWritten();
      // Well past the quiet delay: a running indexer would have indexed it (the next test shows how soon).
      await new Promise((resolve) => setTimeout(resolve, HistoryConstants.indexQuietMs * 4));
      assert.equal(store.search('heldword', 10).length, 0, 'nothing indexed while paused');
      indexer.resume();
      await pollUntil(() => store.search('heldword', 10).length > 0, { what: 'indexed after resume' });
    } finally {
      indexer.dispose();
    }
  });

  it('makes a live session searchable once its output pauses', async () => {
    const store = openStore();
    const write = sessionOf('$ echo pausedword\r\npausedword\r\n$ ', true);
    store.applyBatch([write], 1 << 30);
    const indexer = new HistoryIndexer({ store, logger: nullLogger });
    try {
      indexer.noteWritten();
      await pollUntil(() => store.search('pausedword', 10).length > 0, { what: 'the live session indexed', timeoutMs: 20_000 });
      assert.deepEqual(store.sessionsToIndex(10), []);
    } finally {
      indexer.dispose();
    }
  });
});
