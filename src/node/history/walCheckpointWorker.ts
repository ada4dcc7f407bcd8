/**
 * Worker thread that copies the history database's WAL into the database file (a PASSIVE
 * checkpoint) on its own connection, so the copy and its fsyncs never stall the Hub's thread —
 * the thread that reads every PTY. See walCheckpointer.ts for when it runs.
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointRequest, CheckpointResponse, CheckpointWorkerData } from './walCheckpointProtocol.ts';

if (!parentPort) throw new Error('walCheckpointWorker.ts must run as a worker thread');
const port = parentPort;
const reply = (response: CheckpointResponse) => port.postMessage(response);
const data = workerData as CheckpointWorkerData;

let db: DatabaseSync | undefined;
try {
  db = new DatabaseSync(data.databasePath, { timeout: data.busyTimeoutMs });
  // As the Hub's connection: the WAL is synced before the copy, the database file after it.
  db.exec('PRAGMA synchronous = NORMAL');
} catch (error) {
  reply({ type: 'unavailable', message: error instanceof Error ? error.message : String(error) });
}

port.on('message', (request: CheckpointRequest) => {
  if (request?.type !== 'checkpoint' || !Number.isInteger(request.requestId)) return;
  if (!db) {
    reply({ type: 'failed', requestId: request.requestId, message: 'the database is not open' });
    return;
  }
  try {
    const row = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { busy: number; log: number; checkpointed: number };
    reply({ type: 'done', requestId: request.requestId, walFrames: row.log, checkpointedFrames: row.checkpointed });
  } catch (error) {
    reply({ type: 'failed', requestId: request.requestId, message: error instanceof Error ? error.message : String(error) });
  }
});
