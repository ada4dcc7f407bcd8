/**
 * Pointers to past sessions from outside the app: `switchboard history reference` as a child
 * process, and the history_* tools of `switchboard mcp` driven by the MCP SDK's client over
 * stdio, both against a real `switchboard serve` recording real bash PTYs into real SQLite.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pollUntil } from '../../helpers/poll.ts';
import { cliMain, runChild } from './cliHarness.ts';
import { startRealSwitchboard, type RealSwitchboard } from './realServer.ts';

function textOf(result: unknown): string {
  return (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('history reference from the CLI and MCP', () => {
  let app: RealSwitchboard;
  let mcp: Client;
  let sessionId: string;
  let failingId: number;
  let echoId: number;
  const cli = (...argv: string[]) => runChild(argv, { env: app.cliEnv, timeoutMs: 30_000 });

  before(async () => {
    app = await startRealSwitchboard();
    assert.equal((await cli('new', '--name', 'build')).status, 0);
    const ran = await cli('exec', 'build', '--', 'echo "ref-out-$((6*7))"');
    assert.equal(ran.status, 0, ran.stderr);
    assert.match(ran.stdout, /ref-out-42/);
    assert.equal((await cli('exec', 'build', '--', 'sh -c "exit 4"')).status, 4);
    assert.equal((await cli('close', 'build')).status, 0);
    sessionId = await pollUntil(
      async () => {
        const listed = JSON.parse((await cli('history', 'list', '--json')).stdout) as Array<{ id: string; name: string; live: boolean }>;
        return listed.find((session) => session.name === 'build' && !session.live)?.id;
      },
      { timeoutMs: 20_000, what: 'the build session to end' },
    );
    const commands = JSON.parse((await cli('history', 'show', sessionId, '--commands', '--json')).stdout) as Array<{ id: number; commandLine: string; exitCode: number }>;
    failingId = commands.find((command) => command.commandLine === 'sh -c "exit 4"')!.id;
    echoId = commands.find((command) => command.commandLine.startsWith('echo'))!.id;

    const transport = new StdioClientTransport({ command: process.execPath, args: [cliMain, 'mcp'], env: app.cliEnv, stderr: 'pipe' });
    mcp = new Client({ name: 'history-test-agent', version: '1.0.0' });
    await mcp.connect(transport);
  });
  after(async () => {
    await mcp?.close();
    await app?.stop();
  });

  it('switchboard history reference prints the pointer, writes 0600 files and types the pointer into --to without Enter', async () => {
    const commands = await cli('history', 'commands', '--session', sessionId);
    assert.match(commands.stdout, /^WHEN\s+EXIT\s+DURATION\s+SESSION\s+CMD\s+CWD\s+COMMAND/);
    assert.match(commands.stdout, new RegExp(`\\s4\\s+.*${sessionId}\\s+${failingId}\\s+.*sh -c "exit 4"$`, 'm'));

    assert.equal((await cli('new', '--name', 'agent')).status, 0);
    const ref = await cli('history', 'reference', sessionId.slice(0, -2), `${sessionId}:${failingId}`, '--notes', 'The second one fails.', '--to', 'agent');
    assert.equal(ref.status, 0, ref.stderr);
    const sessionFile = join(app.dataDir, 'references', `${sessionId}-session.txt`);
    const commandFile = join(app.dataDir, 'references', `${sessionId}-cmd${failingId}.txt`);
    assert.equal(
      ref.stdout,
      [
        '# switchboard: 2 transcripts from History (plain text files; read what you need):',
        // Closed with `close`: the shell ended by SIGHUP.
        `# 1. session "build" (SIGHUP, ${/\d{4}-\d\d-\d\d \d\d:\d\d/.exec(ref.stdout)![0]}): ${sessionFile}`,
        `# 2. "sh -c "exit 4"" (exit 4, ${/"exit 4"" \(exit 4, ([^)]+)\)/.exec(ref.stdout)![1]}): ${commandFile}`,
        '# notes: The second one fails.',
        '',
      ].join('\n'),
    );
    assert.match(ref.stderr, /^Wrote 2 transcript files \(plain text, 0600\):\n/);
    assert.match(ref.stderr, /Typed into terminal \S+ \(not sent: press Enter there\)\.\n$/);
    assert.equal(statSync(commandFile).mode & 0o777, 0o600);
    assert.match(readFileSync(sessionFile, 'utf8'), /\nref-out-42\n/);

    const screen = await pollUntil(
      async () => {
        const shown = await cli('screen', 'agent');
        return shown.stdout.includes('# notes: The second one fails.') ? shown.stdout : null;
      },
      { what: 'the pointer on the agent pane' },
    );
    assert.match(screen, /# switchboard: 2 transcripts from History/);
    // Not sent: no command ran in the agent pane.
    const agentSession = (JSON.parse((await cli('history', 'list', '--json')).stdout) as Array<{ id: string; name: string }>).find((session) => session.name === 'agent')!;
    assert.equal((await cli('history', 'show', agentSession.id, '--commands')).stdout, 'No commands.\n');

    const json = await cli('history', 'reference', `${sessionId}:${failingId}`, '--json');
    assert.equal(json.status, 0, json.stderr);
    const parsed = JSON.parse(json.stdout);
    assert.deepEqual(Object.keys(parsed).sort(), ['deliveredTo', 'files', 'pointer', 'warnings']);
    assert.equal(parsed.files[0].exitCode, 4);
    assert.equal(parsed.files[0].commandLine, 'sh -c "exit 4"');
  });

  it('refuses bad IDs with a one-line error and a non-zero status', async () => {
    const unknown = await cli('history', 'reference', 'no-such-session', sessionId);
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /no history session no-such-session: nothing was written/);
    const badCommand = await cli('history', 'reference', `${sessionId}:x`);
    assert.equal(badCommand.status, 2);
    assert.match(badCommand.stderr, /ID must be SESSION or SESSION:N, got ".*:x"/);
    const tooMany = await cli('history', 'reference', ...Array.from({ length: 101 }, () => sessionId));
    assert.equal(tooMany.status, 2);
    assert.match(tooMany.stderr, /at most 100 IDs in one reference, got 101/);
    const bigNotes = await cli('history', 'reference', sessionId, '--notes', 'n'.repeat(16 * 1024 + 1));
    assert.notEqual(bigNotes.status, 0);
    assert.match(bigNotes.stderr, /notes are 16385 bytes; at most 16384/);
    const nowhere = await cli('history', 'reference', sessionId, '--to', 'no-such-terminal');
    assert.notEqual(nowhere.status, 0);
    assert.match(nowhere.stderr, /unknown terminal "no-such-terminal"/);
  });

  it('MCP: history_list, history_search, history_reference (pointer and paths, not content) and a bounded history_read', async () => {
    const listed = textOf(await mcp.callTool({ name: 'history_list', arguments: {} }));
    assert.match(listed, new RegExp(`^${sessionId}\\s.*build`, 'm'));
    const commands = textOf(await mcp.callTool({ name: 'history_list', arguments: { session: sessionId } }));
    assert.match(commands, new RegExp(`${sessionId}\\s+${failingId}\\s+.*sh -c "exit 4"`));
    const found = textOf(await mcp.callTool({ name: 'history_search', arguments: { query: 'ref-out-42' } }));
    assert.match(found, new RegExp(`^${sessionId}  .*\\[ref\\]-\\[out\\]-\\[42\\]`, 'm'));

    const referenced = await mcp.callTool({ name: 'history_reference', arguments: { items: [{ session: sessionId }], notes: 'for later' } });
    assert.equal(referenced.isError, undefined, textOf(referenced));
    const body = textOf(referenced);
    assert.ok(body.includes(join(app.dataDir, 'references', `${sessionId}-session.txt`)), body);
    assert.match(body, /# notes: for later/);
    assert.doesNotMatch(body, /ref-out-42/, 'the transcript stays in the file');

    const refused = await mcp.callTool({ name: 'history_reference', arguments: { items: [{ session: 'no-such-session' }] } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /no history session no-such-session/);

    const page = textOf(await mcp.callTool({ name: 'history_read', arguments: { session: sessionId, limit: 64 } }));
    const range = /^\[bytes (\d+)–(\d+) of (\d+)–(\d+); next offset (\d+)\]\n/.exec(page);
    assert.ok(range, page);
    assert.ok(Number(range[2]) - Number(range[1]) <= 64);
    const whole = textOf(await mcp.callTool({ name: 'history_read', arguments: { session: sessionId, limit: 131_072 } }));
    assert.match(whole, /this is the end\]\n[\s\S]*ref-out-42/);
    const command = textOf(await mcp.callTool({ name: 'history_read', arguments: { session: sessionId, command: echoId } }));
    assert.match(command, /this is the end\]\n[\s\S]*ref-out-42/);
    assert.doesNotMatch(command, /exit 4/, 'only that command\'s output');
    const empty = textOf(await mcp.callTool({ name: 'history_read', arguments: { session: sessionId, command: failingId } }));
    assert.match(empty, /^\[bytes (\d+)–\1 of \1–\1; this is the end\]\n$/, 'sh -c "exit 4" printed nothing');
    const tooBig = await mcp.callTool({ name: 'history_read', arguments: { session: sessionId, limit: 131_073 } });
    assert.equal(tooBig.isError, true);
  });
});
