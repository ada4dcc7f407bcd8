/**
 * Creates the headless mirrors of a PtyHost's terminals. By default they live on one shared
 * worker thread (mirrorWorker.ts), started with the first terminal: parsing runs beside the PTY
 * reads and never stalls the Hub's thread. Where the worker script is not available (e.g. a
 * bundle that did not emit it) or `mode: 'inline'` is asked for, mirrors run in-process.
 *
 * If the worker dies, its mirrors fail (requests in flight reject) and release their flow-control
 * debt so no PTY stays paused, and are told they were lost: each session builds a new mirror from
 * its output ring on a fresh worker (PtySession#rebuildMirror) and asks it again.
 */
import type { HeapInfo } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { MirrorRequest, MirrorResponse } from './mirrorProtocol.ts';
import { createLocalMirror } from './lazyMirror.ts';
import { MirrorChannel } from './mirrorChannel.ts';
import type { ITerminalMirror, MirrorSnapshot, ScreenText, TerminalMirrorOptions } from './terminalMirror.ts';
import { stopWorker, workerScriptBeside } from '../workerScript.ts';

export type MirrorMode = 'worker' | 'inline';

export interface MirrorHostOptions {
  logger: ILogger;
  /** Default 'worker'. */
  mode?: MirrorMode;
  /** The worker script; default: mirrorWorker.ts beside this file. */
  workerPath?: string;
}

interface PendingRequest {
  mirror: WorkerMirror;
  resolve: (value: never) => void;
  reject: (error: Error) => void;
}

/**
 * The mirror worker's young generation, capped (a worker's default allows 192 MB). Left to V8 its
 * new space grew from 8.4 to 33.6 MB the first time forty terminals started at once (their
 * mirrors' allocations survive a scavenge or two) and was never given back. At 8 MB the
 * forty-agents case measured 0.67–0.83 MB of Hub RSS per idle terminal in four runs against
 * 0.86–1.00 in four uncapped, and pty-flood the same flood throughput (three alternating runs
 * each: 55.5–57.9 MB/s against 53.9–57.1). The main thread's young generation can only be capped
 * on the command line (docs/benchmarks.md, forty agents).
 */
export const mirrorWorkerYoungGenerationMb = 8;

/** Where the worker script is, or null when this build does not have it. */
function defaultWorkerPath(): string | null {
  return workerScriptBeside(import.meta.url, 'mirrorWorker.ts');
}

export class MirrorHost implements IDisposable {
  readonly #logger: ILogger;
  readonly #mode: MirrorMode;
  readonly #workerPath: string | undefined;
  #worker: Worker | undefined;
  /** Output to the worker goes through this (one per worker). */
  #channel: MirrorChannel | undefined;
  readonly #mirrors = new Map<number, WorkerMirror>();
  readonly #requests = new Map<number, PendingRequest>();
  #nextMirrorId = 1;
  #nextRequestId = 1;
  /** Writes not yet parsed plus requests not yet answered: while > 0 the worker keeps the process alive. */
  #outstanding = 0;
  #warnedNoWorker = false;
  #disposed = false;

  constructor(options: MirrorHostOptions) {
    this.#logger = options.logger;
    this.#mode = options.mode ?? 'worker';
    this.#workerPath = options.workerPath;
  }

  create(options: TerminalMirrorOptions): ITerminalMirror {
    if (this.#disposed) throw new Error('MirrorHost is disposed');
    const worker = this.#mode === 'worker' ? this.#ensureWorker() : undefined;
    if (!worker) return createLocalMirror(options);
    const mirror = new WorkerMirror(this, this.#nextMirrorId++, options.onParsed, options.onLost);
    this.#mirrors.set(mirror.mirrorId, mirror);
    this.post({ type: 'create', mirrorId: mirror.mirrorId, cols: options.cols, rows: options.rows, scrollback: options.scrollback });
    return mirror;
  }

  /** The limits V8 applies to the mirror worker (undefined before it starts or inline). */
  get workerResourceLimits(): Worker['resourceLimits'] | undefined {
    return this.#worker?.resourceLimits;
  }

  /** The mirror worker's heap (undefined before it starts or inline): how much its mirrors hold. */
  async workerHeapStatistics(): Promise<HeapInfo | undefined> {
    const worker = this.#worker;
    if (!worker) return undefined;
    // An answer owed, like any request: the worker holds the event loop until it comes.
    this.track(1);
    try {
      return await worker.getHeapStatistics();
    } finally {
      this.track(-1);
    }
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#channel?.dispose();
    this.#channel = undefined;
    this.#failAll(new Error('terminal mirror disposed'));
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) stopWorker(worker);
  }

  /**
   * Fault tests only: end the worker thread the way a crash would (`Worker.terminate()`), so the
   * same path as a real death runs — every mirror on it is lost and its session rebuilds it.
   * Resolves once the worker has exited; false when no worker runs.
   */
  async terminateWorkerForFaultTest(): Promise<boolean> {
    const worker = this.#worker;
    if (!worker) return false;
    await worker.terminate();
    return true;
  }

  // --- used by WorkerMirror -------------------------------------------------------------------

  post(request: MirrorRequest, transfer?: ArrayBuffer[]): void {
    // Output still in the channel goes first: messages are handled in the order posted.
    this.#channel?.flush();
    this.#worker?.postMessage(request, transfer);
  }

  /** Send output (valid only during the call) to a mirror on the worker. */
  writeOutput(mirrorId: number, bytes: Uint8Array, chars: number): void {
    this.#channel?.write(mirrorId, bytes, chars);
  }

  request<T>(mirror: WorkerMirror, build: (requestId: number) => MirrorRequest): Promise<T> {
    if (!this.#worker) return Promise.reject(new Error('terminal mirror is not running'));
    const requestId = this.#nextRequestId++;
    return new Promise<T>((resolve, reject) => {
      this.#requests.set(requestId, { mirror, resolve: resolve as (value: never) => void, reject });
      this.track(1);
      this.post(build(requestId));
    });
  }

  /** Count work the worker still owes us; the worker holds the event loop only while there is some. */
  track(delta: number): void {
    const before = this.#outstanding;
    this.#outstanding = Math.max(0, before + delta);
    if (before === 0 && this.#outstanding > 0) this.#worker?.ref();
    else if (before > 0 && this.#outstanding === 0) this.#worker?.unref();
  }

  forget(mirror: WorkerMirror): void {
    this.#mirrors.delete(mirror.mirrorId);
    for (const [requestId, pending] of this.#requests) {
      if (pending.mirror !== mirror) continue;
      this.#requests.delete(requestId);
      this.track(-1);
      pending.reject(new Error('terminal mirror disposed'));
    }
    this.post({ type: 'dispose', mirrorId: mirror.mirrorId });
  }

  // --- worker ---------------------------------------------------------------------------------

  #ensureWorker(): Worker | undefined {
    if (this.#worker) return this.#worker;
    const path = this.#workerPath ?? defaultWorkerPath();
    if (path === null) {
      if (!this.#warnedNoWorker) {
        this.#warnedNoWorker = true;
        this.#logger.warn('mirror worker script not found; terminal mirrors run on the main thread');
      }
      return undefined;
    }
    const worker = new Worker(path, { workerData: { ring: this.#startChannel().ring }, resourceLimits: { maxYoungGenerationSizeMb: mirrorWorkerYoungGenerationMb } });
    worker.unref();
    worker.on('message', (response: MirrorResponse) => this.#onResponse(response));
    worker.on('error', (error) => this.#onWorkerGone(worker, error));
    worker.on('exit', (code) => this.#onWorkerGone(worker, new Error(`mirror worker exited with code ${code}`)));
    this.#worker = worker;
    this.#outstanding = 0;
    return worker;
  }

  #startChannel(): MirrorChannel {
    this.#channel?.dispose();
    const channel = new MirrorChannel((request, transfer) => this.#worker?.postMessage(request, transfer));
    this.#channel = channel;
    return channel;
  }

  #onResponse(response: MirrorResponse): void {
    if (response.type === 'parsed') {
      this.#mirrors.get(response.mirrorId)?.parsed(response.chars);
      return;
    }
    const pending = this.#requests.get(response.requestId);
    if (!pending) return;
    this.#requests.delete(response.requestId);
    this.track(-1);
    if (response.type === 'failed') pending.reject(new Error(response.message));
    else pending.resolve((response.type === 'snapshot' ? response.snapshot : response.text) as never);
  }

  #onWorkerGone(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#logger.error('terminal mirror worker failed; mirrors of running terminals are lost', { error });
    this.#worker = undefined;
    this.#channel?.dispose();
    this.#channel = undefined;
    stopWorker(worker);
    this.#failAll(new Error(`terminal mirror failed: ${error.message}`), true);
  }

  /** `lost`: the worker died (owners may build new mirrors), rather than the host being disposed. */
  #failAll(error: Error, lost = false): void {
    const requests = [...this.#requests.values()];
    this.#requests.clear();
    const mirrors = [...this.#mirrors.values()];
    this.#mirrors.clear();
    this.#outstanding = 0;
    for (const pending of requests) pending.reject(error);
    for (const mirror of mirrors) mirror.fail(error, lost);
  }
}

/** The Hub-side handle of a mirror that lives on the worker. */
class WorkerMirror implements ITerminalMirror {
  readonly mirrorId: number;
  readonly #host: MirrorHost;
  readonly #onParsed: ((chars: number) => void) | undefined;
  readonly #onLost: ((error: Error) => void) | undefined;
  /** Chars written and not reported parsed yet; while > 0 this mirror is one outstanding job of the host. */
  #pendingChars = 0;
  #failure: Error | undefined;
  #disposed = false;

  constructor(host: MirrorHost, mirrorId: number, onParsed: ((chars: number) => void) | undefined, onLost: ((error: Error) => void) | undefined) {
    this.#host = host;
    this.mirrorId = mirrorId;
    this.#onParsed = onParsed;
    this.#onLost = onLost;
  }

  write(bytes: Uint8Array, chars: number): void {
    if (this.#disposed || bytes.length === 0) return;
    if (this.#failure) {
      // Nothing will parse this; count it as done so the session's flow control never waits on a dead worker.
      this.#onParsed?.(chars);
      return;
    }
    const before = this.#pendingChars;
    this.#pendingChars += chars;
    if (before === 0 && this.#pendingChars > 0) this.#host.track(1);
    this.#host.writeOutput(this.mirrorId, bytes, chars);
  }

  resize(cols: number, rows: number): void {
    if (this.#disposed || this.#failure) return;
    this.#host.post({ type: 'resize', mirrorId: this.mirrorId, cols, rows });
  }

  snapshot(options: { scrollback?: number } = {}): Promise<MirrorSnapshot> {
    if (this.#disposed || this.#failure) return Promise.reject(this.#failure ?? new Error('terminal mirror disposed'));
    return this.#host.request<MirrorSnapshot>(this, (requestId) => ({ type: 'snapshot', mirrorId: this.mirrorId, requestId, ...options }));
  }

  readText(options: { scrollback?: boolean } = {}): Promise<ScreenText> {
    if (this.#disposed || this.#failure) return Promise.reject(this.#failure ?? new Error('terminal mirror disposed'));
    return this.#host.request<ScreenText>(this, (requestId) => ({
      type: 'readText',
      mirrorId: this.mirrorId,
      requestId,
      scrollback: options.scrollback ?? false,
    }));
  }

  /** The worker parsed (or skipped as a flood) `chars` chars. */
  parsed(chars: number): void {
    if (this.#disposed || this.#failure) return;
    const before = this.#pendingChars;
    this.#pendingChars = Math.max(0, before - chars);
    if (before > 0 && this.#pendingChars === 0) this.#host.track(-1);
    this.#onParsed?.(chars);
  }

  /** The worker is gone (`lost`) or the host disposed: release the flow-control debt so the PTY is not left paused. */
  fail(error: Error, lost: boolean): void {
    if (this.#disposed || this.#failure) return;
    this.#failure = error;
    const pending = this.#pendingChars;
    this.#pendingChars = 0;
    if (pending > 0) this.#onParsed?.(pending);
    if (lost) this.#onLost?.(error);
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#failure) return;
    // Writes the worker will never acknowledge now must not hold the event loop.
    if (this.#pendingChars > 0) this.#host.track(-1);
    this.#pendingChars = 0;
    this.#host.forget(this);
  }
}
