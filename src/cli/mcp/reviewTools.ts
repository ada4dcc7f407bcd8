/**
 * `review_request`: any model using `switchboard mcp` can ask the person to review a file change
 * before it is made, in the same review view as Claude Code's diffs. A thin proxy to the control
 * socket's `review.request`; proposals too large for one socket request (1 MiB) travel through a
 * private temp file (`newContentsFile`).
 *
 * Unlike the socket command (and Claude Code's openDiff), the tool applies an accepted change by
 * default: a model should not need a second step to write exactly what the person approved, and
 * must not write anything before the answer. The Hub writes only over the bytes the person
 * reviewed; a file changed since (often by the model's own later edit) is left alone and the
 * model is told. A cancelled tool call withdraws its review (`review.withdraw`), so a late accept
 * cannot write over whatever the model did after giving up on it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ReviewConstants } from '../../common/constants.ts';
import type { ControlRequestParams, ControlResult } from '../../common/protocol/control/commands.ts';
import { FileWriteErrors } from '../../node/review/fileWriter.ts';
import { type ControlClient, ControlClientConstants } from '../controlClient.ts';
import { guarded, text } from './toolResults.ts';

export const ReviewToolLimits = {
  /** How long the tool waits for the person by default; they may be away from the screen. */
  defaultTimeoutMs: 30 * 60_000,
  /** A day: past that, ask again later. */
  maxTimeoutMs: 24 * 60 * 60_000,
  /** Inline proposals up to this size; larger ones go through a temp file (the socket takes 1 MiB per request, JSON-escaped). */
  maxInlineBytes: 256 * 1024,
  /** While waiting, an MCP progress notification this often (when the client asked for progress), so clients that reset their timeout on progress keep waiting. */
  progressIntervalMs: 15_000,
  /**
   * Largest MCP message `switchboard mcp` reads from stdin: a proposal past the review limit must
   * reach the tool (to be refused with a reason) rather than end the session. 64 MiB covers a
   * 20 MB file JSON-escaped; beyond it the SDK drops the message and closes the session.
   */
  maxStdioMessageBytes: 64 * 1024 * 1024,
} as const;

export function registerReviewTools(server: McpServer, client: ControlClient, env: NodeJS.ProcessEnv = process.env): void {
  // An agent running in a Switchboard pane: its reviews name that pane.
  const terminalId = env.SWITCHBOARD_TERMINAL_ID && /^[A-Za-z0-9_.-]{1,64}$/.test(env.SWITCHBOARD_TERMINAL_ID) ? env.SWITCHBOARD_TERMINAL_ID : undefined;

  server.registerTool(
    'review_request',
    {
      title: 'Ask the person to review a file change',
      description: `Propose new contents for a file (or its deletion) and wait until the person reviews the diff in the Switchboard app. They may accept it, accept it after editing it or keeping only some hunks, or reject it with a comment. By default an accepted change is written to the file for you (exactly the approved contents; apply: false returns them for you to write instead); a rejected one is not: do not make that change, read the comment. Blocks until decided (default timeout ${ReviewToolLimits.defaultTimeoutMs / 60_000} minutes). Files up to ${ReviewConstants.maxFileBytes / (1024 * 1024)} MiB.`,
      inputSchema: {
        path: z.string().min(1).max(ReviewConstants.maxPathChars).describe('Absolute path of the file to change (it may not exist yet).'),
        newContents: z.string().optional().describe('The complete proposed contents of the file. Omit only with delete: true.'),
        delete: z.boolean().optional().describe('Propose deleting the file instead.'),
        title: z.string().max(200).optional().describe('A short summary of the change, shown in the review list.'),
        apply: z.boolean().optional().describe('Write the approved contents (or delete the file) when accepted (default true).'),
        timeoutMs: z.number().int().min(1_000).max(ReviewToolLimits.maxTimeoutMs).optional().describe('How long to wait for the person before withdrawing the review.'),
      },
      annotations: { destructiveHint: true, openWorldHint: false },
    },
    ({ path, newContents, delete: deleteFile, title, apply, timeoutMs }, extra) =>
      guarded(async () => {
        if (!isAbsolute(path)) throw new Error(`path must be absolute: ${path}`);
        if ((newContents === undefined) === (deleteFile !== true)) throw new Error('give newContents, or delete: true (not both)');
        const bytes = newContents === undefined ? 0 : Buffer.byteLength(newContents, 'utf8');
        if (bytes > ReviewConstants.maxFileBytes) {
          throw new Error(`the proposed file is ${(bytes / (1024 * 1024)).toFixed(1)} MiB, over the ${ReviewConstants.maxFileBytes / (1024 * 1024)} MiB review limit`);
        }
        const wait = timeoutMs ?? ReviewToolLimits.defaultTimeoutMs;
        // Names this request on the connection, so a cancellation can withdraw exactly its review.
        const withdrawKey = `mcp-${randomBytes(8).toString('hex')}`;
        const fields: ControlRequestParams<'review.request'> = { path, timeoutMs: wait, apply: apply ?? true, via: 'mcp', from: clientName(server), withdrawKey, title, terminalId };
        let tempDir: string | null = null;
        const progressToken = extra._meta?.progressToken;
        let progress = 0;
        const ticker =
          progressToken === undefined
            ? undefined
            : setInterval(() => {
                void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++progress, message: 'waiting for the review' } }).catch(() => {});
              }, ReviewToolLimits.progressIntervalMs);
        const withdraw = () => void client.call('review.withdraw', { withdrawKey }).catch(() => {});
        try {
          if (newContents === undefined) fields.newContents = null;
          else if (bytes <= ReviewToolLimits.maxInlineBytes) fields.newContents = newContents;
          else {
            // mkdtemp makes a 0700 directory: the proposal is readable by this user only.
            tempDir = await mkdtemp(join(tmpdir(), 'switchboard-review-'));
            fields.newContentsFile = join(tempDir, 'proposal');
            await writeFile(fields.newContentsFile, newContents, { mode: 0o600 });
          }
          if (extra.signal.aborted) throw new Error('the tool call was cancelled before the review was requested');
          // Sent after review.request on the same connection, so the Hub always knows the key by then.
          extra.signal.addEventListener('abort', withdraw, { once: true });
          const answer = await client.call('review.request', fields, { timeoutMs: wait + ControlClientConstants.serverTimeoutGraceMs });
          return text(describeAnswer(answer, { apply: apply ?? true, deletion: deleteFile === true }));
        } finally {
          extra.signal.removeEventListener('abort', withdraw);
          clearInterval(ticker);
          if (tempDir) await rm(tempDir, { recursive: true, force: true });
        }
      }),
  );
}

/** The MCP client's name ("claude-code", "codex"…) as the reviewer sees the requester. */
function clientName(server: McpServer): string {
  const info = server.server.getClientVersion();
  return info?.title ?? info?.name ?? 'MCP client';
}

function describeAnswer(answer: ControlResult<'review.request'>, proposal: { apply: boolean; deletion: boolean }): string {
  const { apply, deletion } = proposal;
  const comment = answer.comment ? `\nTheir comment: ${answer.comment}` : '';
  if (answer.decision === 'rejected') return `Rejected by ${answer.by}: do not make this change.${comment}`;
  const lines = [`Accepted by ${answer.by}${answer.edited ? ' after editing it' : ''}.${comment}`];
  // Contents that are not text (a NUL byte) come back as base64 only: the reviewer could not edit them, so they are the proposal.
  const notText = !deletion && answer.finalContents == null;
  const contentsBelow = answer.finalContents != null ? 'the approved contents below' : 'your proposed contents (it is not text, so the reviewer could not edit it)';
  if (apply && answer.applied) lines.push(deletion ? `${answer.path} was deleted.` : `The approved contents were written to ${answer.path}.`);
  else if (apply && answer.applyError === FileWriteErrors.changedSinceReview) {
    lines.push(
      `Nothing was written: ${answer.path} changed on disk since the review was opened (perhaps by your own later edits), and applying it would have thrown those changes away. Read the file again and, if the change still applies, propose it again on top of what is there now.`,
    );
    if (answer.finalContents != null) lines.push(`Approved contents, for reference only (do not write them over the newer file):\n${answer.finalContents}`);
    return lines.join('\n');
  } else if (apply) lines.push(`Applying it to ${answer.path} failed: ${answer.applyError ?? 'unknown error'}. ${deletion ? 'Delete the file' : `Write ${contentsBelow}`} yourself.`);
  else lines.push(deletion ? `Delete ${answer.path} yourself.` : `Write ${contentsBelow} to ${answer.path} yourself.`);
  if (!notText && (!apply || !answer.applied || answer.edited) && answer.finalContents != null) lines.push(`Approved contents:\n${answer.finalContents}`);
  return lines.join('\n');
}
