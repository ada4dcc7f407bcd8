/**
 * Fault: a pane's shell is killed from outside (`kill -9` of its pid) while a command runs in it.
 * On a real Hub (History on): the pane ends with the signal (what its banner shows: "Process
 * exited (SIGKILL)"), the command it ran is not left behind, the pane can still be attached with
 * its last screen, another pane keeps working, and History closes the session with that signal
 * and all its output (not marked interrupted: the app saw the end).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { TerminalInfo } from '../../../src/common/api/contract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { isProcessAlive } from '../../../src/node/processAlive.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { startTestHub, type TestHub } from '../control/controlTestKit.ts';

describe('fault: a pane’s shell is killed with SIGKILL', () => {
  let t: TestHub;
  let person: LocalHubClient;
  const changes: TerminalInfo[] = [];

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    person.on('terminal.changed', (info) => changes.push(info));
  });
  after(async () => {
    person?.dispose();
    await t?.dispose();
  });

  const screenOf = async (id: string) => (await t.hub.ptyHost.require(id).readScreen()).lines.join('\n');

  it('ends that pane with the signal, leaves the others working, and History closes its session', async () => {
    const shell = { file: 'bash', args: ['--norc', '--noprofile'], cwd: t.workspace, env: t.env };
    const victim = await person.call('terminal.create', { ...shell, name: 'victim' });
    const bystander = await person.call('terminal.create', { ...shell, name: 'bystander' });
    await person.call('terminal.write', { id: victim.id, data: 'echo before-$((40+2)); sleep 300\r' });
    await pollUntil(async () => (await screenOf(victim.id)).includes('before-42'), { what: 'the victim’s output' });
    const shellPid = victim.pid;
    assert.ok(shellPid !== null, 'the shell runs');
    const sleeper = await pollUntil(() => findChild(shellPid, 'sleep'), { what: 'the command running in the victim' });

    process.kill(shellPid, 'SIGKILL');

    const ended = await pollUntil(() => changes.find((info) => info.id === victim.id && info.state === 'exited'), { what: 'terminal.changed: exited' });
    assert.equal(ended.signal, 'SIGKILL');
    assert.equal(ended.exitCode, null);
    assert.ok(ended.endedAt !== null);
    await pollUntil(() => !isProcessAlive(sleeper), { what: 'the command it ran to end with it (SIGHUP from the hangup)' });
    const attached = await person.call('terminal.attach', { id: victim.id });
    assert.match(attached.snapshot, /before-42/, 'its last screen is still there');
    await person.call('terminal.detach', { id: victim.id });
    const write = await person.call('terminal.write', { id: victim.id, data: 'x' }).then(
      () => 'written',
      (error: { code?: string }) => error.code,
    );
    assert.equal(write, 'TERMINAL_EXITED');

    await person.call('terminal.write', { id: bystander.id, data: 'echo still-$((6*7))\r' });
    await pollUntil(async () => (await screenOf(bystander.id)).includes('still-42'), { what: 'the other pane to keep working' });
    assert.equal(t.hub.ptyHost.require(bystander.id).info.state, 'running');

    const sessions = (await person.call('history.list', {})).sessions;
    const recorded = sessions.find((session) => session.terminalId === victim.id);
    assert.ok(recorded, 'the victim was recorded');
    await pollUntil(async () => !(await person.call('history.get', { id: recorded.id })).live, { what: 'History to close the session' });
    const closed = await person.call('history.get', { id: recorded.id });
    assert.equal(closed.signal, 'SIGKILL');
    assert.equal(closed.interrupted, false);
    const read = await person.call('history.read', { id: recorded.id });
    assert.match(Buffer.from(read.data, 'base64').toString('utf8'), /before-42/);
  });
});

/** The pid of a child of `pid` whose command is `name` (from ps), or null. */
function findChild(pid: number, name: string): number | null {
  const out = execFileSync('ps', ['-o', 'pid=,ppid=,comm=', '-e'], { encoding: 'utf8' });
  const rows = out
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([child, parent, comm]) => ({ child: Number(child), parent: Number(parent), comm }));
  const found = rows.find((row) => row.parent === pid && row.comm === name);
  return found ? found.child : null;
}
