/**
 * switchboard.db itself: creation (WAL, 0600), forward migrations from an older schema, a corrupt
 * or foreign file moved aside, a newer schema left alone; retention (total and age caps, oldest
 * first); full-text search over real SQLite (hits, snippets, FTS syntax typed by people, filters).
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openHistoryDatabase } from '../../../../src/node/history/historyDatabase.ts';
import { HistoryIndexer } from '../../../../src/node/history/historyIndexer.ts';
import { migrations } from '../../../../src/node/history/historySchema.ts';
import { HistoryStore } from '../../../../src/node/history/historyStore.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome } from '../../../helpers/tempHome.ts';
import { createHistoryKit, type HistoryKit, syntheticSession } from './historyTestKit.ts';

const day = 24 * 60 * 60 * 1000;
let temp: ReturnType<typeof createTempHome> | undefined;
let kit: HistoryKit | undefined;
afterEach(() => {
  kit?.dispose();
  kit = undefined;
  temp?.dispose();
  temp = undefined;
});

function tempDb(): string {
  temp = createTempHome('sb-historydb-');
  mkdirSync(temp.dataDir, { recursive: true });
  return join(temp.dataDir, 'switchboard.db');
}

describe('History database file', () => {
  it('creates a WAL database with the current schema version, private to the user', () => {
    const path = tempDb();
    const outcome = openHistoryDatabase({ path, logger: nullLogger });
    assert.ok(outcome.ok);
    assert.equal(outcome.migratedFrom, 0);
    const db = outcome.db;
    assert.equal((db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode, 'wal');
    assert.equal((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version, migrations.length);
    assert.equal((db.prepare('PRAGMA auto_vacuum').get() as { auto_vacuum: number }).auto_vacuum, 2, 'incremental');
    db.close();
    assert.equal(statSync(path).mode & 0o777, 0o600);
    // Opening again changes nothing.
    const again = openHistoryDatabase({ path, logger: nullLogger });
    assert.ok(again.ok);
    assert.equal(again.migratedFrom, migrations.length);
    again.db.close();
  });

  it('migrates a database of an older schema forward, keeping its sessions (and indexing them)', () => {
    const path = tempDb();
    // A database as the first release wrote it: schema version 1 (no full-text index yet).
    const old = openHistoryDatabase({ path, logger: nullLogger, migrations: migrations.slice(0, 1) });
    assert.ok(old.ok);
    const oldStore = new HistoryStore(old.db);
    const session = syntheticSession({ startedAt: Date.now() - 1000, text: 'legacy words from version one\r\n' });
    session.commands.push({ commandLine: 'make legacy-target', cwd: '/tmp', exitCode: 0, startOffset: 0, endOffset: 10, startedAt: Date.now() - 900, endedAt: Date.now() - 800 });
    old.db.exec('BEGIN');
    old.db.prepare("INSERT INTO sessions (id, name, file, creator_kind, creator_name, started_at, ended_at, cols, rows, live, byte_count, end_offset) VALUES (?, 'old', 'bash', 'person', 'you', ?, ?, 80, 24, 0, ?, ?)").run(session.id, session.create!.startedAt, session.create!.startedAt + 10, 1024, 1024);
    const key = (old.db.prepare('SELECT key FROM sessions WHERE id = ?').get(session.id) as { key: number }).key;
    old.db.prepare('INSERT INTO events (session, kind, at, offset, data) VALUES (?, 0, 0, 0, ?)').run(key, (session.events[0] as { data: Uint8Array }).data);
    old.db.prepare("INSERT INTO commands (session, command_line, exit_code, started_at, start_offset, end_offset) VALUES (?, 'make legacy-target', 0, ?, 0, 10)").run(key, Date.now());
    old.db.exec('COMMIT');
    assert.equal((old.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version, 1);
    void oldStore;
    old.db.close();

    const upgraded = openHistoryDatabase({ path, logger: nullLogger });
    assert.ok(upgraded.ok);
    assert.equal(upgraded.migratedFrom, 1);
    assert.equal((upgraded.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version, migrations.length);
    const store = new HistoryStore(upgraded.db);
    assert.equal(store.get(session.id)?.name, 'old');
    // The command line was indexed by the migration; the output by the indexer afterwards.
    assert.deepEqual(store.search('legacy-target', 10).map((hit) => hit.source), ['command']);
    new HistoryIndexer({ store, logger: nullLogger }).indexAll();
    assert.ok(store.search('version one', 10).some((hit) => hit.source === 'output' && hit.sessionId === session.id));
    upgraded.db.close();
  });

  it('moves a corrupt file aside and starts a new database', () => {
    const path = tempDb();
    writeFileSync(path, 'this is not an SQLite database, just some text that someone saved here\n'.repeat(100));
    const outcome = openHistoryDatabase({ path, logger: nullLogger, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
    assert.ok(outcome.ok);
    assert.equal(outcome.movedAside, `${path}.corrupt-2026-01-02T03-04-05-000Z`);
    assert.match(readFileSync(outcome.movedAside!, 'utf8'), /^this is not an SQLite database/);
    assert.equal((outcome.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version, migrations.length);
    outcome.db.close();
  });

  it('moves another program\'s SQLite database aside; leaves a newer Switchboard\'s database alone', () => {
    const path = tempDb();
    const foreign = new DatabaseSync(path);
    foreign.exec("CREATE TABLE bookmarks (url TEXT); INSERT INTO bookmarks VALUES ('https://example.com')");
    foreign.close();
    const outcome = openHistoryDatabase({ path, logger: nullLogger });
    assert.ok(outcome.ok);
    assert.ok(outcome.movedAside);
    const moved = new DatabaseSync(outcome.movedAside);
    assert.deepEqual(moved.prepare('SELECT url FROM bookmarks').all().map((row) => row.url), ['https://example.com']);
    moved.close();
    outcome.db.exec(`PRAGMA user_version = ${migrations.length + 5}`);
    outcome.db.close();

    const newer = openHistoryDatabase({ path, logger: nullLogger });
    assert.equal(newer.ok, false);
    assert.ok(!newer.ok && /newer than this Switchboard/.test(newer.reason), JSON.stringify(newer));
    assert.ok(existsSync(path), 'left where it was');
    assert.equal(readdirSync(temp!.dataDir).filter((name) => name.includes('.corrupt-')).length, 1);
  });

  it('the service reports a moved-aside file and a newer schema in its status, and keeps working or pauses', () => {
    kit = createHistoryKit({ start: false });
    const path = join(kit.temp.dataDir, 'switchboard.db');
    writeFileSync(path, Buffer.alloc(8192, 0xab));
    kit.history.start();
    const status = kit.history.status();
    assert.equal(status.state, 'recording');
    assert.match(status.movedAside ?? '', /switchboard\.db\.corrupt-/);
    kit.dispose();

    kit = createHistoryKit({ start: false });
    const db = new DatabaseSync(join(kit.temp.dataDir, 'switchboard.db'));
    db.exec(`PRAGMA application_id = ${0x53774264}; PRAGMA user_version = 999; CREATE TABLE sessions (key INTEGER PRIMARY KEY)`);
    db.close();
    kit.history.start();
    assert.equal(kit.history.status().state, 'paused');
    assert.match(kit.history.status().reason ?? '', /schema version 999/);
    assert.deepEqual(kit.history.list(), []);
  });
});

describe('History crash recovery', () => {
  it('ends the live sessions of a process that is gone, not those of another Switchboard still running', () => {
    kit = createHistoryKit({ start: false });
    const path = join(kit.temp.dataDir, 'switchboard.db');
    const opened = openHistoryDatabase({ path, logger: nullLogger });
    assert.ok(opened.ok);
    const store = new HistoryStore(opened.db);
    const orphan = syntheticSession({ startedAt: Date.now() - 5000 });
    const running = syntheticSession({ startedAt: Date.now() - 4000 });
    for (const write of [orphan, running]) {
      write.create!.live = true;
      write.create!.idleShell = false;
      delete write.patch;
    }
    store.applyBatch([orphan, running], 1 << 30);
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    opened.db.prepare('UPDATE sessions SET owner_pid = ? WHERE id = ?').run(Number(gone.stdout.trim()), orphan.id);
    // The test runner that started us: a live process that is not this one.
    opened.db.prepare('UPDATE sessions SET owner_pid = ? WHERE id = ?').run(process.ppid, running.id);
    opened.db.close();
    kit.history.start();
    const ended = kit.history.get(orphan.id)!;
    assert.equal(ended.live, false);
    assert.equal(ended.endedAt, orphan.writtenAt, 'ended at its last batch');
    assert.equal(ended.interrupted, true, 'and marked: recording stopped there, not the session');
    assert.deepEqual(kit.history.status().interrupted, { sessions: 1, lastRecordedAt: orphan.writtenAt }, 'reported at start');
    assert.equal(kit.history.get(running.id)!.live, true);
    assert.equal(kit.history.get(running.id)!.interrupted, false);
  });
});

describe('History retention', () => {
  it('prunes sessions past the age cap, oldest first, and keeps the rest', async () => {
    const now = Date.now();
    kit = createHistoryKit({ settings: { historyMaxAgeDays: 30 }, now: () => now });
    const store = kitStore(kit);
    const ancient = syntheticSession({ startedAt: now - 100 * day });
    const old = syntheticSession({ startedAt: now - 31 * day });
    const recent = syntheticSession({ startedAt: now - 29 * day });
    store.applyBatch([ancient, old, recent], 1 << 30);
    const pruned = await kit.history.pruneNow();
    assert.deepEqual(pruned, [ancient.id, old.id]);
    assert.deepEqual(kit.history.list().map((session) => session.id), [recent.id]);
  });

  it('prunes the oldest ended sessions past the total size cap, and gives the space back', async () => {
    const now = Date.now();
    kit = createHistoryKit({ settings: { historyMaxTotalMiB: 16, historyMaxAgeDays: 0 }, now: () => now });
    const store = kitStore(kit);
    const sessions = Array.from({ length: 24 }, (_, index) => syntheticSession({ startedAt: now - (100 - index) * 60_000, chunks: 16, chunkBytes: 64 * 1024 }));
    for (const session of sessions) store.applyBatch([session], 1 << 30);
    assert.ok(store.usedBytes() > 24 * 1024 * 1024);
    const pruned = await kit.history.pruneNow();
    assert.ok(store.usedBytes() <= 16 * 1024 * 1024, `used ${store.usedBytes()}`);
    assert.deepEqual(pruned, sessions.slice(0, pruned.length).map((session) => session.id), 'oldest first');
    const kept = kit.history.list({ limit: 1000 }).map((session) => session.id);
    assert.deepEqual(kept, sessions.slice(pruned.length).map((session) => session.id).reverse());
    assert.ok(kit.history.status().storedBytes <= kit.history.status().capBytes);
    // The file shrinks once the whole WAL holding the vacuum is copied into it: at once when no other
    // connection is in the way, else at the service's next tries (HistoryConstants.spaceBackAttempts).
    const file = join(kit.temp.dataDir, 'switchboard.db');
    await pollUntil(() => statSync(file).size < 24 * 1024 * 1024, { timeoutMs: 15_000, what: `the file shrank (incremental vacuum): ${statSync(file).size} bytes` });
  });
});

describe('History search (FTS5 over real SQLite)', () => {
  it('finds words in output and command lines, newest first, with marked snippets and filters', () => {
    const now = Date.now();
    kit = createHistoryKit({ now: () => now });
    const store = kitStore(kit);
    const older = syntheticSession({ startedAt: now - 2 * day, name: 'older', text: 'the quick brown fox; ' });
    const newer = syntheticSession({ startedAt: now - day, name: 'newer', text: '\x1b[31merror:\x1b[0m quick \x1b[1mfixes\x1b[0m needed\r\n' });
    newer.commands.push({ commandLine: 'npm run quick-build', cwd: '/work/app', exitCode: 2, startOffset: 0, endOffset: 100, startedAt: now - day + 10, endedAt: now - day + 20 });
    store.applyBatch([older, newer], 1 << 30);
    kit.history.indexNow();

    const hits = kit.history.search('quick');
    assert.ok(hits.length >= 3);
    assert.equal(hits[0]!.sessionId, newer.id, 'newest first');
    assert.ok(hits.every((hit) => hit.snippet.some((segment) => segment.match && segment.text.toLowerCase() === 'quick')));
    const commandHit = hits.find((hit) => hit.source === 'command')!;
    assert.equal(commandHit.sessionName, 'newer');
    assert.ok(commandHit.commandId !== null);
    assert.deepEqual(commandHit.snippet.map((segment) => segment.text).join(''), 'npm run quick-build');
    // Escape sequences were stripped before indexing: "31m" is not a word of the output.
    assert.deepEqual(kit.history.search('31m'), []);
    assert.ok(kit.history.search('error fixes').every((hit) => hit.sessionId === newer.id));
    // Phrases.
    assert.ok(kit.history.search('"brown fox"').every((hit) => hit.sessionId === older.id));
    assert.deepEqual(kit.history.search('"fox brown"'), []);
    assert.deepEqual(kit.history.search('fix*'), [], 'no prefix search: "fix" is not a word there');
    // Whatever people type: no error.
    for (const query of ['"unbalanced', 'foo AND', '*', 'NEAR(', 'quick OR', '(', 'a:b', '-', '"', 'NOT']) {
      assert.doesNotThrow(() => kit!.history.search(query), query);
    }
    assert.ok(kit.history.search('quick AND').length === 0, '"and" is a word here, and no output has it');
    assert.ok(kit.history.search('"quick').length >= 3);
    // Filters.
    assert.ok(kit.history.search('quick', { filter: { from: now - day - 1 } }).every((hit) => hit.sessionId === newer.id));
    assert.ok(kit.history.search('quick', { filter: { creator: 'generator' } }).length >= 3);
    assert.deepEqual(kit.history.search('quick', { filter: { creator: 'someone-else' } }), []);
    assert.deepEqual(kit.history.search('quick', { limit: 1 }).length, 1);
  });

  it('filters sessions by cwd (the folder or inside it), creator and exit status', () => {
    const now = Date.now();
    kit = createHistoryKit();
    const store = kitStore(kit);
    const inApp = syntheticSession({ startedAt: now - 3000 });
    inApp.create!.cwd = '/work/app';
    const inSub = syntheticSession({ startedAt: now - 2000 });
    inSub.create!.cwd = '/work/app/src';
    inSub.patch = { endedAt: now, exitCode: 1 };
    const elsewhere = syntheticSession({ startedAt: now - 1000 });
    elsewhere.create!.cwd = '/work/application';
    elsewhere.patch = { endedAt: now, exitCode: null, signal: 'SIGKILL' };
    // Closed by its person (the shell got SIGHUP): neither a success nor a failure.
    const closed = syntheticSession({ startedAt: now - 4000 });
    closed.patch = { endedAt: now, exitCode: null, signal: 'SIGHUP' };
    store.applyBatch([closed, inApp, inSub, elsewhere], 1 << 30);
    const ids = (filter: Parameters<HistoryKit['history']['list']>[0]) => kit!.history.list(filter).map((session) => session.id);
    assert.deepEqual(ids({ filter: { cwd: '/work/app' } }), [inSub.id, inApp.id]);
    assert.deepEqual(ids({ filter: { cwd: '/work/app/' } }), [inSub.id, inApp.id]);
    assert.deepEqual(ids({ filter: { exit: 'success' } }), [inApp.id]);
    assert.deepEqual(ids({ filter: { exit: 'failure' } }), [elsewhere.id, inSub.id]);
    assert.deepEqual(ids({ filter: { exit: 'running' } }), []);
    assert.deepEqual(ids({ filter: { creator: 'agent' } }), [elsewhere.id, inSub.id, inApp.id, closed.id]);
    assert.deepEqual(ids({ limit: 1 }), [elsewhere.id]);
    assert.deepEqual(ids({ before: now - 1000 }), [inSub.id, inApp.id, closed.id]);
  });
});

/** The service's store, for writing synthetic sessions in tests. */
function kitStore(kit: HistoryKit): HistoryStore {
  const db = new DatabaseSync(join(kit.temp.dataDir, 'switchboard.db'), { timeout: 5000 });
  const store = new HistoryStore(db);
  const dispose = kit.dispose;
  kit.dispose = () => {
    db.close();
    dispose();
  };
  return store;
}
