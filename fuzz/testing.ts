/** One `npm test` case per boundary: its property with `testRuns` inputs and a fresh seed (printed on failure). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FuzzBoundary } from './boundary.ts';
import { checkBoundary } from './check.ts';

export function fuzzTest(boundary: FuzzBoundary, options: { timeoutMs?: number } = {}): void {
  it(`${boundary.title}: ${boundary.testRuns} fuzzed inputs, no crash, no hang, no unhandled rejection`, { timeout: options.timeoutMs ?? 60_000 }, async () => {
    // FUZZ_SEED replays a failure `npm test` found.
    const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x100000000);
    const outcome = await checkBoundary(boundary, { runs: boundary.testRuns, seed });
    assert.equal(
      outcome.failed,
      false,
      `${outcome.report}\nReplay: npm run fuzz -- --only ${boundary.name} --seed ${outcome.seed} --path ${outcome.path} (or FUZZ_SEED=${outcome.seed} for this test)`,
    );
    assert.ok(outcome.runs >= boundary.testRuns, `ran ${outcome.runs} inputs, expected ${boundary.testRuns}`);
  });
}
