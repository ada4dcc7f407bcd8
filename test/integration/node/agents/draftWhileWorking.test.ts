/**
 * The person types the next request into Claude Code's box while a turn runs (without Enter):
 * Claude Code's status line drops "esc to interrupt" then, and the screen looked like the idle input
 * box — the agent went to "Waiting for you" as done while it still worked. Its spinner line over the
 * box says it works (screenRules.test.ts has the real CLI's screens; claudeCode.test.ts the real CLI
 * end to end, where a binary is installed). Here the stand-in, which types ahead as the real one does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';
import { startStandInPane } from './standInPane.ts';

describe('a request typed ahead while the agent works', () => {
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

  it('leaves it working until its turn ends, then idle with the draft in the box', async () => {
    const { id, states, screen } = await startStandInPane(t, person);

    await person.call('terminal.write', { id, data: 'write the docs\r' });
    const working = await pollUntil(() => (states.at(-1)?.state === 'working' ? states.at(-1) : undefined), { what: 'working' });
    await person.call('terminal.write', { id, data: 'then the tests' });
    // The screen the person sees: the draft in the box, no "esc to interrupt", the spinner over the box.
    await pollUntil(async () => {
      const lines = await screen();
      return lines.some((line) => /^❯\s+then the tests/.test(line)) && !lines.some((line) => /esc to interrupt/.test(line)) && lines.some((line) => line.startsWith('✳ Working…'));
    }, { what: 'the draft typed ahead on screen', intervalMs: 5 });
    const endedAt = await pollUntil(async () => ((await screen()).some((line) => line.startsWith('● Done.')) ? Date.now() : undefined), { what: 'the turn to end on screen', intervalMs: 5 });
    const idle = await pollUntil(() => (states.at(-1)?.state === 'idle' ? states.at(-1) : undefined), { what: 'idle after the turn' });
    const since = states.indexOf(working);
    assert.deepEqual(states.slice(since).map((state) => state.state), ['working', 'idle']);
    assert.ok(idle.since >= endedAt - 100, `idle ${endedAt - idle.since} ms before the turn ended on screen: the draft was taken for the turn's end`);
    assert.ok((await screen()).some((line) => /^❯\s+then the tests/.test(line)), 'the draft waits in the box');
  });
});
