/**
 * Where History's recording batches are written: in a worker thread (recordingWorker.ts) with a
 * connection of its own, so a flood's transactions never hold up the Hub's thread; or, when the
 * worker cannot run (no script in a bundle, the database would not open there, it died), on the
 * Hub's thread through the recording connection, as before.
 *
 * Outcomes come back in the order the batches were sent. Whoever must see every batch sent so far
 * committed (a read of History, a deletion) calls `drain()`, which blocks until they are: the
 * worker counts its outcomes in shared memory (Atomics.wait) and the outcomes are taken off the
 * port synchronously (receiveMessageOnPort), so a caller sees the same state a synchronous
 * commit gave it. A caller that can wait (a read from a client) uses `settled()` instead: the
 * same guarantee without holding up the Hub's thread while the worker commits (a read blocked it
 * for up to ~100 ms behind a flood's transactions, and the other clients' pings with it).
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { stopWorker, workerScriptPath } from '../workerScript.ts';
import { HistoryConstants } from './historyConstants.ts';
import { describe } from './historyDatabase.ts';
import type { Block } from './historyIndexer.ts';
import type { BatchResult, SessionWrites } from './historyStore.ts';
import type { RecordingRequest, RecordingResponse, RecordingWorkerData } from './recordingProtocol.ts';

export type BatchOutcome = { ok: true; result: BatchResult } | { ok: false; error: string };

/** Writes recording batches, each in one transaction, and reports each outcome in order. */
export interface BatchWriter extends IDisposable {
  /** `done` is called with the batch's outcome: at once, or later (in the order sent), or from drain(). */
  send(writes: SessionWrites[], done: (outcome: BatchOutcome) => void): void;
  /** Blocks until every batch sent has had its outcome delivered. */
  drain(): void;
  /** Resolves once every batch sent so far has had its outcome delivered; the Hub's thread goes on meanwhile. */
  settled(): Promise<void>;
  /** Sessions were deleted through another connection. */
  forget(ids: readonly string[]): void;
  /** Recording resumes after a failure: batches are tried again. */
  resume(): void;
}

export interface RecordingWriterOptions {
  databasePath: string;
  /** The batch on the Hub's thread (the recording connection), used without the worker. */
  commitInline: (writes: SessionWrites[]) => BatchResult;
  /** Index blocks on the Hub's thread (the Hub's connection), used without the worker. */
  indexInline: (sessionId: string, blocks: readonly Block[], indexedOffset: number) => void;
  /** The per-session cap, read for each batch. */
  maxSessionBytes: () => number;
  /** Whether the WAL checkpoint worker runs (then the recording connection does not checkpoint). */
  checkpointsInWorker: () => boolean;
  logger: ILogger;
  /** The worker script (bundles emit `recordingWorker.cjs`); default: the source beside this file; null: no worker. */
  workerPath?: string | null;
}

interface InFlight {
  seq: number;
  bytes: number;
  /** The worker answered. */
  answered: (response: Extract<RecordingResponse, { seq: number }>) => void;
  /** The worker died first: the write is made on the Hub's thread. */
  writeInline: () => void;
}

/**
 * Output sent to the worker and not committed yet, past which `send` waits for the worker (the
 * Hub's memory must not grow while the disk is slower than the terminals).
 */
const maxInFlightBytes = HistoryConstants.maxPendingBytes;
/** How long dispose waits for the worker to close its connection. */
const closeWaitMs = 2_000;
/** A drain that hears nothing from the worker for this long gives it up for dead. */
const drainGiveUpMs = HistoryConstants.busyTimeoutMs + 10_000;

function outputBytes(writes: readonly SessionWrites[]): number {
  let bytes = 0;
  for (const write of writes) for (const event of write.events) if (event.kind === 'output') bytes += event.data.byteLength;
  return bytes;
}

/**
 * The batch with its output copied into one buffer of its own. The recorder's output lives in
 * 1 MiB slabs it reuses once a batch is sent; and structured clone copies the whole buffer under a
 * view, so posting views of the slabs copied a megabyte per slab per batch (measured: 1.5 s of the
 * Hub's thread in 44 s of the soak, and the garbage collector's work on top). Kept for the batch's
 * life: if the worker dies, the Hub's thread writes it from this copy.
 */
function packOutput(writes: readonly SessionWrites[], bytes: number): SessionWrites[] {
  const buffer = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  return writes.map((write) => ({
    ...write,
    events: write.events.map((event) => {
      if (event.kind !== 'output') return event;
      const data = buffer.subarray(at, at + event.data.byteLength);
      data.set(event.data);
      at += event.data.byteLength;
      return { ...event, data };
    }),
  }));
}

export class RecordingWriter implements BatchWriter {
  readonly #options: RecordingWriterOptions;
  #worker: Worker | null = null;
  #port: MessagePort | null = null;
  #outcomes: Int32Array | null = null;
  /** No worker script, or the worker stopped: batches are written on the Hub's thread for good. */
  #inline = false;
  readonly #inFlight: InFlight[] = [];
  #inFlightBytes = 0;
  /** settled() callers: each waits for the outcome of batch `seq` (and so of every one before it). */
  #settledWaiters: Array<{ seq: number; resolve: () => void }> = [];
  #nextSeq = 1;
  #disposed = false;

  constructor(options: RecordingWriterOptions) {
    this.#options = options;
  }

  /** Whether batches go to the worker thread (false before the first batch and without one). */
  get inWorker(): boolean {
    return this.#worker !== null;
  }

  send(writes: SessionWrites[], done: (outcome: BatchOutcome) => void): void {
    const worker = this.#ensureWorker();
    if (!worker || !this.#port) {
      this.#commitInline(writes, done);
      return;
    }
    const bytes = outputBytes(writes);
    if (this.#inFlightBytes + bytes > maxInFlightBytes) this.drain();
    if (this.#inline) {
      this.#commitInline(writes, done); // the worker died during the drain
      return;
    }
    const seq = this.#nextSeq++;
    const packed = packOutput(writes, bytes);
    this.#inFlight.push({
      seq,
      bytes,
      answered: (response) => done(response.type === 'done' ? { ok: true, result: response.result ?? { missing: [], truncated: [] } } : { ok: false, error: response.message }),
      writeInline: () => this.#commitInline(packed, done),
    });
    this.#inFlightBytes += bytes;
    this.#post({ type: 'batch', seq, writes: packed, maxSessionBytes: this.#options.maxSessionBytes(), checkpointsInWorker: this.#options.checkpointsInWorker() });
    worker.ref(); // outcomes to come keep the Hub listening
  }

  /**
   * The indexer's write (historyIndexer.ts BlockWriter): in the worker, after the batches sent
   * before it; `done` hears of it. Without the worker, at once (throwing when it fails).
   */
  index(sessionId: string, blocks: readonly Block[], indexedOffset: number, done: (error: string | null) => void): void {
    const worker = this.#ensureWorker();
    if (!worker || !this.#port) {
      this.#options.indexInline(sessionId, blocks, indexedOffset);
      done(null);
      return;
    }
    const seq = this.#nextSeq++;
    const writeInline = () => {
      try {
        this.#options.indexInline(sessionId, blocks, indexedOffset);
      } catch (error) {
        done(describe(error));
        return;
      }
      done(null);
    };
    this.#inFlight.push({ seq, bytes: 0, answered: (response) => done(response.type === 'failed' ? response.message : null), writeInline });
    this.#post({ type: 'index', seq, sessionId, blocks: [...blocks], indexedOffset });
    worker.ref();
  }

  drain(): void {
    const port = this.#port;
    const outcomes = this.#outcomes;
    if (!port || !outcomes) return;
    let quietSince = performance.now();
    while (this.#inFlight.length > 0 && this.#port === port) {
      const seen = Atomics.load(outcomes, 0);
      const message = receiveMessageOnPort(port);
      if (message) {
        this.#onResponse(message.message as RecordingResponse);
        quietSince = performance.now();
        continue;
      }
      // Nothing yet: sleep until the worker counts another outcome.
      if (Atomics.wait(outcomes, 0, seen, 1_000) === 'timed-out' && performance.now() - quietSince > drainGiveUpMs) {
        this.#workerGone('it answered nothing for a long time');
      }
    }
  }

  settled(): Promise<void> {
    const last = this.#inFlight.at(-1);
    if (!last) return Promise.resolve();
    return new Promise((resolve) => this.#settledWaiters.push({ seq: last.seq, resolve }));
  }

  forget(ids: readonly string[]): void {
    if (ids.length > 0) this.#post({ type: 'forget', ids: [...ids] });
  }

  resume(): void {
    this.#post({ type: 'resume' });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.drain();
    this.#wakeSettled(Infinity);
    this.#disposed = true;
    this.#closeDatabase();
    this.#stop();
  }

  /**
   * The worker closes its connection before it is stopped: SQLite removes the WAL (copying it
   * first) only when the process's last connection closes, and a terminated thread closes none.
   */
  #closeDatabase(): void {
    const port = this.#port;
    const outcomes = this.#outcomes;
    if (!port || !outcomes) return;
    const seen = Atomics.load(outcomes, 0);
    this.#post({ type: 'close' });
    if (Atomics.wait(outcomes, 0, seen, closeWaitMs) === 'timed-out') this.#options.logger.warn('the History recording worker did not close its connection in time');
  }

  #post(request: RecordingRequest): void {
    this.#port?.postMessage(request);
  }

  #commitInline(writes: SessionWrites[], done: (outcome: BatchOutcome) => void): void {
    let outcome: BatchOutcome;
    try {
      outcome = { ok: true, result: this.#options.commitInline(writes) };
    } catch (error) {
      outcome = { ok: false, error: describe(error) };
    }
    done(outcome);
  }

  /** The worker starts with the first batch (a Hub that records nothing costs no thread). */
  #ensureWorker(): Worker | null {
    if (this.#worker || this.#inline || this.#disposed) return this.#worker;
    const configured = this.#options.workerPath;
    const path = workerScriptPath(configured, import.meta.url, 'recordingWorker.ts');
    if (path === null) {
      this.#inline = true;
      this.#options.logger.warn('History recording worker script not found; recording writes on the Hub thread', { path: configured });
      return null;
    }
    const channel = new MessageChannel();
    const shared = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const workerData: RecordingWorkerData = { databasePath: this.#options.databasePath, outcomes: shared, port: channel.port2 };
    const worker = new Worker(path, { workerData, transferList: [channel.port2] });
    worker.unref();
    worker.on('error', (error) => this.#workerGone(error.message, worker));
    worker.on('exit', (code) => this.#workerGone(`exited with code ${code}`, worker));
    channel.port1.on('message', (response: RecordingResponse) => this.#onResponse(response));
    channel.port1.unref();
    this.#worker = worker;
    this.#port = channel.port1;
    this.#outcomes = new Int32Array(shared);
    return worker;
  }

  #onResponse(response: RecordingResponse): void {
    if (response.type === 'unavailable') {
      this.#workerGone(response.message);
      return;
    }
    if (response.type === 'closed') return;
    const batch = this.#inFlight.shift();
    if (!batch || batch.seq !== response.seq) {
      // Cannot happen while the worker answers in order; if it does, nothing can be trusted.
      if (batch) this.#inFlight.unshift(batch);
      this.#workerGone(`answered batch ${response.seq} out of order`);
      return;
    }
    this.#inFlightBytes -= batch.bytes;
    if (this.#inFlight.length === 0) this.#worker?.unref();
    batch.answered(response);
    this.#wakeSettled(batch.seq);
  }

  /** Every batch up to `seq` has its outcome (Infinity: every batch sent). */
  #wakeSettled(seq: number): void {
    if (this.#settledWaiters.length === 0) return;
    const waiters = this.#settledWaiters;
    this.#settledWaiters = waiters.filter((waiter) => waiter.seq > seq);
    for (const waiter of waiters) if (waiter.seq <= seq) waiter.resolve();
  }

  /**
   * The worker is gone (or never opened the database): the Hub's thread writes from now on,
   * starting with the batches it had not answered (a transaction it did not finish was rolled back).
   */
  #workerGone(reason: string, worker: Worker | null = this.#worker): void {
    if (worker !== this.#worker || !worker) return;
    if (!this.#disposed) this.#options.logger.warn('the History recording worker stopped; recording writes on the Hub thread', { reason });
    this.#inline = true;
    this.#stop();
    const unanswered = this.#inFlight.splice(0);
    this.#inFlightBytes = 0;
    for (const write of unanswered) write.writeInline();
    this.#wakeSettled(Infinity);
  }

  #stop(): void {
    const worker = this.#worker;
    this.#worker = null;
    this.#port?.close();
    this.#port = null;
    this.#outcomes = null;
    if (worker) stopWorker(worker);
  }
}
