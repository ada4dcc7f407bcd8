/**
 * The real Gemini CLI, typed by hand into a bash pane of a real Hub, against a scripted Gemini API
 * on loopback (test/fixtures/agents/gemini/scriptedModel.ts): the pane becomes a Gemini CLI pane;
 * its first-run folder-trust question is answered by option number; a shell approval makes it
 * `needs-input` with the command as reason; approving (its digit) runs the command; the turn's end
 * makes it `idle`; denying the next one refuses it; quitting makes it `exited`. Runs when
 * SWITCHBOARD_GEMINI_BIN points at a gemini binary (CI has none; see
 * test/fixtures/agents/gemini/README.md for installing one into a scratch folder).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { geminiEnv, geminiSettings, type ScriptedGeminiModel, startScriptedGeminiModel } from '../../../fixtures/agents/gemini/scriptedModel.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';
import { AgentPaneProbe } from './agentPaneProbe.ts';

const geminiBin = process.env.SWITCHBOARD_GEMINI_BIN;
const skip = geminiBin ? false : 'SWITCHBOARD_GEMINI_BIN is not set: no real Gemini CLI to run (npm install @google/gemini-cli in a scratch folder and point it at node_modules/.bin/gemini)';

describe('Gemini CLI typed by hand in a pane', { skip }, () => {
  let t: TestHub;
  let person: LocalHubClient;
  let model: ScriptedGeminiModel;
  let project: string;
  let terminalId: string;
  // These CLIs take an Enter right after fast text as part of a paste: a pause before it.
  const probe = new AgentPaneProbe(() => ({ t, person, terminalId }), { enterAfterMs: 400 });
  const { states, agent, until, type } = probe;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    probe.follow(person);
    model = await startScriptedGeminiModel({
      delayMs: 1000,
      script: {
        'please make the marker': { name: 'run_shell_command', args: { command: 'touch marker.txt', description: 'Create the marker file' } },
        'please make another': { name: 'run_shell_command', args: { command: 'touch other.txt', description: 'Create another file' } },
      },
    });
    project = join(t.workspace, 'project');
    mkdirSync(project, { recursive: true });
    mkdirSync(join(t.home, '.gemini'), { recursive: true });
    writeFileSync(join(t.home, '.gemini', 'settings.json'), JSON.stringify(geminiSettings));
    const info = await person.call('terminal.create', {
      // With shell integration (the test HOME's .bashrc only sets PS1), so the agent's exit code is known.
      file: '/bin/bash',
      cwd: project,
      cols: 120,
      rows: 36,
      env: { ...t.env, PATH: `${dirname(geminiBin!)}:${t.env.PATH}`, TERM: 'xterm-256color', ...geminiEnv(model.url) },
    });
    terminalId = info.id;
  });
  after(async () => {
    person?.dispose();
    await model?.close();
    await t?.dispose();
  });


  it('follows Gemini CLI from start to exit, and answers its trust question and its shell approvals', async (test) => {
    await pollUntil(() => t.hub.ptyHost.require(terminalId).info.shellIntegration, { what: 'the shell prompt' });
    await type('gemini');
    const trust = await until('the folder-trust question', (status) => status.kind === 'gemini' && status.state === 'needs-input');
    assert.equal(trust.label, 'Gemini CLI');
    assert.equal(trust.reason, 'Do you trust the files in this folder?');
    assert.equal(trust.prompt?.kind, 'question');
    const trustFolder = trust.prompt.options.findIndex((option) => /^\d+\. Trust folder \(project\)$/.test(option)) + 1;
    assert.ok(trustFolder > 0, trust.prompt.options.join(' | '));
    await person.call('agent.answer', { terminalId, answer: { option: trustFolder }, expectSince: trust.since });
    // It restarts to apply the trust, then waits at its input box.
    const ready = await until('idle at the input box', (status) => status.state === 'idle' && status.since > trust.since);
    // Past its restart's first frames.
    await new Promise((resolve) => setTimeout(resolve, 2000));

    await type('please make the marker');
    const asking = await until('the shell approval', (status) => status.state === 'needs-input' && status.prompt?.kind === 'permission' && status.since > ready.since);
    assert.equal(asking.reason, 'Shell: touch marker.txt');
    assert.equal(asking.prompt!.toolName, 'Shell');
    assert.equal(asking.prompt!.options[0], '1. Allow once');
    assert.ok(states.includes('working'), states.join(' → '));

    await assert.rejects(person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since - 1 }), /was answered or replaced/);
    assert.equal(existsSync(join(project, 'marker.txt')), false, 'a stale answer types nothing');
    await person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since });
    await pollUntil(() => existsSync(join(project, 'marker.txt')), { what: 'marker.txt', timeoutMs: 15_000 });
    await until('idle after the turn', (status) => status.state === 'idle' && status.since > asking.since);
    assert.ok(model.functionResponses.length >= 1);

    await type('please make another');
    const again = await until('the second approval', (status) => status.state === 'needs-input' && status.reason === 'Shell: touch other.txt');
    await person.call('agent.answer', { terminalId, answer: 'deny', expectSince: again.since });
    await until('idle after the refusal', (status) => status.state === 'idle' && status.since > again.since);
    assert.equal(existsSync(join(project, 'other.txt')), false, 'deny refused the command');

    await type('/quit');
    const exited = await until('exited', (status) => status.state === 'exited');
    assert.equal(exited.kind, 'gemini');
    const withCode = await until('the exit code', (status) => status.exitCode !== null, 5_000);
    assert.equal(withCode.exitCode, 0);
    test.diagnostic(`states: ${states.join(' → ')}`);
  });
});
