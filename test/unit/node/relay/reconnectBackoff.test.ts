import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ReconnectBackoff } from '../../../../src/node/relay/reconnectBackoff.ts';
import { RelayConstants } from '../../../../src/common/constants.ts';

describe('ReconnectBackoff', () => {
  it('uses the spec defaults: 1 s doubling to 60 s, ±20 %, reset after 2 min', () => {
    const middle = new ReconnectBackoff({ random: () => 0.5 });
    assert.deepEqual(Array.from({ length: 9 }, () => middle.next()), [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    assert.equal(middle.resetAfterMs, 120_000);
    assert.equal(RelayConstants.backoffResetAfterMs, 120_000);
  });

  it('jitters by at most ±20 %', () => {
    assert.equal(new ReconnectBackoff({ random: () => 0 }).next(), 800);
    assert.equal(new ReconnectBackoff({ random: () => 0.999999 }).next(), 1200);
  });

  it('keeps growing across short-lived connections and starts over after a stable one', () => {
    const backoff = new ReconnectBackoff({ random: () => 0.5, initialMs: 100, maxMs: 1000, resetAfterMs: 5000 });
    assert.equal(backoff.next(), 100);
    backoff.connectionEnded(10); // welcome, then closed at once
    assert.equal(backoff.next(), 200);
    backoff.connectionEnded(4999);
    assert.equal(backoff.next(), 400);
    backoff.connectionEnded(5000);
    assert.equal(backoff.failures, 0);
    assert.equal(backoff.next(), 100);
  });

  it('waits the longest after a refusal', () => {
    const backoff = new ReconnectBackoff({ random: () => 0.5, initialMs: 100, maxMs: 1000 });
    assert.equal(backoff.nextAfterRefusal(), 1000);
  });

  it('refuses nonsense settings', () => {
    assert.throws(() => new ReconnectBackoff({ initialMs: 0 }), /0 < initialMs <= maxMs/);
    assert.throws(() => new ReconnectBackoff({ initialMs: 10, maxMs: 5 }), /0 < initialMs <= maxMs/);
    assert.throws(() => new ReconnectBackoff({ jitter: 1 }), /jitter/);
  });
});
