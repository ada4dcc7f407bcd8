/**
 * claws' `peers` and task registry over the real control socket, with the request and response
 * shapes claws' mcp_server.js sends and reads: roles, ownership, claws' bus topics for each change,
 * idempotent completion, a worker that disconnects, a prompt typed into the worker's terminal, the
 * Hub API the Activity view reads (`tasks.list`, `tasks.changed`), and tasks kept across a restart.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskInfo } from '../../../src/common/api/taskContract.ts';
import { TaskLimits } from '../../../src/common/api/taskContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../src/node/hub.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { createTerminal, type Frame, NdjsonClient, startTestHub, type TestHub } from './controlTestKit.ts';

async function hello(client: NdjsonClient, role: string, peerName: string, extra: Frame = {}): Promise<string> {
  const response = await client.request({ cmd: 'hello', protocol: 'claws/2', role, peerName, ...extra });
  assert.equal(response.ok, true, response.error);
  return response.peerId as string;
}

/** A request as claws' mcp_server.js sends it on its persistent connection. */
function v2(client: NdjsonClient, request: Frame): Promise<Frame> {
  return client.request({ protocol: 'claws/2', ...request });
}

async function expectError(client: NdjsonClient, request: Frame, pattern: RegExp | string): Promise<Frame> {
  const response = await v2(client, request);
  assert.equal(response.ok, false, `${JSON.stringify(request)} should fail`);
  if (typeof pattern === 'string') assert.equal(response.error, pattern);
  else assert.match(response.error, pattern);
  return response;
}

const push = (topic: string) => (frame: Frame) => frame.push === 'message' && frame.topic === topic;

describe('peers and tasks on the control socket', () => {
  let app: TestHub;
  let person: LocalHubClient;
  const changes: TaskInfo[] = [];

  before(async () => {
    app = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(app.hub, { kind: 'person', name: 'you' });
    person.on('tasks.changed', (task) => changes.push(task));
  });
  after(async () => {
    person?.dispose();
    await app?.dispose();
  });

  it('peers lists every connected peer, to anyone, and forgets one that leaves', async () => {
    const anonymous = await app.connect();
    const boss = await app.connect();
    const worker = await app.connect();
    const bossId = await hello(boss, 'orchestrator', 'boss');
    const workerId = await hello(worker, 'worker', 'builder', { terminalId: 't-none', capabilities: ['push'] });

    const listed = await anonymous.request({ cmd: 'peers' });
    assert.equal(listed.ok, true, listed.error);
    const byId = new Map<string, Frame>(listed.peers.map((peer: Frame) => [peer.peerId, peer]));
    assert.deepEqual(
      { ...byId.get(workerId), connectedAt: 0, lastSeen: 0 },
      { peerId: workerId, peerName: 'builder', role: 'worker', terminalId: 't-none', capabilities: ['push'], connectedAt: 0, lastSeen: 0 },
    );
    assert.equal(byId.get(bossId)?.role, 'orchestrator');
    assert.equal(typeof byId.get(bossId)?.lastSeen, 'number');
    assert.ok(byId.get(bossId)!.lastSeen >= byId.get(bossId)!.connectedAt);

    worker.close();
    await pollUntil(async () => !(await anonymous.request({ cmd: 'peers' })).peers.some((peer: Frame) => peer.peerId === workerId), {
      what: 'the worker to leave the peer list',
    });
    boss.close();
    anonymous.close();
  });

  it('assign → update → complete, with claws’ topics, fields and idempotent completion; the Hub API follows live', async () => {
    const boss = await app.connect();
    const worker = await app.connect();
    const watcher = await app.connect();
    const bossId = await hello(boss, 'orchestrator', 'mcp-orchestrator');
    const workerId = await hello(worker, 'worker', 'builder');
    await hello(watcher, 'observer', 'watcher');
    assert.equal((await v2(watcher, { cmd: 'subscribe', topic: 'task.**' })).ok, true);
    assert.equal((await v2(worker, { cmd: 'subscribe', topic: `task.assigned.${workerId}` })).ok, true);

    const assigned = await v2(boss, { cmd: 'task.assign', title: 'Build the docs', assignee: workerId, prompt: 'run npm run docs', timeoutMs: 60_000 });
    assert.equal(assigned.ok, true, assigned.error);
    assert.match(assigned.taskId, /^t_\d{3,}$/);
    assert.equal(typeof assigned.assignedAt, 'number');
    const taskId = assigned.taskId as string;

    // The worker hears of it on its own topic, with the whole record (claws' payload).
    const heard = await worker.waitFor(push(`task.assigned.${workerId}`));
    assert.equal(heard.from, 'server');
    assert.deepEqual(
      { ...heard.payload, assignedAt: 0, updatedAt: 0 },
      {
        taskId,
        title: 'Build the docs',
        prompt: 'run npm run docs',
        assignee: workerId,
        assignedBy: bossId,
        assigneeName: 'builder',
        assignedByName: 'mcp-orchestrator',
        assigneeTerminalId: null,
        status: 'pending',
        assignedAt: 0,
        updatedAt: 0,
        timeoutMs: 60_000,
      },
    );
    await watcher.waitFor(push(`task.assigned.${workerId}`));

    const updated = await v2(worker, { cmd: 'task.update', taskId, status: 'running', progressPct: 40, note: 'halfway' });
    assert.equal(updated.ok, true, updated.error);
    const status = await watcher.waitFor(push('task.status'));
    assert.deepEqual(status.payload, { taskId, assignee: workerId, status: 'running', progressPct: 40, note: 'halfway' });

    const completed = await v2(worker, {
      cmd: 'task.complete',
      taskId,
      status: 'succeeded',
      result: { pages: 12 },
      artifacts: [{ type: 'dir', path: '/tmp/docs' }],
    });
    assert.equal(completed.ok, true, completed.error);
    assert.equal(completed.alreadyCompleted, false);
    const done = await watcher.waitFor(push('task.completed'));
    assert.deepEqual(done.payload, { taskId, status: 'succeeded', result: { pages: 12 }, artifacts: [{ type: 'dir', path: '/tmp/docs' }] });

    // Completing again is not an error and publishes nothing (claws); changing it is refused.
    const again = await v2(worker, { cmd: 'task.complete', taskId, status: 'failed' });
    assert.equal(again.ok, true, again.error);
    assert.equal(again.alreadyCompleted, true);
    assert.equal(again.status, 'succeeded');
    await expectError(worker, { cmd: 'task.update', taskId, status: 'running' }, `task ${taskId} already finished (succeeded): task.update cannot reopen it`);
    await expectError(boss, { cmd: 'task.cancel', taskId }, `task ${taskId} already finished (succeeded): there is nothing to cancel`);
    // The watcher got exactly one task.completed.
    assert.equal(watcher.frames.filter(push('task.completed')).length, 0);

    // task.list: claws' record, filtered by assignee, status and since; null filters count as absent.
    const listed = await v2(boss, { cmd: 'task.list', assignee: workerId, status: null, since: null });
    assert.equal(listed.ok, true, listed.error);
    const [record] = listed.tasks as Frame[];
    assert.equal(listed.tasks.length, 1);
    assert.equal(record!.status, 'succeeded');
    assert.deepEqual(record!.result, { pages: 12 });
    assert.equal(typeof record!.completedAt, 'number');
    assert.equal((await v2(boss, { cmd: 'task.list', status: 'running', assignee: workerId })).tasks.length, 0);
    assert.equal((await v2(boss, { cmd: 'task.list', since: record!.updatedAt + 1, assignee: workerId })).tasks.length, 0);

    // The Hub API the Activity view reads: names, status and result preview, live.
    const forPeople = (await person.call('tasks.list', {})).find((task) => task.taskId === taskId);
    assert.deepEqual(
      forPeople && { ...forPeople, assignedAt: 0, updatedAt: 0, completedAt: 0 },
      {
        taskId,
        title: 'Build the docs',
        promptPreview: 'run npm run docs',
        status: 'succeeded',
        assignedBy: bossId,
        assignedByName: 'mcp-orchestrator',
        assignee: workerId,
        assigneeName: 'builder',
        assigneeTerminalId: null,
        progressPct: 40,
        note: 'halfway',
        resultPreview: '{"pages":12}',
        artifacts: [{ type: 'dir', path: '/tmp/docs' }],
        cancelRequested: false,
        cancelReason: null,
        assignedAt: 0,
        updatedAt: 0,
        completedAt: 0,
      },
    );
    await pollUntil(() => changes.filter((task) => task.taskId === taskId).length === 3, { what: 'three tasks.changed events' });
    assert.deepEqual(
      changes.filter((task) => task.taskId === taskId).map((task) => task.status),
      ['pending', 'running', 'succeeded'],
    );
    for (const client of [boss, worker, watcher]) client.close();
  });

  it('refuses clearly: no hello, wrong role, unknown assignee or task, someone else’s task, bad fields', async () => {
    const stranger = await app.connect();
    const boss = await app.connect();
    const worker = await app.connect();
    const other = await app.connect();
    await hello(boss, 'orchestrator', 'boss');
    const workerId = await hello(worker, 'worker', 'w1');
    const otherId = await hello(other, 'worker', 'w2');

    await expectError(stranger, { cmd: 'task.assign', title: 'x', assignee: workerId, prompt: 'p' }, 'call hello first');
    await expectError(stranger, { cmd: 'task.update', taskId: 't_001', status: 'running' }, 'call hello first');
    await expectError(worker, { cmd: 'task.assign', title: 'x', assignee: otherId, prompt: 'p' }, 'task.assign is for peers with role orchestrator (this peer is worker)');
    await expectError(boss, { cmd: 'task.complete', taskId: 't_001', status: 'succeeded' }, 'task.complete is for peers with role worker (this peer is orchestrator)');
    await expectError(boss, { cmd: 'task.assign', title: 'x', assignee: 'p-00000000', prompt: 'p' }, /^assignee peer not found: p-00000000 /);
    await expectError(boss, { cmd: 'task.assign', assignee: workerId, prompt: 'p' }, /^title: /);
    await expectError(boss, { cmd: 'task.assign', title: 'x'.repeat(TaskLimits.titleChars + 1), assignee: workerId, prompt: 'p' }, /^title: Too big/);
    await expectError(boss, { cmd: 'task.assign', title: 'x', assignee: workerId, prompt: 'p', deliver: 'email' }, /^deliver: /);
    await expectError(boss, { cmd: 'task.cancel', taskId: 't_999' }, 'unknown task id: t_999 (task.list shows the tasks kept)');
    await expectError(worker, { cmd: 'task.update', taskId: 't_999', status: 'running' }, 'unknown task id: t_999 (task.list shows the tasks kept)');

    const { taskId } = await v2(boss, { cmd: 'task.assign', title: 'mine', assignee: workerId, prompt: 'p' });
    await expectError(other, { cmd: 'task.update', taskId, status: 'running' }, new RegExp(`^task ${taskId} is assigned to peer ${workerId} \\(w1\\), not to this peer \\(${otherId}\\)`));
    await expectError(other, { cmd: 'task.complete', taskId, status: 'failed' }, /not to this peer/);
    await expectError(worker, { cmd: 'task.update', taskId, status: 'succeeded' }, 'status: task.update takes status pending, running or blocked (task.complete finishes a task)');
    await expectError(worker, { cmd: 'task.complete', taskId, status: 'running' }, 'status: task.complete takes status succeeded, failed or skipped');
    await expectError(worker, { cmd: 'task.update', taskId, status: 'running', progressPct: 101 }, /^progressPct: Too big/);
    await expectError(worker, { cmd: 'task.complete', taskId, status: 'succeeded', result: 'r'.repeat(TaskLimits.resultJsonChars) }, /^result: result is too large: its JSON is 16386 characters \(limit 16384\)/);
    await expectError(boss, { cmd: 'task.list', status: 'done' }, /^status: status must be one of pending, running, blocked, succeeded, failed, skipped/);
    // Nothing above changed the task.
    const [task] = (await v2(boss, { cmd: 'task.list', assignee: workerId })).tasks as Frame[];
    assert.equal(task!.status, 'pending');
    for (const client of [stranger, boss, worker, other]) client.close();
  });

  it('cancel asks the assignee on its own topic; a worker that disconnects fails its open tasks', async () => {
    const boss = await app.connect();
    const worker = await app.connect();
    await hello(boss, 'orchestrator', 'boss');
    const workerId = await hello(worker, 'worker', 'leaver');
    await v2(worker, { cmd: 'subscribe', topic: `task.cancel_requested.${workerId}` });
    await v2(boss, { cmd: 'subscribe', topic: 'task.completed' });
    const first = (await v2(boss, { cmd: 'task.assign', title: 'one', assignee: workerId, prompt: 'p' })).taskId as string;
    const second = (await v2(boss, { cmd: 'task.assign', title: 'two', assignee: workerId, prompt: 'p' })).taskId as string;

    const cancelled = await v2(boss, { cmd: 'task.cancel', taskId: first, reason: 'not needed' });
    assert.equal(cancelled.ok, true, cancelled.error);
    const asked = await worker.waitFor(push(`task.cancel_requested.${workerId}`));
    assert.deepEqual(asked.payload, { taskId: first, reason: 'not needed' });
    // The worker acknowledges as claws expects: it completes the task as skipped.
    assert.equal((await v2(worker, { cmd: 'task.complete', taskId: first, status: 'skipped' })).ok, true);
    await boss.waitFor((frame) => push('task.completed')(frame) && frame.payload.taskId === first);

    worker.close();
    const failed = await boss.waitFor((frame) => push('task.completed')(frame) && frame.payload.taskId === second);
    assert.deepEqual(failed.payload, { taskId: second, status: 'failed', result: null });
    const listed = (await v2(boss, { cmd: 'task.list', assignee: workerId })).tasks as Frame[];
    assert.deepEqual(
      listed.map((task) => [task.taskId, task.status, task.note ?? null, task.cancelRequested ?? false]),
      [
        [first, 'skipped', null, true],
        [second, 'failed', 'assignee disconnected', false],
      ],
    );
    boss.close();
  });

  it('deliver "inject" types the prompt into the worker’s terminal and records it in the audit log', async () => {
    const boss = await app.connect();
    const worker = await app.connect();
    const terminalId = await createTerminal(boss, app.env, { name: 'worker-pane' });
    await hello(boss, 'orchestrator', 'boss');
    const noTerminal = await hello(worker, 'worker', 'headless');
    await expectError(boss, { cmd: 'task.assign', title: 't', assignee: noTerminal, prompt: 'echo x', deliver: 'inject' }, /said hello without a terminalId/);
    const workerId = await hello(worker, 'worker', 'pane-worker', { terminalId });

    const assigned = await v2(boss, { cmd: 'task.assign', title: 'Say five', assignee: workerId, prompt: 'echo injected-$((2+3))', deliver: 'inject' });
    assert.equal(assigned.ok, true, assigned.error);
    await pollUntil(async () => String((await boss.request({ cmd: 'readLog', terminalId })).bytes).includes('injected-5'), { what: 'the prompt to run in the pane' });
    const audit = await person.call('audit.list', { terminalId });
    assert.deepEqual(
      audit.filter((entry) => entry.cmd === 'task.assign').map((entry) => [entry.peer, entry.summary]),
      [['boss', `${assigned.taskId}: echo injected-$((2+3))\\r`]],
    );
    const [info] = (await person.call('tasks.list', {})).filter((task) => task.taskId === assigned.taskId);
    assert.equal(info?.assigneeTerminalId, terminalId);
    for (const client of [boss, worker]) client.close();
  });

  it('tokens: a read token may list peers and tasks; a terminal-limited one may not have a prompt typed into a worker’s terminal', async () => {
    const pane = await app.connect();
    const terminalId = await createTerminal(pane, app.env, { name: 'limited' });
    const reader = await app.connect();
    const { secret: readSecret } = await person.call('tokens.create', { name: 'reader', scopes: ['read'] });
    assert.equal((await reader.request({ cmd: 'auth', token: readSecret })).ok, true);
    assert.equal((await reader.request({ cmd: 'peers' })).ok, true);
    assert.equal((await reader.request({ cmd: 'task.list' })).ok, true);
    await expectError(reader, { cmd: 'task.cancel', taskId: 't_001' }, 'auth:forbidden task.cancel');

    const boss = await app.connect();
    const worker = await app.connect();
    const { secret } = await person.call('tokens.create', { name: 'one pane', scopes: ['drive'], terminals: [terminalId] });
    assert.equal((await boss.request({ cmd: 'auth', token: secret })).ok, true);
    await hello(boss, 'orchestrator', 'limited-boss');
    const workerId = await hello(worker, 'worker', 'elsewhere', { terminalId });
    await expectError(boss, { cmd: 'task.assign', title: 't', assignee: workerId, prompt: 'echo x', deliver: 'inject' }, 'auth:forbidden task.assign');
    assert.equal((await v2(boss, { cmd: 'task.assign', title: 't', assignee: workerId, prompt: 'echo x' })).ok, true);
    for (const client of [pane, reader, boss, worker]) client.close();
  });
});

describe('tasks across a restart', () => {
  const temp = createTempHome('sb-tasks-');
  after(() => temp.dispose());

  async function startHub(): Promise<Hub> {
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    await hub.start();
    return hub;
  }

  it('keeps tasks in tasks.json (0600); ids continue; a task open at shutdown is failed', async () => {
    const first = await startHub();
    const boss = await NdjsonClient.connect(first.controlSocketPath);
    const worker = await NdjsonClient.connect(first.controlSocketPath);
    await hello(boss, 'orchestrator', 'boss');
    const workerId = await hello(worker, 'worker', 'w');
    const done = (await v2(boss, { cmd: 'task.assign', title: 'finished', assignee: workerId, prompt: 'p' })).taskId as string;
    await v2(worker, { cmd: 'task.complete', taskId: done, status: 'succeeded', result: 'all good' });
    const open = (await v2(boss, { cmd: 'task.assign', title: 'left open', assignee: workerId, prompt: 'p' })).taskId as string;
    await first.shutdown();
    boss.close();
    worker.close();
    assert.equal(statSync(join(temp.dataDir, 'tasks.json')).mode & 0o777, 0o600);

    const second = await startHub();
    const person = createLocalHubClient(second, { kind: 'person', name: 'you' });
    try {
      const tasks = await person.call('tasks.list', {});
      assert.deepEqual(
        tasks.map((task) => [task.taskId, task.title, task.status, task.resultPreview, task.note]),
        [
          [open, 'left open', 'failed', null, 'assignee disconnected'],
          [done, 'finished', 'succeeded', 'all good', null],
        ],
      );
      const boss2 = await NdjsonClient.connect(second.controlSocketPath);
      const worker2 = await NdjsonClient.connect(second.controlSocketPath);
      await hello(boss2, 'orchestrator', 'boss');
      const next = await v2(boss2, { cmd: 'task.assign', title: 'after', assignee: await hello(worker2, 'worker', 'w'), prompt: 'p' });
      assert.equal(Number(next.taskId.slice(2)), Number(open.slice(2)) + 1, 'ids continue after a restart');
      boss2.close();
      worker2.close();
    } finally {
      person.dispose();
      await second.shutdown();
    }
  });
});
