/**
 * The one review queue every source feeds: Claude Code's `openDiff` (IDE bridge), the control
 * socket's `review.request` and the `review_request` MCP tool. A requester opens a review and
 * waits on its outcome; a reviewer (any Hub client) decides it; decided reviews go to the
 * ReviewArchive (the decided list, kept across restarts).
 *
 * The queue never writes the reviewed file: Claude Code writes it after FILE_SAVED, and control /
 * MCP requesters either write it themselves or ask their command to (`apply`).
 */
import { randomBytes } from 'node:crypto';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import type { ReviewChange, ReviewDecision, ReviewItem, ReviewRemovalReason, ReviewSource, ReviewSummary } from '../../common/api/reviewContract.ts';
import { ApiError } from '../../common/api/errors.ts';
import { ReviewConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { assertWithinLimit, FileContent, formatBytes, readFileLimited } from './fileContent.ts';
import { diffStats, unifiedDiff } from './lineDiff.ts';
import type { ReviewArchive } from './reviewArchive.ts';

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

export class ReviewQueue implements IDisposable {
  readonly #archive: ReviewArchive;
  readonly #workspaceFolders: readonly string[];
  readonly #logger: ILogger;
  readonly #pending = new Map<string, PendingReview>();
  #disposed = false;

  readonly #onDidAdd = new Emitter<ReviewSummary>();
  readonly onDidAdd: Event<ReviewSummary> = this.#onDidAdd.event;
  readonly #onDidDecide = new Emitter<ReviewSummary>();
  readonly onDidDecide: Event<ReviewSummary> = this.#onDidDecide.event;
  readonly #onDidRemove = new Emitter<{ id: string; reason: ReviewRemovalReason; summary: ReviewSummary }>();
  readonly onDidRemove: Event<{ id: string; reason: ReviewRemovalReason; summary: ReviewSummary }> = this.#onDidRemove.event;

  constructor(options: { archive: ReviewArchive; workspaceFolders: readonly string[]; logger: ILogger }) {
    this.#archive = options.archive;
    this.#workspaceFolders = options.workspaceFolders.map((folder) => resolve(folder));
    this.#logger = options.logger;
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
    const stats = binary ? { added: 0, removed: 0 } : diffStats(old?.text ?? '', request.proposed?.text ?? '');
    const id = `rv-${randomBytes(8).toString('hex')}`;
    const summary: ReviewSummary = {
      id,
      source: request.source,
      title: request.title?.trim() || basename(path),
      path,
      outsideWorkspace: !this.#workspaceFolders.some((folder) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep)),
      change,
      binary,
      stats,
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

  list(options: { decidedLimit?: number | undefined; decidedBefore?: number | undefined } = {}): { pending: ReviewSummary[]; decided: ReviewSummary[] } {
    const limit = options.decidedLimit ?? ReviewConstants.defaultDecidedLimit;
    return { pending: this.pending(), decided: limit === 0 ? [] : this.#archive.list(limit, options.decidedBefore) };
  }

  get(id: string): ReviewItem {
    const pending = this.#pending.get(id);
    if (pending) return { ...pending.summary, oldContents: pending.old?.text ?? null, newContents: pending.proposed?.text ?? null, decision: null };
    const decided = this.#archive.get(id);
    if (!decided) throw new ApiError('NOT_FOUND', `no review with id ${id}`);
    return decided;
  }

  /** A reviewer's decision. `by`: "you" or a remote viewer's name. */
  decide(id: string, params: DecideParams, by: string): ReviewSummary {
    const review = this.#pending.get(id);
    if (!review) {
      const decided = this.#archive.get(id);
      if (decided?.decision) throw new ApiError('INVALID_PARAMS', `review ${id} was already ${decided.decision.decision} by ${decided.decision.by}`);
      throw new ApiError('NOT_FOUND', `no pending review with id ${id} (it may have been withdrawn by its requester)`);
    }
    const { summary, old, proposed } = review;
    const comment = params.comment?.trim() ? params.comment : null;
    let decision: ReviewDecision;
    let outcome: ReviewOutcome;
    if (params.decision === 'reject') {
      if (params.finalContents !== undefined) throw new ApiError('INVALID_PARAMS', 'finalContents only goes with accept');
      decision = {
        decision: 'rejected',
        by,
        at: Date.now(),
        comment,
        edited: false,
        finalContents: null,
        unifiedDiff: summary.binary ? '' : unifiedDiff(summary.path, old?.text ?? null, proposed?.text ?? null),
      };
      outcome = { kind: 'rejected', reviewId: id, comment, by };
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
      decision = {
        decision: 'accepted',
        by,
        at: Date.now(),
        comment,
        edited,
        finalContents: final && !final.isBinary ? final.toResultString() : null,
        unifiedDiff: summary.binary ? '' : unifiedDiff(summary.path, old?.text ?? null, final?.text ?? null),
      };
      outcome = { kind: 'accepted', reviewId: id, content: final, edited, comment, by };
    }
    this.#pending.delete(id);
    const decided: ReviewSummary = {
      ...summary,
      state: decision.decision,
      decision: { decision: decision.decision, by, at: decision.at, comment, edited: decision.edited },
    };
    try {
      this.#archive.add({ ...decided, oldContents: old?.text ?? null, newContents: proposed?.text ?? null, decision });
    } catch (error) {
      // The requester must still get its answer; only the decided list misses this one.
      this.#logger.error('could not store a decided review', { id, error: String(error) });
    }
    this.#logger.info('review decided', { id, decision: decision.decision, by, edited: decision.edited });
    review.settle(outcome);
    this.#onDidDecide.fire(decided);
    return decided;
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

  /** Requesters still waiting hear 'shutdown'; nothing pending is stored (nobody decided it). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const id of [...this.#pending.keys()]) this.remove(id, 'shutdown');
    this.#onDidAdd.dispose();
    this.#onDidDecide.dispose();
    this.#onDidRemove.dispose();
  }

  #assertOpen(): void {
    if (this.#disposed) throw new ApiError('CONNECTION_CLOSED', 'the review queue is shut down');
  }
}
