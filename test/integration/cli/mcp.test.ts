/**
 * `switchboard mcp` driven by the MCP SDK's own client over stdio, proxying to the REAL control
 * socket of a running `switchboard serve`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { testEnv } from '../../helpers/tempHome.ts';
import { cliMain } from './cliHarness.ts';
import { startRealSwitchboard, type RealSwitchboard } from './realServer.ts';

interface McpSession {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

async function startMcp(env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliMain, 'mcp'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'switchboard-test', version: '1.0.0' });
  // connect() fails if anything but MCP frames reaches stdout before or during the handshake.
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

function textOf(result: unknown): string {
  return (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('switchboard mcp against the real control socket', () => {
  let app: RealSwitchboard;
  let mcp: McpSession;
  before(async () => {
    app = await startRealSwitchboard();
    mcp = await startMcp(app.cliEnv);
  });
  after(async () => {
    await mcp?.close();
    await app?.stop();
  });

  it('lists the terminal tools with descriptions for a model', async () => {
    const { tools } = await mcp.client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    assert.deepEqual(names, ['agent_start', 'agent_status', 'bus_poll', 'bus_publish', 'bus_subscribe', 'history_list', 'history_read', 'history_reference', 'history_search', 'review_request', 'terminal_close', 'terminal_create', 'terminal_exec', 'terminal_list', 'terminal_read', 'terminal_send', 'terminal_wait', 'worktree_diff', 'worktree_finish', 'worktree_list']);
    const exec = tools.find((tool) => tool.name === 'terminal_exec')!;
    assert.match(exec.description!, /exit code/);
    assert.match(exec.description!, /terminal_send/);
    assert.deepEqual(exec.inputSchema.required, ['terminal', 'command']);
  });

  it('creates a terminal, runs echo hi in it, reads its screen and closes it', async () => {
    const created = await mcp.client.callTool({ name: 'terminal_create', arguments: { name: 'agent-1', cwd: app.workspace } });
    assert.equal(created.isError, undefined, textOf(created));
    const id = /Created terminal ([A-Za-z0-9_.-]+)/.exec(textOf(created))?.[1];
    assert.ok(id, textOf(created));

    const listed = await mcp.client.callTool({ name: 'terminal_list', arguments: {} });
    const mine = (JSON.parse(textOf(listed)) as { id: string; createdBy?: { kind: string; name: string } }[]).find((terminal) => terminal.id === id);
    assert.ok(mine);
    // Credited to the MCP client by the name it gave in `initialize`, not to the proxy.
    assert.deepEqual(mine.createdBy, { kind: 'agent', name: 'switchboard-test' });

    const ran = await mcp.client.callTool({ name: 'terminal_exec', arguments: { terminal: 'agent-1', command: 'echo hi' } });
    assert.equal(ran.isError, undefined, textOf(ran));
    assert.match(textOf(ran), /^exit code: 0\n/);
    assert.match(textOf(ran), /\nhi\r?\n?$/);

    const failed = await mcp.client.callTool({ name: 'terminal_exec', arguments: { terminal: id, command: 'sh -c "exit 3"' } });
    assert.equal(failed.isError, undefined, 'a failing command is a result, not a tool error');
    assert.match(textOf(failed), /^exit code: 3\n/);

    // Past its timeout, the model still sees what the command printed and what it waits for.
    const asking = await mcp.client.callTool({ name: 'terminal_exec', arguments: { terminal: id, command: 'echo asking; read -p "name? " x', timeoutMs: 2_000 } });
    assert.equal(asking.isError, true);
    assert.match(textOf(asking), /^exec timeout after 2000ms: the command is still running in terminal .*; the pane's last line: "name\?"\noutput so far:\nasking\nname\? $/);
    await mcp.client.callTool({ name: 'terminal_send', arguments: { terminal: id, text: 'bob' } });

    const screen = await mcp.client.callTool({ name: 'terminal_read', arguments: { terminal: id } });
    assert.match(textOf(screen), /^hi$/m);
    assert.match(textOf(screen), /\[screen \d+x\d+, cursor at row \d+ column \d+\]$/);
    const log = await mcp.client.callTool({ name: 'terminal_read', arguments: { terminal: id, mode: 'log' } });
    assert.match(textOf(log), /hi/);
    assert.match(textOf(log), /next offset: \d+\]$/);

    // The interactive flow: send, then wait from the offset send reported.
    const sent = await mcp.client.callTool({ name: 'terminal_send', arguments: { terminal: id, text: 'echo mcp-$((6*7))' } });
    assert.equal(sent.isError, undefined, textOf(sent));
    const since = Number(/Output offset at sending: (\d+)/.exec(textOf(sent))?.[1]);
    assert.ok(Number.isInteger(since), textOf(sent));
    const waited = await mcp.client.callTool({ name: 'terminal_wait', arguments: { terminal: id, pattern: 'mcp-\\d+', since, timeoutMs: 10_000 } });
    assert.equal(textOf(waited).endsWith(':\nmcp-42'), true, textOf(waited));
    const timedOut = await mcp.client.callTool({ name: 'terminal_wait', arguments: { terminal: id, pattern: 'never-xyz', timeoutMs: 200 } });
    assert.equal(timedOut.isError, undefined);
    assert.match(textOf(timedOut), /^Timed out after 200 ms/);

    const closed = await mcp.client.callTool({ name: 'terminal_close', arguments: { terminal: id } });
    assert.equal(closed.isError, undefined, textOf(closed));
  });

  it('answers bad calls with tool errors and keeps serving', async () => {
    const unknown = await mcp.client.callTool({ name: 'terminal_exec', arguments: { terminal: 'no-such-terminal', command: 'true' } });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /unknown terminal "no-such-terminal"/);
    const badArgs = await mcp.client.callTool({ name: 'terminal_send', arguments: { terminal: 42 } });
    assert.equal(badArgs.isError, true);
    const noCondition = await mcp.client.callTool({ name: 'terminal_wait', arguments: { terminal: 'x' } });
    assert.equal(noCondition.isError, true);
    assert.match(textOf(noCondition), /at least one condition/);
    const still = await mcp.client.callTool({ name: 'terminal_list', arguments: {} });
    assert.equal(still.isError, undefined);
    assert.equal(mcp.stderr(), '', 'nothing was logged');
  });
});

describe('switchboard mcp when the app is not running', () => {
  it('starts anyway and answers every tool call with a tool error saying so', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-mcp-down-'));
    const mcp = await startMcp({ ...testEnv(dataDir), SWITCHBOARD_HOME: dataDir });
    try {
      const result = await mcp.client.callTool({ name: 'terminal_list', arguments: {} });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /^Switchboard is not running \(no control socket at .*control\.sock\)/);
    } finally {
      await mcp.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
