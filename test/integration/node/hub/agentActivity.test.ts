/**
 * What agents do reaches people through the Hub API: `audit.list` (newest first, filtered by peer
 * and terminal), the live `audit.recorded` event and `terminal.agentInput` when an agent types.
 * Agents act over the real control socket; the person is a Hub connection as the renderer is.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditEntry, EventPayload } from '../../../../src/common/api/contract.ts';
import { ApiError } from '../../../../src/common/api/errors.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ControlClient } from '../../../../src/cli/controlClient.ts';
import { auditLogFileName } from '../../../../src/node/control/auditLog.ts';
import { Hub } from '../../../../src/node/hub.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';
import { createTerminal, type NdjsonClient, startTestHub, type TestHub } from '../../control/controlTestKit.ts';

describe('agent activity through the Hub API', () => {
  let t: TestHub;
  let agent: NdjsonClient;
  let person: LocalHubClient;
  const recorded: AuditEntry[] = [];
  const agentInput: EventPayload<'terminal.agentInput'>[] = [];

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    agent = await t.connect();
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    person.on('audit.recorded', (entry) => recorded.push(entry));
    person.on('terminal.agentInput', (input) => agentInput.push(input));
  });
  after(async () => {
    person.dispose();
    await t.dispose();
  });

  it('lists what agents did, newest first, filtered by peer and terminal, and streams it live', async () => {
    const alpha = await createTerminal(agent, t.env, { name: 'alpha-build', clientName: 'agent-alpha' });
    const beta = await createTerminal(agent, t.env, { name: 'beta-tests', clientName: 'agent-beta' });
    const sent = await agent.request({ cmd: 'send', terminalId: alpha, text: 'echo from-alpha', clientName: 'agent-alpha' });
    assert.equal(sent.ok, true, sent.error);
    const executed = await agent.request({ cmd: 'exec', terminalId: beta, command: 'echo from-beta', clientName: 'agent-beta' });
    assert.equal(executed.ok, true, executed.error);
    // The person's own typing is not an agent action.
    await person.call('terminal.write', { id: alpha, data: '# just me\r' });

    const all = await person.call('audit.list', {});
    assert.deepEqual(
      all.map((entry) => [entry.peer, entry.cmd, entry.terminalId, entry.terminalName]),
      [
        ['agent-beta', 'exec', beta, 'beta-tests'],
        ['agent-alpha', 'send', alpha, 'alpha-build'],
        ['agent-beta', 'create', beta, 'beta-tests'],
        ['agent-alpha', 'create', alpha, 'alpha-build'],
      ],
      'newest first',
    );
    assert.equal(all[1]!.summary, 'echo from-alpha\\r');
    assert.equal(all[0]!.summary, 'echo from-beta');
    assert.ok(all.every((entry, index) => index === 0 || entry.seq < all[index - 1]!.seq));
    assert.ok(all.every((entry) => Math.abs(entry.at - Date.now()) < 60_000));

    assert.deepEqual(
      (await person.call('audit.list', { peer: 'agent-alpha' })).map((entry) => entry.cmd),
      ['send', 'create'],
    );
    assert.deepEqual(
      (await person.call('audit.list', { terminalId: beta })).map((entry) => [entry.peer, entry.cmd]),
      [
        ['agent-beta', 'exec'],
        ['agent-beta', 'create'],
      ],
    );
    assert.deepEqual(await person.call('audit.list', { peer: 'agent-alpha', terminalId: beta }), []);
    assert.deepEqual(
      (await person.call('audit.list', { limit: 1 })).map((entry) => entry.cmd),
      ['exec'],
    );

    // The same entries arrived live, oldest first, as they happened.
    await pollUntil(() => recorded.length >= 4, { what: 'four audit.recorded events' });
    assert.deepEqual(
      recorded.map((entry) => entry.seq),
      [...all].reverse().map((entry) => entry.seq),
    );
    assert.deepEqual(recorded[2], all[1]);

    // Typing by agents (send and exec, not create) is announced with a one-line preview.
    await pollUntil(() => agentInput.length >= 2, { what: 'two terminal.agentInput events' });
    assert.deepEqual(agentInput, [
      { id: alpha, peer: 'agent-alpha', text: 'echo from-alpha' },
      { id: beta, peer: 'agent-beta', text: 'echo from-beta' },
    ]);

    // A closed terminal's entries keep its name.
    await agent.request({ cmd: 'close', terminalId: alpha, clientName: 'agent-alpha' });
    const afterClose = await person.call('audit.list', { terminalId: alpha });
    assert.deepEqual(
      afterClose.map((entry) => [entry.cmd, entry.terminalName]),
      [
        ['close', 'alpha-build'],
        ['send', 'alpha-build'],
        ['create', 'alpha-build'],
      ],
    );
    await agent.request({ cmd: 'close', terminalId: beta });
  });

  it('keeps previews of long input to 200 characters on one line', async () => {
    const id = await createTerminal(agent, t.env, { clientName: 'agent-long' });
    const long = 'echo ' + 'x'.repeat(400);
    agentInput.length = 0;
    const sent = await agent.request({ cmd: 'send', terminalId: id, text: long + '\n# second line', newline: false, paste: false, clientName: 'agent-long' });
    assert.equal(sent.ok, true, sent.error);
    const input = await pollUntil(() => agentInput.find((candidate) => candidate.id === id), { what: 'the agent input event' });
    assert.ok(input.text.length <= 200);
    assert.ok(input.text.startsWith('echo xxx'));
    assert.doesNotMatch(input.text, /\n/);
    await agent.request({ cmd: 'close', terminalId: id });
  });

  it('refuses bad audit.list params with INVALID_PARAMS', async () => {
    for (const params of [{ limit: 0 }, { limit: 'ten' }, { terminalId: 'no spaces allowed' }, { peer: '' }, { extra: true }]) {
      await assert.rejects(person.callRaw('audit.list', params), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'INVALID_PARAMS', JSON.stringify(params));
        return true;
      });
    }
  });
});

describe('agent activity across a restart', () => {
  it('is still listed after the app restarts (same seqs, numbering continues), attached to the restored pane, in a 0600 file', async () => {
    const temp = createTempHome('sb-activity-');
    const hubs: Hub[] = [];
    const start = async () => {
      // Restored panes start with the app's own environment: keep the user's rc files out.
      Object.assign(process.env, testEnv(temp.home));
      const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
      hubs.push(hub);
      await hub.start();
      return hub;
    };
    try {
      const first = await start();
      const person = createLocalHubClient(first, { kind: 'person', name: 'you' });
      const agent = new ControlClient({ socketPath: first.controlSocketPath, clientName: 'agent-kept' });
      const pane = await agent.create({ name: 'kept-pane', env: testEnv(temp.home) });
      const scratch = await agent.create({ name: 'scratch', env: testEnv(temp.home) });
      await agent.send(pane, { text: 'echo one' });
      await agent.send(scratch, { text: 'echo two' });
      await agent.request('close', { terminalId: scratch });
      await person.call('layout.set', { tabs: [{ id: 'only', root: { type: 'pane', terminalId: pane } }], activeTabId: 'only', focusedTerminalId: pane });
      const before = await person.call('audit.list', {});
      assert.equal(before.length, 5);
      agent.dispose();
      person.dispose();
      await first.shutdown();
      assert.equal(statSync(join(temp.dataDir, auditLogFileName)).mode & 0o777, 0o600);

      const second = await start();
      const [restored] = second.ptyHost.list();
      assert.ok(restored && restored.name === 'kept-pane');
      const viewer = createLocalHubClient(second, { kind: 'person', name: 'you' });
      const afterRestart = await viewer.call('audit.list', {});
      assert.deepEqual(
        afterRestart.map((entry) => [entry.seq, entry.peer, entry.cmd, entry.terminalName, entry.summary]),
        before.map((entry) => [entry.seq, entry.peer, entry.cmd, entry.terminalName, entry.summary]),
        'what agents did before the restart is still there',
      );
      // The pane that came back carries what was done to it; the closed terminal keeps its old id.
      assert.deepEqual(
        afterRestart.filter((entry) => entry.terminalName === 'kept-pane').map((entry) => entry.terminalId),
        [restored.id, restored.id],
      );
      assert.ok(afterRestart.filter((entry) => entry.terminalName === 'scratch').every((entry) => entry.terminalId === scratch));
      const again = new ControlClient({ socketPath: second.controlSocketPath, clientName: 'agent-kept' });
      await again.send(restored.id, { text: 'echo three' });
      again.dispose();
      const latest = await viewer.call('audit.list', { limit: 1 });
      assert.equal(latest[0]!.seq, before[0]!.seq + 1, 'numbering continues');
      viewer.dispose();
    } finally {
      for (const hub of hubs) await hub.shutdown();
      temp.dispose();
    }
  });
});
