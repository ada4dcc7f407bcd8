/**
 * The real GitHub Copilot CLI, typed by hand into a bash pane of a real Hub, offline with a custom
 * model provider pointed at a scripted model on loopback (test/fixtures/agents/copilot/): the pane
 * becomes a Copilot pane; its folder-trust question is answered by option number; a command
 * approval makes it `needs-input` with the command as reason; approving (its digit) runs the
 * command; the turn's end makes it `idle`; its question is answered by moving its selector; denying
 * the next command refuses it; Ctrl+C twice makes it `exited`. Runs when SWITCHBOARD_COPILOT_BIN points
 * at a copilot binary (CI has none; see test/fixtures/agents/copilot/README.md).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { type ScriptedModel, startScriptedModel } from '../../../helpers/scriptedClaudeModel.ts';
import { copilotEnv, copilotScript } from '../../../fixtures/agents/copilot/scriptedModel.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';
import { AgentPaneProbe } from './agentPaneProbe.ts';

const copilotBin = process.env.SWITCHBOARD_COPILOT_BIN;
const skip = copilotBin ? false : 'SWITCHBOARD_COPILOT_BIN is not set: no real Copilot CLI to run (npm install @github/copilot in a scratch folder and point it at node_modules/.bin/copilot)';

describe('GitHub Copilot CLI typed by hand in a pane', { skip }, () => {
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
    model = await startScriptedModel({ delayMs: 1000, script: copilotScript(project) });
    const info = await person.call('terminal.create', {
      // With shell integration (the test HOME's .bashrc only sets PS1), so the agent's exit code is known.
      file: '/bin/bash',
      cwd: project,
      cols: 120,
      rows: 36,
      env: { ...t.env, PATH: `${dirname(copilotBin!)}:${t.env.PATH}`, TERM: 'xterm-256color', ...copilotEnv(model.url) },
    });
    terminalId = info.id;
  });
  after(async () => {
    person?.dispose();
    await model?.close();
    await t?.dispose();
  });


  it('follows Copilot from start to exit, and answers its trust question, its command approvals and its question', async (test) => {
    await pollUntil(() => t.hub.ptyHost.require(terminalId).info.shellIntegration, { what: 'the shell prompt' });
    await type('copilot');
    const trust = await until('the folder-trust question', (status) => status.kind === 'copilot' && status.state === 'needs-input');
    assert.equal(trust.label, 'GitHub Copilot CLI');
    assert.equal(trust.reason, 'Do you trust the files in this folder?');
    assert.equal(trust.prompt?.options[0], '1. Yes');
    await person.call('agent.answer', { terminalId, answer: { option: 1 }, expectSince: trust.since });
    await until('idle at the input box', (status) => status.state === 'idle' && status.since > trust.since);

    await type('please make the marker');
    const asking = await until('the command approval', (status) => status.state === 'needs-input' && status.prompt?.kind === 'permission');
    assert.equal(asking.reason, 'Shell: touch marker.txt');
    assert.equal(asking.prompt!.toolName, 'Shell');
    assert.ok(states.includes('working'), states.join(' → '));
    await assert.rejects(person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since - 1 }), /was answered or replaced/);
    assert.equal(existsSync(join(project, 'marker.txt')), false, 'a stale answer types nothing');
    await person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since });
    await pollUntil(() => existsSync(join(project, 'marker.txt')), { what: 'marker.txt', timeoutMs: 15_000 });
    const done = await until('idle after the turn', (status) => status.state === 'idle' && status.since > asking.since);

    await type('please ask me');
    const question = await until('the question', (status) => status.state === 'needs-input' && status.prompt?.kind === 'question' && status.since > done.since);
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

    // Ctrl+C twice quits ("ctrl+c again to exit").
    await person.call('terminal.write', { id: terminalId, data: '\x03' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await person.call('terminal.write', { id: terminalId, data: '\x03' });
    const exited = await until('exited', (status) => status.state === 'exited');
    assert.equal(exited.kind, 'copilot');
    const withCode = await until('the exit code', (status) => status.exitCode !== null, 5_000);
    assert.equal(withCode.exitCode, 0);
    test.diagnostic(`states: ${states.join(' → ')}`);
  });
});
