import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

const modulePath = new URL('../../../src/node/idleCollector.ts', import.meta.url).pathname;

/**
 * Runs `body` in a thread of its own (the collector is per thread) that allocates nothing after
 * it: V8 would not collect there by itself. Resolves with what the thread posts.
 */
function inThread<T>(body: string): Promise<T> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     import(${JSON.stringify(modulePath)}).then(async (collector) => {
       const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
       // Garbage whose collection is seen: the registry's callback runs once it is collected. Kept
       // through a few scavenges first (churn), so that it is old: only a full collection frees it,
       // not the scavenges the thread's own small allocations (timers, promises) may cause.
       let collectedAt = null;
       const registry = new FinalizationRegistry(() => (collectedAt = performance.now()));
       let garbage = { lines: new Array(1000).fill('x') };
       registry.register(garbage, 'garbage');
       for (let round = 0; round < 50; round++) new Array(100000).fill({ round });
       garbage = null;
       ${body}
     }).catch((error) => parentPort.postMessage({ error: String(error.stack) }));`,
    { eval: true },
  );
  return new Promise<T>((resolve, reject) => {
    worker.once('message', (message: T & { error?: string }) => {
      void worker.terminate();
      if (message.error) reject(new Error(message.error));
      else resolve(message);
    });
    worker.once('error', reject);
  });
}

test('a thread that asked for it collects its garbage a moment after a burst, unprompted by any allocation', async () => {
  const result = await inThread<{ collectedAt: number | null; askedAt: number }>(`
    collector.collectWhenIdle(300);
    await sleep(50);
    const askedAt = performance.now();
    collector.collectSoon();
    for (let waited = 0; collectedAt === null && waited < 5000; waited += 50) await sleep(50);
    parentPort.postMessage({ collectedAt, askedAt });`);
  assert.notEqual(result.collectedAt, null, 'collected');
  assert.ok(result.collectedAt! >= result.askedAt + 300, `not before its delay (asked at ${result.askedAt}, collected at ${result.collectedAt})`);
});

test('a thread that did not ask for it is left to V8: collectSoon does nothing there', async () => {
  const result = await inThread<{ collectedAt: number | null }>(`
    collector.collectSoon();
    collector.postponeCollection();
    await sleep(1000);
    parentPort.postMessage({ collectedAt });`);
  assert.equal(result.collectedAt, null);
});

test('typing puts off a collection that is due: it runs its delay after the last keystroke', async () => {
  const result = await inThread<{ collectedAt: number | null; lastKeyAt: number }>(`
    collector.collectWhenIdle(400);
    collector.collectSoon();
    let lastKeyAt = 0;
    for (let key = 0; key < 6; key++) {
      await sleep(150);
      lastKeyAt = performance.now();
      collector.postponeCollection();
    }
    for (let waited = 0; collectedAt === null && waited < 5000; waited += 50) await sleep(50);
    parentPort.postMessage({ collectedAt, lastKeyAt });`);
  assert.notEqual(result.collectedAt, null, 'collected once the typing stopped');
  assert.ok(result.collectedAt! >= result.lastKeyAt + 400, `not while typing (last key at ${result.lastKeyAt}, collected at ${result.collectedAt})`);
});
