/**
 * `review.request` over the real control socket (raw NDJSON, as any agent speaks it), decided
 * through the Hub API as the review view does: the same queue Claude Code's diffs go to.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { type NdjsonClient, startTestHub, type TestHub } from '../control/controlTestKit.ts';

describe('review.request on the control socket', () => {
  let kit: TestHub;
  let api: LocalHubClient;
  let client: NdjsonClient;

  before(async () => {
    kit = await startTestHub({ clawsCompatSockets: false });
    api = createLocalHubClient(kit.hub, { kind: 'person', name: 'you' });
    client = await kit.connect();
  });
  after(async () => {
    api?.dispose();
    await kit?.dispose();
  });

  async function pending(path: string) {
    return pollUntil(async () => (await api.call('review.list', { decidedLimit: 0 })).pending.find((summary) => summary.path === path), { timeoutMs: 15_000, what: `a pending review of ${path}` });
  }

  it('blocks until accepted and answers with the final contents; the requester writes the file', async () => {
    const path = join(kit.workspace, 'plan.md');
    writeFileSync(path, '# plan\n');
    const answer = client.request({ cmd: 'review.request', clientName: 'codex', path, newContents: '# plan\n- step 1\n', title: 'Add step 1' });
    const review = await pending(path);
    assert.deepEqual(
      { kind: review.source.kind, name: review.source.name, title: review.title, change: review.change, stats: review.stats },
      { kind: 'control', name: 'codex', title: 'Add step 1', change: 'modify', stats: { added: 1, removed: 0 } },
    );
    await api.call('review.decide', { id: review.id, decision: 'accept', finalContents: '# plan\n- step 1 (edited)\n' });
    const response = await answer;
    assert.equal(response.ok, true, response.error);
    assert.deepEqual(
      { reviewId: response.reviewId, decision: response.decision, by: response.by, edited: response.edited, finalContents: response.finalContents, applied: response.applied },
      { reviewId: review.id, decision: 'accepted', by: 'you', edited: true, finalContents: '# plan\n- step 1 (edited)\n', applied: false },
    );
    assert.equal(readFileSync(path, 'utf8'), '# plan\n', 'without apply the Hub never writes the file');
  });

  it('with apply, writes the accepted contents keeping the file mode, or deletes the file', async () => {
    const path = join(kit.workspace, 'run.sh');
    writeFileSync(path, '#!/bin/sh\necho old\n');
    chmodSync(path, 0o755);
    const answer = client.request({ cmd: 'review.request', path, newContents: '#!/bin/sh\necho new\n', apply: true, from: 'build-bot' });
    const review = await pending(path);
    assert.equal(review.source.name, 'build-bot', '`from` names the requester');
    await api.call('review.decide', { id: review.id, decision: 'accept' });
    const response = await answer;
    assert.deepEqual([response.decision, response.applied], ['accepted', true]);
    assert.equal(readFileSync(path, 'utf8'), '#!/bin/sh\necho new\n');
    assert.equal(statSync(path).mode & 0o777, 0o755);

    const doomed = join(kit.workspace, 'obsolete.txt');
    writeFileSync(doomed, 'bye\n');
    const deletion = client.request({ cmd: 'review.request', path: doomed, newContents: null, apply: true });
    const deletionReview = await pending(doomed);
    assert.equal(deletionReview.change, 'delete');
    await assert.rejects(api.call('review.decide', { id: deletionReview.id, decision: 'accept', finalContents: 'x' }), /deletion cannot be edited/);
    await api.call('review.decide', { id: deletionReview.id, decision: 'accept' });
    const deleted = await deletion;
    assert.deepEqual([deleted.decision, deleted.finalContents, deleted.applied], ['accepted', null, true]);
    assert.equal(existsSync(doomed), false);
  });

  it('a rejection answers with the comment and writes nothing', async () => {
    const path = join(kit.workspace, 'keep.txt');
    writeFileSync(path, 'keep me\n');
    const answer = client.request({ cmd: 'review.request', path, newContents: 'changed\n', apply: true });
    const review = await pending(path);
    await api.call('review.decide', { id: review.id, decision: 'reject', comment: 'no' });
    const response = await answer;
    assert.deepEqual([response.ok, response.decision, response.comment, response.applied], [true, 'rejected', 'no', false]);
    assert.equal(readFileSync(path, 'utf8'), 'keep me\n');
  });

  it('takes large proposals from a file and base64 bytes, and refuses a 20 MB one clearly', async () => {
    const path = join(kit.workspace, 'big.txt');
    const proposalFile = join(kit.home, 'proposal.txt');
    const big = 'line of text\n'.repeat(200_000); // 2.6 MB: past the 1 MiB request limit
    writeFileSync(proposalFile, big);
    const answer = client.request({ cmd: 'review.request', path, newContentsFile: proposalFile });
    const review = await pending(path);
    assert.deepEqual([review.change, review.stats.added], ['create', 200_000]);
    await api.call('review.decide', { id: review.id, decision: 'accept' });
    assert.equal((await answer).finalContents, big);

    const bytesPath = join(kit.workspace, 'blob.bin');
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    const binaryAnswer = client.request({ cmd: 'review.request', path: bytesPath, newContents: bytes.toString('base64'), encoding: 'base64' });
    const binaryReview = await pending(bytesPath);
    assert.deepEqual(binaryReview.binary, { oldBytes: null, newBytes: 5 });
    await api.call('review.decide', { id: binaryReview.id, decision: 'accept' });
    const binaryResponse = await binaryAnswer;
    assert.equal(binaryResponse.finalContents, null);
    assert.equal(binaryResponse.finalContentsBase64, bytes.toString('base64'));

    const hugeFile = join(kit.home, 'huge.txt');
    writeFileSync(hugeFile, Buffer.alloc(20 * 1024 * 1024, 0x61));
    const huge = await client.request({ cmd: 'review.request', path: join(kit.workspace, 'huge.txt'), newContentsFile: hugeFile });
    assert.equal(huge.ok, false);
    assert.match(huge.error, /is 20\.0 MiB, over the 10\.0 MiB limit/);
    assert.equal((await api.call('review.list', { decidedLimit: 0 })).pending.length, 0);
  });

  it('answers bad requests with specific errors', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ path: 'relative.txt', newContents: 'x' }, /path: expected an absolute path/],
      [{ path: join(kit.workspace, 'x.txt') }, /exactly one of newContents/],
      [{ path: join(kit.workspace, 'x.txt'), newContents: 'x', newContentsFile: '/tmp/y' }, /exactly one of newContents/],
      [{ path: join(kit.workspace, 'x.txt'), newContents: 42 }, /newContents/],
      [{ path: join(kit.workspace, 'x.txt'), newContents: '%%%', encoding: 'base64' }, /not base64/],
      [{ path: join(kit.workspace, 'never.txt'), newContents: null }, /cannot propose deleting .* it does not exist/],
      [{ path: kit.workspace, newContents: 'x' }, /is a directory/],
      [{ path: join(kit.workspace, 'x.txt'), newContentsFile: join(kit.home, 'missing') }, /newContentsFile does not exist/],
    ];
    for (const [fields, message] of cases) {
      const response = await client.request({ cmd: 'review.request', ...fields });
      assert.equal(response.ok, false, JSON.stringify(fields));
      assert.match(response.error, message, JSON.stringify(fields));
    }
    assert.equal((await api.call('review.list', { decidedLimit: 0 })).pending.length, 0);
  });

  it('withdraws the review when its timeout passes; a half-closed requester (socat-style) still gets its answer', async () => {
    const removed: Array<{ id: string; reason: string }> = [];
    const listener = api.on('review.removed', (payload) => removed.push(payload));
    const timed = await client.request({ cmd: 'review.request', path: join(kit.workspace, 'slow.txt'), newContents: 'x\n', timeoutMs: 300 });
    assert.deepEqual([timed.ok, timed.code], [false, 'TIMEOUT']);
    assert.match(timed.error, /timed out after 300 ms and was withdrawn/);
    assert.ok(removed.some((entry) => entry.reason === 'timed-out'));
    assert.equal((await api.call('review.list', { decidedLimit: 0 })).pending.length, 0);
    listener.dispose();

    // claws semantics: a client may send its request and shut down its sending side; it still reads the answer.
    const halfClosed = await kit.connect();
    const path = join(kit.workspace, 'half.txt');
    halfClosed.send({ id: 'half', cmd: 'review.request', path, newContents: 'y\n' });
    halfClosed.socket.end();
    const review = await pending(path);
    await api.call('review.decide', { id: review.id, decision: 'accept' });
    const answer = await halfClosed.waitFor((frame) => frame.rid === 'half');
    assert.deepEqual([answer.ok, answer.finalContents], [true, 'y\n']);
  });

  it('needs a drive token when token auth is on', async () => {
    await api.call('settings.update', { controlTokenAuth: true });
    try {
      const read = await api.call('tokens.create', { name: 'reader', scopes: ['read'] });
      const drive = await api.call('tokens.create', { name: 'driver', scopes: ['drive'] });
      const reader = await kit.connect();
      assert.equal((await reader.request({ cmd: 'review.request', path: join(kit.workspace, 'a.txt'), newContents: 'x' })).error, 'auth:required');
      await reader.request({ cmd: 'auth', token: read.secret });
      assert.equal((await reader.request({ cmd: 'review.request', path: join(kit.workspace, 'a.txt'), newContents: 'x' })).error, 'auth:forbidden review.request');
      const driver = await kit.connect();
      await driver.request({ cmd: 'auth', token: drive.secret });
      const answer = driver.request({ cmd: 'review.request', path: join(kit.workspace, 'a.txt'), newContents: 'x' });
      const review = await pending(join(kit.workspace, 'a.txt'));
      await api.call('review.decide', { id: review.id, decision: 'reject' });
      assert.equal((await answer).decision, 'rejected');

      // A token limited to one terminal cannot say its review came from another pane.
      const mine = await api.call('terminal.create', { file: '/bin/sh' });
      const limited = await api.call('tokens.create', { name: 'one-pane', scopes: ['drive'], terminals: [mine.id] });
      const narrow = await kit.connect();
      await narrow.request({ cmd: 'auth', token: limited.secret });
      const labelled = await narrow.request({ cmd: 'review.request', path: join(kit.workspace, 'a.txt'), newContents: 'x', terminalId: 't-someone-else' });
      assert.equal(labelled.error, 'auth:forbidden review.request');
    } finally {
      await api.call('settings.update', { controlTokenAuth: false });
    }
  });

  it('review.withdraw withdraws a request by its withdrawKey, only on the connection that sent it', async () => {
    const removed: Array<{ id: string; reason: string }> = [];
    const listener = api.on('review.removed', (payload) => removed.push(payload));
    const path = join(kit.workspace, 'withdrawn.txt');
    writeFileSync(path, 'before\n');
    const answer = client.request({ cmd: 'review.request', path, newContents: 'after\n', apply: true, withdrawKey: 'k1' });
    const review = await pending(path);
    const duplicate = await client.request({ cmd: 'review.request', path, newContents: 'again\n', withdrawKey: 'k1' });
    assert.deepEqual([duplicate.ok, duplicate.code], [false, 'INVALID_PARAMS']);
    assert.match(duplicate.error, /withdrawKey "k1" is already used/);

    const stranger = await kit.connect();
    assert.deepEqual(await pick(stranger.request({ cmd: 'review.withdraw', withdrawKey: 'k1' }), ['ok', 'withdrawn']), { ok: true, withdrawn: false });
    assert.equal((await api.call('review.list', { decidedLimit: 0 })).pending.some((summary) => summary.id === review.id), true, "another connection's key names nothing");

    assert.deepEqual(await pick(client.request({ cmd: 'review.withdraw', withdrawKey: 'k1' }), ['ok', 'withdrawn', 'reviewId']), { ok: true, withdrawn: true, reviewId: review.id });
    const response = await answer;
    assert.deepEqual([response.ok, response.code, response.error], [false, 'CONNECTION_CLOSED', `review ${review.id} was withdrawn by review.withdraw`]);
    assert.equal(removed.find((entry) => entry.id === review.id)?.reason, 'requester-gone');
    assert.equal(readFileSync(path, 'utf8'), 'before\n');
    assert.deepEqual(await pick(client.request({ cmd: 'review.withdraw', withdrawKey: 'k1' }), ['ok', 'withdrawn']), { ok: true, withdrawn: false }, 'the key is free again');
    listener.dispose();
  });

  it('with apply, writes nothing over a file that changed (or appeared, or vanished) since the review opened', async () => {
    const cases: Array<{ name: string; before: string | null; proposal: string | null; meanwhile: (path: string) => void }> = [
      { name: 'edited.txt', before: 'one\n', proposal: 'two\n', meanwhile: (path) => writeFileSync(path, 'one, and the agent kept going\n') },
      { name: 'same-size.txt', before: 'aaaa\n', proposal: 'cccc\n', meanwhile: (path) => writeFileSync(path, 'bbbb\n') },
      { name: 'appeared.txt', before: null, proposal: 'new\n', meanwhile: (path) => writeFileSync(path, 'someone else made it\n') },
      { name: 'doomed.txt', before: 'bye\n', proposal: null, meanwhile: (path) => writeFileSync(path, 'bye, but edited\n') },
      { name: 'vanished.txt', before: 'here\n', proposal: 'changed\n', meanwhile: (path) => rmSync(path) },
    ];
    for (const { name, before, proposal, meanwhile } of cases) {
      const path = join(kit.workspace, name);
      if (before !== null) writeFileSync(path, before);
      const answer = client.request({ cmd: 'review.request', path, newContents: proposal, apply: true });
      const review = await pending(path);
      meanwhile(path);
      const onDisk = existsSync(path) ? readFileSync(path, 'utf8') : null;
      await api.call('review.decide', { id: review.id, decision: 'accept' });
      const response = await answer;
      assert.deepEqual([response.decision, response.applied, response.applyError], ['accepted', false, 'changed on disk since the review was opened'], name);
      assert.equal(existsSync(path) ? readFileSync(path, 'utf8') : null, onDisk, `${name} is left as it was`);
    }
  });

  it('withdraws pending requests when the control connection closes (here: the app stops serving the socket)', async () => {
    const removed: Array<{ id: string; reason: string }> = [];
    api.on('review.removed', (payload) => removed.push(payload));
    const path = join(kit.workspace, 'orphan.txt');
    const answer = client.request({ cmd: 'review.request', path, newContents: 'z\n' }).catch((error: Error) => error);
    const review = await pending(path);
    kit.hub.controlServer.dispose();
    await pollUntil(() => removed.find((entry) => entry.id === review.id), { timeoutMs: 15_000, what: 'the review withdrawn' });
    assert.equal(removed.find((entry) => entry.id === review.id)!.reason, 'requester-gone');
    assert.ok((await answer) instanceof Error, 'the connection is gone, and with it the answer');
  });
});

describe('review.request when the app quits', () => {
  it('a pending request hears that its review was withdrawn (shutdown), before its connection closes', async () => {
    const kit = await startTestHub({ clawsCompatSockets: false });
    const api = createLocalHubClient(kit.hub, { kind: 'person', name: 'you' });
    try {
      const client = await kit.connect();
      const path = join(kit.workspace, 'left-open.txt');
      const answer = client.request({ cmd: 'review.request', path, newContents: 'a\n' });
      const review = await pollUntil(async () => (await api.call('review.list', { decidedLimit: 0 })).pending.find((summary) => summary.path === path), {
        what: 'the pending review',
      });
      api.dispose();
      await kit.hub.shutdown();
      const response = await answer;
      assert.deepEqual([response.ok, response.error, response.code], [false, `review ${review.id} was withdrawn (shutdown)`, 'CONNECTION_CLOSED']);
    } finally {
      await kit.dispose();
    }
  });
});

/** Some fields of a response, for a compact comparison. */
async function pick(response: Promise<Record<string, unknown>>, keys: string[]): Promise<Record<string, unknown>> {
  const frame = await response;
  return Object.fromEntries(keys.map((key) => [key, frame[key]]));
}
