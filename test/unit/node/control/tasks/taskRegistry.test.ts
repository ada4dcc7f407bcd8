/**
 * The task registry on its own: its bound (the oldest finished task goes; all open refuses), what
 * it publishes, and its file — a task open when the app stopped comes back failed, and a damaged
 * file is moved aside rather than read or lost.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskLimits } from '../../../../../src/common/api/taskContract.ts';
import { ControlError } from '../../../../../src/node/control/protocol.ts';
import { TaskErrors, TaskRegistry, tasksFileName } from '../../../../../src/node/control/tasks/taskRegistry.ts';

const boss = { peerId: 'p-boss', peerName: 'boss', terminalId: null };
const worker = { peerId: 'p-work', peerName: 'worker', terminalId: 't-1' };

describe('TaskRegistry', () => {
  let dir: string;
  let file: string;
  let published: Array<[string, unknown]>;
  const open = () => new TaskRegistry({ filePath: file, publish: (topic, payload) => published.push([topic, payload]) });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-task-registry-'));
    file = join(dir, tasksFileName);
    published = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when full, drops the oldest finished task; when every kept task is open, refuses to assign', () => {
    const registry = open();
    const ids: string[] = [];
    for (let index = 0; index < TaskLimits.maxTasks; index++) ids.push(registry.assign(boss, worker, { title: `task ${index}`, prompt: 'p' }).taskId);
    assert.equal(ids[0], 't_001');
    assert.throws(
      () => registry.assign(boss, worker, { title: 'one too many', prompt: 'p' }),
      (error: unknown) => error instanceof ControlError && error.message === TaskErrors.full,
    );
    registry.complete(worker.peerId, { taskId: ids[5]!, status: 'succeeded' });
    registry.complete(worker.peerId, { taskId: ids[3]!, status: 'failed' });
    const added = registry.assign(boss, worker, { title: 'fits now', prompt: 'p' });
    assert.equal(registry.size, TaskLimits.maxTasks);
    // The oldest finished one (t_004, assigned before t_006) made room; the open ones stay.
    assert.equal(registry.get(ids[3]!), undefined);
    assert.ok(registry.get(ids[5]!));
    assert.ok(registry.get(ids[0]!));
    assert.equal(added.taskId, `t_${TaskLimits.maxTasks + 1}`);
    registry.dispose();
  });

  it('publishes claws’ topics with claws’ payloads', () => {
    const registry = open();
    const task = registry.assign(boss, worker, { title: 't', prompt: 'do it' });
    registry.update(worker.peerId, { taskId: task.taskId, status: 'blocked', note: 'waiting' });
    registry.cancel({ taskId: task.taskId, reason: 'enough' });
    registry.complete(worker.peerId, { taskId: task.taskId, status: 'skipped' });
    registry.complete(worker.peerId, { taskId: task.taskId, status: 'succeeded' });
    assert.deepEqual(
      published.map(([topic]) => topic),
      ['task.assigned.p-work', 'task.status', 'task.cancel_requested.p-work', 'task.completed'],
    );
    assert.deepEqual(published[3]![1], { taskId: task.taskId, status: 'skipped', result: undefined, artifacts: undefined });
    registry.dispose();
  });

  it('writes tasks.json at dispose; on load a task that was open is failed and ids continue', async () => {
    const first = open();
    const done = first.assign(boss, worker, { title: 'done', prompt: 'p' });
    first.complete(worker.peerId, { taskId: done.taskId, status: 'succeeded', result: { ok: 1 } });
    const running = first.assign(boss, worker, { title: 'running', prompt: 'p' });
    first.update(worker.peerId, { taskId: running.taskId, status: 'running', progressPct: 30 });
    first.dispose();
    assert.equal(statSync(file).mode & 0o777, 0o600);

    const second = open();
    await second.load();
    assert.deepEqual(
      second.list().map((task) => [task.taskId, task.status, task.note ?? null, task.progressPct ?? null]),
      [
        [done.taskId, 'succeeded', null, null],
        [running.taskId, 'failed', 'Switchboard stopped before the task finished', 30],
      ],
    );
    assert.equal(second.assign(boss, worker, { title: 'next', prompt: 'p' }).taskId, 't_003');
    // The failed-on-load change reaches the file too.
    await second.flush();
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(stored.tasks.find((task: { taskId: string }) => task.taskId === running.taskId).status, 'failed');
    second.dispose();
  });

  it('moves a damaged file aside and starts empty', async () => {
    writeFileSync(file, '{"version":1,"nextSeq":3,"tasks":[{"taskId":"t_001"}]}');
    const registry = open();
    await registry.load();
    assert.equal(registry.size, 0);
    assert.equal(existsSync(file), false);
    assert.equal(readdirSync(dir).filter((name) => name.startsWith(`${tasksFileName}.corrupt-`)).length, 1);
    registry.dispose();
  });
});
