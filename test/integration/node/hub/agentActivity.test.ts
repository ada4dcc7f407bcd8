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
import { pollUntil } from '../../../helpers/poll.ts';
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
