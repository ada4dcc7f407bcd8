import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FlowController } from '../../../../src/node/pty/flowControl.ts';

function controller() {
  const calls: string[] = [];
  const flow = new FlowController({ highWatermark: 100, lowWatermark: 10, pause: () => calls.push('pause'), resume: () => calls.push('resume') });
  return { flow, calls };
}

describe('FlowController', () => {
  test('pauses above the high watermark and resumes only below the low one', () => {
    const { flow, calls } = controller();
    const account = flow.open(true);
    account.charge(100);
    assert.deepEqual(calls, []);
    account.charge(1);
    assert.deepEqual(calls, ['pause']);
    assert.equal(flow.paused, true);
    account.charge(50); // still paused: no second pause
    account.ack(100); // 51 left: above low
    assert.deepEqual(calls, ['pause']);
    account.ack(42); // 9 left
    assert.deepEqual(calls, ['pause', 'resume']);
    assert.equal(flow.paused, false);
  });

  test('with several subscribers it resumes only when all are below the low watermark', () => {
    const { flow, calls } = controller();
    const fast = flow.open(true);
    const slow = flow.open(true);
    fast.charge(150);
    slow.charge(150);
    assert.deepEqual(calls, ['pause']);
    fast.ack(150);
    assert.deepEqual(calls, ['pause']);
    slow.ack(145);
    assert.deepEqual(calls, ['pause', 'resume']);
  });

  test('lossy subscribers never pause the producer', () => {
    const { flow, calls } = controller();
    const lossy = flow.open(false);
    lossy.charge(1_000_000);
    assert.deepEqual(calls, []);
  });

  test('disposing a subscriber releases its debt', () => {
    const { flow, calls } = controller();
    const stuck = flow.open(true);
    const healthy = flow.open(true);
    stuck.charge(500);
    healthy.charge(5);
    assert.deepEqual(calls, ['pause']);
    stuck.dispose();
    assert.deepEqual(calls, ['pause', 'resume']);
    stuck.charge(1000); // a disposed account no longer counts
    assert.deepEqual(calls, ['pause', 'resume']);
  });

  test('acks beyond what was sent do not go negative', () => {
    const { flow, calls } = controller();
    const account = flow.open(true);
    account.ack(1000);
    assert.equal(account.unacknowledged, 0);
    account.charge(101);
    assert.deepEqual(calls, ['pause']);
  });

  test('release() forgives every debt and resumes', () => {
    const { flow, calls } = controller();
    const account = flow.open(true);
    account.charge(500);
    flow.release();
    assert.deepEqual(calls, ['pause', 'resume']);
    assert.equal(account.unacknowledged, 0);
  });
});
