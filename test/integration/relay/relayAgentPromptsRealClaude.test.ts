/**
 * The real Claude Code CLI in a shared pane of a real Hub, against a scripted model on loopback,
 * answered from a viewer of a real `switchboard relay` (in-process RelayServer): its first-run
 * question (when it asks one) comes as `question` and is answered with `questionResponse`; its
 * Bash permission prompt comes as `permissionRequest {toolName: "Bash", toolInput.command}`;
 * approving runs the command, denying the next refuses it, and a second answer to an answered
 * prompt is refused. Runs when SWITCHBOARD_CLAUDE_BIN points at a claude binary (CI has none).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentStatus } from '../../../src/common/api/agentContract.ts';
import type { RelayMessageOf } from '../../../src/common/protocol/relay/messages.ts';
import type { AgentPermissionToolInput } from '../../../src/node/relay/agentPrompts.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { type ScriptedModel, startScriptedModel, claudeCliEnv } from '../../helpers/scriptedClaudeModel.ts';
import { testEnv } from '../../helpers/tempHome.ts';
import { enableRemoteAccess, type RelayHubFixture, startRelayHub } from './relayHubKit.ts';
import { startTestRelay, type TestRelay, TestViewer } from './relayTestKit.ts';

const claudeBin = process.env.SWITCHBOARD_CLAUDE_BIN;
const skip = claudeBin ? false : 'SWITCHBOARD_CLAUDE_BIN is not set: no real Claude Code CLI to run (npm install @anthropic-ai/claude-code in a scratch folder and point it at node_modules/.bin/claude)';

type PermissionRequest = RelayMessageOf<'permissionRequest'>;
type PermissionResponse = RelayMessageOf<'permissionResponse'>;
type Question = RelayMessageOf<'question'>;
type QuestionResponse = RelayMessageOf<'questionResponse'>;

describe('the real Claude Code answered from a relay viewer', { skip }, () => {
  let relay: TestRelay;
  let app: RelayHubFixture;
  let model: ScriptedModel;
  let viewer: TestViewer;
  let project: string;
  let terminalId: string;

  before(async () => {
    relay = await startTestRelay({ machines: ['m1'] });
    app = await startRelayHub();
    await enableRemoteAccess(app, relay, 'm1', relay.tokens.get('m1')!.daemonToken);
    model = await startScriptedModel({
      delayMs: 1000,
      script: {
        'please make the marker': [{ name: 'Bash', input: { command: 'touch marker.txt', description: 'Create the marker file' } }],
        'please make another': [{ name: 'Bash', input: { command: 'touch other.txt', description: 'Create another file' } }],
      },
    });
    project = join(app.temp.workspace, 'project');
    const config = join(app.temp.home, 'claude-config');
    mkdirSync(project, { recursive: true });
    mkdirSync(config, { recursive: true });
    const apiKey = 'sk-ant-api03-' + 'x'.repeat(80);
    writeFileSync(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [project]: { hasTrustDialogAccepted: true } }, customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] } }));
    // "default" asks before each tool call (claude-ide.md).
    writeFileSync(join(config, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }));
    const env = testEnv(app.temp.home);
    const info = await app.api.call('terminal.create', {
      file: '/bin/bash',
      args: ['--norc', '--noprofile'],
      cwd: project,
      cols: 120,
      rows: 36,
      env: {
        ...env,
        PATH: `${dirname(claudeBin!)}:${env.PATH}`,
        TERM: 'xterm-256color',
        ...claudeCliEnv({ config, modelUrl: model.url, apiKey }),
      },
    });
    terminalId = info.id;
    await app.api.call('relay.setShared', { terminalId, shared: true });
    viewer = await TestViewer.connect(relay, 'm1', relay.tokens.get('m1')!.viewerToken, { name: 'phone' });
    await viewer.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'online', { what: 'online' });
  });
  after(async () => {
    await viewer?.close();
    await model?.close();
    await app?.stop();
    await relay?.close();
  });

  const agent = (): AgentStatus | null => app.hub.ptyHost.get(terminalId)?.info.agent ?? null;
  const until = (what: string, test: (status: AgentStatus) => boolean, timeoutMs = 30_000): Promise<AgentStatus> =>
    pollUntil(
      () => {
        const status = agent();
        return status && test(status) ? status : null;
      },
      { what, timeoutMs },
    );
  const type = async (text: string): Promise<void> => {
    await app.api.call('terminal.write', { id: terminalId, data: text });
    // Claude Code takes a fast Enter right after text as part of a paste.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await app.api.call('terminal.write', { id: terminalId, data: '\r' });
  };
  const ownResult = <T extends PermissionResponse | QuestionResponse>(type: T['type'], requestId: string, from: number) =>
    viewer.waitFor((frame): frame is T => frame.type === type && (frame as T).requestId === requestId && (frame as T).channelId === viewer.channelId, { what: `the result of ${requestId}`, from, timeoutMs: 20_000 });

  it('takes the question, approves one Bash call and denies the next from the viewer', async (t) => {
    await pollUntil(async () => (await app.hub.ptyHost.require(terminalId).readScreen()).lines.some((line) => line.startsWith('bash')), { what: 'the shell prompt' });
    await type('claude');
    const started = await until('Claude Code', (status) => status.kind === 'claude-code' && status.state !== 'working');
    if (started.state === 'needs-input' && started.prompt?.kind === 'question') {
      // First run asks whether auto mode should be the default: keep asking (manual), from the viewer.
      const question = await viewer.waitFor((frame): frame is Question => frame.type === 'question' && frame.terminalId === terminalId, { what: 'the first-run question' });
      const keep = question.options?.find((option) => /No, keep manual mode/.test(option.label));
      assert.ok(keep, JSON.stringify(question.options));
      const mark = viewer.frames.length;
      viewer.send('questionResponse', { channelId: viewer.channelId, sessionId: question.sessionId, requestId: question.requestId, answer: keep.label });
      assert.equal((await ownResult<QuestionResponse>('questionResponse', question.requestId, mark)).outcome, 'answered');
      t.diagnostic('the first-run question was answered from the viewer');
    }
    await until('idle at the input box', (status) => status.state === 'idle');

    let mark = viewer.frames.length;
    await type('please make the marker');
    const request = await viewer.waitFor(
      (frame): frame is PermissionRequest => frame.type === 'permissionRequest' && (frame.toolInput as AgentPermissionToolInput).command === 'touch marker.txt',
      { what: 'the Bash permission request', from: mark, timeoutMs: 30_000 },
    );
    assert.equal(request.toolName, 'Bash');
    assert.equal((request.toolInput as AgentPermissionToolInput).options[0], '1. Yes');
    viewer.send('permissionResponse', { channelId: viewer.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: true });
    assert.equal((await ownResult<PermissionResponse>('permissionResponse', request.requestId, mark)).outcome, 'accepted');
    // Answered already: a second answer is refused.
    const second = viewer.frames.length;
    viewer.send('permissionResponse', { channelId: viewer.channelId, sessionId: request.sessionId, requestId: request.requestId, approved: true });
    assert.equal((await ownResult<PermissionResponse>('permissionResponse', request.requestId, second)).outcome, 'refused');
    await pollUntil(() => existsSync(join(project, 'marker.txt')), { what: 'marker.txt', timeoutMs: 15_000 });
    await until('idle after the turn', (status) => status.state === 'idle' && status.since > (request.toolInput as AgentPermissionToolInput).since);

    mark = viewer.frames.length;
    await type('please make another');
    const again = await viewer.waitFor(
      (frame): frame is PermissionRequest => frame.type === 'permissionRequest' && (frame.toolInput as AgentPermissionToolInput).command === 'touch other.txt',
      { what: 'the second permission request', from: mark, timeoutMs: 30_000 },
    );
    viewer.send('permissionResponse', { channelId: viewer.channelId, sessionId: again.sessionId, requestId: again.requestId, approved: false });
    assert.equal((await ownResult<PermissionResponse>('permissionResponse', again.requestId, mark)).outcome, 'rejected');
    await until('idle after the refusal', (status) => status.state === 'idle' && status.since > (again.toolInput as AgentPermissionToolInput).since);
    assert.equal(existsSync(join(project, 'other.txt')), false, 'deny refused the command');
    await type('/exit');
    await until('exited', (status) => status.state === 'exited');
  });
});
