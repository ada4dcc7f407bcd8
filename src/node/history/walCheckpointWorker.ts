/**
 * Worker thread that copies the history database's WAL into the database file (a PASSIVE
 * checkpoint) on its own connection, so the copy and its fsyncs never stall the Hub's thread —
 * the thread that reads every PTY. When asked (output has been quiet), it also shrinks a large WAL
 * file: otherwise the Hub's next COMMIT would truncate it (measured: ~30 ms of blocked Hub thread
 * after a 50 MB flood had grown the WAL to ~73 MB). See walCheckpointer.ts for when it runs.
 */
import { statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointRequest, CheckpointResponse, CheckpointWorkerData } from './walCheckpointProtocol.ts';

if (!parentPort) throw new Error('walCheckpointWorker.ts must run as a worker thread');
const port = parentPort;
const reply = (response: CheckpointResponse) => port.postMessage(response);
const data = workerData as CheckpointWorkerData;

type CheckpointRow = { busy: number; log: number; checkpointed: number };

let db: DatabaseSync | undefined;
try {
  db = new DatabaseSync(data.databasePath, { timeout: data.busyTimeoutMs });
  // As the Hub's connection: the WAL is synced before the copy, the database file after it.
  db.exec('PRAGMA synchronous = NORMAL');
} catch (error) {
  reply({ type: 'unavailable', message: error instanceof Error ? error.message : String(error) });
}

function walFileBytes(): number {
  try {
    return statSync(`${data.databasePath}-wal`).size;
  } catch {
    return 0;
  }
}

/**
 * TRUNCATE takes the write lock and waits for readers of the old WAL: with no busy wait at all it
 * holds the Hub's recorder up only for the truncation itself, and never when anyone is busy.
 */
function shrinkWal(connection: DatabaseSync): boolean {
  connection.exec('PRAGMA busy_timeout = 0');
  try {
    const row = connection.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as CheckpointRow;
    return row.busy === 0;
  } finally {
    connection.exec(`PRAGMA busy_timeout = ${data.busyTimeoutMs}`);
  }
}

port.on('message', (request: CheckpointRequest) => {
  if (request?.type !== 'checkpoint' || !Number.isInteger(request.requestId)) return;
  if (!db) {
    reply({ type: 'failed', requestId: request.requestId, message: 'the database is not open' });
    return;
  }
  try {
    const row = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as CheckpointRow;
    const copiedAll = row.busy === 0 && row.checkpointed === row.log;
    const walShrunk = request.shrinkWal === true && copiedAll && walFileBytes() > data.shrinkWalAboveBytes && shrinkWal(db);
    reply({ type: 'done', requestId: request.requestId, walFrames: row.log, checkpointedFrames: row.checkpointed, walShrunk });
  } catch (error) {
    reply({ type: 'failed', requestId: request.requestId, message: error instanceof Error ? error.message : String(error) });
  }
});
