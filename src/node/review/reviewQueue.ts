/**
 * The one review queue every source feeds: Claude Code's `openDiff` (IDE bridge), the control
 * socket's `review.request` and the `review_request` MCP tool. A requester opens a review and
 * waits on its outcome; a reviewer (any Hub client) decides it; decided reviews go to the
 * ReviewArchive (the decided list, kept across restarts).
 *
 * The queue never writes the reviewed file: Claude Code writes it after FILE_SAVED, and control /
 * MCP requesters either write it themselves or ask their command to (`apply`, which checks the
 * file still holds the reviewed bytes, `ReviewOutcome.original`).
 *
 * Diffs (the stats a review opens with, the unified diff a decision keeps) run on a worker thread
 * for large files (ReviewDiffer). A decision is answered and announced at once; its unified diff
 * follows, and the decision reaches the archive with it — until then `get`/`list` serve it from
 * memory, so nobody sees a gap.
 */
import { randomBytes } from 'node:crypto';
import { basename, isAbsolute, resolve } from 'node:path';
import type { ReviewChange, ReviewDecision, ReviewItem, ReviewRemovalReason, ReviewSource, ReviewSummary } from '../../common/api/reviewContract.ts';
import { ApiError } from '../../common/api/errors.ts';
import { ReviewConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { assertWithinLimit, FileContent, formatBytes, readFileLimited } from './fileContent.ts';
import type { DecidedCursor, ReviewArchive } from './reviewArchive.ts';
import { unifiedDiffStats } from './lineDiff.ts';
import { ReviewDiffer, type ReviewDiffStats, type ReviewDifferOptions } from './reviewDiffer.ts';
import { isOutsideWorkspace } from './workspacePaths.ts';

export interface ReviewRequest {
  source: ReviewSource;
  /** Shown in the list; default: the file name. */
  title?: string | null;
  /** The file the proposal is for (absolute). */
  path: string;
  /** Where the current contents are read from (Claude Code's `old_file_path`); default `path`. */
  oldPath?: string;
  /** The proposed contents; null proposes deleting the file. */
  proposed: FileContent | null;
}

/** What the requester gets once its review leaves the queue. */
export type ReviewOutcome =
  | {
      kind: 'accepted';
      reviewId: string;
      /** The approved contents (the reviewer's edits included); null for an accepted deletion. */
      content: FileContent | null;
      /** The file as the reviewer saw it when the review opened (null: it did not exist): write only over these bytes. */
      original: FileContent | null;
      /** The reviewer changed the proposal before accepting. */
      edited: boolean;
      comment: string | null;
      by: string;
    }
  | { kind: 'rejected'; reviewId: string; comment: string | null; by: string }
  | { kind: 'removed'; reviewId: string; reason: ReviewRemovalReason };

export interface OpenedReview {
  readonly id: string;
  readonly summary: ReviewSummary;
  /** Settles once the review is decided or removed; never rejects. */
  readonly outcome: Promise<ReviewOutcome>;
}

export interface DecideParams {
  decision: 'accept' | 'reject';
  finalContents?: string | undefined;
  comment?: string | undefined;
}

interface PendingReview {
  summary: ReviewSummary;
  old: FileContent | null;
  proposed: FileContent | null;
  settle: (outcome: ReviewOutcome) => void;
}

/** A decision whose unified diff is still being computed: not in the archive yet. */
interface DecidingReview {
  summary: ReviewSummary;
  /** The decided item but for its unified diff. */
  item: ReviewItem & { decision: ReviewDecision };
  /** The texts the unified diff is made of. */
  diffSides: { old: FileContent | null; final: FileContent | null };
  /** UTF-8 bytes of the texts the archive would store (old, proposed, an edited final). */
  textBytes: number;
  /** Settles once it is archived (or failed to be). */
  complete: Promise<void>;
  archived: boolean;
}

export interface ReviewQueueOptions {
  archive: ReviewArchive;
  workspaceFolders: readonly string[];
  logger: ILogger;
  /** Where large diffs run (the worker script, its time budget); see ReviewDiffer. */
  diff?: Omit<ReviewDifferOptions, 'logger'>;
}

export class ReviewQueue implements IDisposable {
  readonly #archive: ReviewArchive;
  readonly #workspaceFolders: readonly string[];
  readonly #logger: ILogger;
  readonly #differ: ReviewDiffer;
  readonly #pending = new Map<string, PendingReview>();
  readonly #deciding = new Map<string, DecidingReview>();
  #disposed = false;

  readonly #onDidAdd = new Emitter<ReviewSummary>();
  readonly onDidAdd: Event<ReviewSummary> = this.#onDidAdd.event;
  readonly #onDidDecide = new Emitter<ReviewSummary>();
  readonly onDidDecide: Event<ReviewSummary> = this.#onDidDecide.event;
  readonly #onDidRemove = new Emitter<{ id: string; reason: ReviewRemovalReason; summary: ReviewSummary }>();
  readonly onDidRemove: Event<{ id: string; reason: ReviewRemovalReason; summary: ReviewSummary }> = this.#onDidRemove.event;

  constructor(options: ReviewQueueOptions) {
    this.#archive = options.archive;
    this.#workspaceFolders = options.workspaceFolders.map((folder) => resolve(folder));
    this.#logger = options.logger;
    this.#differ = new ReviewDiffer({ ...options.diff, logger: options.logger });
  }

  /**
   * Put a proposal in the queue. Refuses (INVALID_PARAMS, with a message for the requester) a
   * relative path, a proposal or current file over ReviewConstants.maxFileBytes, a directory, or a
   * deletion of a file that does not exist.
   */
  async open(request: ReviewRequest): Promise<OpenedReview> {
    this.#assertOpen();
    if (!isAbsolute(request.path)) throw new ApiError('INVALID_PARAMS', `path must be absolute: ${request.path}`);
    const path = resolve(request.path);
    const oldPath = request.oldPath !== undefined && isAbsolute(request.oldPath) ? resolve(request.oldPath) : path;
    if (request.proposed) assertWithinLimit(`the proposed ${basename(path)}`, request.proposed.size);
    const current = await readFileLimited(oldPath, 'the current file');
    this.#assertOpen();
    const old = current?.content ?? null;
    if (!old && !request.proposed) throw new ApiError('INVALID_PARAMS', `cannot propose deleting ${path}: it does not exist`);
    const change: ReviewChange = !old ? 'create' : !request.proposed ? 'delete' : 'modify';
    const binary =
      old?.isBinary || request.proposed?.isBinary ? { oldBytes: old ? old.size : null, newBytes: request.proposed ? request.proposed.size : null } : null;
    const [diff, outsideWorkspace] = await Promise.all([
      binary ? null : this.#differ.stats(diffText(old) ?? '', diffText(request.proposed) ?? ''),
      isOutsideWorkspace(path, this.#workspaceFolders),
    ]);
    this.#assertOpen();
    const id = `rv-${randomBytes(8).toString('hex')}`;
    const summary: ReviewSummary = {
      id,
      source: request.source,
      title: request.title?.trim() || basename(path),
      path,
      outsideWorkspace,
      change,
      binary,
      stats: summaryStats(diff),
      state: 'pending',
      createdAt: Date.now(),
      decision: null,
    };
    let settle!: (outcome: ReviewOutcome) => void;
    const outcome = new Promise<ReviewOutcome>((resolvePromise) => (settle = resolvePromise));
    this.#pending.set(id, { summary, old, proposed: request.proposed, settle });
    this.#logger.info('review opened', { id, source: request.source.kind, from: request.source.name, path, change, bytes: request.proposed?.size ?? 0 });
    this.#onDidAdd.fire(summary);
    return { id, summary, outcome };
  }

  /** Pending reviews, oldest first. */
  pending(filter: (summary: ReviewSummary) => boolean = () => true): ReviewSummary[] {
    return [...this.#pending.values()].map((review) => review.summary).filter(filter);
  }

  isPending(id: string): boolean {
    return this.#pending.has(id);
  }

  /**
   * Pending reviews, and decided ones newest first. Paging: `decidedBefore` (a decision's `at`)
   * with `decidedBeforeId` (that review's id) continues exactly after that review, also among
   * reviews decided in the same millisecond.
   */
  list(options: { decidedLimit?: number | undefined; decidedBefore?: number | undefined; decidedBeforeId?: string | undefined } = {}): {
    pending: ReviewSummary[];
    decided: ReviewSummary[];
  } {
    const limit = options.decidedLimit ?? ReviewConstants.defaultDecidedLimit;
    if (limit === 0) return { pending: this.pending(), decided: [] };
    const cursor: DecidedCursor | undefined = options.decidedBefore === undefined ? undefined : { at: options.decidedBefore, id: options.decidedBeforeId };
    const inFlight = [...this.#deciding.values()].map((entry) => entry.summary).filter((summary) => isBefore(summary, cursor));
    const stored = this.#archive.list(limit, cursor).filter((summary) => !this.#deciding.has(summary.id));
    const decided = [...inFlight, ...stored].sort(newestDecisionFirst).slice(0, limit);
    return { pending: this.pending(), decided };
  }

  async get(id: string): Promise<ReviewItem> {
    const pending = this.#pending.get(id);
    if (pending) return { ...pending.summary, oldContents: pending.old?.text ?? null, newContents: pending.proposed?.text ?? null, decision: null };
    const deciding = this.#deciding.get(id);
    if (deciding) {
      await deciding.complete;
      // As stored (a large review without its texts), so every read agrees; the archive may have failed to take it.
      return (this.#disposed ? null : this.#archive.get(id)) ?? deciding.item;
    }
    const decided = this.#archive.get(id);
    if (!decided) throw new ApiError('NOT_FOUND', `no review with id ${id}`);
    return decided;
  }

  /** A reviewer's decision. `by`: "you" or a remote viewer's name. The requester hears it at once. */
  decide(id: string, params: DecideParams, by: string): ReviewSummary {
    const review = this.#pending.get(id);
    if (!review) {
      const decided = this.#deciding.get(id)?.summary.decision ?? this.#archive.get(id)?.decision;
      if (decided) throw new ApiError('INVALID_PARAMS', `review ${id} was already ${decided.decision} by ${decided.by}`);
      throw new ApiError('NOT_FOUND', `no pending review with id ${id} (it may have been withdrawn by its requester)`);
    }
    const { summary, old, proposed } = review;
    const comment = params.comment?.trim() ? params.comment : null;
    let decision: ReviewDecision;
    let outcome: ReviewOutcome;
    let finalSide: FileContent | null;
    let stats = summary.stats;
    if (params.decision === 'reject') {
      if (params.finalContents !== undefined) throw new ApiError('INVALID_PARAMS', 'finalContents only goes with accept');
      decision = { decision: 'rejected', by, at: Date.now(), comment, edited: false, finalContents: null, unifiedDiff: '' };
      outcome = { kind: 'rejected', reviewId: id, comment, by };
      // A rejection keeps the diff of the proposal that was turned down.
      finalSide = proposed;
    } else {
      if (params.finalContents !== undefined && summary.binary) throw new ApiError('INVALID_PARAMS', 'a binary file cannot be edited: accept it without finalContents');
      if (params.finalContents !== undefined && !proposed) throw new ApiError('INVALID_PARAMS', 'a deletion cannot be edited: accept it without finalContents');
      const final = params.finalContents !== undefined ? FileContent.fromString(params.finalContents) : proposed;
      if (final && params.finalContents !== undefined) {
        if (final.size > ReviewConstants.maxFileBytes) throw new ApiError('INVALID_PARAMS', `the edited file is ${formatBytes(final.size)}, over the review limit`);
        // The reviewer's text must stay text: a NUL typed into the editor would make it unreviewable.
        if (final.isBinary) throw new ApiError('INVALID_PARAMS', 'finalContents must be text (no NUL characters or lone surrogates)');
      }
      const edited = params.finalContents !== undefined && params.finalContents !== proposed?.toResultString();
      decision = { decision: 'accepted', by, at: Date.now(), comment, edited, finalContents: final && !final.isBinary ? final.toResultString() : null, unifiedDiff: '' };
      outcome = { kind: 'accepted', reviewId: id, content: final, original: old, edited, comment, by };
      finalSide = final;
      // A decided review counts the change it made: changes left out or lines retyped are not the
      // proposal's. Counted now, so the decision is announced with them (exact unless the file is
      // huge: then approximate until its unified diff is in, see #archiveDecision).
      if (edited && final) stats = summaryStats(this.#differ.statsNow(diffText(old) ?? '', diffText(final)));
    }
    this.#pending.delete(id);
    const decided: ReviewSummary = {
      ...summary,
      stats,
      state: decision.decision,
      decision: { decision: decision.decision, by, at: decision.at, comment, edited: decision.edited },
    };
    const textBytes = (old?.text ? old.size : 0) + (proposed?.text ? proposed.size : 0) + (decision.edited ? Buffer.byteLength(decision.finalContents ?? '', 'utf8') : 0);
    this.#startArchiving(
      decided,
      { ...decided, oldContents: old?.text ?? null, newContents: proposed?.text ?? null, decision },
      summary.binary ? null : { old, final: finalSide },
      textBytes,
    );
    this.#logger.info('review decided', { id, decision: decision.decision, by, edited: decision.edited });
    review.settle(outcome);
    this.#onDidDecide.fire(decided);
    return decided;
  }

  /** Resolves once every decision made so far has its unified diff and is in the archive. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.#deciding.values()].map((entry) => entry.complete));
  }

  /** Take a pending review out without a decision (its requester withdrew or went away). */
  remove(id: string, reason: ReviewRemovalReason): boolean {
    const review = this.#pending.get(id);
    if (!review) return false;
    this.#pending.delete(id);
    this.#logger.info('review removed', { id, reason });
    review.settle({ kind: 'removed', reviewId: id, reason });
    this.#onDidRemove.fire({ id, reason, summary: review.summary });
    return true;
  }

  /** Withdraws every pending review: their requesters hear `reason` (the app quits: 'shutdown'). */
  withdrawAll(reason: 'shutdown'): void {
    for (const id of [...this.#pending.keys()]) this.remove(id, reason);
  }

  /**
   * Requesters still waiting hear 'shutdown'; nothing pending is stored (nobody decided it).
   * Decisions whose diff is still being computed are archived now, with the linear-time diff.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.withdrawAll('shutdown');
    for (const entry of [...this.#deciding.values()]) {
      if (entry.archived) continue;
      this.#archiveDecision(entry, this.#differ.approximateUnifiedDiff(entry.summary.path, entry.diffSides.old?.text ?? null, entry.diffSides.final?.text ?? null).text);
    }
    this.#differ.dispose();
    this.#onDidAdd.dispose();
    this.#onDidDecide.dispose();
    this.#onDidRemove.dispose();
  }

  /** Compute the decision's unified diff (binary: none), then store it; served from memory meanwhile. */
  #startArchiving(
    summary: ReviewSummary,
    item: ReviewItem & { decision: ReviewDecision },
    diffSides: { old: FileContent | null; final: FileContent | null } | null,
    textBytes: number,
  ): void {
    const entry: DecidingReview = { summary, item, diffSides: diffSides ?? { old: null, final: null }, textBytes, complete: Promise.resolve(), archived: false };
    this.#deciding.set(summary.id, entry);
    entry.complete = (async () => {
      let diff = '';
      let exact = false;
      if (diffSides) {
        try {
          const unified = await this.#differ.unifiedDiff(summary.path, diffText(diffSides.old), diffText(diffSides.final));
          diff = unified.text;
          exact = !unified.approximate;
        } catch (error) {
          this.#logger.error('could not compute the diff of a decided review', { id: summary.id, error: String(error) });
        }
      }
      if (!entry.archived) this.#archiveDecision(entry, diff, exact);
    })();
  }

  /** `exactDiff`: the diff is minimal, so the counts stored with it may be read off it. */
  #archiveDecision(entry: DecidingReview, unifiedDiff: string, exactDiff = false): void {
    entry.archived = true;
    if (exactDiff && entry.item.stats.approximate) {
      // The counts announced with a huge edited accept were approximate; the list shows exact ones from now on.
      entry.item = { ...entry.item, stats: unifiedDiffStats(unifiedDiff) };
    }
    const budget = ReviewConstants.maxStoredReviewBytes;
    if (entry.textBytes + Buffer.byteLength(unifiedDiff, 'utf8') > budget) {
      // Too big to store whole without stalling the Hub's thread: the diff (cut short), no texts.
      const { decision } = entry.item;
      entry.item = {
        ...entry.item,
        oldContents: null,
        newContents: null,
        contentsPruned: true,
        decision: { ...decision, finalContents: null, unifiedDiff: truncateDiff(unifiedDiff, budget) },
      };
    } else {
      entry.item = { ...entry.item, decision: { ...entry.item.decision, unifiedDiff } };
    }
    try {
      this.#archive.add(entry.item);
    } catch (error) {
      // The requester already has its answer; only the decided list misses this one.
      this.#logger.error('could not store a decided review', { id: entry.summary.id, error: String(error) });
    }
    this.#deciding.delete(entry.summary.id);
  }

  #assertOpen(): void {
    if (this.#disposed) throw new ApiError('CONNECTION_CLOSED', 'the review queue is shut down');
  }
}

/** A text side of a diff (both sides are text when diffs are made): its text and its UTF-8 bytes. */
function diffText(content: FileContent): { text: string; bytes: Uint8Array };
function diffText(content: FileContent | null): { text: string; bytes: Uint8Array } | null;
function diffText(content: FileContent | null): { text: string; bytes: Uint8Array } | null {
  return content === null ? null : { text: content.text ?? '', bytes: content.bytes };
}

/** Counts as a summary carries them (`approximate` only when true); none for a binary file. */
function summaryStats(diff: ReviewDiffStats | null): ReviewSummary['stats'] {
  if (!diff) return { added: 0, removed: 0 };
  return diff.approximate ? { added: diff.added, removed: diff.removed, approximate: true } : { added: diff.added, removed: diff.removed };
}

/** A unified diff of at most about `maxBytes`, cut at a line end, with a note saying so. */
export function truncateDiff(diff: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(diff, 'utf8');
  if (bytes <= maxBytes) return diff;
  // A UTF-16 code unit is at most 3 UTF-8 bytes: if maxBytes characters are too many bytes, a third of them is not.
  let cut = diff.lastIndexOf('\n', maxBytes - 1) + 1;
  if (Buffer.byteLength(diff.slice(0, cut), 'utf8') > maxBytes) cut = diff.lastIndexOf('\n', Math.floor(maxBytes / 3) - 1) + 1;
  const kept = diff.slice(0, cut);
  return `${kept}[diff cut short: the first ${formatBytes(Buffer.byteLength(kept, 'utf8'))} of ${formatBytes(bytes)} are kept]\n`;
}

/** Decided reviews' order: newest decision first, then id descending (the archive's order). */
function newestDecisionFirst(a: ReviewSummary, b: ReviewSummary): number {
  const byTime = b.decision!.at - a.decision!.at;
  return byTime !== 0 ? byTime : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function isBefore(summary: ReviewSummary, cursor: DecidedCursor | undefined): boolean {
  if (!cursor) return true;
  const at = summary.decision!.at;
  return at < cursor.at || (cursor.id !== undefined && at === cursor.at && summary.id < cursor.id);
}
