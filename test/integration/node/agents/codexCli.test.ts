/**
 * The real Codex CLI, typed by hand into a bash pane of a real Hub, against a scripted Responses
 * API on loopback (test/fixtures/agents/codex/scriptedModel.ts): the pane becomes a Codex pane; a
 * command approval makes it `needs-input` with the command as reason; approving (its digit) runs
 * the command; the turn's end makes it `idle`; denying the next one refuses it; quitting makes it
 * `exited`. Runs when SWITCHBOARD_CODEX_BIN points at a codex binary (CI has none; see
 * test/fixtures/agents/codex/README.md for installing one into a scratch folder).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { codexConfig, escalatedCommand, type ScriptedResponsesModel, startScriptedResponsesModel } from '../../../fixtures/agents/codex/scriptedModel.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';
import { AgentPaneProbe } from './agentPaneProbe.ts';

const codexBin = process.env.SWITCHBOARD_CODEX_BIN;
const skip = codexBin ? false : 'SWITCHBOARD_CODEX_BIN is not set: no real Codex CLI to run (npm install @openai/codex in a scratch folder and point it at node_modules/.bin/codex)';

describe('Codex typed by hand in a pane', { skip }, () => {
  let t: TestHub;
  let person: LocalHubClient;
  let model: ScriptedResponsesModel;
  let project: string;
  let terminalId: string;
  // These CLIs take an Enter right after fast text as part of a paste: a pause before it.
  const probe = new AgentPaneProbe(() => ({ t, person, terminalId }), { enterAfterMs: 400 });
  const { states, agent, until, screenHas, type } = probe;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    probe.follow(person);
    model = await startScriptedResponsesModel({
      delayMs: 1000,
      script: {
        'please make the marker': escalatedCommand('touch marker.txt', 'Create the marker file?'),
        'please make another': escalatedCommand('touch other.txt', 'Create another file?'),
      },
    });
    project = join(t.workspace, 'project');
    const codexHome = join(t.home, 'codex-home');
    mkdirSync(project, { recursive: true });
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, 'config.toml'), codexConfig(model.url, project));
    const info = await person.call('terminal.create', {
      // With shell integration (the test HOME's .bashrc only sets PS1), so the agent's exit code is known.
      file: '/bin/bash',
      cwd: project,
      cols: 120,
      rows: 36,
      env: { ...t.env, PATH: `${dirname(codexBin!)}:${t.env.PATH}`, TERM: 'xterm-256color', CODEX_HOME: codexHome, SCRIPTED_API_KEY: 'sk-scripted' },
    });
    terminalId = info.id;
  });
  after(async () => {
    person?.dispose();
    await model?.close();
    await t?.dispose();
  });


  it('follows Codex from start to exit, and answers its command approvals', async (test) => {
    await pollUntil(() => t.hub.ptyHost.require(terminalId).info.shellIntegration, { what: 'the shell prompt' });
    await type('codex');
    const started = await until('Codex', (status) => status.kind === 'codex' && status.state === 'idle');
    assert.equal(started.label, 'Codex');
    // Keys typed before its session is up come in as one paste (the Enter a newline): wait for its status line.
    await pollUntil(() => screenHas(/^ {2}scripted default · /), { what: 'the session', timeoutMs: 30_000 });

    await type('please make the marker');
    const asking = await until('the command approval', (status) => status.state === 'needs-input' && status.prompt?.kind === 'permission');
    assert.equal(asking.reason, 'Shell: touch marker.txt');
    assert.equal(asking.prompt!.toolName, 'Shell');
    assert.equal(asking.prompt!.options[0], '1. Yes, proceed (y)');
    assert.ok(states.includes('working'), states.join(' → '));

    await assert.rejects(person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since - 1 }), /was answered or replaced/);
    assert.equal(existsSync(join(project, 'marker.txt')), false, 'a stale answer types nothing');
    await person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since });
    await pollUntil(() => existsSync(join(project, 'marker.txt')), { what: 'marker.txt', timeoutMs: 15_000 });
    await until('idle after the turn', (status) => status.state === 'idle' && status.since > asking.since);
    assert.ok(model.callOutputs.length >= 1);

    await type('please make another');
    const again = await until('the second approval', (status) => status.state === 'needs-input' && status.reason === 'Shell: touch other.txt');
    await person.call('agent.answer', { terminalId, answer: 'deny', expectSince: again.since });
    await until('idle after the refusal', (status) => status.state === 'idle' && status.since > again.since);
    assert.equal(existsSync(join(project, 'other.txt')), false, 'deny refused the command');

    // Ctrl+C twice quits.
    await person.call('terminal.write', { id: terminalId, data: '\x03' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await person.call('terminal.write', { id: terminalId, data: '\x03' });
    const exited = await until('exited', (status) => status.state === 'exited');
    assert.equal(exited.kind, 'codex');
    const withCode = await until('the exit code', (status) => status.exitCode !== null, 5_000);
    assert.equal(withCode.exitCode, 0);
    test.diagnostic(`states: ${states.join(' → ')}`);
  });
});
