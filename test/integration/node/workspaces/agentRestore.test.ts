/**
 * Back after a restart, on real Hubs sharing a data dir: an agent started from a profile that can
 * resume comes back as that agent (its resume command, same worktree, under its last screen); one
 * that cannot shows its last screen and a shell, with Start again (agent.restart); a worktree
 * whose folder is gone is said so.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { Layout } from '../../../../src/common/api/contract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../../src/node/hub.ts';
import { windowStateFilePath } from '../../../../src/node/layout/windowState.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';
import { gitIn, makeRepo, writeFakeAgent } from './workspaceTestKit.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Temp = ReturnType<typeof createTempHome>;

async function startHub(temp: Temp): Promise<{ hub: Hub; client: LocalHubClient }> {
  // Restored shells start with the app's own environment: the temp HOME keeps the user's rc files out.
  Object.assign(process.env, testEnv(temp.home));
  writeFileSync(join(temp.home, '.bashrc'), "PS1='$ '\n");
  const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
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

function layoutOf(ids: string[]): Layout {
  return { tabs: ids.map((id, index) => ({ id: `tab-${index}`, root: { type: 'pane', terminalId: id } })), activeTabId: 'tab-0', focusedTerminalId: ids[0] ?? null };
}

async function savedPanes(temp: Temp, count: number): Promise<void> {
  await pollUntil(() => {
    try {
      const state = JSON.parse(readFileSync(windowStateFilePath(temp.dataDir), 'utf8'));
      return Object.values(state.panes).filter((pane) => (pane as { agent?: unknown }).agent).length === count;
    } catch {
      return false;
    }
  }, { what: `${count} agent panes in the saved window state` });
}

describe('agent panes after a restart', () => {
  it('resumes a resumable agent in its worktree; shows why for one that cannot, and Start again starts it', async () => {
    const temp = createTempHome('sb-agent-restore-');
    cleanups.push(() => temp.dispose());
    const agentPath = writeFakeAgent(temp.home);
    const repo = makeRepo(temp.workspace, 'app');
    const first = await startHub(temp);
    await first.client.call('settings.update', {
      agentProfiles: [
        { id: 'fake', name: 'Fake agent', command: agentPath, resume: { kind: 'session', startArgs: ['--session-id', '{sessionId}'], resumeArgs: ['--resume', '{sessionId}'] } },
        { id: 'oneshot', name: 'One-shot agent', command: agentPath, resume: { kind: 'none' } },
      ],
    });
    const resumable = await first.client.call('agent.start', { profile: 'fake', folder: repo, worktree: { branch: 'resume-me' }, prompt: 'Keep going', cols: 300 });
    const oneshot = await first.client.call('agent.start', { profile: 'oneshot', folder: repo, worktree: { branch: 'oneshot' }, prompt: 'Once', cols: 300 });
    const gone = await first.client.call('agent.start', { profile: 'fake', folder: repo, worktree: { branch: 'gone-soon' }, prompt: 'Vanish', cols: 300 });
    for (const id of [resumable.terminalId, oneshot.terminalId, gone.terminalId]) {
      await pollUntil(async () => (await screen(first.hub, id)).includes('FAKE-AGENT-READY'), { what: `agent ${id} ready` });
    }
    first.hub.ptyHost.require(resumable.terminalId).write('remember this line\r');
    await pollUntil(async () => (await screen(first.hub, resumable.terminalId)).includes('GOT:remember this line'));
    await first.client.call('layout.set', layoutOf([resumable.terminalId, oneshot.terminalId, gone.terminalId]));
    await savedPanes(temp, 3);
    first.client.dispose();
    await first.hub.shutdown();
    // The person removed one worktree by hand while the app was closed.
    gitIn(repo, 'worktree', 'remove', '--force', gone.worktree!.path);

    const second = await startHub(temp);
    const panes = await second.client.call('agent.panes', {});
    const byName = new Map(panes.map((pane) => [second.hub.ptyHost.require(pane.terminalId).info.name, pane]));

    const resumed = byName.get('Keep going')!;
    assert.equal(resumed.origin, 'resumed');
    assert.equal(resumed.sessionId, resumable.sessionId);
    assert.equal(resumed.cwd, resumable.worktree!.path);
    const resumedInfo = second.hub.ptyHost.require(resumed.terminalId).info;
    assert.deepEqual(resumedInfo.args, ['--resume', resumable.sessionId]);
    assert.equal(resumedInfo.cwd, resumable.worktree!.path);
    assert.ok(resumedInfo.restoredFrom, 'marked restored');
    const resumedScreen = await pollUntil(async () => {
      const text = await screen(second.hub, resumed.terminalId);
      return text.includes('FAKE-AGENT-READY') && text;
    });
    assert.ok(resumedScreen.indexOf('GOT:remember this line') < resumedScreen.indexOf('resumed · Fake agent'), 'the earlier screen is above');
    assert.ok(resumedScreen.includes(`ARGV:[--resume][${resumable.sessionId}]`), resumedScreen);

    const notResumed = byName.get('Once')!;
    assert.equal(notResumed.origin, 'not-resumed');
    assert.equal(notResumed.reason, 'cannot-resume');
    assert.equal(second.hub.ptyHost.require(notResumed.terminalId).info.cwd, oneshot.worktree!.path);
    await pollUntil(async () => (await screen(second.hub, notResumed.terminalId)).includes('not resumed · One-shot agent cannot be resumed'));

    const missing = byName.get('Vanish')!;
    assert.equal(missing.reason, 'worktree-missing');
    assert.equal(missing.message, `the worktree ${gone.worktree!.path} is gone`);
    assert.equal(second.hub.ptyHost.require(missing.terminalId).info.cwd, repo, 'a shell in the repository, said so — not the home folder');
    await pollUntil(async () => (await screen(second.hub, missing.terminalId)).includes(`is gone · this is a shell in ${repo}`));
    const listed = await second.client.call('worktree.list', { repoRoot: repo });
    assert.equal(listed.find((entry) => entry.branch === 'gone-soon')!.missing, true);
    assert.equal(listed.find((entry) => entry.branch === 'resume-me')!.terminalId, resumed.terminalId);

    // Start again: a fresh start of the profile in the same worktree, in a new pane under the same name.
    const again = await second.client.call('agent.restart', { terminalId: notResumed.terminalId, prompt: true });
    assert.equal(again.name, 'Once');
    assert.equal(again.cwd, oneshot.worktree!.path);
    assert.equal(second.hub.ptyHost.get(notResumed.terminalId), undefined, 'the old pane is closed');
    const againScreen = await pollUntil(async () => {
      const text = await screen(second.hub, again.terminalId);
      return text.includes('FAKE-AGENT-READY') && text;
    });
    assert.ok(againScreen.includes('ARGV:[Once]'), againScreen);
    const after = await second.client.call('agent.panes', {});
    assert.equal(after.find((pane) => pane.terminalId === again.terminalId)!.origin, 'started');
  });
});
