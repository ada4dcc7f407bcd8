import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

const modulePath = new URL('../../../src/node/youngBufferRelease.ts', import.meta.url).pathname;

/**
 * In a thread of its own (the count is per thread): reports, after each step, how many scavenges
 * were asked for (V8 marks a collection a program asked for as forced; its own are not).
 */
function forcedScavengesAfter(steps: number[]): Promise<{ counts: number[]; everyBytes: number }> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const { PerformanceObserver, constants } = require('node:perf_hooks');
     import(${JSON.stringify(modulePath)}).then(async (release) => {
       let forced = 0;
       const observer = new PerformanceObserver((list) => {
         for (const entry of list.getEntries()) {
           if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR && entry.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced++;
         }
       });
       observer.observe({ entryTypes: ['gc'] });
       const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
       const counts = [];
       for (const fraction of ${JSON.stringify(steps)}) {
         release.movedThroughBuffers(Math.round(fraction * release.releaseEveryBytes));
         await sleep(30); // gc entries are delivered after the collection, from the event loop
         counts.push(forced);
       }
       observer.disconnect();
       parentPort.postMessage({ counts, everyBytes: release.releaseEveryBytes });
     }).catch((error) => parentPort.postMessage({ error: String(error.stack) }));`,
    { eval: true },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (message: { counts: number[]; everyBytes: number; error?: string }) => {
      void worker.terminate();
      if (message.error) reject(new Error(message.error));
      else resolve(message);
    });
    worker.once('error', reject);
  });
}

test('bytes moved through Buffers are counted, and each full interval of them asks V8 for one scavenge', async () => {
  // Steps in units of the interval: below it, reaching it, a small remainder, past it again in
  // pieces, and one step of three intervals (one scavenge: the count starts over, nothing is owed).
  const { counts, everyBytes } = await forcedScavengesAfter([0.5, 0.49, 0.01, 0.3, 0.3, 0.3, 0.2, 3, 0.9]);
  assert.ok(everyBytes >= 4 * 1024 * 1024, `an interval longer than a stream's window and buffer (${everyBytes})`);
  assert.deepEqual(counts, [0, 0, 1, 1, 1, 1, 2, 3, 3]);
});
