/**
 * The real OpenCode, typed by hand into a bash pane of a real Hub, its Anthropic provider pointed
 * at a scripted model on loopback (test/fixtures/agents/opencode/): the pane becomes an OpenCode
 * pane; a command approval makes it `needs-input` with the command as reason; approving (a click
 * on "Allow once") runs the command; the turn's end makes it `idle`; its question is answered by
 * digit; denying the next command (a click on "Reject") refuses it; Ctrl+C makes it `exited`. Runs when SWITCHBOARD_OPENCODE_BIN points at
 * an opencode binary (CI has none; see test/fixtures/agents/opencode/README.md).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { type ScriptedModel, startScriptedModel } from '../../../helpers/scriptedClaudeModel.ts';
import { opencodeConfig, opencodeScript } from '../../../fixtures/agents/opencode/scriptedModel.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';
import { AgentPaneProbe } from './agentPaneProbe.ts';

const opencodeBin = process.env.SWITCHBOARD_OPENCODE_BIN;
const skip = opencodeBin ? false : 'SWITCHBOARD_OPENCODE_BIN is not set: no real OpenCode to run (npm install opencode-ai in a scratch folder and point it at node_modules/.bin/opencode)';

describe('OpenCode typed by hand in a pane', { skip }, () => {
  let t: TestHub;
  let person: LocalHubClient;
  let model: ScriptedModel;
  let project: string;
  let terminalId: string;
  // These CLIs take an Enter right after fast text as part of a paste: a pause before it.
  const probe = new AgentPaneProbe(() => ({ t, person, terminalId }), { enterAfterMs: 400 });
  const { states, agent, until, type } = probe;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    probe.follow(person);
    project = join(t.workspace, 'project');
    mkdirSync(project, { recursive: true });
    model = await startScriptedModel({ delayMs: 1000, script: opencodeScript(project) });
    const config = join(t.home, '.config', 'opencode');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'opencode.json'), JSON.stringify(opencodeConfig(model.url)));
    const info = await person.call('terminal.create', {
      // With shell integration (the test HOME's .bashrc only sets PS1), so the agent's exit code is known.
      file: '/bin/bash',
      cwd: project,
      cols: 120,
      rows: 36,
      env: { ...t.env, PATH: `${dirname(opencodeBin!)}:${t.env.PATH}`, TERM: 'xterm-256color' },
    });
    terminalId = info.id;
  });
  after(async () => {
    person?.dispose();
    await model?.close();
    await t?.dispose();
  });


  it('follows OpenCode from start to exit, answers its command approvals by clicking and its question by digit', async (test) => {
    await pollUntil(() => t.hub.ptyHost.require(terminalId).info.shellIntegration, { what: 'the shell prompt' });
    await type('opencode');
    const started = await until('OpenCode at its input box', (status) => status.kind === 'opencode' && status.state === 'idle', 60_000);
    assert.equal(started.label, 'OpenCode');

    await type('please make the marker');
    const asking = await until('the command approval', (status) => status.state === 'needs-input' && status.prompt?.kind === 'permission');
    assert.equal(asking.reason, 'Shell: touch marker.txt');
    assert.deepEqual(asking.prompt!.options, ['1. Allow once', '2. Allow always', '3. Reject']);
    assert.ok(states.includes('working'), states.join(' → '));
    await assert.rejects(person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since - 1 }), /was answered or replaced/);
    assert.equal(existsSync(join(project, 'marker.txt')), false, 'a stale answer types nothing');
    await person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since });
    await pollUntil(() => existsSync(join(project, 'marker.txt')), { what: 'marker.txt', timeoutMs: 15_000 });
    await until('idle after the turn', (status) => status.state === 'idle' && status.since > asking.since);

    await type('please ask me');
    const question = await until('the question', (status) => status.state === 'needs-input' && status.prompt?.kind === 'question');
    assert.equal(question.reason, 'Which colour should the marker be?');
    assert.equal(question.prompt!.options[1], '2. Blue');
    await person.call('agent.answer', { terminalId, answer: { option: 2 }, expectSince: question.since });
    await until('idle after the answer', (status) => status.state === 'idle' && status.since > question.since);
    assert.ok(model.toolResults.some((result) => result.includes('Blue')), model.toolResults.join('\n'));

    await type('please make another');
    const again = await until('the second approval', (status) => status.state === 'needs-input' && status.reason === 'Shell: touch other.txt');
    await person.call('agent.answer', { terminalId, answer: 'deny', expectSince: again.since });
    await until('idle after the refusal', (status) => status.state === 'idle' && status.since > again.since);
    assert.equal(existsSync(join(project, 'other.txt')), false, 'deny refused the command');

    await person.call('terminal.write', { id: terminalId, data: '\x03' });
    const exited = await until('exited', (status) => status.state === 'exited');
    assert.equal(exited.kind, 'opencode');
    test.diagnostic(`states: ${states.join(' → ')}`);
  });
});
