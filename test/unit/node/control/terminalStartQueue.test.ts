/**
 * Terminal starts over the control socket, one at a time with a turn of the event loop before each
 * (src/node/control/terminalStartQueue.ts): a burst of `create`s never forks back to back while
 * other clients wait (issue 23).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TerminalStartQueue } from '../../../../src/node/control/terminalStartQueue.ts';

describe('TerminalStartQueue', () => {
  it('runs starts one at a time, in order, with the event loop turning before each', async () => {
    const queue = new TerminalStartQueue();
    const log: string[] = [];
    let running = 0;
    const start = (name: string) => async () => {
      running++;
      assert.equal(running, 1, 'one start at a time');
      log.push(`start ${name}`);
      // What a client sent meanwhile gets handled before the next start, even when this one
      // finishes without waiting for anything (a fork is synchronous).
      setImmediate(() => log.push(`loop after ${name}`));
      running--;
      return name;
    };
    const results = await Promise.all([queue.run(start('a')), queue.run(start('b')), queue.run(start('c'))]);
    assert.deepEqual(results, ['a', 'b', 'c']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ['start a', 'loop after a', 'start b', 'loop after b', 'start c', 'loop after c']);
    assert.equal(queue.queued, 0);
  });

  it('goes on with the next start when one fails, and hands the failure to its caller', async () => {
    const queue = new TerminalStartQueue();
    const failed = queue.run(async () => {
      throw new Error('cannot start /nonexistent');
    });
    const next = queue.run(async () => 'started');
    await assert.rejects(failed, /cannot start/);
    assert.equal(await next, 'started');
  });
});
