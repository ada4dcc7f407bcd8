/**
 * `review.request` (ask a person to review a file change; blocks until decided) and
 * `review.withdraw` (docs/protocol.md, "Reviews").
 */
import { z } from 'zod';
import { TerminalId } from '../../api/contractTypes.ts';
import { AbsolutePath } from '../../api/reviewContract.ts';
import { ControlConstants } from '../../constants.ts';

/** A name the requester gives its review.request so it can withdraw it (`review.withdraw`). */
const WithdrawKey = z.string().min(1).max(128);

export const ReviewRequestParams = z
  .object({
    /** The file the change is for. */
    path: AbsolutePath,
    /** The proposed contents; null proposes deleting the file. */
    newContents: z.string().nullable().optional(),
    /** Instead of newContents: a file holding the proposed contents (for proposals past the 1 MiB request limit, or bytes). */
    newContentsFile: AbsolutePath.optional(),
    /** How newContents is encoded: utf8 text (default) or base64 bytes. */
    encoding: z.enum(['utf8', 'base64']).optional(),
    title: z.string().max(200).optional(),
    /** Who asks, as the reviewer sees it (default: the connection's clientName). */
    from: z.string().min(1).max(200).optional(),
    /** The pane the requester runs in (agents in a Switchboard pane have it in $SWITCHBOARD_TERMINAL_ID). */
    terminalId: TerminalId.optional(),
    /** Write the accepted contents (or delete the file) in the Hub; default false: the requester writes. */
    apply: z.boolean().optional(),
    /** Withdraw the review and answer TIMEOUT after this long (default: wait for the reviewer however long it takes). */
    timeoutMs: z.number().int().min(1).max(ControlConstants.maxTimeoutMs).optional(),
    /** Set by `switchboard mcp` so the review shows it came through MCP. */
    via: z.enum(['control', 'mcp']).optional(),
    /** Lets `review.withdraw {withdrawKey}` on this connection withdraw the review (unique among this connection's pending requests). */
    withdrawKey: WithdrawKey.optional(),
  })
  .superRefine((params, issues) => {
    const given = (params.newContents !== undefined ? 1 : 0) + (params.newContentsFile !== undefined ? 1 : 0);
    if (given !== 1) issues.addIssue({ code: 'custom', message: 'give exactly one of newContents (null to delete the file) or newContentsFile' });
    if (params.encoding === 'base64' && typeof params.newContents === 'string' && !/^[A-Za-z0-9+/]*={0,2}$/.test(params.newContents)) {
      issues.addIssue({ code: 'custom', path: ['newContents'], message: 'not base64' });
    }
  });

/** The decision on a review.request. A withdrawn or timed-out review is an error, not an answer. */
export const ReviewAnswer = z.looseObject({
  reviewId: z.string(),
  decision: z.enum(['accepted', 'rejected']),
  path: z.string(),
  by: z.string(),
  comment: z.string().nullable(),
  /** accepted: whether the reviewer changed the proposal. */
  edited: z.boolean().optional(),
  /** accepted: the final text; null for a deletion and for bytes that are not text (see finalContentsBase64). */
  finalContents: z.string().nullable().optional(),
  finalContentsBase64: z.string().optional(),
  /** Whether the Hub wrote the change (only with `apply: true`). */
  applied: z.boolean(),
  /** Why an `apply` did not happen. */
  applyError: z.string().optional(),
});

export const reviewCommandSchemas = {
  'review.request': { params: ReviewRequestParams, result: ReviewAnswer },
  'review.withdraw': {
    params: z.object({ withdrawKey: WithdrawKey }),
    result: z.looseObject({ withdrawn: z.boolean(), reviewId: z.string().nullable() }),
  },
} as const;
