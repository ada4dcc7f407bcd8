/**
 * Pending approvals of a machine as a remote viewer sees them: `permissionRequest` frames (toolName
 * `openDiff`, toolInput = a review: the file's path and a unified diff, see docs/relay.md
 * "Approvals"), answered with `permissionResponse`, and settled for everyone by the daemon's
 * `permissionResponse` on channel "*" (a Switchboard extension: accepted | rejected | withdrawn,
 * and by whom). A decision sent from here waits for that confirmation; a daemon that never
 * confirms (another implementation) gets it recorded as sent after a while.
 */
import { z } from 'zod';
import { Emitter, type Event } from '../common/event.ts';
import type { IDisposable } from '../common/lifecycle.ts';

/**
 * The review a Switchboard daemon puts in `toolInput` (src/node/relay/reviewMirror.ts). Only the
 * path and the diff are required: other daemons may send less, and unknown fields are ignored.
 */
export const ApprovalReview = z.object({
  path: z.string().max(4096),
  diff: z.string(),
  title: z.string().max(400).optional(),
  change: z.string().max(32).optional(),
  source: z
    .object({ kind: z.string().max(32), name: z.string().max(200), terminalName: z.string().max(200).nullable().optional() })
    .optional(),
  outsideWorkspace: z.boolean().optional(),
  binary: z.object({ oldBytes: z.number().nullable(), newBytes: z.number().nullable() }).nullable().optional(),
  stats: z.object({ added: z.number().int().min(0), removed: z.number().int().min(0) }).optional(),
  diffTruncated: z.boolean().optional(),
  diffBytes: z.number().int().min(0).optional(),
  /** true: the machine writes the file on Accept; false: the requester does. Absent from daemons that do not say. */
  apply: z.boolean().optional(),
  /** When the review was opened, RFC 3339 (the machine's clock). */
  createdAt: z.string().max(64).optional(),
});
export type ApprovalReview = z.infer<typeof ApprovalReview>;

export interface PendingApproval {
  requestId: string;
  sessionId: string;
  toolName: string;
  /** The review, when toolInput has the shape above. */
  review: ApprovalReview | undefined;
  /** Otherwise a short JSON preview of toolInput, so the person still sees what is asked. */
  preview: string;
  receivedAt: number;
  /**
   * When the review was opened, epoch ms: its `createdAt` when the daemon gives one (so a review
   * keeps its age across reloads and reconnects), else when this viewer first received it.
   */
  openedAt: number;
  /** Set once this viewer answered, until the machine confirms. */
  sent: 'accept' | 'reject' | undefined;
}

export interface SettledApproval {
  requestId: string;
  title: string;
  outcome: 'accepted' | 'rejected' | 'withdrawn';
  /** Who decided, as the machine says ("you" is the person at the machine); undefined when withdrawn or unknown. */
  decidedBy: string | undefined;
  /** False when this viewer sent the decision and the machine never confirmed it. */
  confirmed: boolean;
  at: number;
}

export const RelayApprovalsConstants = {
  /** Settled approvals kept to show under the pending ones ("accepted by phone"). */
  settledShown: 20,
  /** toolInput of an unknown shape is previewed up to this many characters. */
  previewChars: 2_000,
  /** A decision the machine has not confirmed after this long is recorded as sent, unconfirmed. */
  confirmTimeoutMs: 15_000,
} as const;

export interface RelayApprovalsOptions {
  /** Send `permissionResponse`; false when the relay is not reachable. */
  respond(request: { requestId: string; sessionId: string; approved: boolean }): boolean;
  confirmTimeoutMs?: number;
}

export class RelayApprovals implements IDisposable {
  readonly #options: RelayApprovalsOptions;
  readonly #pending = new Map<string, PendingApproval>();
  #settled: SettledApproval[] = [];
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #onDidChange = new Emitter<void>();
  readonly onDidChange: Event<void> = this.#onDidChange.event;

  constructor(options: RelayApprovalsOptions) {
    this.#options = options;
  }

  /** Waiting for a decision, oldest first. */
  get pending(): readonly PendingApproval[] {
    return [...this.#pending.values()];
  }

  /** Newest first. */
  get settled(): readonly SettledApproval[] {
    return this.#settled;
  }

  /** A `permissionRequest` arrived (again, after a reconnect: an upsert that keeps what was sent). */
  add(frame: { requestId: string; sessionId: string; toolName: string; toolInput: unknown }): void {
    const parsed = frame.toolName === 'openDiff' ? ApprovalReview.safeParse(frame.toolInput) : undefined;
    const previous = this.#pending.get(frame.requestId);
    const review = parsed?.success ? parsed.data : undefined;
    const receivedAt = previous?.receivedAt ?? Date.now();
    this.#pending.set(frame.requestId, {
      requestId: frame.requestId,
      sessionId: frame.sessionId,
      toolName: frame.toolName,
      review,
      preview: parsed?.success ? '' : previewOf(frame.toolInput),
      receivedAt,
      openedAt: openedAtOf(review?.createdAt) ?? receivedAt,
      sent: previous?.sent,
    });
    this.#onDidChange.fire();
  }

  /** The machine settled a request (the `permissionResponse` it sends on channel "*"). */
  settle(requestId: string, settlement: { approved: boolean; outcome?: string | undefined; decidedBy?: string | undefined }): void {
    const item = this.#pending.get(requestId);
    if (!item) return;
    const outcome = settlement.outcome === 'withdrawn' ? 'withdrawn' : settlement.approved ? 'accepted' : 'rejected';
    this.#finish(item, { outcome, decidedBy: settlement.decidedBy, confirmed: true });
  }

  /** Accept or reject: sends the answer; the item stays (marked sent) until the machine confirms. */
  decide(requestId: string, approved: boolean): boolean {
    const item = this.#pending.get(requestId);
    if (!item || item.sent) return false;
    if (!this.#options.respond({ requestId, sessionId: item.sessionId, approved })) return false;
    item.sent = approved ? 'accept' : 'reject';
    this.#timers.set(
      requestId,
      setTimeout(() => {
        const still = this.#pending.get(requestId);
        if (still?.sent) this.#finish(still, { outcome: still.sent === 'accept' ? 'accepted' : 'rejected', decidedBy: undefined, confirmed: false });
      }, this.#options.confirmTimeoutMs ?? RelayApprovalsConstants.confirmTimeoutMs),
    );
    this.#onDidChange.fire();
    return true;
  }

  dispose(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#onDidChange.dispose();
  }

  #finish(item: PendingApproval, result: Pick<SettledApproval, 'outcome' | 'decidedBy' | 'confirmed'>): void {
    clearTimeout(this.#timers.get(item.requestId));
    this.#timers.delete(item.requestId);
    this.#pending.delete(item.requestId);
    const title = item.review?.title ?? item.review?.path ?? item.toolName;
    this.#settled = [{ requestId: item.requestId, title, ...result, at: Date.now() }, ...this.#settled].slice(0, RelayApprovalsConstants.settledShown);
    this.#onDidChange.fire();
  }
}

/** Epoch ms of an RFC 3339 time; undefined when missing or not a time. */
function openedAtOf(createdAt: string | undefined): number | undefined {
  if (createdAt === undefined) return undefined;
  const at = Date.parse(createdAt);
  return Number.isFinite(at) ? at : undefined;
}

function previewOf(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > RelayApprovalsConstants.previewChars ? `${text.slice(0, RelayApprovalsConstants.previewChars)}…` : text;
}
