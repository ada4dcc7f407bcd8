/**
 * Keeps the history database's WAL short without stalling the Hub's thread.
 *
 * SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold: on the Hub's
 * thread, which also reads every PTY. It copies the WAL into the database file and fsyncs both —
 * measured here at ~150 ms of blocked thread per 50 MB recorded, during which a flooding
 * terminal's reader stands still. So the Hub's connections do not checkpoint; a worker thread
 * runs PASSIVE checkpoints on its own connection (they never block a writer or a reader):
 *
 * - once writes have been quiet for HistoryConstants.checkpointQuietMs (output comes in bursts), and
 * - during a long flood, whenever checkpointEveryBytes of output were committed since the last
 *   one, so the WAL (and crash recovery, which replays it) stays bounded.
 *
 * The WAL file's size is the worker's too. SQLite truncates a WAL grown past `journal_size_limit`
 * in the first COMMIT after a checkpoint — on the Hub's thread again (~30 ms after a 50 MB flood
 * left a ~73 MB WAL). So while the worker runs, the Hub's connections never truncate, and the quiet
 * checkpoint shrinks a WAL larger than HistoryConstants.walKeepBytes once it has copied all of it.
 *
 * Without the worker (its script missing, it failed or died) the Hub's connections checkpoint
 * and truncate by themselves again (SQLite's way), so nothing grows without bound.
 */
import { Worker } from 'node:worker_threads';
import type { DatabaseSync } from 'node:sqlite';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { HistoryConstants } from './historyConstants.ts';
import { type CheckpointRequest, type CheckpointResponse, type CheckpointWorkerData, checkpointPragmas } from './walCheckpointProtocol.ts';
import { stopWorker, workerScriptPath } from '../workerScript.ts';
import { describe } from './historyDatabase.ts';

export interface WalCheckpointerOptions {
  /** The Hub's connections: their automatic checkpoints are turned off while the worker runs. */
  connections: readonly DatabaseSync[];
  databasePath: string;
  logger: ILogger;
  /** The worker script (bundles emit `walCheckpointWorker.cjs`); default: the source beside this file; null: no worker. */
  workerPath?: string | null;
  /** Defaults HistoryConstants.checkpointQuietMs / checkpointEveryBytes (smaller in tests). */
  quietMs?: number;
  everyBytes?: number;
  /** Default HistoryConstants.walKeepBytes (smaller in tests). */
  shrinkWalAboveBytes?: number;
}

export interface CheckpointOutcome {
  /** Frames in the WAL when the checkpoint ran, and how many of them are now in the database file. */
  walFrames: number;
  checkpointedFrames: number;
  /** The WAL file was truncated to nothing (asked for, it was large, and nobody was using it). */
  walShrunk: boolean;
}

export class WalCheckpointer implements IDisposable {
  readonly #options: WalCheckpointerOptions;
  readonly #logger: ILogger;
  #worker: Worker | null = null;
  /** No worker script, or the worker stopped: checkpoints stay with the connection for good. */
  #unavailable = false;
  #bytesSinceCheckpoint = 0;
  /** Something was committed since the last checkpoint began (index blocks count, with 0 bytes of output). */
  #written = false;
  #quietTimer: NodeJS.Timeout | undefined;
  #running = false;
  /** The quiet checkpoint (the one that shrinks the WAL) came while another ran: it runs after it. */
  #shrinkAfterRunning = false;
  #nextRequestId = 1;
  readonly #waiting = new Map<number, { resolve: (outcome: CheckpointOutcome) => void; reject: (error: Error) => void }>();
  #disposed = false;

  constructor(options: WalCheckpointerOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  /**
   * The worker starts with the first write worth checkpointing (a Hub that records nothing costs
   * no thread). Returns it, or null when there is none (the connection then checkpoints itself).
   */
  #ensureWorker(): Worker | null {
    if (this.#worker || this.#unavailable || this.#disposed) return this.#worker;
    const configured = this.#options.workerPath;
    const path = workerScriptPath(configured, import.meta.url, 'walCheckpointWorker.ts');
    if (path === null) {
      this.#unavailable = true;
      this.#logger.warn('WAL checkpoint worker script not found; the history database checkpoints on the Hub thread', { path: configured });
      return null;
    }
    const workerData: CheckpointWorkerData = {
      databasePath: this.#options.databasePath,
      busyTimeoutMs: HistoryConstants.busyTimeoutMs,
      shrinkWalAboveBytes: this.#options.shrinkWalAboveBytes ?? HistoryConstants.walKeepBytes,
    };
    const worker = new Worker(path, { workerData });
    worker.unref();
    worker.on('message', (response: CheckpointResponse) => this.#onResponse(worker, response));
    worker.on('error', (error) => this.#onWorkerGone(worker, error.message));
    worker.on('exit', (code) => this.#onWorkerGone(worker, `exited with code ${code}`));
    this.#worker = worker;
    this.#configureConnections({ inWorker: true });
    return worker;
  }

  /** Whether checkpoints run in the worker (false: on the connection, SQLite's way — also before the first write). */
  get active(): boolean {
    return this.#worker !== null;
  }

  /** A transaction with `bytes` of output was committed. */
  noteCommitted(bytes: number): void {
    if (!this.#ensureWorker()) return;
    this.#bytesSinceCheckpoint += bytes;
    this.#written = true;
    this.#armQuietTimer();
    if (this.#bytesSinceCheckpoint >= (this.#options.everyBytes ?? HistoryConstants.checkpointEveryBytes)) void this.#run({ shrinkWal: false });
  }

  #armQuietTimer(): void {
    clearTimeout(this.#quietTimer);
    this.#quietTimer = setTimeout(() => {
      this.#quietTimer = undefined;
      void this.#run({ shrinkWal: true });
    }, this.#options.quietMs ?? HistoryConstants.checkpointQuietMs);
    this.#quietTimer.unref();
  }

  /**
   * Checkpoint now (tests, tools); `shrinkWal` as the quiet checkpoint does. Rejects without a
   * worker or when the checkpoint failed.
   */
  checkpointNow(options: { shrinkWal?: boolean } = {}): Promise<CheckpointOutcome> {
    const worker = this.#ensureWorker();
    if (!worker) return Promise.reject(new Error('no WAL checkpoint worker'));
    this.#bytesSinceCheckpoint = 0;
    this.#written = false;
    const requestId = this.#nextRequestId++;
    const request: CheckpointRequest = { type: 'checkpoint', requestId, shrinkWal: options.shrinkWal ?? false };
    return new Promise((resolve, reject) => {
      this.#waiting.set(requestId, { resolve, reject });
      worker.ref(); // a checkpoint in flight keeps its answer coming
      worker.postMessage(request);
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#quietTimer);
    const worker = this.#worker;
    this.#worker = null;
    this.#failWaiting('the history database is closing');
    // The Hub's connection, closed next, checkpoints what is left (it is the last one open).
    if (worker) stopWorker(worker);
  }

  async #run(options: { shrinkWal: boolean }): Promise<void> {
    if (!this.#worker) return;
    if (this.#running) {
      // A flood's checkpoint still copying when output went quiet: the WAL is shrunk after it.
      if (options.shrinkWal) this.#shrinkAfterRunning = true;
      return;
    }
    this.#running = true;
    try {
      await this.checkpointNow(options);
    } catch (error) {
      if (!this.#disposed) this.#logger.warn('WAL checkpoint failed; retrying with the next commit', { error: describe(error) });
    } finally {
      this.#running = false;
    }
    if (this.#disposed || !this.#worker) return;
    if (this.#shrinkAfterRunning) {
      this.#shrinkAfterRunning = false;
      void this.#run({ shrinkWal: true });
      return;
    }
    // Written while it ran, and nothing due to pick that up: once things are quiet.
    if (this.#written && this.#quietTimer === undefined) this.#armQuietTimer();
  }

  #onResponse(worker: Worker, response: CheckpointResponse): void {
    if (worker !== this.#worker) return;
    switch (response.type) {
      case 'unavailable':
        this.#onWorkerGone(worker, response.message);
        return;
      case 'done':
      case 'failed': {
        const waiting = this.#waiting.get(response.requestId);
        this.#waiting.delete(response.requestId);
        if (this.#waiting.size === 0) worker.unref();
        if (response.type === 'done') waiting?.resolve({ walFrames: response.walFrames, checkpointedFrames: response.checkpointedFrames, walShrunk: response.walShrunk });
        else waiting?.reject(new Error(response.message));
      }
    }
  }

  #onWorkerGone(worker: Worker, reason: string): void {
    if (worker !== this.#worker) return;
    this.#worker = null;
    this.#unavailable = true;
    clearTimeout(this.#quietTimer);
    this.#failWaiting(`the WAL checkpoint worker stopped: ${reason}`);
    if (this.#disposed) return;
    this.#logger.warn('the WAL checkpoint worker stopped; the history database checkpoints on the Hub thread again', { reason });
    stopWorker(worker);
    this.#configureConnections({ inWorker: false });
  }

  #failWaiting(message: string): void {
    for (const waiting of this.#waiting.values()) waiting.reject(new Error(message));
    this.#waiting.clear();
  }

  /** Checkpoints and WAL truncation: the worker's, or (without it) each connection's, SQLite's way. */
  #configureConnections({ inWorker }: { inWorker: boolean }): void {
    for (const db of this.#options.connections) {
      try {
        if (db.isOpen) db.exec(checkpointPragmas(inWorker));
      } catch (error) {
        this.#logger.warn('cannot configure checkpoints of a connection', { inWorker, error: describe(error) });
      }
    }
  }
}
