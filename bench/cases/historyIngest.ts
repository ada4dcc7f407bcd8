/**
 * History ingest: MB/s of recorded output written into switchboard.db the way the recorder writes
 * it (coalesced chunks, one transaction per batch), then indexed for full-text search (ANSI
 * stripped, FTS5). Target: ≥ 20 MB/s for both together.
 *
 * As in the app: output goes through the recording connection, indexing through the main one in
 * the indexer's bounded slices, and WAL checkpoints run in the checkpoint worker (HistoryService's
 * set-up, without its timers).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryConstants } from '../../src/node/history/historyConstants.ts';
import { openHistoryDatabase, openRecordingConnection } from '../../src/node/history/historyDatabase.ts';
import { HistoryIndexer } from '../../src/node/history/historyIndexer.ts';
import { HistoryStore } from '../../src/node/history/historyStore.ts';
import { WalCheckpointer } from '../../src/node/history/walCheckpointer.ts';
import { nullLogger } from '../../src/node/logger.ts';
import type { BenchCase } from '../benchCase.ts';
import { buildLogText, ingest, median } from './historyCorpus.ts';

export const historyIngestCase: BenchCase = {
  name: 'history-ingest',
  description: 'MB/s of output stored (16 ms chunks, one transaction per batch) and indexed for search',
  async run({ quick, log }) {
    const sizeBytes = quick ? 16 * 1024 * 1024 : 128 * 1024 * 1024;
    const rounds = quick ? 1 : 3;
    // As the recorder writes a flood: chunks of maxChunkBytes, a 16 ms batch of ~1.6 MB at 100 MB/s.
    const chunkBytes = HistoryConstants.maxChunkBytes;
    const text = Buffer.from(buildLogText(sizeBytes, 3));
    log(`${(text.length / 1024 / 1024).toFixed(0)} MiB of build-log-like output, ${chunkBytes / 1024} KiB chunks; ${rounds} round(s)`);
    const store: number[] = [];
    const index: number[] = [];
    const total: number[] = [];
    const untilCheckpointed: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'sb-bench-ingest-'));
      try {
        mkdirSync(join(dir, 'data'));
        const opened = openHistoryDatabase({ path: join(dir, 'data', HistoryConstants.databaseFileName), logger: nullLogger });
        if (!opened.ok) throw new Error(opened.reason);
        const history = new HistoryStore(opened.db);
        // As HistoryService does: output is written through the recording connection, indexed through the main one.
        const databasePath = join(dir, 'data', HistoryConstants.databaseFileName);
        const recording = history.onConnection(openRecordingConnection(databasePath));
        const checkpointer = new WalCheckpointer({ connections: [history.db, recording.db], databasePath, logger: nullLogger });
        checkpointer.noteCommitted(0); // starts the worker (the app's first write does)
        if (!checkpointer.active) log('WAL checkpoint worker not running: checkpoints run on the writing connections');
        const started = performance.now();
        ingest(recording, text, Date.now(), chunkBytes, 100, 1 << 30, (bytes) => checkpointer.noteCommitted(bytes));
        const stored = performance.now();
        new HistoryIndexer({ store: history, logger: nullLogger, onDidWrite: () => checkpointer.noteCommitted(0) }).indexAll();
        const indexed = performance.now();
        // The worker copies the WAL into the database file in the background; report when it has all of it too.
        if (checkpointer.active) await checkpointer.checkpointNow();
        const checkpointed = performance.now();
        checkpointer.dispose();
        recording.db.close();
        opened.db.close();
        store.push(text.length / ((stored - started) / 1000));
        index.push(text.length / ((indexed - stored) / 1000));
        total.push(text.length / ((indexed - started) / 1000));
        untilCheckpointed.push(text.length / ((checkpointed - started) / 1000));
        log(`round ${round + 1}: store ${(store.at(-1)! / 1e6).toFixed(1)} MB/s, index ${(index.at(-1)! / 1e6).toFixed(1)} MB/s`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return [
      { label: 'store (chunks, one transaction per batch)', value: median(store) / 1e6, unit: 'MB/s' },
      { label: 'full-text indexing (strip + FTS5)', value: median(index) / 1e6, unit: 'MB/s' },
      { label: 'ingest: store + index (target >= 20)', value: median(total) / 1e6, unit: 'MB/s' },
      { label: 'the same, until the WAL is in the db file', value: median(untilCheckpointed) / 1e6, unit: 'MB/s' },
    ];
  },
};
