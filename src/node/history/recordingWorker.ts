/**
 * Worker thread that writes History's recording batches and full-text index blocks
 * (historyRecordingWriter.ts), so their transactions — SQLite's page writes, FTS5's merges and the
 * kernel's write-back throttling under a flood, measured at 3.5 s of 15 s of the Hub's thread
 * with 20 flooding terminals, single commits up to 0.6 s — never stall the thread that reads every
 * PTY and answers every client.
 *
 * Writes go in the order they come. After a recording batch failed (disk full, I/O error) every
 * later batch is refused untried until the Hub resumes, so nothing is stored past a gap the Hub
 * does not know about. Index blocks are not held back: the indexer resumes from the indexed
 * offsets stored with them, whatever failed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { describe, openRecordingConnection } from './historyDatabase.ts';
import { HistoryStore } from './historyStore.ts';
import type { RecordingRequest, RecordingResponse, RecordingWorkerData } from './recordingProtocol.ts';
import { checkpointPragmas } from './walCheckpointProtocol.ts';

if (!parentPort) throw new Error('recordingWorker.ts must run as a worker thread');
const data = workerData as RecordingWorkerData;
// A port of its own (not parentPort): the Hub takes answers off it synchronously while it waits for them.
const port = data.port;
const outcomes = new Int32Array(data.outcomes);

function reply(response: RecordingResponse): void {
  port.postMessage(response);
  // Posted first, counted second: a Hub that wakes on the count finds the message on its port.
  Atomics.add(outcomes, 0, 1);
  Atomics.notify(outcomes, 0);
}

let store: HistoryStore | undefined;
try {
  store = new HistoryStore(openRecordingConnection(data.databasePath));
} catch (error) {
  reply({ type: 'unavailable', message: describe(error) });
}

let failed = false;
let checkpointsInWorker: boolean | null = null;

port.on('message', (request: RecordingRequest) => {
  if (!store) return;
  switch (request.type) {
    case 'forget':
      store.forgetCachedKeys();
      return;
    case 'resume':
      failed = false;
      return;
    case 'close':
      store.db.close();
      store = undefined;
      reply({ type: 'closed' });
      return;
    case 'index':
      try {
        store.indexBlocks(request.sessionId, request.blocks, request.indexedOffset);
        reply({ type: 'done', seq: request.seq, result: null });
      } catch (error) {
        reply({ type: 'failed', seq: request.seq, message: describe(error), skipped: false });
      }
      return;
    case 'batch': {
      if (failed) {
        reply({ type: 'failed', seq: request.seq, message: 'an earlier batch failed', skipped: true });
        return;
      }
      try {
        if (request.checkpointsInWorker !== checkpointsInWorker) {
          store.db.exec(checkpointPragmas(request.checkpointsInWorker));
          checkpointsInWorker = request.checkpointsInWorker;
        }
        reply({ type: 'done', seq: request.seq, result: store.applyBatch(request.writes, request.maxSessionBytes) });
      } catch (error) {
        failed = true;
        reply({ type: 'failed', seq: request.seq, message: describe(error), skipped: false });
      }
    }
  }
});
