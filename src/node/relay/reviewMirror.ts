/**
 * Approvals over the relay: every pending review of the queue is mirrored to the relay's viewers
 * as `permissionRequest` (toolName `openDiff`, `toolInput` = `ApprovalToolInput`), and a viewer's
 * `permissionResponse` decides it exactly as the local Accept / Reject buttons do (accept = the
 * proposal unchanged), `decidedBy` being the viewer's name as the relay stamped it. A review that
 * leaves the queue some other way — decided here, by another viewer, or withdrawn by its
 * requester — is settled for every viewer with `permissionResponse` on channel "*" (a Switchboard
 * extension; see docs/relay.md "Approvals").
 *
 * Requests are sent again every time the link comes up (the relay keeps nothing across a daemon
 * reconnect), so a viewer always ends up with the current pending list.
 */
import { isApiError } from '../../common/api/errors.ts';
import type { ReviewSummary } from '../../common/api/reviewContract.ts';
import { utf8ByteLength } from '../../common/protocol/relay/frameLimits.ts';
import { rfc3339 } from '../../common/protocol/relay/frames.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { ReviewDiffer } from '../review/reviewDiffer.ts';
import type { ReviewQueue } from '../review/reviewQueue.ts';
import { RelayAppConstants } from './relayAppConstants.ts';
import type { PermissionSettlement, RelayApprovals, RelayClient } from './relayClient.ts';

/** The tool name of a mirrored review (Claude Code's own name for "show a diff and wait"). */
export const APPROVAL_TOOL_NAME = 'openDiff';

/** What a viewer gets in `permissionRequest.toolInput` for a pending review (documented in docs/relay.md). */
export interface ApprovalToolInput {
  /** Also the request's `requestId`. */
  reviewId: string;
  /** The file, absolute on this machine. */
  path: string;
  title: string;
  change: ReviewSummary['change'];
  source: { kind: string; name: string; terminalId: string | null; terminalName: string | null };
  outsideWorkspace: boolean;
  /** null: both sides are text. Otherwise the sizes; `diff` is then "". */
  binary: { oldBytes: number | null; newBytes: number | null } | null;
  stats: { added: number; removed: number };
  /**
   * What Accept does to the file: true, this machine's Switchboard writes the accepted contents
   * (a request with `apply`); false, the requester gets them and writes the file itself (as Claude
   * Code does) and Switchboard writes nothing.
   */
  apply: boolean;
  /** `diff -u` of the current file → the proposal (`--- a/…` / `+++ b/…`), cut at a line end when too big. */
  diff: string;
  diffTruncated: boolean;
  /** Size of the whole diff in UTF-8 bytes (more than `diff` carries when truncated). */
  diffBytes: number;
  /** RFC 3339. */
  createdAt: string;
}

export class ReviewMirror implements RelayApprovals, IDisposable {
  readonly #queue: ReviewQueue;
  readonly #client: () => RelayClient | undefined;
  readonly #logger: ILogger;
  readonly #listeners: IDisposable[];
  /** Diffs run off the Hub's thread when large, as the queue's own do (only while a link is up). */
  readonly #differ: ReviewDiffer;
  /** Tool inputs of the pending reviews, built once (a diff of a large file is not free). */
  readonly #inputs = new Map<string, Promise<ApprovalToolInput | undefined>>();
  #disposed = false;

  constructor(options: { queue: ReviewQueue; client: () => RelayClient | undefined; logger: ILogger }) {
    this.#queue = options.queue;
    this.#client = options.client;
    this.#logger = options.logger;
    this.#differ = new ReviewDiffer({ logger: options.logger });
    this.#listeners = [
      options.queue.onDidAdd((summary) => this.#mirror(summary)),
      options.queue.onDidDecide((summary) => {
        const decision = summary.decision;
        this.#settle(summary.id, {
          approved: decision?.decision === 'accepted',
          outcome: decision?.decision === 'accepted' ? 'accepted' : 'rejected',
          decidedBy: decision?.by,
        });
      }),
      options.queue.onDidRemove(({ id }) => this.#settle(id, { approved: false, outcome: 'withdrawn' })),
    ];
  }

  /** The link (re)connected: its viewers know nothing yet. */
  mirrorAll(): void {
    for (const summary of this.#queue.pending()) this.#mirror(summary);
  }

  /** RelayApprovals: a viewer answered. */
  decide(requestId: string, approved: boolean, from: { channelId: string; viewerName: string | undefined }): boolean {
    if (!this.#queue.isPending(requestId)) return false;
    const by = from.viewerName?.trim().slice(0, 200) || 'remote viewer';
    try {
      this.#queue.decide(requestId, { decision: approved ? 'accept' : 'reject' }, by);
    } catch (error) {
      if (!isApiError(error)) throw error;
      this.#logger.info('a remote decision was refused', { reviewId: requestId, reason: error.message });
      return false;
    }
    this.#logger.info('review decided remotely', { reviewId: requestId, approved, by, channelId: from.channelId });
    return true;
  }

  dispose(): void {
    this.#disposed = true;
    for (const listener of this.#listeners) listener.dispose();
    this.#inputs.clear();
    this.#differ.dispose();
  }

  #mirror(summary: ReviewSummary): void {
    if (!this.#client()) return; // sent by mirrorAll() once a link is up
    let building = this.#inputs.get(summary.id);
    if (!building) {
      building = this.#toolInput(summary).catch((error: unknown) => {
        this.#logger.error('could not prepare a review for the relay', { reviewId: summary.id, error: String(error) });
        return undefined;
      });
      this.#inputs.set(summary.id, building);
    }
    void building.then((toolInput) => {
      // Settled while its diff was computed: the settlement already went out instead.
      if (!toolInput || this.#disposed || !this.#queue.isPending(summary.id)) return;
      this.#client()?.mirrorPermissionRequest({ requestId: summary.id, toolName: APPROVAL_TOOL_NAME, toolInput });
    });
  }

  #settle(id: string, settlement: PermissionSettlement): void {
    this.#inputs.delete(id);
    this.#client()?.settlePermissionRequest(id, settlement);
  }

  async #toolInput(summary: ReviewSummary): Promise<ApprovalToolInput | undefined> {
    if (!this.#queue.isPending(summary.id)) return undefined;
    const item = await this.#queue.get(summary.id);
    const fullDiff = summary.binary ? '' : (await this.#differ.unifiedDiff(summary.path, item.oldContents, item.newContents)).text;
    const diffBytes = utf8ByteLength(fullDiff);
    const base: Omit<ApprovalToolInput, 'diff' | 'diffTruncated'> = {
      reviewId: summary.id,
      path: summary.path,
      title: summary.title,
      change: summary.change,
      source: { kind: summary.source.kind, name: summary.source.name, terminalId: summary.source.terminalId, terminalName: summary.source.terminalName },
      outsideWorkspace: summary.outsideWorkspace,
      binary: summary.binary,
      stats: summary.stats,
      apply: summary.source.apply === true,
      diffBytes,
      createdAt: rfc3339(summary.createdAt),
    };
    // JSON escaping can make a diff much bigger than its bytes: shrink until the frame fits.
    let budget: number = RelayAppConstants.approvalDiffMaxBytes;
    for (;;) {
      const diff = cutAtLineEnd(fullDiff, budget);
      const input: ApprovalToolInput = { ...base, diff, diffTruncated: diff.length < fullDiff.length };
      if (utf8ByteLength(JSON.stringify(input)) <= RelayAppConstants.approvalFrameMaxBytes || budget === 0) {
        if (input.diffTruncated) this.#logger.info('approval diff truncated for the relay', { reviewId: summary.id, diffBytes, sentBytes: utf8ByteLength(diff) });
        return input;
      }
      budget = Math.floor(budget / 2);
    }
  }
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends at a line end ("" if the first line alone is longer). */
export function cutAtLineEnd(text: string, maxBytes: number): string {
  if (utf8ByteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const newline = text.indexOf('\n', end);
    const lineEnd = newline === -1 ? text.length : newline + 1;
    bytes += utf8ByteLength(text.slice(end, lineEnd));
    if (bytes > maxBytes) break;
    end = lineEnd;
  }
  return text.slice(0, end);
}
