/**
 * Worker thread that computes the review queue's line diffs (stats when a review opens, the
 * unified diff a decided review keeps), so a 10 MiB file's diff — up to a couple of seconds of
 * CPU — never stalls the Hub's thread and with it every pane. Jobs run one at a time, in order.
 */
import { parentPort } from 'node:worker_threads';
import { diffStats, unifiedDiff } from './lineDiff.ts';
import type { DiffJob, DiffJobResult, DiffSideData } from './reviewDiffProtocol.ts';

if (!parentPort) throw new Error('reviewDiffWorker.ts must run as a worker thread');
const port = parentPort;
// As fileContent.ts decodes: a BOM stays part of the text, so both threads diff the same string.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

function text(side: DiffSideData): string;
function text(side: DiffSideData | null): string | null;
function text(side: DiffSideData | null): string | null {
  return side === null || typeof side === 'string' ? side : utf8.decode(side);
}

port.on('message', (job: DiffJob) => {
  let result: DiffJobResult;
  try {
    result =
      job.kind === 'stats'
        ? { jobId: job.jobId, ok: true, stats: diffStats(text(job.oldText), text(job.newText)) }
        : { jobId: job.jobId, ok: true, unified: unifiedDiff(job.path, text(job.oldText), text(job.newText)) };
  } catch (error) {
    result = { jobId: job.jobId, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(result);
});
