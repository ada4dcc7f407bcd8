/**
 * What claws' own clients (its MCP server, `stream-events.js --wait`, its hooks, its Python
 * client) rely on, spoken over the real socket the way they speak it: string cursors, correlation
 * ids on the events about a worker's terminal, claws' worker topics, the per-worker bookkeeping
 * (`lifecycle.register-*`, `lifecycle.snapshot`, `monitors.*`), null for unset fields, and a
 * refusal that names the command for what Switchboard does not do.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { clawsUnsupportedNames } from '../../../src/node/control/commands/clawsUnsupported.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, type Frame, type NdjsonClient, startTestHub, type TestHub } from './controlTestKit.ts';

const pushOf = (topic: string, match: (payload: Frame) => boolean = () => true) => (frame: Frame) =>
  frame.push === 'message' && frame.topic === topic && match(frame.payload);

async function helloAs(client: NdjsonClient, fields: Frame): Promise<Frame> {
  const response = await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: 'test-observer', ...fields });
  assert.equal(response.ok, true, response.error);
  return response;
}

describe("claws' own clients on the control socket", () => {
  let t: TestHub;
  let client: NdjsonClient;
  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    client = await t.connect();
  });
  after(async () => {
    await t?.dispose();
  });

  it('a monitor subscribing from "0000:0" gets the close of its worker, stamped with the correlation id, replayed', async () => {
    const correlationId = randomUUID();
    const id = await createTerminal(client, t.env);
    const registered = await client.request({ cmd: 'lifecycle.register-spawn', terminalId: id, correlationId, name: 'worker-a' });
    assert.equal(registered.ok, true, registered.error);
    assert.equal(registered.worker.correlation_id, correlationId);
    assert.equal(registered.worker.status, 'spawned');
    await client.request({ cmd: 'close', terminalId: id });

    // Like stream-events.js --wait: hello, then subscribe with claws' string cursor, after the fact.
    const monitor = await t.connect();
    await helloAs(monitor, { peerName: 'wait-mode', monitorCorrelationId: correlationId });
    const subscribed = await monitor.request({ id: 3, cmd: 'subscribe', topic: 'system.terminal.closed', fromCursor: '0000:0' });
    assert.equal(subscribed.ok, true, subscribed.error);
    // Handed back in claws' form, so a claws client can give it back.
    assert.match(subscribed.resumeCursor, /^0000:\d+$/);
    const closed = await monitor.waitFor(pushOf('system.terminal.closed', (payload) => payload.correlation_id === correlationId));
    assert.equal(closed.replayed, true);
    assert.equal(closed.payload.terminal_id, id);
    assert.equal(closed.payload.terminalId, id, 'our own field stays');
    const caughtUp = await monitor.waitFor((frame) => frame.push === 'caught-up');
    assert.equal(caughtUp.resumeCursor, subscribed.resumeCursor);

    // Giving that cursor back replays nothing older.
    const again = await monitor.request({ cmd: 'subscribe', topic: 'system.terminal.closed', fromCursor: subscribed.resumeCursor });
    assert.equal(again.ok, true);
    const next = await monitor.waitFor((frame) => frame.push === 'caught-up');
    assert.equal(next.replayedCount, 0);
    monitor.close();
  });

  it('numbers stay numbers; a cursor from a claws server log segment other than 0000 is refused, saying why', async () => {
    const peer = await t.connect();
    await helloAs(peer, {});
    const numeric = await peer.request({ cmd: 'subscribe', topic: 'x.y', fromCursor: 0 });
    assert.equal(typeof numeric.resumeCursor, 'number');
    const noCursor = await peer.request({ cmd: 'subscribe', topic: 'x.y', fromCursor: null });
    assert.equal(noCursor.ok, true, 'null is an unset cursor');
    assert.equal(typeof noCursor.resumeCursor, 'number');
    const foreign = await peer.request({ cmd: 'subscribe', topic: 'x.y', fromCursor: '0002:1428' });
    assert.equal(foreign.ok, false);
    assert.match(foreign.error, /segment 0002 of a claws server's event log/);
    const garbage = await peer.request({ cmd: 'subscribe', topic: 'x.y', fromCursor: 'yesterday' });
    assert.equal(garbage.ok, false);
    assert.match(garbage.error, /invalid cursor "yesterday"/);
    peer.close();
  });

  it("publishes claws' worker topics: process_exited with the exit code, then terminated on close", async () => {
    const watcher = await t.connect();
    await helloAs(watcher, {});
    await watcher.request({ cmd: 'subscribe', topic: 'system.worker.*' });
    const correlationId = randomUUID();
    // claws v0.8 passes the correlation id to create itself.
    const created = await client.request({ cmd: 'create', env: t.env, shellPath: '/bin/sh', shellArgs: ['-c', 'exit 7'], correlation_id: correlationId });
    assert.equal(created.ok, true, created.error);
    const exited = await watcher.waitFor(pushOf('system.worker.process_exited', (payload) => payload.terminal_id === created.id));
    assert.equal(exited.payload.correlation_id, correlationId);
    assert.equal(exited.payload.exit_code, 7);
    assert.ok(!Number.isNaN(Date.parse(exited.payload.exited_at)));
    await client.request({ cmd: 'close', terminalId: created.id });
    const terminated = await watcher.waitFor(pushOf('system.worker.terminated', (payload) => payload.terminal_id === created.id));
    assert.equal(terminated.payload.correlation_id, correlationId);

    // A terminal no claws client registered: the same events, correlation_id null.
    const plain = await createTerminal(client, t.env);
    await client.request({ cmd: 'close', terminalId: plain });
    const plainEnd = await watcher.waitFor(pushOf('system.worker.terminated', (payload) => payload.terminal_id === plain));
    assert.equal(plainEnd.payload.correlation_id, null);
    watcher.close();
  });

  it('a paste sent with send publishes system.terminal.paste_complete', async () => {
    const watcher = await t.connect();
    await helloAs(watcher, {});
    await watcher.request({ cmd: 'subscribe', topic: 'system.terminal.paste_complete' });
    const id = await createTerminal(client, t.env);
    const text = 'echo é\necho two';
    const sent = await client.request({ cmd: 'send', id, text, paste: true, newline: false });
    assert.equal(sent.ok, true, sent.error);
    const done = await watcher.waitFor(pushOf('system.terminal.paste_complete', (payload) => payload.terminalId === id));
    assert.equal(done.payload.totalSize, Buffer.byteLength(text));
    assert.ok(!Number.isNaN(Date.parse(done.payload.ts)));
    // Typed, not pasted: no such event.
    await client.request({ cmd: 'send', id, text: 'true', newline: true });
    await client.request({ cmd: 'close', terminalId: id });
    assert.equal(watcher.frames.filter(pushOf('system.terminal.paste_complete')).length, 0);
    watcher.close();
  });

  it('system.peer.connected carries the correlation id from hello, or the one of the peer\'s terminal', async () => {
    const watcher = await t.connect();
    await helloAs(watcher, {});
    await watcher.request({ cmd: 'subscribe', topic: 'system.peer.connected' });
    const fromHello = randomUUID();
    const worker = await t.connect();
    // claws clients send null for what they leave unset.
    const hello = await helloAs(worker, { role: 'worker', peerName: 'w', correlation_id: fromHello, terminalId: null, capabilities: null });
    const connected = await watcher.waitFor(pushOf('system.peer.connected', (payload) => payload.peerId === hello.peerId));
    assert.equal(connected.payload.correlationId, fromHello);

    const id = await createTerminal(client, t.env);
    const fromTerminal = randomUUID();
    await client.request({ cmd: 'lifecycle.register-spawn', terminalId: id, correlationId: fromTerminal, name: 'w2' });
    const inPane = await t.connect();
    const second = await helloAs(inPane, { role: 'worker', peerName: 'w2', terminalId: id });
    const connected2 = await watcher.waitFor(pushOf('system.peer.connected', (payload) => payload.peerId === second.peerId));
    assert.equal(connected2.payload.correlationId, fromTerminal);

    const plain = await t.connect();
    const third = await helloAs(plain, {});
    const connected3 = await watcher.waitFor(pushOf('system.peer.connected', (payload) => payload.peerId === third.peerId));
    assert.equal(connected3.payload.correlationId, null);
    for (const peer of [watcher, worker, inPane, plain]) peer.close();
    await client.request({ cmd: 'close', terminalId: id });
  });

  it("keeps claws' per-worker bookkeeping: monitors in lifecycle.snapshot, arm intents and claims", async () => {
    const id = await createTerminal(client, t.env);
    const correlationId = randomUUID();
    await client.request({ cmd: 'lifecycle.register-spawn', terminalId: id, correlationId, name: 'w' });
    // Same terminal, another correlation id while it runs: refused, naming both.
    const conflict = await client.request({ cmd: 'lifecycle.register-spawn', terminalId: id, correlationId: randomUUID(), name: 'w' });
    assert.equal(conflict.ok, false);
    assert.match(conflict.error, new RegExp(`already registered with correlation id ${correlationId}`));
    const monitor = await client.request({ cmd: 'lifecycle.register-monitor', terminalId: id, correlationId, command: 'node stream-events.js --wait' });
    assert.equal(monitor.ok, true, monitor.error);
    // claws' PostToolUse hook closes a spawned terminal whose monitor is not in the snapshot.
    const snapshot = await client.request({ cmd: 'lifecycle.snapshot' });
    assert.ok(snapshot.state.monitors.some((entry: Frame) => entry.terminal_id === id && entry.correlation_id === correlationId));
    assert.ok(snapshot.state.spawned_workers.some((worker: Frame) => worker.id === id && worker.status === 'spawned'));

    const unknown = await client.request({ cmd: 'lifecycle.register-spawn', terminalId: 't-nope', correlationId, name: 'w' });
    assert.equal(unknown.error, 'unknown terminal id t-nope');
    const marked = await client.request({ cmd: 'lifecycle.mark-worker-status', terminalId: id, status: 'completed' });
    assert.equal(marked.worker.status, 'completed');
    assert.equal(typeof marked.worker.completed_at, 'string');
    const never = await client.request({ cmd: 'lifecycle.mark-worker-status', terminalId: 't-never', status: 'failed' });
    assert.equal(never.ok, true);
    assert.equal(never.worker, null);

    assert.deepEqual(pick(await client.request({ cmd: 'monitors.is-corr-armed', correlation_id: correlationId })), { armed: false, claimed: false, pending: false, peerId: null });
    await client.request({ cmd: 'monitors.register-intent', correlation_id: correlationId });
    assert.deepEqual(pick(await client.request({ cmd: 'monitors.is-corr-armed', correlation_id: correlationId })), { armed: true, claimed: false, pending: true, peerId: null });
    const waiter = await t.connect();
    const hello = await helloAs(waiter, { monitorCorrelationId: correlationId });
    assert.deepEqual(pick(await client.request({ cmd: 'monitors.is-corr-armed', correlation_id: correlationId })), { armed: true, claimed: true, pending: false, peerId: hello.peerId });
    waiter.close();
    await pollUntil(async () => (await client.request({ cmd: 'monitors.is-corr-armed', correlation_id: correlationId })).claimed === false, { what: 'the claim to end with its peer' });

    await client.request({ cmd: 'close', terminalId: id });
    const after = await client.request({ cmd: 'lifecycle.snapshot' });
    assert.equal(after.state.monitors.some((entry: Frame) => entry.terminal_id === id), false, 'a closed terminal has no monitor');
    assert.equal(after.state.spawned_workers.find((worker: Frame) => worker.id === id).status, 'completed', 'an ended worker keeps how it ended');
  });

  it('create shows the new pane by default without taking focus; show:false does not', async () => {
    const ui = createLocalHubClient(t.hub);
    const reveals: Frame[] = [];
    ui.on('terminal.reveal', (payload) => reveals.push(payload));
    const shown = await createTerminal(client, t.env);
    await pollUntil(() => reveals.length === 1, { what: 'the reveal event' });
    assert.deepEqual(reveals[0], { id: shown, preserveFocus: true });
    const hidden = await createTerminal(client, t.env, { show: false });
    const focused = await createTerminal(client, t.env, { preserveFocus: false });
    await pollUntil(() => reveals.length === 2, { what: 'the second reveal event' });
    assert.deepEqual(reveals[1], { id: focused, preserveFocus: false });
    assert.equal(reveals.some((reveal) => reveal.id === hidden), false);
    ui.dispose();
    for (const id of [shown, hidden, focused]) await client.request({ cmd: 'close', terminalId: id });
  });

  it('answers every claws command Switchboard does not carry out with a refusal naming it, never unknown cmd', async () => {
    assert.ok(clawsUnsupportedNames.length >= 15);
    for (const cmd of ['lifecycle.plan', 'lifecycle.advance', 'lifecycle.reflect', 'wave.create', 'wave.status', 'wave.complete', 'pipeline.create', 'pipeline.list', 'pipeline.close', 'deliver-cmd', 'cmd.ack', 'rpc.call', 'schema.list', 'schema.get', 'read']) {
      const response = await client.request({ cmd, waveId: 'w', plan: null });
      assert.equal(response.ok, false, cmd);
      assert.ok(response.error.startsWith(`${cmd} is a claws command Switchboard does not support: `), `${cmd}: ${response.error}`);
      assert.match(response.error, /Instead: \S/, cmd);
    }
    const truly = await client.request({ cmd: 'frobnicate' });
    assert.equal(truly.error, 'unknown cmd: frobnicate');
  });
});

function pick(frame: Frame): Frame {
  return { armed: frame.armed, claimed: frame.claimed, pending: frame.pending, peerId: frame.peerId };
}
