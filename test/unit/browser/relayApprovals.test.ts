/** The remote view's approvals: requests in, answers out, settlements from the machine, unconfirmed answers. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RelayApprovals } from '../../../src/browser/relayApprovals.ts';
import { remoteViewTarget, tabChannelId } from '../../../src/browser/remoteViewLocation.ts';

const review = { reviewId: 'rv-1', path: '/w/a.txt', title: 'a.txt', change: 'modify', stats: { added: 1, removed: 1 }, diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n', diffTruncated: false };

describe('RelayApprovals', () => {
  it('lists a request, answers it once, and moves it to the settled list when the machine confirms', () => {
    const sent: unknown[] = [];
    const approvals = new RelayApprovals({ respond: (answer) => (sent.push(answer), true) });
    let changes = 0;
    approvals.onDidChange(() => changes++);
    approvals.add({ requestId: 'rv-1', sessionId: 'switchboard:home', toolName: 'openDiff', toolInput: review });
    assert.equal(approvals.pending.length, 1);
    assert.equal(approvals.pending[0]!.review?.path, '/w/a.txt');
    assert.equal(approvals.decide('rv-1', true), true);
    assert.equal(approvals.decide('rv-1', false), false, 'one answer per request');
    assert.deepEqual(sent, [{ requestId: 'rv-1', sessionId: 'switchboard:home', approved: true }]);
    assert.equal(approvals.pending[0]!.sent, 'accept');
    approvals.settle('rv-1', { approved: true, outcome: 'accepted', decidedBy: 'phone' });
    assert.deepEqual(approvals.pending, []);
    assert.deepEqual({ ...approvals.settled[0], at: 0 }, { requestId: 'rv-1', title: 'a.txt', outcome: 'accepted', decidedBy: 'phone', confirmed: true, at: 0 });
    assert.ok(changes >= 3);
    approvals.dispose();
  });

  it('drops a request settled elsewhere (withdrawn, or decided at the machine)', () => {
    const approvals = new RelayApprovals({ respond: () => true });
    approvals.add({ requestId: 'a', sessionId: 's', toolName: 'openDiff', toolInput: review });
    approvals.add({ requestId: 'b', sessionId: 's', toolName: 'openDiff', toolInput: review });
    approvals.settle('a', { approved: false, outcome: 'withdrawn' });
    approvals.settle('b', { approved: false, decidedBy: 'you' });
    approvals.settle('unknown', { approved: true });
    assert.deepEqual(approvals.pending, []);
    assert.deepEqual(approvals.settled.map((item) => [item.requestId, item.outcome, item.decidedBy]), [
      ['b', 'rejected', 'you'],
      ['a', 'withdrawn', undefined],
    ]);
    approvals.dispose();
  });

  it('shows a request of another shape as a preview, and records an answer the machine never confirms', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const approvals = new RelayApprovals({ respond: () => true, confirmTimeoutMs: 1000 });
    approvals.add({ requestId: 'x', sessionId: 's', toolName: 'Bash', toolInput: { command: 'rm -rf build' } });
    assert.equal(approvals.pending[0]!.review, undefined);
    assert.match(approvals.pending[0]!.preview, /rm -rf build/);
    approvals.decide('x', false);
    t.mock.timers.tick(1000);
    assert.deepEqual(approvals.pending, []);
    assert.equal(approvals.settled[0]!.confirmed, false);
    assert.equal(approvals.settled[0]!.outcome, 'rejected');
    approvals.dispose();
  });

  it('dates a request from when the machine opened the review, not from when this page received it, also when sent again', () => {
    const approvals = new RelayApprovals({ respond: () => true });
    const eightMinutesAgo = Math.floor((Date.now() - 8 * 60_000) / 1000) * 1000;
    const opened = { ...review, createdAt: new Date(eightMinutesAgo).toISOString().replace(/\.\d+Z$/, 'Z') };
    approvals.add({ requestId: 'old', sessionId: 's', toolName: 'openDiff', toolInput: opened });
    assert.equal(approvals.pending[0]!.openedAt, eightMinutesAgo);
    // After a reconnect the daemon sends it again: same age.
    approvals.add({ requestId: 'old', sessionId: 's', toolName: 'openDiff', toolInput: opened });
    assert.equal(approvals.pending[0]!.openedAt, eightMinutesAgo);
    // A daemon that does not say (or says nonsense): from when it arrived here.
    const before = Date.now();
    approvals.add({ requestId: 'undated', sessionId: 's', toolName: 'openDiff', toolInput: { ...review, createdAt: 'yesterday-ish' } });
    assert.ok(approvals.pending[1]!.openedAt >= before && approvals.pending[1]!.openedAt <= Date.now());
    approvals.dispose();
  });

  it('keeps a request pending when the answer cannot be sent', () => {
    const approvals = new RelayApprovals({ respond: () => false });
    approvals.add({ requestId: 'x', sessionId: 's', toolName: 'openDiff', toolInput: review });
    assert.equal(approvals.decide('x', true), false);
    assert.equal(approvals.pending[0]!.sent, undefined);
    approvals.dispose();
  });
});

describe('remote view location', () => {
  const at = (href: string) => {
    const url = new URL(href);
    return { protocol: url.protocol, host: url.host, pathname: url.pathname, search: url.search, origin: url.origin };
  };

  it('finds the machine in /m/<id>/ and the socket on the same origin', () => {
    assert.deepEqual(remoteViewTarget(at('https://relay.example.com/m/home-box/?name=phone')), {
      machineId: 'home-box',
      socketUrl: 'wss://relay.example.com/ws/ui',
      pageUrl: 'https://relay.example.com/m/home-box/',
      viewerName: 'phone',
    });
    assert.equal(remoteViewTarget(at('http://127.0.0.1:7600/m/a/'))?.socketUrl, 'ws://127.0.0.1:7600/ws/ui');
  });

  it('is not the remote view elsewhere or with an unusable machine id', () => {
    assert.equal(remoteViewTarget(at('http://127.0.0.1:5000/')), undefined);
    assert.equal(remoteViewTarget(at('http://127.0.0.1:5000/m/')), undefined);
    assert.equal(remoteViewTarget(at('http://127.0.0.1:5000/m/..%2Fx/')), undefined);
    assert.equal(remoteViewTarget(at('file:///m/a/')), undefined);
  });

  it('keeps one channel per tab', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (key: string) => store.get(key) ?? null, setItem: (key: string, value: string) => void store.set(key, value), removeItem: (key: string) => void store.delete(key) };
    const first = tabChannelId(storage, 'home');
    assert.match(first, /^ui-[0-9a-f]{12}$/);
    assert.equal(tabChannelId(storage, 'home'), first);
    assert.notEqual(tabChannelId(undefined, 'home'), tabChannelId(undefined, 'home'));
  });
});
