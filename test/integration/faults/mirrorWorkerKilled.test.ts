/**
 * Fault: the mirror worker thread dies. The real worker (mirrorWorker.ts, as the Hub runs it) is
 * ended with `Worker.terminate()` through the host's fault-test hook, which takes the same path as
 * a crash. Every running terminal rebuilds its mirror from its output ring on a new worker:
 * a pane attaching gets its screen (output from before and after the fault), agents read the
 * screen, an agent's state (read from its screen) keeps changing, and a request in flight when
 * the worker dies is answered by the rebuilt mirror instead of failing.
 * (test/integration/node/pty/mirrorLost.test.ts covers a worker script that throws.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentStatus } from '../../../src/common/api/agentContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { installStandInClaude } from '../../helpers/standInClaude.ts';
import { createTerminal, type NdjsonClient, startTestHub, type TestHub } from '../control/controlTestKit.ts';

describe('fault: the mirror worker thread dies', () => {
  let t: TestHub;
  let person: LocalHubClient;
  let agentClient: NdjsonClient;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    agentClient = await t.connect();
  });
  after(async () => {
    person?.dispose();
    await t?.dispose();
  });

  const screenHas = async (terminalId: string, text: string) => {
    const screen = await agentClient.request({ cmd: 'readScreen', terminalId });
    assert.equal(screen.ok, true, screen.error);
    return (screen.lines as string[]).some((line) => line.includes(text));
  };

  it('rebuilds every pane’s screen from its ring: attach, readScreen and typing keep working, before and after output included', async () => {
    const shells = [await createTerminal(agentClient, t.env, { cols: 80, rows: 12 }), await createTerminal(agentClient, t.env, { cols: 80, rows: 12 })];
    for (const [index, id] of shells.entries()) {
      await agentClient.request({ cmd: 'send', terminalId: id, text: `for i in 1 2 3; do echo "before-$((${index}*10+i))"; done\r` });
      await pollUntil(() => screenHas(id, `before-${index * 10 + 3}`), { what: `pane ${index}'s output before the fault` });
    }

    // A screen read in flight as the worker dies is answered, by the rebuilt mirror.
    const inFlight = t.hub.ptyHost.require(shells[0]!).readScreen();
    assert.equal(await t.hub.ptyHost.terminateMirrorWorkerForFaultTest(), true, 'a worker ran');
    assert.ok((await inFlight).lines.some((line) => line.includes('before-3')), 'the read in flight is answered');

    for (const [index, id] of shells.entries()) {
      assert.ok(await screenHas(id, `before-${index * 10 + 1}`), `pane ${index}'s screen rebuilt with what it showed before`);
      await agentClient.request({ cmd: 'send', terminalId: id, text: `echo "after-$((${index}+40))"\r` });
      await pollUntil(() => screenHas(id, `after-${index + 40}`), { what: `pane ${index}'s output after the fault` });
      const attached = await person.call('terminal.attach', { id });
      assert.match(attached.snapshot, new RegExp(`before-${index * 10 + 1}[^]*after-${index + 40}`), `pane ${index} attaches with both`);
      await person.call('terminal.detach', { id });
    }
    // A pane opened after the fault gets a mirror on the new worker.
    const later = await createTerminal(agentClient, t.env);
    await agentClient.request({ cmd: 'send', terminalId: later, text: 'echo fresh-$((2*3))\r' });
    await pollUntil(() => screenHas(later, 'fresh-6'), { what: 'a new pane’s screen' });
  });

});

describe('fault: the mirror worker thread dies under an agent', () => {
  let t: TestHub;
  let person: LocalHubClient;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
  });
  after(async () => {
    person?.dispose();
    await t?.dispose();
  });

  it('keeps the agent’s state, read from its screen, working: a permission prompt after the fault is seen and answered', async () => {
    const bin = installStandInClaude(t.home);
    const info = await person.call('terminal.create', { file: join(bin, 'claude'), cwd: t.workspace, cols: 120, rows: 30, env: { PATH: '/usr/bin:/bin', HOME: t.home } });
    const agent = (): AgentStatus | null => t.hub.ptyHost.get(info.id)?.info.agent ?? null;
    await pollUntil(() => agent()?.state === 'idle', { what: 'the stand-in Claude idle' });

    assert.equal(await t.hub.ptyHost.terminateMirrorWorkerForFaultTest(), true);
    // The permission prompt is recognised on the screen of the rebuilt mirror, and answered.
    await person.call('terminal.write', { id: info.id, data: 'run touch after-fault.txt\r' });
    const asking = await pollUntil(() => (agent()?.state === 'needs-input' ? agent() : null), { what: 'the permission prompt read from the rebuilt screen', timeoutMs: 20_000 });
    await person.call('agent.answer', { terminalId: info.id, answer: 'approve', expectSince: asking.since });
    await pollUntil(() => existsSync(join(t.workspace, 'after-fault.txt')), { what: 'the approved command to run' });
    await pollUntil(() => agent()?.state === 'idle', { what: 'idle again' });
  });
});
