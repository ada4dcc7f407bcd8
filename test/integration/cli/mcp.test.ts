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
    assert.deepEqual(names, ['agent_start', 'agent_status', 'bus_poll', 'bus_publish', 'bus_subscribe', 'history_list', 'history_read', 'history_reference', 'history_search', 'review_request', 'terminal_close', 'terminal_create', 'terminal_exec', 'terminal_list', 'terminal_read', 'terminal_send', 'terminal_signal', 'terminal_wait', 'worktree_diff', 'worktree_finish', 'worktree_list']);
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
    assert.match(textOf(log), /next offset: \d+ \(the end, for now\)\]$/);

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
    // Closing a closed terminal is not an error (the tool says so; it is idempotent).
    const again = await mcp.client.callTool({ name: 'terminal_close', arguments: { terminal: id } });
    assert.equal(again.isError, undefined, textOf(again));
    assert.match(textOf(again), /was already closed/);
  });

  it('returns a page of a long output, says what was cut and where terminal_read finds the rest', async () => {
    const created = await mcp.client.callTool({ name: 'terminal_create', arguments: { name: 'long-output', cwd: app.workspace } });
    const id = /Created terminal ([A-Za-z0-9_.-]+)/.exec(textOf(created))?.[1];
    assert.ok(id, textOf(created));
    // ~110 KB: far past a model's tool-result budget, under the socket's 256 KiB.
    const ran = await mcp.client.callTool({ name: 'terminal_exec', arguments: { terminal: id, command: 'seq 1 20000' } });
    const body = textOf(ran);
    assert.equal(ran.isError, undefined, body.slice(0, 500));
    const note = /^exit code: 0\n\[output cut: the last (\d+) bytes of (\d+) bytes shown; the whole output is bytes (\d+)-(\d+) of the terminal's log: read it with terminal_read mode "log", offset \3 .*outputLimit \(max 131072\)\]\n/.exec(body);
    assert.ok(note, body.slice(0, 500));
    assert.ok(Number(note[1]) <= 16_384 && Number(note[2]) > 100_000, note[0]);
    assert.ok(body.length < 17_000, `the reply is ${body.length} characters`);
    assert.match(body, /\n19999\n20000\n?$/, 'the tail, starting on a whole line');
    // The rest, page by page, from the offset the note gave.
    const page = await mcp.client.callTool({ name: 'terminal_read', arguments: { terminal: id, mode: 'log', offset: Number(note[3]) } });
    const pageText = textOf(page);
    assert.ok(/^1\r?\n2\r?\n3\r?\n/.test(pageText), pageText.slice(0, 200));
    const next = /\[bytes (\d+)-(\d+) of (\d+); more follows, next offset: (\d+)\]$/.exec(pageText);
    assert.ok(next, pageText.slice(-200));
    assert.equal(Number(next[2]) - Number(next[1]), 16_384, 'a page is 16 KiB by default, also from an offset');
    const more = await mcp.client.callTool({ name: 'terminal_exec', arguments: { terminal: id, command: 'seq 1 20000', outputLimit: 131_072 } });
    assert.ok(!textOf(more).includes('output cut'), textOf(more).slice(0, 400));
    await mcp.client.callTool({ name: 'terminal_close', arguments: { terminal: id } });
  });

  it('refuses a name another terminal has, and stops a running command with terminal_signal', async () => {
    const first = await mcp.client.callTool({ name: 'terminal_create', arguments: { name: 'only-one', cwd: app.workspace } });
    const id = /Created terminal ([A-Za-z0-9_.-]+)/.exec(textOf(first))?.[1];
    assert.ok(id, textOf(first));
    const second = await mcp.client.callTool({ name: 'terminal_create', arguments: { name: 'only-one' } });
    assert.equal(second.isError, true);
    assert.equal(textOf(second), `the name "only-one" is taken by terminal ${id}; names point at one terminal — pick another or rename that one first`);

    const running = mcp.client.callTool({ name: 'terminal_exec', arguments: { terminal: 'only-one', command: 'echo st""arted; sleep 30' } });
    const started = await mcp.client.callTool({ name: 'terminal_wait', arguments: { terminal: id, pattern: 'started', since: 0, timeoutMs: 10_000 } });
    assert.match(textOf(started), /^Matched pattern/);
    const signalled = await mcp.client.callTool({ name: 'terminal_signal', arguments: { terminal: 'only-one' } });
    assert.equal(signalled.isError, undefined, textOf(signalled));
    assert.match(textOf(signalled), /^Sent SIGINT to the foreground process group \d+ of terminal /);
    assert.match(textOf(await running), /^exit code: 130\n/);
    await mcp.client.callTool({ name: 'terminal_close', arguments: { terminal: id } });
  });

  it('answers bad calls with tool errors and keeps serving', async () => {
    const unknown = await mcp.client.callTool({ name: 'terminal_exec', arguments: { terminal: 'no-such-terminal', command: 'true' } });
    assert.equal(unknown.isError, true);
    assert.equal(textOf(unknown), 'unknown terminal "no-such-terminal" (see terminal_list)', 'a model is pointed at its own tool, not at `switchboard ls`');
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
