/**
 * Turns for the control socket's connections (src/node/control/requestTurns.ts): slices in a round,
 * a bounded turn, and the event loop runs between two turns — what keeps a `ping` answered while
 * other clients pipe thousands of lines (issue 23).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestTurns } from '../../../../src/node/control/requestTurns.ts';

/** A connection with `lines` waiting, handling one per slice and logging it. */
function work(name: string, lines: number, log: string[], cost = 0, clock?: { now: number }) {
  let left = lines;
  return () => {
    log.push(name);
    if (clock) clock.now += cost;
    return --left > 0;
  };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('RequestTurns', () => {
  it('gives each waiting connection a slice in turn: one with a backlog never holds up one with a single line', async () => {
    const log: string[] = [];
    const turns = new RequestTurns({ budgetMs: 1000 });
    turns.enqueue(work('flood', 5, log));
    turns.enqueue(work('ping', 1, log));
    await nextTurn();
    assert.deepEqual(log, ['flood', 'ping', 'flood', 'flood', 'flood', 'flood']);
  });

  it('stops a turn once its budget is spent and lets the event loop run before the next', async () => {
    const clock = { now: 0 };
    const log: string[] = [];
    const turns = new RequestTurns({ budgetMs: 10, now: () => clock.now });
    // Lines without end until the test is done: turns are still waiting whenever the timer fires
    // (a few hundred short turns can all run before a 1 ms timer does).
    let stop = false;
    const endless = (name: string) => () => {
      log.push(name);
      clock.now += 4;
      return !stop;
    };
    turns.enqueue(endless('a'));
    turns.enqueue(endless('b'));
    let loopRan = false;
    try {
      await nextTurn();
      // 3 slices of 4 ms reach the 10 ms budget.
      assert.deepEqual(log, ['a', 'b', 'a']);
      setImmediate(() => (loopRan = true));
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          log.push('timer');
          resolve();
        }, 0),
      );
      await nextTurn();
      await nextTurn();
      assert.equal(loopRan, true);
      assert.ok(log.includes('timer'), 'a timer fires between turns');
      assert.ok(log.indexOf('timer') < log.length - 1, 'and turns go on after it');
    } finally {
      stop = true;
      await nextTurn();
    }
  });

  it('always handles at least one slice per turn, so progress never depends on the clock', async () => {
    const log: string[] = [];
    const turns = new RequestTurns({ budgetMs: 0 });
    turns.enqueue(work('a', 3, log));
    for (let i = 0; i < 3; i++) await nextTurn();
    assert.deepEqual(log, ['a', 'a', 'a']);
  });

  it('takes a connection once however often it is enqueued, and again once it finished', async () => {
    const log: string[] = [];
    const turns = new RequestTurns({ budgetMs: 1000 });
    const a = work('a', 2, log);
    turns.enqueue(a);
    turns.enqueue(a);
    await nextTurn();
    assert.deepEqual(log, ['a', 'a']);
    turns.enqueue(work('b', 1, log));
    await nextTurn();
    assert.deepEqual(log, ['a', 'a', 'b']);
  });
});
