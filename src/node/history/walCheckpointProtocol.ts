/** Messages between the Hub and the WAL checkpoint worker (walCheckpointWorker.ts). */

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
