/** Messages between the Hub and History's writer worker (recordingWorker.ts): recording batches and index blocks. */
import type { MessagePort } from 'node:worker_threads';
import type { Block } from './historyIndexer.ts';
import type { BatchResult, SessionWrites } from './historyStore.ts';

export interface RecordingWorkerData {
  databasePath: string;
  /**
   * Int32Array over a SharedArrayBuffer: [0] counts the outcomes the worker has posted. The Hub
   * waits on it (Atomics.wait) when it must see its writes committed before it goes on (a read).
   */
  outcomes: SharedArrayBuffer;
  /** Requests come and outcomes go on this port (transferred). */
  port: MessagePort;
}

export type RecordingRequest =
  /**
   * One batch in one transaction. `checkpointsInWorker`: the WAL checkpoint worker runs, so this
   * connection neither checkpoints nor truncates the WAL (walCheckpointer.ts).
   */
  | { type: 'batch'; seq: number; writes: SessionWrites[]; maxSessionBytes: number; checkpointsInWorker: boolean }
  /** A session's full-text blocks and its new indexed offset, in one transaction (the indexer's write). */
  | { type: 'index'; seq: number; sessionId: string; blocks: Block[]; indexedOffset: number }
  /** These sessions were deleted through another connection: forget their cached keys. */
  | { type: 'forget'; ids: string[] }
  /** After a failure every batch is refused until this arrives (the Hub resumes recording). */
  | { type: 'resume' }
  /** The Hub is closing History: close the connection (answered with `closed`). */
  | { type: 'close' };

export type RecordingResponse =
  /** `result` for a batch; null for index blocks. */
  | { type: 'done'; seq: number; result: BatchResult | null }
  /** Nothing of the batch was stored; `skipped`: not tried, an earlier batch had failed. */
  | { type: 'failed'; seq: number; message: string; skipped: boolean }
  | { type: 'closed' }
  /** The worker could not open the database: it stops, and the Hub records on its own thread. */
  | { type: 'unavailable'; message: string };
