/**
 * The real Claude Code CLI started from the built-in Claude Code profile, against a scripted
 * model on loopback: agent.start in a new worktree with a task (typed as its first prompt once it is
 * connected to the IDE bridge, in the asking permission mode, with a session id of ours), then a restart of the Hub brings it back with
 * `--resume <that id>`, and the resumed pane shows the earlier conversation. Runs when
 * SWITCHBOARD_CLAUDE_BIN points at a claude binary (CI has none).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../../src/node/hub.ts';
import { windowStateFilePath } from '../../../../src/node/layout/windowState.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { startScriptedModel, claudeCliEnv } from '../../../helpers/scriptedClaudeModel.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';
import { makeRepo } from './workspaceTestKit.ts';

const claudeBin = process.env.SWITCHBOARD_CLAUDE_BIN;
const skip = claudeBin ? false : 'SWITCHBOARD_CLAUDE_BIN is not set: no real Claude Code CLI to run (npm install @anthropic-ai/claude-code in a scratch folder and point it at node_modules/.bin/claude)';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Temp = ReturnType<typeof createTempHome>;

/** A Hub whose IDE bridge writes its lock file into the test's Claude config dir (CLAUDE_CONFIG_DIR), as the app does into ~/.claude. */
async function startHub(temp: Temp, claudeConfig: string): Promise<{ hub: Hub; client: LocalHubClient }> {
  Object.assign(process.env, testEnv(temp.home));
  writeFileSync(join(temp.home, '.bashrc'), "PS1='$ '\n");
  const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: { CLAUDE_CONFIG_DIR: claudeConfig }, clawsCompatSockets: false });
  await hub.start();
  const client = createLocalHubClient(hub, { kind: 'person', name: 'you' });
  cleanups.push(async () => {
    client.dispose();
    await hub.shutdown();
  });
  return { hub, client };
}

async function screen(hub: Hub, id: string): Promise<string> {
  return (await hub.ptyHost.require(id).readScreen({ scrollback: true })).lines.join('\n');
}

/** Claude Code's first run may ask whether auto mode should be the default: keep asking (manual). */
async function answerFirstRunQuestion(client: LocalHubClient, hub: Hub, terminalId: string): Promise<void> {
  const status = await pollUntil<AgentStatus>(() => {
    const agent = hub.ptyHost.get(terminalId)?.info.agent;
    return agent && agent.kind === 'claude-code' && agent.state !== 'working' ? agent : null;
  }, { what: 'Claude Code to settle', timeoutMs: 60_000 });
  if (status.state === 'needs-input' && status.prompt?.kind === 'question') {
    const keep = status.prompt.options.findIndex((option) => /keep manual/i.test(option)) + 1;
    if (keep > 0) await client.call('agent.answer', { terminalId, answer: { option: keep }, expectSince: status.since });
  }
}

describe('the real Claude Code from its profile', { skip }, () => {
  it('starts with the task in a worktree and is resumed with its conversation after a restart', async () => {
    const temp = createTempHome('sb-claude-agent-');
    cleanups.push(() => temp.dispose());
    // A turn whose history holds the task gets "Done: …"; one without it (a fresh session) "Hello from the scripted model.".
    const model = await startScriptedModel({ script: { 'please greet the tester': [] } });
    cleanups.push(() => model.close());
    const repo = makeRepo(temp.workspace, 'app');
    const worktree = join(temp.workspace, 'app-worktrees', 'greet');
    const config = join(temp.home, 'claude-config');
    mkdirSync(config, { recursive: true });
    const apiKey = 'sk-ant-api03-' + 'x'.repeat(80);
    writeFileSync(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [worktree]: { hasTrustDialogAccepted: true } }, customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] } }));
    const profile = {
      id: 'claude',
      name: 'Claude Code',
      command: claudeBin!,
      resume: { kind: 'session' as const, startArgs: ['--session-id', '{sessionId}'], resumeArgs: ['--resume', '{sessionId}'] },
      env: claudeCliEnv({ config, modelUrl: model.url, apiKey }),
    };

    const done = 'Done: the scripted task is finished.';
    const first = await startHub(temp, config);
    await first.client.call('settings.update', { agentProfiles: [profile] });
    // Claude Code's own hooks report to the Hub (claudeHooks.ts): what they said of this pane.
    const hookStates: string[] = [];
    first.hub.agentHooks.onDidReceive(({ hook }) => hookStates.push(hook.state));
    const started = await first.client.call('agent.start', { profile: 'claude', folder: repo, worktree: { branch: 'greet' }, prompt: 'please greet the tester', cols: 120, rows: 36 });
    assert.equal(started.worktree!.path, worktree);
    // The task is typed once the CLI is connected to the IDE bridge, so its first edits reach Review.
    const args = first.hub.ptyHost.require(started.terminalId).info.args;
    assert.equal(args[0], '--settings');
    assert.deepEqual(args.slice(2), ['--permission-mode', 'default', '--session-id', started.sessionId]);
    await answerFirstRunQuestion(first.client, first.hub, started.terminalId);
    await pollUntil(async () => (await screen(first.hub, started.terminalId)).includes(done), { what: 'the answer to the task', timeoutMs: 60_000 });
    // The task's turn through the hooks: submitted (working), then ended (idle).
    await pollUntil(() => hookStates.includes('working') && hookStates.at(-1) === 'idle', { what: `the hooks of the turn (so far: ${hookStates.join(', ')})`, timeoutMs: 15_000 });
    await first.client.call('layout.set', { tabs: [{ id: 'tab', root: { type: 'pane', terminalId: started.terminalId } }], activeTabId: 'tab', focusedTerminalId: started.terminalId });
    await pollUntil(() => {
      try {
        return Object.values(JSON.parse(readFileSync(windowStateFilePath(temp.dataDir), 'utf8')).panes).some((pane) => (pane as { agent?: unknown }).agent);
      } catch {
        return false;
      }
    }, { what: 'the agent pane saved' });
    first.client.dispose();
    await first.hub.shutdown();

    const second = await startHub(temp, config);
    const [pane] = await second.client.call('agent.panes', {});
    assert.equal(pane!.origin, 'resumed');
    const resumedArgs = second.hub.ptyHost.require(pane!.terminalId).info.args;
    assert.equal(resumedArgs[0], '--settings', 'the resumed Claude Code reports through its hooks too');
    assert.deepEqual(resumedArgs.slice(2), ['--permission-mode', 'default', '--resume', started.sessionId]);
    // The resumed CLI has the earlier conversation: it shows it, and a new message is answered in
    // its context (the scripted model answers "Done: …" only when the history holds the task).
    let last = '';
    await pollUntil(async () => {
      last = await screen(second.hub, pane!.terminalId);
      const agent = second.hub.ptyHost.get(pane!.terminalId)?.info.agent;
      return agent?.state === 'idle' && last.includes('please greet the tester');
    }, { what: 'the resumed conversation', timeoutMs: 60_000 }).catch((error: Error) => {
      throw new Error(`${error.message}; the pane shows:\n${last}`);
    });
    await second.client.call('terminal.write', { id: pane!.terminalId, data: 'one more thing' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await second.client.call('terminal.write', { id: pane!.terminalId, data: '\r' });
    await pollUntil(async () => {
      last = await screen(second.hub, pane!.terminalId);
      return last.split(done).length - 1 >= 2 && last.includes('one more thing');
    }, { what: 'the answer to the new message, in the earlier conversation', timeoutMs: 60_000 }).catch((error: Error) => {
      throw new Error(`${error.message}; the pane shows:\n${last}`);
    });
    assert.ok(!last.includes('Hello from the scripted model.'), 'the model saw the earlier task: the session was resumed, not started afresh');
  });

  it('its first edit, asked for by the task it was started with, waits in Review', async () => {
    const temp = createTempHome('sb-claude-review-');
    cleanups.push(() => temp.dispose());
    const repo = makeRepo(temp.workspace, 'app');
    const worktree = join(temp.workspace, 'app-worktrees', 'make-file');
    const target = join(worktree, 'made.txt');
    const model = await startScriptedModel({ script: { 'please make the file': [{ name: 'Write', input: { file_path: target, content: 'hello\n' } }] } });
    cleanups.push(() => model.close());
    const config = join(temp.home, 'claude-config');
    mkdirSync(config, { recursive: true });
    const apiKey = 'sk-ant-api03-' + 'x'.repeat(80);
    writeFileSync(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [worktree]: { hasTrustDialogAccepted: true } }, customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] } }));
    const { hub, client } = await startHub(temp, config);
    await client.call('settings.update', {
      agentProfiles: [
        {
          id: 'claude',
          name: 'Claude Code',
          command: claudeBin!,
          resume: { kind: 'session', startArgs: ['--session-id', '{sessionId}'], resumeArgs: ['--resume', '{sessionId}'] },
          env: claudeCliEnv({ config, modelUrl: model.url, apiKey }),
        },
      ],
    });
    const reviews: string[] = [];
    client.on('review.added', (review) => reviews.push(review.path));
    const started = await client.call('agent.start', { profile: 'claude', folder: repo, worktree: { branch: 'make-file' }, prompt: 'please make the file', cols: 120, rows: 36 });
    await answerFirstRunQuestion(client, hub, started.terminalId);
    let last = '';
    await pollUntil(async () => {
      last = await screen(hub, started.terminalId);
      return reviews.includes(target);
    }, { what: 'the Write in Review', timeoutMs: 60_000 }).catch((error: Error) => {
      throw new Error(`${error.message}; reviews: ${JSON.stringify(reviews)}; the pane shows:\n${last}`);
    });
    assert.equal(existsSync(target), false, 'nothing is written before the review is decided');
  });

});
