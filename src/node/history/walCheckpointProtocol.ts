/** Messages between the Hub and the WAL checkpoint worker (walCheckpointWorker.ts). */

export interface CheckpointWorkerData {
  databasePath: string;
  busyTimeoutMs: number;
}

export type CheckpointRequest = { type: 'checkpoint'; requestId: number };

export type CheckpointResponse =
  /** `PRAGMA wal_checkpoint(PASSIVE)`: frames in the WAL, and how many of them are in the database now. */
  | { type: 'done'; requestId: number; walFrames: number; checkpointedFrames: number }
  | { type: 'failed'; requestId: number; message: string }
  /** The worker could not open the database: it stops. */
  | { type: 'unavailable'; message: string };
