/**
 * The control protocol's table (src/common/protocol/control/commands.ts) against the real server:
 * every command the server answers has an entry and every entry a handler, so a new command cannot
 * be left out of the table (nor a table entry without a handler); and real answers parse with the
 * entry's result schema, so the table says what the server actually sends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { controlCommandNames, controlCommands, type ControlCommandName } from '../../../src/common/protocol/control/commands.ts';
import { createTerminal, type NdjsonClient, startTestHub, type TestHub } from './controlTestKit.ts';

describe('the control command table', () => {
  let hub: TestHub;
  let client: NdjsonClient;
  before(async () => {
    hub = await startTestHub({ clawsCompatSockets: false });
    client = await hub.connect();
  });
  after(async () => await hub.dispose());

  /** Send a command and check its answer with the table's result schema. */
  async function call(cmd: ControlCommandName, fields: Record<string, unknown> = {}, on: NdjsonClient = client): Promise<Record<string, unknown>> {
    const response = await on.request({ cmd, ...fields });
    assert.equal(response.ok, true, `${cmd} failed: ${response.error}`);
    const parsed = controlCommands[cmd].result.safeParse(response);
    assert.ok(parsed.success, `${cmd}'s answer does not match the table: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}\n${JSON.stringify(response)}`);
    return response;
  }

  it('has an entry for every command the server answers, and the server a handler for every entry', async () => {
    const served = (await call('introspect')).commands as string[];
    assert.deepEqual(
      served.filter((name) => !controlCommandNames.includes(name as ControlCommandName)),
      [],
      'commands the server answers that have no entry in src/common/protocol/control/commands.ts',
    );
    assert.deepEqual(
      controlCommandNames.filter((name) => !served.includes(name)),
      [],
      'table entries the server has no handler for',
    );
  });

  it('describes what the terminal commands really answer', async () => {
    const id = await createTerminal(client, hub.env, { name: 'table' });
    await call('list');
    await call('show', { terminalId: id, preserveFocus: true });
    const sent = await call('send', { terminalId: id, text: 'echo table-$((6*7))' });
    await call('wait', { terminalId: id, pattern: 'table-42', since: sent.offset, timeoutMs: 10_000 });
    await call('wait', { terminalId: id, idleMs: 50, timeoutMs: 10_000 });
    await call('exec', { terminalId: id, command: 'echo exec-$((6*7))', timeoutMs: 20_000 });
    await call('readLog', { terminalId: id });
    await call('poll');
    await call('readScreen', { terminalId: id });
    await call('resize', { terminalId: id, cols: 100, rows: 30 });
    await call('rename', { terminalId: id, name: 'table 2' });
    await call('audit', { limit: 5 });
    await call('ping');
    await call('lifecycle.register-spawn', { terminalId: id, correlationId: 'corr-1', name: 'w' });
    await call('lifecycle.register-monitor', { terminalId: id, correlationId: 'corr-1', command: 'watch' });
    await call('lifecycle.mark-worker-status', { terminalId: id, status: 'completed' });
    await call('lifecycle.snapshot');
    await call('monitors.register-intent', { correlation_id: 'corr-2' });
    await call('monitors.is-corr-armed', { correlation_id: 'corr-2' });
    await call('close', { terminalId: id });
    await call('close', { terminalId: id });
  });

  it('describes what the bus, task, token, review and history commands really answer', async () => {
    const orchestrator = await hub.connect();
    await call('hello', { protocol: 'claws/2', role: 'orchestrator', peerName: 'lead' }, orchestrator);
    await call('hello', { protocol: 'claws/2', role: 'worker', peerName: 'table-worker' });
    const subscribed = await call('subscribe', { topic: 'table.*', fromCursor: '0000:0' });
    await call('publish', { topic: 'table.x', payload: { n: 1 } });
    await call('broadcast', { text: 'hi' }, orchestrator);
    await call('unsubscribe', { subscriptionId: subscribed.subscriptionId });
    const peers = await call('peers');
    const workerId = (peers.peers as Array<{ peerId: string; peerName: string }>).find((peer) => peer.peerName === 'table-worker')!.peerId;
    const assigned = await call('task.assign', { title: 't', assignee: workerId, prompt: 'do it' }, orchestrator);
    await call('task.update', { taskId: assigned.taskId, status: 'running', progressPct: 10 });
    await call('task.complete', { taskId: assigned.taskId, status: 'succeeded', result: { ok: 1 } });
    await call('task.list');
    const second = await call('task.assign', { title: 't2', assignee: workerId, prompt: 'or not' }, orchestrator);
    await call('task.cancel', { taskId: second.taskId, reason: 'changed my mind' }, orchestrator);

    const created = await call('tokens.create', { name: 'table', scopes: ['read'] });
    await call('tokens.list');
    // A read token limits its connection: authenticate on one of its own.
    await call('auth', { token: created.secret }, await hub.connect());
    await call('tokens.revoke', { tokenId: (created.token as { id: string }).id });

    await call('review.withdraw', { withdrawKey: 'nothing-pending' });
    const { sessions } = await call('history.list', { limit: 5 });
    const sessionId = (sessions as Array<{ id: string }>)[0]!.id;
    await call('history.search', { query: 'table', limit: 5 });
    await call('history.get', { sessionId });
    await call('history.commands', { sessionId });
    await call('history.read', { sessionId, limit: 100 });
    await call('history.export', { sessionId, format: 'text' });
    await call('history.reference', { items: [{ sessionId }] });
  });

  it('refuses the claws commands Switchboard does not support by name, and they have no result', async () => {
    const response = await client.request({ cmd: 'wave.create' });
    assert.equal(response.ok, false);
    assert.match(response.error, /^wave\.create is a claws command Switchboard does not support/);
    assert.equal(controlCommands['wave.create'].result.safeParse({}).success, false);
  });
});
