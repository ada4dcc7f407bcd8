/**
 * Agent workspaces from outside the app, as an orchestrating agent uses them: the control socket's
 * agent.start / worktree.* with coded errors (raw NDJSON), `switchboard agent start` and
 * `switchboard worktree list|diff|finish` as child processes, and the MCP tools over stdio.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliMain } from '../cli/cliHarness.ts';
import { pollUntil } from '../../helpers/poll.ts';
import type { NdjsonClient } from './controlTestKit.ts';
import { gitIn, makeRepo, screenText, startWorkspaceHub, type WorkspaceTestHub } from '../node/workspaces/workspaceTestKit.ts';

const execFileAsync = promisify(execFile);

async function cli(t: WorkspaceTestHub, args: string[], cwd?: string): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [cliMain, ...args, '--socket', t.socketPath], { env: t.env, cwd: cwd ?? t.root, timeout: 30_000 });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof failure.code === 'number' ? failure.code : -1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

describe('agent workspaces on the socket, the CLI and MCP', () => {
  let t: WorkspaceTestHub;
  let socket: NdjsonClient;
  before(async () => {
    t = await startWorkspaceHub();
    socket = await t.connect();
  });
  after(async () => {
    await t.dispose();
  });

  it('agent.start and worktree.* over the socket, credited to the peer; errors carry their code', async () => {
    const repo = makeRepo(t.root, 'sock');
    const started = await socket.request({ cmd: 'agent.start', clientName: 'orchestrator', profile: 'fake', folder: repo, worktree: { branch: 'sock-work' }, prompt: 'From the socket', cols: 300 });
    assert.equal(started.ok, true, started.error);
    assert.equal(started.worktree.branch, 'sock-work');
    assert.equal(typeof started.terminalId, 'string');
    assert.deepEqual(t.hub.ptyHost.require(started.terminalId).info.createdBy, { kind: 'agent', name: 'orchestrator' });
    writeFileSync(join(started.worktree.path, 'file.txt'), 'from the agent\n');
    const listed = await socket.request({ cmd: 'worktree.list', repoRoot: repo });
    assert.equal(listed.ok, true, listed.error);
    assert.deepEqual(listed.worktrees.map((entry: { branch: string; files: Array<{ path: string }> }) => [entry.branch, entry.files.map((file) => file.path)]), [['sock-work', ['file.txt']]]);
    const diff = await socket.request({ cmd: 'worktree.diff', path: started.worktree.path, scope: 'uncommitted' });
    assert.equal(diff.ok, true, diff.error);
    assert.match(diff.files[0].diff, /\+from the agent/);
    const refused = await socket.request({ cmd: 'worktree.finish', path: started.worktree.path, mode: 'discard' });
    assert.deepEqual([refused.ok, refused.code], [false, 'UNMERGED_WORK']);
    assert.match(refused.error, /file\.txt/);
    const exists = await socket.request({ cmd: 'agent.start', profile: 'fake', folder: repo, worktree: { branch: 'sock-work' } });
    assert.deepEqual([exists.ok, exists.code], [false, 'BRANCH_EXISTS']);
    const bad = await socket.request({ cmd: 'agent.start', profile: 'fake', folder: 'relative' });
    assert.deepEqual([bad.ok, bad.code], [false, 'INVALID_PARAMS']);
    const finished = await socket.request({ cmd: 'worktree.finish', path: started.worktree.path, mode: 'merge' });
    assert.equal(finished.ok, true, finished.error);
    assert.equal(finished.merge, 'fast-forward');
    assert.equal(readFileSync(join(repo, 'file.txt'), 'utf8'), 'from the agent\n');
  });

  it('with token auth: reading worktrees needs read, starting and finishing drive, and a token limited to terminals gets none of them', async () => {
    await t.client.call('settings.update', { controlTokenAuth: true });
    try {
      const repo = makeRepo(t.root, 'tokens');
      const read = await t.client.call('tokens.create', { name: 'reader', scopes: ['read'] });
      const drive = await t.client.call('tokens.create', { name: 'driver', scopes: ['drive'] });
      const pane = await t.client.call('terminal.create', { file: t.agentPath, name: 'token pane' });
      const paneOnly = await t.client.call('tokens.create', { name: 'one pane', scopes: ['drive'], terminals: [pane.id] });
      const as = async (secret: string) => {
        const client = await t.connect();
        assert.equal((await client.request({ cmd: 'auth', token: secret })).ok, true);
        return client;
      };
      const reader = await as(read.secret);
      assert.equal((await reader.request({ cmd: 'worktree.list' })).ok, true);
      assert.equal((await reader.request({ cmd: 'agent.profiles' })).ok, true);
      assert.equal((await reader.request({ cmd: 'agent.start', profile: 'fake', folder: repo })).error, 'auth:forbidden agent.start');
      const limited = await as(paneOnly.secret);
      for (const cmd of ['worktree.list', 'agent.start', 'worktree.finish']) {
        assert.equal((await limited.request({ cmd, profile: 'fake', folder: repo, path: repo, mode: 'discard' })).error, `auth:forbidden ${cmd}`);
      }
      const driver = await as(drive.secret);
      const started = await driver.request({ cmd: 'agent.start', profile: 'fake', folder: repo, worktree: { branch: 'token-work' } });
      assert.equal(started.ok, true, started.error);
      assert.equal((await reader.request({ cmd: 'worktree.finish', path: started.worktree.path, mode: 'discard' })).error, 'auth:forbidden worktree.finish');
      assert.equal((await driver.request({ cmd: 'worktree.finish', path: started.worktree.path, mode: 'discard' })).ok, true);
    } finally {
      await t.client.call('settings.update', { controlTokenAuth: false });
    }
  });

  it('switchboard agent start / worktree list, diff, finish as child processes', async () => {
    const repo = makeRepo(t.root, 'cli');
    const started = await cli(t, ['agent', 'start', '--profile', 'fake', '--worktree', 'cli-work', '--prompt', 'From the CLI', repo]);
    assert.equal(started.status, 0, started.stderr);
    const terminalId = started.stdout.trim();
    assert.match(started.stderr, /^started From the CLI \(address it by that name across restarts\)\n/);
    assert.match(started.stderr, /worktree .*cli-worktrees\/cli-work on cli-work \(from main\)/);
    await pollUntil(async () => (await screenText(t, terminalId)).includes('FAKE-AGENT-READY'));
    const path = join(t.root, 'cli-worktrees', 'cli-work');
    writeFileSync(join(path, 'README.md'), 'rewritten by the agent\n');
    const list = await cli(t, ['worktree', 'list', '--repo', repo]);
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, /^BRANCH\s+BASE\s+AHEAD\s+FILES\s+\+\/-\s+AGENT\s+PATH\n/);
    assert.match(list.stdout, new RegExp(`cli-work\\s+main\\s+0\\s+1\\s+\\+1 -20\\s+${terminalId}\\s+${path}`));
    // From inside the worktree, WORKTREE defaults to it (an agent asking about its own work).
    const diff = await cli(t, ['worktree', 'diff'], path);
    assert.equal(diff.status, 0, diff.stderr);
    assert.match(diff.stdout, /^diff --git a\/README.md b\/README.md\n/);
    assert.match(diff.stdout, /\+rewritten by the agent/);
    const refused = await cli(t, ['worktree', 'finish', 'discard', path]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /^switchboard worktree: discarding cli-work would lose uncommitted changes in README\.md/);
    const kept = await cli(t, ['worktree', 'finish', 'branch', path, '-m', 'Kept from the CLI']);
    assert.equal(kept.status, 0, kept.stderr);
    assert.equal(kept.stdout, 'kept branch cli-work; removed the worktree\n');
    assert.equal(gitIn(repo, 'log', '-1', '--format=%s', 'cli-work'), 'Kept from the CLI');
    // A merge that brings nothing says so, rather than "merged".
    const idle = await cli(t, ['agent', 'start', '--profile', 'fake', '--worktree', 'cli-idle', repo]);
    assert.equal(idle.status, 0, idle.stderr);
    const nothing = await cli(t, ['worktree', 'finish', 'merge', join(t.root, 'cli-worktrees', 'cli-idle')]);
    assert.equal(nothing.status, 0, nothing.stderr);
    assert.equal(nothing.stdout, 'nothing to merge: cli-idle had nothing main lacks; removed the worktree and the branch\n');
    const notRepo = join(t.root, 'plain-cli');
    mkdirSync(notRepo);
    const refusedStart = await cli(t, ['agent', 'start', '-p', 'fake', '--worktree', notRepo]);
    assert.equal(refusedStart.status, 1);
    assert.match(refusedStart.stderr, /not in a git repository/);
    const usage = await cli(t, ['agent', 'start', repo]);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /missing --profile/);
    const profiles = await cli(t, ['agent', 'profiles', '--json']);
    assert.ok(JSON.parse(profiles.stdout).some((entry: { profile: { id: string }; installed: boolean }) => entry.profile.id === 'fake' && entry.installed));
  });

  it('agent_start, worktree_list, worktree_diff and worktree_finish over MCP', async () => {
    const repo = makeRepo(t.root, 'mcp');
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliMain, 'mcp', '--socket', t.socketPath], env: t.env, stderr: 'pipe' });
    const mcp = new Client({ name: 'orchestrator', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      const textOf = (result: unknown) => (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      const started = await mcp.callTool({ name: 'agent_start', arguments: { profile: 'fake', folder: repo, branch: 'mcp-work', prompt: 'From MCP' } });
      assert.equal(started.isError, undefined, textOf(started));
      const path = join(t.root, 'mcp-worktrees', 'mcp-work');
      assert.match(textOf(started), new RegExp(`Worktree ${path} on branch mcp-work, from main\\.`));
      writeFileSync(join(path, 'mcp.txt'), 'one\n');
      assert.match(textOf(await mcp.callTool({ name: 'worktree_list', arguments: { repoRoot: repo } })), /added\s+mcp\.txt\s+\+1 -0\s+\(uncommitted\)/);
      assert.match(textOf(await mcp.callTool({ name: 'worktree_diff', arguments: { path } })), /\+\+\+ b\/mcp\.txt\n@@ -0,0 \+1 @@\n\+one/);
      const refused = await mcp.callTool({ name: 'worktree_finish', arguments: { path, mode: 'discard' } });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /confirm: true/);
      const discarded = await mcp.callTool({ name: 'worktree_finish', arguments: { path, mode: 'discard', confirm: true } });
      assert.match(textOf(discarded), /^Discarded mcp-work and its worktree\./);
      assert.equal(gitIn(repo, 'branch', '--list', 'mcp-work'), '');
    } finally {
      await mcp.close();
    }
  });
});
