/**
 * The claws/2 bus over the real control socket: hello, subscribe/publish, push frames, `*`/`**`
 * matching, fromCursor replay, broadcast, server topics from real PTYs, the terminal output
 * stream, and a subscriber that never reads.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, type Frame, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

const isPush = (topic: string) => (frame: Frame) => frame.push === 'message' && frame.topic === topic;

async function hello(client: NdjsonClient, role: string, peerName: string): Promise<string> {
  const response = await client.request({ cmd: 'hello', protocol: 'claws/2', role, peerName });
  assert.equal(response.ok, true, response.error);
  return response.peerId as string;
}

async function subscribe(client: NdjsonClient, topic: string, extra: Frame = {}): Promise<Frame> {
  const response = await client.request({ cmd: 'subscribe', protocol: 'claws/2', topic, ...extra });
  assert.equal(response.ok, true, response.error);
  return response;
}

describe('claws/2 bus on the control socket', () => {
  let app: TestHub;
  before(async () => {
    app = await startTestHub({ clawsCompatSockets: false });
  });
  after(async () => {
    await app?.dispose();
  });

  it('hello needs protocol claws/2, bus commands need hello first, and re-hello updates the peer', async () => {
    const client = await app.connect();
    const noProtocol = await client.request({ cmd: 'hello', role: 'worker', peerName: 'w' });
    assert.equal(noProtocol.ok, false);
    assert.equal(noProtocol.error, 'hello requires protocol: claws/2');
    const v1 = await client.request({ cmd: 'hello', protocol: 'claws/1', role: 'worker', peerName: 'w' });
    assert.equal(v1.error, 'hello requires protocol: claws/2');
    for (const request of [
      { cmd: 'subscribe', topic: 'a.b' },
      { cmd: 'publish', topic: 'a.b', payload: 1 },
      { cmd: 'unsubscribe', subscriptionId: 's-1' },
      { cmd: 'broadcast', text: 'hi' },
    ]) {
      const response = await client.request(request);
      assert.equal(response.ok, false, request.cmd);
      assert.equal(response.error, 'call hello first', request.cmd);
    }
    const badRole = await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'king', peerName: 'w' });
    assert.equal(badRole.ok, false);
    assert.match(badRole.error, /^role: /);

    const first = await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'worker', peerName: 'w1' });
    assert.equal(first.ok, true);
    assert.match(first.peerId, /^p-[0-9a-f]{8}$/);
    assert.equal(first.protocol, 'claws/2');
    assert.deepEqual(first.serverCapabilities, ['push', 'broadcast', 'tasks']);
    const denied = await client.request({ cmd: 'broadcast', text: 'hi' });
    assert.equal(denied.ok, false);
    assert.match(denied.error, /broadcast is for peers with role orchestrator \(this peer is worker\)/);

    const again = await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'orchestrator', peerName: 'boss' });
    assert.equal(again.peerId, first.peerId, 're-hello keeps the peer id');
    assert.equal(app.hub.controlServer.bus.peers.find((peer) => peer.peerId === first.peerId)?.role, 'orchestrator');
    const allowed = await client.request({ cmd: 'broadcast', text: 'hi' });
    assert.equal(allowed.ok, true, allowed.error);
    client.close();
  });

  it('delivers a publish to matching subscribers with from, sequence and sentAt; echo only on request', async () => {
    const alice = await app.connect();
    const bob = await app.connect();
    const alicePeer = await hello(alice, 'worker', 'alice');
    const bobPeer = await hello(bob, 'worker', 'bob');
    const subscribed = await subscribe(bob, 'chat.*');
    assert.match(subscribed.subscriptionId, /^s-\d+$/);
    assert.equal(typeof subscribed.resumeCursor, 'number');
    await subscribe(alice, 'chat.*');

    const published = await alice.request({ cmd: 'publish', topic: 'chat.room', payload: { text: 'hi bob' } });
    assert.equal(published.ok, true, published.error);
    assert.equal(published.deliveredTo, 1, 'only bob: no echo by default');
    const frame = await bob.waitFor(isPush('chat.room'));
    assert.equal(frame.protocol, 'claws/2');
    assert.equal(frame.from, alicePeer);
    assert.deepEqual(frame.payload, { text: 'hi bob' });
    assert.equal(frame.rid, undefined);
    assert.equal(typeof frame.sequence, 'number');
    assert.ok(Math.abs(frame.sentAt - Date.now()) < 10_000);

    const echoed = await alice.request({ cmd: 'publish', topic: 'chat.room', payload: 'me too', echo: true });
    assert.equal(echoed.deliveredTo, 2);
    const own = await alice.waitFor(isPush('chat.room'));
    assert.equal(own.payload, 'me too');
    assert.ok(!alice.frames.some(isPush('chat.room')), 'the first publish was not echoed');
    assert.notEqual(bobPeer, alicePeer);

    const unsubscribed = await bob.request({ cmd: 'unsubscribe', subscriptionId: subscribed.subscriptionId });
    assert.equal(unsubscribed.ok, true);
    const after = await alice.request({ cmd: 'publish', topic: 'chat.room', payload: 3 });
    assert.equal(after.deliveredTo, 0);
    const unknown = await bob.request({ cmd: 'unsubscribe', subscriptionId: subscribed.subscriptionId });
    assert.equal(unknown.error, `unknown subscription id ${subscribed.subscriptionId}`);
    alice.close();
    bob.close();
  });

  it('matches * as one segment and ** as one or more, and refuses malformed topics', async () => {
    const publisher = await app.connect();
    const one = await app.connect();
    const many = await app.connect();
    await hello(publisher, 'worker', 'pub');
    await hello(one, 'observer', 'one');
    await hello(many, 'observer', 'many');
    await subscribe(one, 'task.*');
    await subscribe(many, 'task.**');
    for (const topic of ['task', 'task.a', 'task.a.b', 'other.a']) {
      await publisher.request({ cmd: 'publish', topic, payload: topic });
    }
    await publisher.request({ cmd: 'publish', topic: 'done.now', payload: 'end' });
    await subscribe(one, 'done.*');
    await subscribe(many, 'done.*');
    await publisher.request({ cmd: 'publish', topic: 'done.now', payload: 'end' });
    await one.waitFor(isPush('done.now'));
    await many.waitFor(isPush('done.now'));
    const topicsOf = (client: NdjsonClient) => client.frames.filter((frame) => frame.push === 'message').map((frame) => frame.topic);
    assert.deepEqual(topicsOf(one), ['task.a']);
    assert.deepEqual(topicsOf(many), ['task.a', 'task.a.b']);

    for (const topic of ['Task.A', 'task..a', 'task.a.', 'task a', '']) {
      const response = await publisher.request({ cmd: 'publish', topic, payload: 1 });
      assert.equal(response.ok, false, topic);
      assert.equal(response.code, 'INVALID_PARAMS', topic);
    }
    const wildPublish = await publisher.request({ cmd: 'publish', topic: 'task.*', payload: 1 });
    assert.match(wildPublish.error, /wildcards .* only allowed when subscribing/);
    const badPattern = await publisher.request({ cmd: 'subscribe', topic: 'task.*x' });
    assert.match(badPattern.error, /invalid topic pattern "task\.\*x"/);
    for (const client of [publisher, one, many]) client.close();
  });

  it('replays logged messages after fromCursor, then sends caught-up, then goes live', async () => {
    const publisher = await app.connect();
    await hello(publisher, 'worker', 'replayer');
    const first = await publisher.request({ cmd: 'publish', topic: 'replay.a', payload: 1 });
    const cursor = first.sequence as number;
    await publisher.request({ cmd: 'publish', topic: 'replay.b', payload: 2 });
    await publisher.request({ cmd: 'publish', topic: 'elsewhere.c', payload: 'no' });
    await publisher.request({ cmd: 'publish', topic: 'replay.c', payload: 3 });

    const late = await app.connect();
    await hello(late, 'observer', 'late');
    const subscribed = await subscribe(late, 'replay.*', { fromCursor: cursor - 1 });
    const caughtUp = await late.waitFor((frame) => frame.push === 'caught-up');
    assert.equal(caughtUp.protocol, 'claws/2');
    assert.equal(caughtUp.subscriptionId, subscribed.subscriptionId);
    assert.equal(caughtUp.replayedCount, 3);
    assert.equal(caughtUp.resumeCursor, subscribed.resumeCursor);
    const replayed = late.frames.splice(0);
    assert.deepEqual(
      replayed.map((frame) => [frame.topic, frame.payload, frame.replayed]),
      [
        ['replay.a', 1, true],
        ['replay.b', 2, true],
        ['replay.c', 3, true],
      ],
    );
    assert.ok(replayed[0]!.sequence < replayed[1]!.sequence && replayed[1]!.sequence < replayed[2]!.sequence);

    await publisher.request({ cmd: 'publish', topic: 'replay.d', payload: 4 });
    const live = await late.waitFor(isPush('replay.d'));
    assert.equal(live.replayed, undefined);
    assert.ok(live.sequence > caughtUp.resumeCursor);

    const fromNow = await subscribe(late, 'replay.*', { fromCursor: live.sequence });
    const none = await late.waitFor((frame) => frame.push === 'caught-up' && frame.subscriptionId === fromNow.subscriptionId);
    assert.equal(none.replayedCount, 0);
    publisher.close();
    late.close();
  });

  it('pushes system.broadcast to every peer of the target role, subscribed or not', async () => {
    const boss = await app.connect();
    const worker = await app.connect();
    const observer = await app.connect();
    await hello(boss, 'orchestrator', 'boss');
    await hello(worker, 'worker', 'w');
    await hello(observer, 'observer', 'o');
    const toWorkers = await boss.request({ cmd: 'broadcast', text: 'stop now', targetRole: 'worker' });
    assert.equal(toWorkers.ok, true, toWorkers.error);
    const got = await worker.waitFor(isPush('system.broadcast'));
    assert.equal(got.payload.text, 'stop now');
    assert.equal(got.payload.targetRole, 'worker');
    const everyone = await boss.request({ cmd: 'broadcast', text: 'all' });
    assert.ok(everyone.deliveredTo >= 2);
    const seen = await observer.waitFor(isPush('system.broadcast'));
    assert.equal(seen.payload.text, 'all', 'the observer got only the untargeted one');
    for (const client of [boss, worker, observer]) client.close();
  });

  it('publishes peer, terminal and command events from the server', async () => {
    const watcher = await app.connect();
    await hello(watcher, 'observer', 'watcher');
    await subscribe(watcher, 'system.**');
    await subscribe(watcher, 'command.*.*');
    await subscribe(watcher, 'terminal.*.exit');

    const other = await app.connect();
    const otherPeer = await hello(other, 'worker', 'someone');
    const connected = await watcher.waitFor((frame) => frame.topic === 'system.peer.connected' && frame.payload.peerId === otherPeer);
    assert.equal(connected.from, 'server');
    assert.equal(connected.payload.peerName, 'someone');
    other.close();
    await watcher.waitFor((frame) => frame.topic === 'system.peer.disconnected' && frame.payload.peerId === otherPeer);

    const driver = await app.connect();
    const id = await createTerminal(driver, app.env, { ...shells.bashIntegrated });
    const created = await watcher.waitFor(isPush('system.terminal.created'));
    assert.equal(created.payload.terminalId, id);
    await waitForIntegration(driver, id);
    const ran = await driver.request({ cmd: 'exec', terminalId: id, command: 'sleep 0.2; (exit 3)' });
    assert.equal(ran.ok, true, ran.error);
    const start = await watcher.waitFor(isPush(`command.${id}.start`));
    assert.match(start.payload.commandLine, /sleep 0\.2/);
    const end = await watcher.waitFor(isPush(`command.${id}.end`));
    assert.equal(end.payload.exitCode, 3);
    assert.equal(end.payload.terminalId, id);
    assert.match(end.payload.commandLine, /sleep 0\.2/);
    // A command that starts and ends within one batch of output is announced too, start first.
    for (const command of ['true', 'false', 'true']) {
      const done = await driver.request({ cmd: 'exec', terminalId: id, command });
      assert.equal(done.ok, true, done.error);
      const fastStart = await watcher.waitFor(isPush(`command.${id}.start`));
      const fastEnd = await watcher.waitFor(isPush(`command.${id}.end`));
      assert.equal(fastStart.payload.commandLine, command);
      assert.equal(fastEnd.payload.commandLine, command);
      assert.ok(fastStart.sequence < fastEnd.sequence, 'start before end');
    }

    await driver.request({ cmd: 'send', terminalId: id, text: 'exit 7' });
    const exit = await watcher.waitFor(isPush(`terminal.${id}.exit`));
    assert.equal(exit.payload.exitCode, 7);
    await driver.request({ cmd: 'close', terminalId: id });
    const closed = await watcher.waitFor(isPush('system.terminal.closed'));
    assert.equal(closed.payload.terminalId, id);
    watcher.close();
    driver.close();
  });

  it('streams terminal.<id>.output as base64 chunks with offsets', async () => {
    const client = await app.connect();
    const id = await createTerminal(client, app.env);
    await hello(client, 'observer', 'viewer');
    const unknown = await client.request({ cmd: 'subscribe', topic: 'terminal.t-00000000.output' });
    assert.equal(unknown.error, 'unknown terminal id t-00000000');
    await subscribe(client, `terminal.${id}.output`);
    // Octal escapes: the output (not the echoed command) holds é→😀, two, three and four UTF-8 bytes.
    await client.request({ cmd: 'send', terminalId: id, text: "printf 'stream-%s \\303\\251\\342\\206\\222\\360\\237\\230\\200\\n' $((6*7))" });
    let text = '';
    let lastEnd = -1;
    await pollUntil(
      () => {
        for (const frame of client.frames.splice(0)) {
          if (frame.topic !== `terminal.${id}.output`) continue;
          assert.equal(typeof frame.payload.offset, 'number');
          if (lastEnd !== -1) assert.equal(frame.payload.offset, lastEnd, 'chunks are contiguous');
          lastEnd = frame.payload.endOffset;
          text += Buffer.from(frame.payload.data, 'base64').toString('utf8');
        }
        return text.includes('stream-42 é→😀');
      },
      { timeoutMs: 10_000, what: 'stream-42 é→😀 in the output stream' },
    );
    const log = await client.request({ cmd: 'readLog', terminalId: id, strip: false, offset: 0 });
    assert.ok(log.bytes.includes(text.slice(0, 20)), 'the stream carries the bytes the terminal printed');
    await client.request({ cmd: 'close', terminalId: id });
    client.close();
  });

  it('skips output chunks for a stream reader that falls behind instead of queueing them', async () => {
    const driver = await app.connect();
    const id = await createTerminal(driver, app.env);
    const slow = await app.connect();
    await hello(slow, 'observer', 'slow-viewer');
    await subscribe(slow, `terminal.${id}.output`);
    slow.socket.pause();
    // ~24 MB of output: three times the connection's drop limit, so only skipping keeps it alive.
    const ran = await driver.request({ cmd: 'exec', terminalId: id, command: 'head -c 24000000 /dev/zero | tr "\\0" x; echo; echo done-flood', timeoutMs: 60_000 }, 70_000);
    assert.equal(ran.ok, true, ran.error);
    assert.ok(app.hub.controlServer.bus.peers.some((peer) => peer.peerName === 'slow-viewer'), 'the slow viewer is still connected');
    slow.socket.resume();
    const marker = await slow.waitFor((frame) => frame.topic === `terminal.${id}.output` && frame.payload.skipped === true, 20_000);
    assert.equal(typeof marker.payload.offset, 'number');
    await driver.request({ cmd: 'close', terminalId: id });
    driver.close();
    slow.close();
  });

  it('drops a subscriber that never reads while another keeps receiving', async () => {
    const publisher = await app.connect();
    const reader = await app.connect();
    await hello(publisher, 'worker', 'flood');
    await hello(reader, 'observer', 'reader');
    await subscribe(reader, 'flood.*');

    // A raw socket that subscribes and then never reads a byte.
    const stuck = createConnection(app.socketPath);
    await new Promise<void>((resolve) => stuck.once('connect', () => resolve()));
    stuck.on('error', () => {});
    stuck.write(JSON.stringify({ id: 1, cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: 'stuck' }) + '\n');
    stuck.write(JSON.stringify({ id: 2, cmd: 'subscribe', topic: 'flood.*' }) + '\n');
    stuck.pause();
    await pollUntil(() => app.hub.controlServer.bus.peers.some((peer) => peer.peerName === 'stuck'), { what: 'the stuck peer' });

    const payload = 'x'.repeat(256 * 1024);
    const stuckIsPeer = () => app.hub.controlServer.bus.peers.some((peer) => peer.peerName === 'stuck');
    let published = 0;
    // 8 MiB may be queued for a connection; the kernel buffers some more. 100 × 256 KiB is well past both.
    while (stuckIsPeer() && published < 100) {
      const response = await publisher.request({ cmd: 'publish', topic: 'flood.big', payload });
      assert.equal(response.ok, true);
      published++;
      // The reader keeps up with every message.
      assert.equal((await reader.waitFor(isPush('flood.big'))).payload.length, payload.length);
    }
    assert.equal(stuckIsPeer(), false, `the stuck subscriber was dropped (after ${published} messages)`);
    assert.ok(published > 8, 'not before its buffer limit');
    const stillThere = await publisher.request({ cmd: 'publish', topic: 'flood.after', payload: 'ok' });
    assert.equal(stillThere.deliveredTo, 1);
    assert.equal((await reader.waitFor(isPush('flood.after'))).payload, 'ok');
    stuck.destroy();
    publisher.close();
    reader.close();
  });
});

describe('claws/2 output streams and the terminal mirror', () => {
  it('starts a terminal.<id>.output stream without serializing the mirror (a pane attaching still gets its snapshot)', async (t) => {
    // The real mirror worker, behind a wrapper that counts the snapshots it is asked for.
    const dir = mkdtempSync(join(tmpdir(), 'sb-bus-mirror-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const counted = join(dir, 'snapshots.log');
    writeFileSync(counted, '');
    const worker = join(dir, 'countingMirrorWorker.mjs');
    const realWorker = fileURLToPath(new URL('../../../src/node/pty/mirrorWorker.ts', import.meta.url));
    writeFileSync(
      worker,
      `import { appendFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
const on = parentPort.on.bind(parentPort);
parentPort.on = (event, listener) => on(event, event !== 'message' ? listener : (message) => {
  if (message?.type === 'snapshot') appendFileSync(${JSON.stringify(counted)}, 'snapshot\\n');
  listener(message);
});
await import(${JSON.stringify(realWorker)});
`,
    );
    const snapshots = () => readFileSync(counted, 'utf8').split('\n').filter(Boolean).length;
    const app = await startTestHub({ clawsCompatSockets: false, mirrorWorkerPath: worker });
    t.after(() => app.dispose());
    const client = await app.connect();
    const id = await createTerminal(client, app.env);
    await client.request({ cmd: 'send', terminalId: id, text: 'seq 1 2000 | tail -n 1' });
    await pollUntil(async () => (await client.request({ cmd: 'readLog', terminalId: id, strip: true })).bytes.includes('2000'), { what: 'the first output' });
    await hello(client, 'observer', 'watcher');
    for (let round = 0; round < 3; round++) {
      const subscribed = await subscribe(client, `terminal.${id}.output`);
      await client.request({ cmd: 'send', terminalId: id, text: `echo streamed-$((${round} + 40))` });
      await pollUntil(() => client.frames.some((frame) => frame.topic === `terminal.${id}.output` && Buffer.from(frame.payload.data ?? '', 'base64').toString('utf8').includes(`streamed-${round + 40}`)), { what: `streamed-${round + 40} in the stream` });
      assert.equal((await client.request({ cmd: 'unsubscribe', subscriptionId: subscribed.subscriptionId })).ok, true);
    }
    assert.equal(snapshots(), 0, 'no snapshot was asked of the mirror for the streams');
    // A pane attaching (the app's terminal.attach) does get one: the count above can count.
    const api = createLocalHubClient(app.hub);
    t.after(() => api.dispose());
    const attached = await api.call('terminal.attach', { id });
    assert.match(attached.snapshot, /streamed-42/);
    assert.equal(snapshots(), 1);
  });
});
