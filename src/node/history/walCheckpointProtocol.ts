/** Messages between the Hub and the WAL checkpoint worker (walCheckpointWorker.ts), and what the other connections do meanwhile. */
import { HistoryConstants } from './historyConstants.ts';

/** SQLite's default for `PRAGMA wal_autocheckpoint` (pages), restored when the worker is gone. */
const sqliteDefaultAutoCheckpoint = 1000;

/**
 * Checkpoints and WAL truncation of a connection that writes: none while the checkpoint worker
 * runs (it does both), SQLite's own way without it.
 */
export function checkpointPragmas(checkpointsInWorker: boolean): string {
  const autoCheckpointPages = checkpointsInWorker ? 0 : sqliteDefaultAutoCheckpoint;
  const journalSizeLimit = checkpointsInWorker ? -1 : HistoryConstants.walKeepBytes;
  return `PRAGMA wal_autocheckpoint = ${autoCheckpointPages}; PRAGMA journal_size_limit = ${journalSizeLimit};`;
}

export interface CheckpointWorkerData {
  databasePath: string;
  busyTimeoutMs: number;
  /** A WAL file larger than this is shrunk to nothing by a `shrinkWal` checkpoint that copied all of it. */
  shrinkWalAboveBytes: number;
}

/**
 * `shrinkWal`: after copying, also give the WAL file's space back (`wal_checkpoint(TRUNCATE)`),
 * without waiting for anyone: when a reader or writer is busy it is simply left for next time.
 */
export type CheckpointRequest = { type: 'checkpoint'; requestId: number; shrinkWal: boolean };

export type CheckpointResponse =
  /** `PRAGMA wal_checkpoint(PASSIVE)`: frames in the WAL, and how many of them are in the database now. */
  | { type: 'done'; requestId: number; walFrames: number; checkpointedFrames: number; walShrunk: boolean }
  | { type: 'failed'; requestId: number; message: string }
  /** The worker could not open the database: it stops. */
  | { type: 'unavailable'; message: string };
