/**
 * WAL checkpoints off the Hub's thread (walCheckpointer.ts), on real PTYs and a real SQLite file:
 * the Hub's connection stops checkpointing once the worker runs, the worker's checkpoints put
 * the recorded output into the database file itself (a copy of that file without its WAL has
 * it), by themselves once recording is quiet; and without a worker — no script, or a worker that
 * dies — the connection checkpoints by itself again. The WAL file's size is the worker's as well:
 * the Hub's connections never truncate it (that stalled the Hub's thread), the worker shrinks it
 * when nobody uses it.
 */
import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pollUntil } from '../../../helpers/poll.ts';
import { openHistoryDatabase, openRecordingConnection } from '../../../../src/node/history/historyDatabase.ts';
import { HistoryConstants } from '../../../../src/node/history/historyConstants.ts';
import { HistoryStore } from '../../../../src/node/history/historyStore.ts';
import { WalCheckpointer } from '../../../../src/node/history/walCheckpointer.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { createHistoryKit, type HistoryKit, syntheticSession } from './historyTestKit.ts';

let kit: HistoryKit;
afterEach(() => kit?.dispose());

/** Runs a command that prints `bytes` bytes of text in a recorded terminal; returns its session id once it is committed. */
async function record(kit: HistoryKit, bytes: number): Promise<string> {
  const terminal = await kit.host.create({
    file: 'bash',
    args: ['-c', `yes 'a line of build output that goes on for a while' | head -c ${bytes}`],
    env: kit.env,
    shellIntegration: false,
    createdBy: { kind: 'agent', name: 'test-agent' },
  });
  const sessionId = kit.history.sessionOfTerminal(terminal.id)!;
  await terminal.exited;
  assert.ok(kit.history.flush());
  return sessionId;
}

/** The session's byte count as the database file alone has it: copied without its -wal, nothing of the WAL is seen. */
function byteCountInMainFile(kit: HistoryKit, sessionId: string): number | null {
  const copy = join(kit.temp.workspace, `main-only-${Date.now()}-${Math.random()}.db`);
  copyFileSync(kit.history.databasePath, copy);
  const db = new DatabaseSync(copy, { readOnly: true });
  try {
    const row = db.prepare('SELECT byte_count FROM sessions WHERE id = ?').get(sessionId) as { byte_count: number } | undefined;
    return row?.byte_count ?? null;
  } finally {
    db.close();
  }
}

/** `PRAGMA wal_autocheckpoint` of the Hub's connections (main and recording), which must agree. */
function autoCheckpointPages(kit: HistoryKit): number {
  const [main, recording] = [kit.history.database!, kit.history.recordingDatabase!].map((db) => (db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint);
  assert.equal(main, recording);
  return main!;
}

/** `PRAGMA journal_size_limit` of the Hub's connections (main and recording), which must agree. */
function journalSizeLimit(kit: HistoryKit): number {
  const [main, recording] = [kit.history.database!, kit.history.recordingDatabase!].map((db) => (db.prepare('PRAGMA journal_size_limit').get() as { journal_size_limit: number }).journal_size_limit);
  assert.equal(main, recording);
  return main!;
}

/** A history database in a temp dir of its own; closed and removed after the tests. */
function tempDatabase(prefix: string): { dir: string; path: string; db: DatabaseSync; store: HistoryStore } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'switchboard.db');
  const opened = openHistoryDatabase({ path, logger: nullLogger });
  assert.ok(opened.ok);
  after(() => {
    opened.db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, path, db: opened.db, store: new HistoryStore(opened.db) };
}

function walBytes(databasePath: string): number {
  return existsSync(`${databasePath}-wal`) ? statSync(`${databasePath}-wal`).size : 0;
}

describe('WAL checkpoints in a worker thread (real PTYs, real SQLite)', () => {
  it('the worker copies the WAL into the database file; the Hub connection does not checkpoint', async () => {
    kit = createHistoryKit();
    assert.equal(kit.history.checkpointsInWorker, false, 'no thread before anything is recorded');
    const bytes = 3_000_000;
    const sessionId = await record(kit, bytes);
    assert.equal(kit.history.checkpointsInWorker, true);
    assert.equal(autoCheckpointPages(kit), 0, 'the Hub connection leaves checkpoints to the worker');
    assert.equal(journalSizeLimit(kit), -1, 'and truncating the WAL');
    assert.ok(statSync(`${kit.history.databasePath}-wal`).size > bytes, 'the output is in the WAL');
    const outcome = await kit.history.checkpointNow();
    assert.ok(outcome.walFrames > bytes / 16_384, `the WAL had the output's pages (${outcome.walFrames} frames)`);
    assert.equal(outcome.checkpointedFrames, outcome.walFrames, 'all of them were copied');
    const stored = kit.history.get(sessionId)!.byteCount;
    assert.ok(stored >= bytes, `all output was recorded (${stored} bytes: the PTY turns LF into CR LF)`);
    assert.equal(byteCountInMainFile(kit, sessionId), stored, 'the database file alone has the session');
    // And the stored bytes read back through the Hub's connection as before.
    assert.equal(kit.history.read(sessionId, 0, 100)!.data.toString('utf8').slice(0, 12), 'a line of bu');
  });

  it('checkpoints by itself once recording has been quiet', async () => {
    kit = createHistoryKit();
    const sessionId = await record(kit, 500_000);
    const stored = kit.history.get(sessionId)!.byteCount;
    assert.ok(stored >= 500_000);
    await pollUntil(() => byteCountInMainFile(kit, sessionId) === stored, { timeoutMs: 10_000, what: 'the quiet checkpoint' });
  });

  it('the bundled worker (dist/main/walCheckpointWorker.cjs, what the Electron app starts) checkpoints too', async (t) => {
    const bundled = fileURLToPath(new URL('../../../../dist/main/walCheckpointWorker.cjs', import.meta.url));
    if (!existsSync(bundled)) {
      t.skip('dist/main/walCheckpointWorker.cjs is missing: `npm run build` makes it (npm test does)');
      return;
    }
    kit = createHistoryKit({ checkpointWorkerPath: bundled });
    const sessionId = await record(kit, 300_000);
    assert.equal(kit.history.checkpointsInWorker, true);
    const outcome = await kit.history.checkpointNow();
    assert.equal(outcome.checkpointedFrames, outcome.walFrames);
    assert.equal(byteCountInMainFile(kit, sessionId), kit.history.get(sessionId)!.byteCount);
  });

  it('during a long flood it checkpoints every `everyBytes`, without waiting for output to be quiet', async () => {
    const { dir, path, db, store } = tempDatabase('sb-checkpoint-');
    const checkpointer = new WalCheckpointer({ connections: [db], databasePath: path, logger: nullLogger, quietMs: 3_600_000, everyBytes: 1_000_000 }); // quiet never comes within this test
    after(() => checkpointer.dispose());
    /** Sessions (by id) the database file alone has: copied without its -wal. */
    const inMainFile = (): string[] => {
      const copy = join(dir, `copy-${Math.random()}.db`);
      copyFileSync(path, copy);
      const db = new DatabaseSync(copy, { readOnly: true });
      try {
        return (db.prepare('SELECT id FROM sessions').all() as Array<{ id: string }>).map((row) => row.id);
      } catch {
        return [];
      } finally {
        db.close();
      }
    };
    const write = (startedAt: number) => {
      const session = syntheticSession({ startedAt, chunks: 8, chunkBytes: 16_000 });
      store.applyBatch([session], 1 << 30);
      return session.id;
    };
    // A flood: each commit 128 KB; the 8th crosses everyBytes and checkpoints at once.
    const flood: string[] = [];
    for (let index = 0; index < 8; index++) {
      flood.push(write(Date.now() + index));
      checkpointer.noteCommitted(128_000);
    }
    await pollUntil(() => flood.every((id) => inMainFile().includes(id)), { timeoutMs: 10_000, what: 'the flood checkpoint' });
  });

  it('the Hub\'s COMMITs never truncate the WAL; the worker shrinks it once nobody uses it, never waiting for anyone', async () => {
    const { path, db, store } = tempDatabase('sb-shrink-');
    const recording = store.onConnection(openRecordingConnection(path));
    const reader = new DatabaseSync(path, { readOnly: true });
    const shrinkWalAboveBytes = 1_000_000;
    const checkpointer = new WalCheckpointer({ connections: [db, recording.db], databasePath: path, logger: nullLogger, quietMs: 3_600_000, shrinkWalAboveBytes });
    after(() => {
      checkpointer.dispose();
      reader.close();
      recording.db.close();
    });
    const write = (chunks: number) => {
      const session = syntheticSession({ startedAt: Date.now(), chunks, chunkBytes: 16_000 });
      recording.applyBatch([session], 1 << 30);
      checkpointer.noteCommitted(chunks * 16_000);
      return session.id;
    };

    const flood = write(200); // 3.2 MB
    for (const connection of [db, recording.db]) {
      assert.equal((connection.prepare('PRAGMA journal_size_limit').get() as { journal_size_limit: number }).journal_size_limit, -1, 'the Hub\'s connections never truncate');
    }
    const grown = walBytes(path);
    assert.ok(grown > 3_000_000, `the flood is in the WAL (${grown} bytes)`);
    const copied = await checkpointer.checkpointNow();
    assert.equal(copied.checkpointedFrames, copied.walFrames);
    assert.equal(copied.walShrunk, false, 'a checkpoint during a flood only copies');
    // The next COMMIT restarts the WAL from its start: SQLite would truncate the file in it.
    write(1);
    assert.equal(walBytes(path), grown, 'the Hub\'s COMMIT left the file as it was');

    // A reader still on the old WAL: the worker does not wait for it, and leaves the file.
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM sessions').get();
    const whileRead = await checkpointer.checkpointNow({ shrinkWal: true });
    assert.equal(whileRead.walShrunk, false);
    assert.equal(walBytes(path), grown);
    reader.exec('COMMIT');

    const shrunk = await checkpointer.checkpointNow({ shrinkWal: true });
    assert.equal(shrunk.walShrunk, true);
    assert.equal(walBytes(path), 0, 'the WAL file gave its space back');
    assert.equal(store.get(flood)!.byteCount, 200 * 16_000, 'nothing was lost');
    // Recording goes on into a fresh WAL; a small one is left as it is.
    const later = write(2);
    assert.equal(store.get(later)!.byteCount, 32_000);
    assert.equal((await checkpointer.checkpointNow({ shrinkWal: true })).walShrunk, false, `${walBytes(path)} bytes stay`);
  });

  it('the checkpoint once output is quiet shrinks a large WAL', async () => {
    const { path, db, store } = tempDatabase('sb-shrink-quiet-');
    const checkpointer = new WalCheckpointer({ connections: [db], databasePath: path, logger: nullLogger, quietMs: 100, shrinkWalAboveBytes: 1_000_000 });
    after(() => checkpointer.dispose());
    const session = syntheticSession({ startedAt: Date.now(), chunks: 100, chunkBytes: 16_000 });
    store.applyBatch([session], 1 << 30);
    checkpointer.noteCommitted(1_600_000);
    assert.ok(walBytes(path) > 1_600_000);
    await pollUntil(() => walBytes(path) === 0, { timeoutMs: 10_000, what: 'the quiet checkpoint shrinking the WAL' });
    assert.equal(store.get(session.id)!.byteCount, 1_600_000);
  });

  it('output going quiet while a flood\'s checkpoint still runs: the WAL is shrunk after it', async () => {
    const { path, db, store } = tempDatabase('sb-shrink-after-');
    // The commit crosses everyBytes (a checkpoint starts, without shrinking) and is the last one:
    // the quiet timer fires 1 ms later, while that checkpoint still waits for the worker to start.
    const checkpointer = new WalCheckpointer({ connections: [db], databasePath: path, logger: nullLogger, quietMs: 1, everyBytes: 1, shrinkWalAboveBytes: 1_000_000 });
    after(() => checkpointer.dispose());
    store.applyBatch([syntheticSession({ startedAt: Date.now(), chunks: 100, chunkBytes: 16_000 })], 1 << 30);
    checkpointer.noteCommitted(1_600_000);
    await pollUntil(() => walBytes(path) === 0, { timeoutMs: 10_000, what: 'the WAL shrunk once the running checkpoint ended' });
  });

  it('without a worker script, the Hub connection checkpoints by itself (SQLite default)', async () => {
    kit = createHistoryKit({ checkpointWorkerPath: join('/nonexistent', 'walCheckpointWorker.ts') });
    const sessionId = await record(kit, 200_000);
    assert.equal(kit.history.checkpointsInWorker, false);
    assert.equal(autoCheckpointPages(kit), 1000);
    assert.equal(journalSizeLimit(kit), HistoryConstants.walKeepBytes, 'the COMMIT that restarts the WAL truncates it, SQLite\'s way');
    await assert.rejects(kit.history.checkpointNow(), /no WAL checkpoint worker/);
    assert.equal(kit.history.read(sessionId, 0, 6)!.data.toString('utf8'), 'a line');
  });

  it('a worker that dies hands checkpoints back to the Hub connection; recording goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-dying-worker-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const dying = join(dir, 'dyingWorker.mjs');
    writeFileSync(dying, 'process.exit(7);\n');
    kit = createHistoryKit({ checkpointWorkerPath: dying });
    const first = await record(kit, 100_000);
    await pollUntil(() => autoCheckpointPages(kit) === 1000, { timeoutMs: 10_000, what: 'automatic checkpoints back on' });
    assert.equal(journalSizeLimit(kit), HistoryConstants.walKeepBytes);
    assert.equal(kit.history.checkpointsInWorker, false);
    const second = await record(kit, 100_000);
    assert.ok(kit.history.get(first)!.byteCount >= 100_000);
    assert.ok(kit.history.get(second)!.byteCount >= 100_000);
    assert.equal(kit.history.read(second, undefined, 6)!.data.toString('utf8'), 'a line');
  });
});
