/**
 * `review.request`: any agent on the control socket asks a person to review a file change. The
 * request blocks until the review is decided in the app (the same queue as Claude Code's diffs),
 * and answers with the decision and the final contents (the reviewer's edits included).
 *
 * Semantics (docs/protocol.md, "Reviews"): the requester writes the file itself, as Claude Code
 * does after FILE_SAVED, unless it sets `apply: true`, in which case the Hub writes the accepted
 * contents (or deletes the file for an accepted deletion) and says whether that worked. A
 * requester that disconnects or whose `timeoutMs` passes has its review withdrawn, and one that
 * named its request with a `withdrawKey` may withdraw it itself (`review.withdraw`, on the same
 * connection only: an MCP tool call the model cancelled). With `apply`, the Hub writes only over
 * the bytes the person reviewed: a file changed on disk meanwhile is left alone.
 *
 * Inline contents are bounded by the socket's 1 MiB request limit; a larger proposal (up to
 * ReviewConstants.maxFileBytes) goes in a file named by `newContentsFile`.
 */
import type { z } from 'zod';
import type { ControlResultBody } from '../../../common/protocol/control/commands.ts';
import { ReviewRequestParams } from '../../../common/protocol/control/reviewCommands.ts';
import { ReviewConstants } from '../../../common/constants.ts';
import type { PtyHost } from '../../pty/ptyHost.ts';
import { FileContent, readFileLimited } from '../../review/fileContent.ts';
import { applyReviewedChange } from '../../review/fileWriter.ts';
import type { ReviewOutcome, ReviewQueue } from '../../review/reviewQueue.ts';
import { type CommandContext, type ControlCommand, type ControlPeer, defineCommand } from '../commandRegistry.ts';
import { ControlError } from '../protocol.ts';

export interface ReviewCommandDeps {
  queue: ReviewQueue;
  ptyHost: PtyHost;
}

/** A review.request that can be withdrawn by key: its review id once the review is open. */
interface WithdrawTicket {
  reviewId: string | null;
  /** review.withdraw came while the review was still being opened. */
  withdrawn: boolean;
}

export function reviewCommands(deps: ReviewCommandDeps): ControlCommand[] {
  // Keys are per connection: only the connection that asked can withdraw (a key names nothing elsewhere).
  const ticketsByPeer = new WeakMap<ControlPeer, Map<string, WithdrawTicket>>();
  const ticketsOf = (peer: ControlPeer) => {
    let tickets = ticketsByPeer.get(peer);
    if (!tickets) ticketsByPeer.set(peer, (tickets = new Map()));
    return tickets;
  };

  return [
    defineCommand('review.request', async (params, context) => {
      // Registered before the first await: a review.withdraw sent right after this request is
      // dispatched after this point, so it always finds the ticket.
      const key = params.withdrawKey;
      const tickets = key === undefined ? undefined : ticketsOf(context.peer);
      if (key !== undefined && tickets!.has(key)) {
        throw new ControlError(`withdrawKey ${JSON.stringify(key)} is already used by a pending review.request on this connection`, 'INVALID_PARAMS');
      }
      const ticket: WithdrawTicket = { reviewId: null, withdrawn: false };
      if (key !== undefined) tickets!.set(key, ticket);
      try {
        const proposed = await proposedContent(params);
        const terminalName = params.terminalId !== undefined ? (deps.ptyHost.get(params.terminalId)?.info.name ?? null) : null;
        const opened = await deps.queue.open({
          source: {
            kind: params.via ?? 'control',
            name: params.from ?? context.peer.name,
            terminalId: params.terminalId ?? null,
            terminalName,
            tabName: null,
            // Reviewers are told who writes the file if they accept (the remote view says so).
            apply: params.apply === true,
          },
          title: params.title ?? null,
          path: params.path,
          proposed,
        });
        ticket.reviewId = opened.id;
        if (ticket.withdrawn) deps.queue.remove(opened.id, 'requester-gone');
        const outcome = await waitForOutcome(deps.queue, opened.id, opened.outcome, context, params.timeoutMs);
        return await answer(outcome, params, opened.summary.path, context, ticket);
      } finally {
        if (key !== undefined && tickets!.get(key) === ticket) tickets!.delete(key);
      }
    }),
    defineCommand('review.withdraw', (params, context) => {
      const ticket = ticketsByPeer.get(context.peer)?.get(params.withdrawKey);
      // Unknown here: never sent on this connection, or already answered (decided, withdrawn, timed out).
      if (!ticket || ticket.withdrawn) return { withdrawn: false, reviewId: ticket?.reviewId ?? null };
      ticket.withdrawn = true;
      if (ticket.reviewId === null) return { withdrawn: true, reviewId: null };
      return { withdrawn: deps.queue.remove(ticket.reviewId, 'requester-gone'), reviewId: ticket.reviewId };
    }),
  ];
}

async function proposedContent(params: z.output<typeof ReviewRequestParams>): Promise<FileContent | null> {
  if (params.newContentsFile !== undefined) {
    const file = await readFileLimited(params.newContentsFile, 'newContentsFile');
    if (!file) throw new ControlError(`newContentsFile does not exist: ${params.newContentsFile}`, 'INVALID_PARAMS');
    return file.content;
  }
  if (params.newContents === null || params.newContents === undefined) return null;
  return params.encoding === 'base64' ? FileContent.fromBytes(Buffer.from(params.newContents, 'base64')) : FileContent.fromString(params.newContents);
}

/** The outcome, or the review withdrawn when the requester disconnects or its deadline passes. */
function waitForOutcome(queue: ReviewQueue, id: string, outcome: Promise<ReviewOutcome>, context: CommandContext, timeoutMs: number | undefined): Promise<ReviewOutcome> {
  // The control connection has no close event for handlers; claws handlers look at `connected` (see TypingGuard).
  const watch = setInterval(() => {
    if (!context.peer.connected) queue.remove(id, 'requester-gone');
  }, ReviewConstants.requesterCheckMs);
  const deadline = timeoutMs === undefined ? undefined : setTimeout(() => queue.remove(id, 'timed-out'), timeoutMs);
  return outcome.finally(() => {
    clearInterval(watch);
    clearTimeout(deadline);
  });
}

async function answer(
  outcome: ReviewOutcome,
  params: z.output<typeof ReviewRequestParams>,
  path: string,
  context: CommandContext,
  ticket: WithdrawTicket,
): Promise<ControlResultBody<'review.request'>> {
  if (outcome.kind === 'removed') {
    if (outcome.reason === 'timed-out') throw new ControlError(`review ${outcome.reviewId} timed out after ${params.timeoutMs} ms and was withdrawn`, 'TIMEOUT');
    if (ticket.withdrawn) throw new ControlError(`review ${outcome.reviewId} was withdrawn by review.withdraw`, 'CONNECTION_CLOSED');
    throw new ControlError(`review ${outcome.reviewId} was withdrawn (${outcome.reason})`, 'CONNECTION_CLOSED');
  }
  if (outcome.kind === 'rejected') {
    return { reviewId: outcome.reviewId, decision: 'rejected', path, by: outcome.by, comment: outcome.comment, applied: false };
  }
  const content = outcome.content;
  const body: ControlResultBody<'review.request'> = {
    reviewId: outcome.reviewId,
    decision: 'accepted',
    path,
    by: outcome.by,
    comment: outcome.comment,
    edited: outcome.edited,
    // null for an accepted deletion, and for bytes that are not text (see finalContentsBase64).
    finalContents: content && !content.isBinary ? content.toResultString() : null,
    applied: false,
  };
  if (content && (content.isBinary || params.encoding === 'base64')) body.finalContentsBase64 = content.bytes.toString('base64');
  if (!params.apply) return body;
  if (!context.peer.connected || ticket.withdrawn) {
    // Accepted in the moment its requester went away (or withdrew): nobody would hear what was
    // written, and the agent may already have moved on. Leave the file as it is.
    body.applyError = 'the requester was gone when the review was accepted; nothing was written';
    return body;
  }
  try {
    await applyReviewedChange(path, content?.bytes ?? null, outcome.original?.bytes ?? null);
    body.applied = true;
  } catch (error) {
    body.applyError = (error as Error).message;
  }
  return body;
}
