/**
 * The review queue's line diffs, kept off the Hub's thread. A diff of two 10 MiB files costs up to
 * a couple of seconds of CPU even with lineDiff.ts's bounds, and the Hub's thread also moves every
 * pane's output: so diffs of more than a few thousand lines run on a worker thread
 * (reviewDiffWorker.ts), started on demand and stopped when idle, as the terminal mirrors' worker
 * is (mirrorHost.ts). Small diffs run inline: cheaper than a round trip. So does a first try at
 * a medium file (a few edits in 10 000 lines, the common case) with a search capped low enough
 * to cost milliseconds; only when that cap is hit does the diff go to the worker.
 *
 * The work stays bounded whatever happens: a diff the worker has not finished within
 * ReviewConstants.diffTimeoutMs (a loaded machine, a pathological file) is given up — the worker
 * is stopped, so it stops burning a core — and approximated, as it is when no worker can run (a
 * bundle without the script, a crashed worker): the common prefix and suffix are trimmed and the
 * differing middle counts as one replaced block, in linear time. That is still a correct diff,
 * only not a minimal one, and its stats say `approximate`.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { ReviewConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { diffStats, unifiedDiff, unifiedDiffDetailed } from './lineDiff.ts';
import type { DiffJob, DiffJobResult, DiffSideData } from './reviewDiffProtocol.ts';
import { stopWorker, workerScriptBeside } from '../workerScript.ts';

/** A side of a diff: its text, and optionally the same text as UTF-8 bytes (then sent to the worker as bytes). */
export type DiffText = string | { text: string; bytes: Uint8Array };

export interface ReviewDifferOptions {
  logger: ILogger;
  /**
   * The worker script (a bundle names its own); when it is missing, or not given: reviewDiffWorker.ts
   * beside this file, if there is one. null: never start a worker.
   */
  workerPath?: string | null | undefined;
  /** Default ReviewConstants.diffTimeoutMs (tests shorten it). */
  timeoutMs?: number | undefined;
}

export interface ReviewDiffStats {
  added: number;
  removed: number;
  /** The middle of the file was counted as one replaced block (past the search's bounds, or its time budget). */
  approximate: boolean;
}

export interface ReviewUnifiedDiff {
  text: string;
  approximate: boolean;
}

interface PendingJob {
  settle(result: DiffJobResult | null): void;
  timer: NodeJS.Timeout;
}

/** The approximation: no search, only prefix/suffix trimming. */
const linearOnly = { maxEditDistance: 0 } as const;
/** The inline first try at a medium file: a search this short costs milliseconds (see ReviewConstants). */
const inlineTrial = { maxEditDistance: ReviewConstants.diffInlineTrialMaxEdits } as const;

function defaultWorkerPath(): string | null {
  return workerScriptBeside(import.meta.url, 'reviewDiffWorker.ts');
}

export class ReviewDiffer implements IDisposable {
  readonly #logger: ILogger;
  /** undefined: look for the default script when a worker is first needed. */
  readonly #workerPath: string | null | undefined;
  readonly #timeoutMs: number;
  readonly #jobs = new Map<number, PendingJob>();
  #worker: Worker | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #nextJobId = 1;
  #warnedNoWorker = false;
  #disposed = false;

  constructor(options: ReviewDifferOptions) {
    this.#logger = options.logger;
    this.#workerPath = options.workerPath;
    this.#timeoutMs = options.timeoutMs ?? ReviewConstants.diffTimeoutMs;
  }

  /** Added and removed lines of a proposal. */
  async stats(oldSide: DiffText, newSide: DiffText): Promise<ReviewDiffStats> {
    const [oldText, newText] = [textOf(oldSide), textOf(newSide)];
    const inline = inlineStats(oldText, newText);
    if (inline) return inline;
    const [oldData, newData] = sideData([oldSide, newSide]);
    const result = await this.#runOnWorker({ kind: 'stats', oldText: oldData!, newText: newData! });
    if (result && 'stats' in result) return withFlag(result.stats);
    return { ...diffStats(oldText, newText, linearOnly), approximate: true };
  }

  /**
   * Added and removed lines at once, on this thread, for what cannot wait for the worker (the
   * summary of a decision, announced as it is made): exact where the inline diffs are, else the
   * linear-time approximation (`approximate`).
   */
  statsNow(oldSide: DiffText, newSide: DiffText): ReviewDiffStats {
    const [oldText, newText] = [textOf(oldSide), textOf(newSide)];
    return inlineStats(oldText, newText) ?? { ...diffStats(oldText, newText, linearOnly), approximate: true };
  }

  /** The `diff -u` of a decision (null: that side does not exist). */
  async unifiedDiff(path: string, oldSide: DiffText | null, newSide: DiffText | null): Promise<ReviewUnifiedDiff> {
    const [oldText, newText] = [oldSide === null ? null : textOf(oldSide), newSide === null ? null : textOf(newSide)];
    if (isSmall(oldText ?? '', newText ?? '')) return { text: unifiedDiff(path, oldText, newText), approximate: false };
    if (isMedium(oldText ?? '', newText ?? '')) {
      const trial = unifiedDiffDetailed(path, oldText, newText, inlineTrial);
      if (!trial.approximate) return trial;
    }
    const [oldData, newData] = sideData([oldSide, newSide]);
    const result = await this.#runOnWorker({ kind: 'unified', path, oldText: oldData ?? null, newText: newData ?? null });
    if (result && 'unified' in result) return { text: result.unified, approximate: false };
    return this.approximateUnifiedDiff(path, oldText, newText);
  }

  /** The linear-time unified diff, on this thread (for a shutdown that cannot wait for the worker). */
  approximateUnifiedDiff(path: string, oldText: string | null, newText: string | null): ReviewUnifiedDiff {
    return { text: unifiedDiff(path, oldText, newText, linearOnly), approximate: true };
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#stopWorker();
  }

  /** The worker's answer; null when it could not give one (no worker, it failed, it took too long). */
  #runOnWorker(job: DistributiveOmit<DiffJob, 'jobId'>): Promise<DiffJobResult | null> {
    const worker = this.#ensureWorker();
    if (!worker) return Promise.resolve(null);
    const jobId = this.#nextJobId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#logger.warn('a review diff took too long; it is approximated and the diff worker restarted', { timeoutMs: this.#timeoutMs, kind: job.kind });
        // Stopping the worker ends this job and any queued behind it: they are approximated too.
        this.#stopWorker();
      }, this.#timeoutMs);
      this.#jobs.set(jobId, {
        timer,
        settle: (result) => {
          clearTimeout(timer);
          this.#jobs.delete(jobId);
          if (this.#jobs.size === 0) this.#becameIdle();
          if (result && !result.ok) this.#logger.warn('the diff worker failed a review diff; it is approximated', { error: result.message });
          resolve(result?.ok ? result : null);
        },
      });
      clearTimeout(this.#idleTimer);
      worker.ref();
      const transfer = [job.oldText, job.newText].flatMap((side) => (side instanceof Uint8Array ? [side.buffer as ArrayBuffer] : []));
      worker.postMessage({ ...job, jobId } satisfies DiffJob, transfer);
    });
  }

  #ensureWorker(): Worker | undefined {
    if (this.#disposed) return undefined;
    if (this.#worker) return this.#worker;
    const path = this.#workerPath === null ? null : this.#workerPath !== undefined && existsSync(this.#workerPath) ? this.#workerPath : defaultWorkerPath();
    if (path === null) {
      if (!this.#warnedNoWorker) {
        this.#warnedNoWorker = true;
        this.#logger.warn('review diff worker script not found; diffs of large files are approximated', { path });
      }
      return undefined;
    }
    const worker = new Worker(path);
    worker.on('message', (result: DiffJobResult) => this.#jobs.get(result.jobId)?.settle(result));
    worker.on('error', (error) => this.#onWorkerGone(worker, error));
    worker.on('exit', (code) => this.#onWorkerGone(worker, new Error(`exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }

  #onWorkerGone(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#logger.error('the review diff worker stopped; pending diffs are approximated', { error: error.message });
    this.#stopWorker();
  }

  #becameIdle(): void {
    if (!this.#worker) return;
    this.#worker.unref();
    clearTimeout(this.#idleTimer);
    // An idle worker only holds memory (a V8 heap); the next large diff starts a fresh one.
    this.#idleTimer = setTimeout(() => this.#stopWorker(), ReviewConstants.diffWorkerIdleMs);
    this.#idleTimer.unref();
  }

  #stopWorker(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) stopWorker(worker);
    for (const job of [...this.#jobs.values()]) job.settle(null);
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** The stats when they cost milliseconds here (a small file, or a medium one with few edits); undefined otherwise. */
function inlineStats(oldText: string, newText: string): ReviewDiffStats | undefined {
  if (isSmall(oldText, newText)) return withFlag(diffStats(oldText, newText));
  if (isMedium(oldText, newText)) {
    const trial = diffStats(oldText, newText, inlineTrial);
    if (!trial.approximate) return withFlag(trial);
  }
  return undefined;
}

function withFlag(stats: { added: number; removed: number; approximate?: true }): ReviewDiffStats {
  return { added: stats.added, removed: stats.removed, approximate: stats.approximate ?? false };
}

function textOf(side: DiffText): string {
  return typeof side === 'string' ? side : side.text;
}

/** What crosses to the worker: a private copy of the bytes (transferred), else the text. */
function sideData(sides: Array<DiffText | null>): Array<DiffSideData | null> {
  return sides.map((side) => (side === null ? null : typeof side === 'string' ? side : new Uint8Array(side.bytes)));
}

/** Few enough lines that even the worst case of the bounded search takes milliseconds here. */
function isSmall(oldText: string, newText: string): boolean {
  if (oldText.length + newText.length > ReviewConstants.diffInlineMaxChars) return false;
  return countLines(oldText) + countLines(newText) <= ReviewConstants.diffInlineMaxLines;
}

/** Small enough for a capped first try on this thread. */
function isMedium(oldText: string, newText: string): boolean {
  if (oldText.length + newText.length > ReviewConstants.diffInlineTrialMaxChars) return false;
  return countLines(oldText) + countLines(newText) <= ReviewConstants.diffInlineTrialMaxLines;
}

function countLines(text: string): number {
  let lines = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
  return lines + 1;
}
