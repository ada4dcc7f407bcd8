/**
 * The real Claude Code CLI, typed by hand into a bash pane of a real Hub, against a scripted model
 * on loopback: the pane becomes a Claude Code pane; a Bash tool call makes it `needs-input` with
 * the command as reason; a stale answer is refused and types nothing; approving runs the command;
 * the turn's end makes it `idle`; denying the next one refuses it; a request typed ahead while a
 * turn runs leaves it `working` until the turn ends; `/exit` makes it `exited`.
 * Runs when SWITCHBOARD_CLAUDE_BIN points at a claude binary (CI has none).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { type ScriptedModel, startScriptedModel, claudeCliEnv } from '../../../helpers/scriptedClaudeModel.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';
import { AgentPaneProbe } from './agentPaneProbe.ts';

const claudeBin = process.env.SWITCHBOARD_CLAUDE_BIN;
const skip = claudeBin ? false : 'SWITCHBOARD_CLAUDE_BIN is not set: no real Claude Code CLI to run (npm install @anthropic-ai/claude-code in a scratch folder and point it at node_modules/.bin/claude)';

describe('Claude Code typed by hand in a pane', { skip }, () => {
  let t: TestHub;
  let person: LocalHubClient;
  let model: ScriptedModel;
  let project: string;
  let terminalId: string;
  // These CLIs take an Enter right after fast text as part of a paste: a pause before it.
  const probe = new AgentPaneProbe(() => ({ t, person, terminalId }), { enterAfterMs: 300 });
  const { states, agent, until, type, screenHas } = probe;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    probe.follow(person);
    model = await startScriptedModel({
      delayMs: 1000,
      script: {
        'please make the marker': [{ name: 'Bash', input: { command: 'touch marker.txt', description: 'Create the marker file' } }],
        'please make another': [{ name: 'Bash', input: { command: 'touch other.txt', description: 'Create another file' } }],
      },
    });
    project = join(t.workspace, 'project');
    const config = join(t.home, 'claude-config');
    mkdirSync(project, { recursive: true });
    mkdirSync(config, { recursive: true });
    const apiKey = 'sk-ant-api03-' + 'x'.repeat(80);
    writeFileSync(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [project]: { hasTrustDialogAccepted: true } }, customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] } }));
    // "default" asks before each tool call (claude-ide.md).
    writeFileSync(join(config, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }));
    const info = await person.call('terminal.create', {
      // With shell integration (the test HOME's .bashrc only sets PS1), so the agent's exit code is known.
      file: '/bin/bash',
      cwd: project,
      cols: 120,
      rows: 36,
      env: {
        ...t.env,
        PATH: `${dirname(claudeBin!)}:${t.env.PATH}`,
        TERM: 'xterm-256color',
        ...claudeCliEnv({ config, modelUrl: model.url, apiKey }),
      },
    });
    terminalId = info.id;
  });
  after(async () => {
    person?.dispose();
    await model?.close();
    await t?.dispose();
  });


  it('a plain shell is no agent', async () => {
    await pollUntil(() => t.hub.ptyHost.require(terminalId).info.shellIntegration, { what: 'the shell prompt' });
    await type('echo "Do you want to proceed?"; echo " 1. Yes"; echo " 2. No"');
    await pollUntil(async () => (await t.hub.ptyHost.require(terminalId).readScreen()).lines.some((line) => line === ' 2. No'), { what: 'the echo' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(agent(), null);
  });

  it('follows the agent from start to exit, and answers its permission prompt', async () => {
    await type('claude');
    const started = await until('Claude Code', (status) => status.kind === 'claude-code' && status.state !== 'working');
    assert.equal(started.label, 'Claude Code');
    if (started.state === 'needs-input' && started.prompt?.kind === 'question') {
      // First run asks whether auto mode should be the default: keep asking (manual), through agent.answer.
      const keep = started.prompt.options.findIndex((option) => /No, keep manual mode/.test(option)) + 1;
      assert.ok(keep > 0, started.prompt.options.join(' | '));
      await person.call('agent.answer', { terminalId, answer: { option: keep }, expectSince: started.since });
    }
    await until('idle at the input box', (status) => status.state === 'idle');

    await type('please make the marker');
    const asking = await until('the Bash permission prompt', (status) => status.state === 'needs-input' && status.prompt?.kind === 'permission');
    assert.equal(asking.reason, 'Bash: touch marker.txt');
    assert.equal(asking.prompt!.toolName, 'Bash');
    assert.equal(asking.prompt!.options[0], '1. Yes');
    assert.ok(states.some((state) => state === 'working'), states.join(' → '));

    await assert.rejects(person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since - 1 }), /was answered or replaced/);
    assert.equal(existsSync(join(project, 'marker.txt')), false, 'a stale answer types nothing');

    await person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since });
    await assert.rejects(person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since }), /answered already|is gone|answered or replaced/);
    await pollUntil(() => existsSync(join(project, 'marker.txt')), { what: 'marker.txt', timeoutMs: 15_000 });
    await until('idle after the turn', (status) => status.state === 'idle' && status.since > asking.since);
    assert.ok(model.toolResults.length >= 1);

    await type('please make another');
    const again = await until('the second permission prompt', (status) => status.state === 'needs-input' && status.reason === 'Bash: touch other.txt');
    await person.call('agent.answer', { terminalId, answer: 'deny', expectSince: again.since });
    await until('idle after the refusal', (status) => status.state === 'idle' && status.since > again.since);
    assert.equal(existsSync(join(project, 'other.txt')), false, 'deny refused the command');

    // The next request typed ahead while a turn runs (no Enter yet): Claude Code drops "esc to
    // interrupt" from its status line then; its spinner line still says it works.
    await type('say hello');
    const replying = await until('working on the reply', (status) => status.state === 'working');
    const fromHere = states.length - 1;
    await person.call('terminal.write', { id: terminalId, data: 'tell me more' });
    await pollUntil(() => screenHas(/^❯\s+tell me more/), { what: 'the draft in the box' });
    // When the turn ended on screen: its spinner line became "✻ <Verb> for Ns · done …".
    const screenText = async () => (await t.hub.ptyHost.require(terminalId).readScreen()).lines.join('\n');
    const endedAt = await pollUntil(async () => {
      const text = await screenText();
      return / · done /.test(text.slice(text.lastIndexOf('say hello'))) ? Date.now() : undefined;
    }, { what: 'the turn to end on screen', intervalMs: 10, timeoutMs: 15_000 });
    const idle = await until('idle after the reply, the draft kept', (status) => status.state === 'idle' && status.since > replying.since);
    assert.deepEqual(states.slice(fromHere), ['working', 'idle'], 'working, then idle');
    assert.ok(idle.since >= endedAt - 200, `idle ${endedAt - idle.since} ms before the turn ended on screen: the draft was taken for the turn's end`);
    assert.ok(await screenHas(/^❯\s+tell me more/));
    await person.call('terminal.write', { id: terminalId, data: '\x15' }); // the draft cleared

    await type('/exit');
    const exited = await until('exited', (status) => status.state === 'exited');
    assert.equal(exited.kind, 'claude-code');
    const withCode = await until('the exit code', (status) => status.exitCode !== null, 5_000);
    assert.equal(withCode.exitCode, 0);
    assert.equal(withCode.reason, 'exit 0');
  });
});
