/**
 * History ingest: MB/s of recorded output written into switchboard.db the way the recorder writes
 * it (coalesced chunks, one transaction per batch), then indexed for full-text search (ANSI
 * stripped, FTS5). Target: ≥ 20 MB/s for both together.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryConstants } from '../../src/node/history/historyConstants.ts';
import { openHistoryDatabase, openRecordingConnection } from '../../src/node/history/historyDatabase.ts';
import { HistoryIndexer } from '../../src/node/history/historyIndexer.ts';
import { HistoryStore } from '../../src/node/history/historyStore.ts';
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
    for (let round = 0; round < rounds; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'sb-bench-ingest-'));
      try {
        mkdirSync(join(dir, 'data'));
        const opened = openHistoryDatabase({ path: join(dir, 'data', HistoryConstants.databaseFileName), logger: nullLogger });
        if (!opened.ok) throw new Error(opened.reason);
        const history = new HistoryStore(opened.db);
        // As HistoryService does: output is written through the recording connection, indexed through the main one.
        const recording = history.onConnection(openRecordingConnection(join(dir, 'data', HistoryConstants.databaseFileName)));
        const started = performance.now();
        ingest(recording, text, Date.now(), chunkBytes, 100, 1 << 30);
        const stored = performance.now();
        new HistoryIndexer({ store: history, logger: nullLogger }).indexAll();
        const indexed = performance.now();
        recording.db.close();
        opened.db.close();
        store.push(text.length / ((stored - started) / 1000));
        index.push(text.length / ((indexed - stored) / 1000));
        total.push(text.length / ((indexed - started) / 1000));
        log(`round ${round + 1}: store ${(store.at(-1)! / 1e6).toFixed(1)} MB/s, index ${(index.at(-1)! / 1e6).toFixed(1)} MB/s`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return [
      { label: 'store (chunks, one transaction per batch)', value: median(store) / 1e6, unit: 'MB/s' },
      { label: 'full-text indexing (strip + FTS5)', value: median(index) / 1e6, unit: 'MB/s' },
      { label: 'ingest: store + index (target >= 20)', value: median(total) / 1e6, unit: 'MB/s' },
    ];
  },
};
