/**
 * Recording transactions off the Hub's thread (historyRecordingWriter.ts, recordingWorker.ts), on
 * real PTYs and a real SQLite file: the worker writes every batch (the Hub's recording connection
 * writes nothing), reads see what was recorded the moment they ask; without a worker script, or when the worker dies, the Hub's thread records again and
 * nothing sent to the dead worker is lost.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { createHistoryMethods } from '../../../../src/node/api/historyMethods.ts';
import { RecordingWriter } from '../../../../src/node/history/historyRecordingWriter.ts';
import { HistoryStore, type SessionWrites } from '../../../../src/node/history/historyStore.ts';
import { openHistoryDatabase } from '../../../../src/node/history/historyDatabase.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createHistoryKit, type HistoryKit, syntheticSession } from './historyTestKit.ts';

let kit: HistoryKit | undefined;
afterEach(() => kit?.dispose());

/** Rows written through a connection since it opened. */
function changes(db: DatabaseSync): number {
  return (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
}

/** Rows written through the Hub's own recording connection since it opened. */
function changesOnHubThread(kit: HistoryKit): number {
  return changes(kit.history.recordingDatabase!);
}

/** A recorded terminal that prints `text` lines and exits; its session id once it has ended. */
async function recordLines(kit: HistoryKit, lines: number, word: string): Promise<string> {
  const terminal = await kit.host.create({
    file: 'bash',
    args: ['--norc', '--noprofile', '-c', `for i in $(seq 1 ${lines}); do echo "${word} $i"; done`],
    env: kit.env,
    shellIntegration: false,
    createdBy: { kind: 'agent', name: 'test-agent' },
  });
  const sessionId = kit.history.sessionOfTerminal(terminal.id)!;
  await terminal.exited;
  return sessionId;
}

describe('History recording in a worker thread (real PTYs, real SQLite)', () => {
  it('writes every batch in the worker, and a read sees everything recorded when it asks', async () => {
    kit = createHistoryKit();
    assert.equal(kit.history.recordsInWorker, false, 'no thread before anything is recorded');
    const sessionId = await recordLines(kit, 2_000, 'worker-line');
    // No flush first: the read itself waits for the batches in flight.
    const text = kit.history.read(sessionId, 0, 1024 * 1024)!.data.toString('utf8');
    assert.match(text, /worker-line 2000\r\n$/);
    assert.equal(text.match(/worker-line \d+/g)!.length, 2_000, 'every line once');
    assert.equal(kit.history.recordsInWorker, true);
    assert.equal(changesOnHubThread(kit), 0, 'the Hub’s recording connection wrote nothing');
    assert.equal(kit.history.get(sessionId)!.live, false, 'the exit is recorded');
    // The full-text index is written there too.
    const hubChangesBefore = changes(kit.history.database!);
    kit.history.indexNow();
    const hits = kit.history.search('worker-line 1999');
    assert.ok(hits.some((hit) => hit.sessionId === sessionId), 'indexed and found');
    assert.equal(changes(kit.history.database!), hubChangesBefore, 'the Hub’s connection wrote nothing while indexing');
  });

  it('a client’s read waits for the worker without holding up the Hub’s thread, and sees everything printed before it', async () => {
    kit = createHistoryKit();
    const methods = createHistoryMethods(kit.history);
    const terminal = await kit.host.create({
      file: 'bash',
      args: ['--norc', '--noprofile', '-c', 'seq 1 3000 | sed "s/^/client-read /"; echo END-OF-OUTPUT; sleep 30'],
      env: kit.env,
      shellIntegration: false,
      createdBy: { kind: 'agent', name: 'test-agent' },
    });
    const sessionId = kit.history.sessionOfTerminal(terminal.id)!;
    // Asked the moment the last line arrives (the recorder, listening first, holds it unsent), as
    // a client asking right after a command printed it.
    const asked = await new Promise<{ read: Promise<unknown>; loopTurned: () => boolean }>((resolve) => {
      const listener = terminal.onDidOutput(({ data }) => {
        if (!data.includes('END-OF-OUTPUT')) return;
        listener.dispose();
        let turned = false;
        setImmediate(() => (turned = true));
        resolve({ read: Promise.resolve(methods['history.read']({ id: sessionId, offset: 0, limit: 1024 * 1024 })), loopTurned: () => turned });
      });
    });
    const result = (await asked.read) as { data: string };
    assert.ok(asked.loopTurned(), 'the Hub’s event loop went on while the worker committed');
    const text = Buffer.from(result.data, 'base64').toString('utf8');
    assert.equal(text.match(/client-read \d+/g)!.length, 3_000, 'every line printed before the read');
    assert.match(text, /END-OF-OUTPUT\r\n$/);
    assert.equal(kit.history.recordsInWorker, true);
  });

  it('closes the worker’s connection with History: the WAL is copied into the file and removed', async () => {
    kit = createHistoryKit();
    await recordLines(kit, 500, 'closing-line');
    assert.ok(kit.history.flush());
    assert.equal(kit.history.recordsInWorker, true);
    const path = kit.history.databasePath;
    assert.ok(existsSync(`${path}-wal`), 'a WAL while History is open');
    kit.history.dispose();
    assert.equal(existsSync(`${path}-wal`), false, 'no WAL left behind: every connection closed');
  });

  it('records on the Hub’s thread without a worker script', async () => {
    kit = createHistoryKit({ recordingWorkerPath: '/nonexistent/recordingWorker.cjs' });
    const sessionId = await recordLines(kit, 200, 'inline-line');
    assert.match(kit.history.read(sessionId, 0, 65_536)!.data.toString('utf8'), /inline-line 200\r\n$/);
    assert.equal(kit.history.recordsInWorker, false);
    assert.ok(changesOnHubThread(kit) > 0, 'the Hub’s recording connection wrote the batches');
  });
});

describe('RecordingWriter when its worker dies', () => {
  it('writes the batches the worker had not answered on the Hub’s thread, in order, and everything after', async (t) => {
    const kitForDir = createHistoryKit({ start: false });
    t.after(() => kitForDir.dispose());
    const path = join(kitForDir.temp.dataDir, 'worker-dies.db');
    const opened = openHistoryDatabase({ path, logger: nullLogger });
    assert.ok(opened.ok);
    const store = new HistoryStore(opened.db);
    t.after(() => opened.db.close());
    // A worker that takes batches and dies without answering: what a crash mid-transaction leaves.
    const dying = join(kitForDir.temp.dataDir, 'dying-worker.mjs');
    writeFileSync(dying, "import { workerData } from 'node:worker_threads';\nworkerData.port.on('message', (m) => { if (m.type === 'batch') setTimeout(() => process.exit(7), 20); });\n");
    const warnings: string[] = [];
    const writer = new RecordingWriter({
      databasePath: path,
      commitInline: (writes) => store.applyBatch(writes, Number.MAX_SAFE_INTEGER),
      indexInline: (sessionId, blocks, indexedOffset) => store.indexBlocks(sessionId, blocks, indexedOffset),
      maxSessionBytes: () => Number.MAX_SAFE_INTEGER,
      checkpointsInWorker: () => false,
      logger: { ...nullLogger, warn: (message: string) => warnings.push(message), child: () => nullLogger } as typeof nullLogger,
      workerPath: dying,
    });
    t.after(() => writer.dispose());
    const batches: SessionWrites[][] = [0, 1, 2].map((index) => [syntheticSession({ startedAt: 1_000 + index, chunks: 2, text: `batch ${index}\r\n` })]);
    const outcomes: string[] = [];
    for (const [index, writes] of batches.entries()) writer.send(writes, (outcome) => outcomes.push(`${index}:${outcome.ok}`));
    assert.equal(writer.inWorker, true);
    await pollUntil(() => outcomes.length === 3, { what: 'the three outcomes' });
    assert.deepEqual(outcomes, ['0:true', '1:true', '2:true'], 'each answered once, in order');
    assert.equal(writer.inWorker, false);
    assert.match(warnings.join('\n'), /recording worker stopped/);
    for (const [writes] of batches) assert.ok(store.get(writes!.id), `session ${writes!.id} stored`);
    // And the next batch goes straight to the Hub's thread.
    const later = [syntheticSession({ startedAt: 2_000 })];
    let laterOk = false;
    writer.send(later, (outcome) => (laterOk = outcome.ok));
    assert.ok(laterOk, 'written at once');
    assert.ok(store.get(later[0]!.id));
  });

  it('the bundled worker (dist/main/recordingWorker.cjs, what the Electron app starts) records too', async (t) => {
    const bundled = fileURLToPath(new URL('../../../../dist/main/recordingWorker.cjs', import.meta.url));
    if (!existsSync(bundled)) {
      t.skip('dist/main/recordingWorker.cjs is missing: `npm run build` makes it (npm test does)');
      return;
    }
    kit = createHistoryKit({ recordingWorkerPath: bundled });
    const sessionId = await recordLines(kit, 100, 'bundled-line');
    assert.match(kit.history.read(sessionId, 0, 65_536)!.data.toString('utf8'), /bundled-line 100\r\n$/);
    assert.equal(kit.history.recordsInWorker, true);
    assert.equal(changesOnHubThread(kit), 0);
  });
});
