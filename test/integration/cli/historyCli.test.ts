/**
 * History from outside the app: the control socket's `history.*` commands and `switchboard
 * history list | search | show | commands | export`, against a real Hub recording real PTYs into a
 * real SQLite file.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from '../control/controlTestKit.ts';
import { runInProcess } from './cliHarness.ts';

describe('history over the control socket and the CLI', () => {
  let t: TestHub;
  let agent: NdjsonClient;
  let api: LocalHubClient;
  let sessionId: string;
  const cli = (argv: string[]) => runInProcess([...argv, '--socket', t.socketPath], { env: { HOME: t.home }, cwd: t.workspace });

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    api = createLocalHubClient(t.hub);
    agent = await t.connect();
    const terminalId = await createTerminal(agent, t.env, { ...shells.bashIntegrated, name: 'history-cli', clientName: 'agent-h' });
    await waitForIntegration(agent, terminalId);
    for (const command of ['echo "zebra-$((40+2))-quartz"', 'printf "line-a\\nline-b\\n"', 'false']) {
      const executed = await agent.request({ cmd: 'exec', terminalId, command, clientName: 'agent-h' });
      assert.equal(executed.ok, true, executed.error);
    }
    const closed = await agent.request({ cmd: 'close', terminalId });
    assert.equal(closed.ok, true, closed.error);
    sessionId = await pollUntil(
      async () => {
        const found = await agent.request({ cmd: 'history.search', query: 'zebra-42-quartz' });
        return found.ok && found.hits.length > 0 ? (found.hits[0].sessionId as string) : undefined;
      },
      { timeoutMs: 15_000, what: 'the session to be searchable' },
    );
    await pollUntil(async () => (await agent.request({ cmd: 'history.get', sessionId })).session?.live === false, { what: 'the session to end' });
  });
  after(async () => {
    api.dispose();
    await t.dispose();
  });

  it('answers history.list, history.get, history.search, history.commands and history.read on the socket', async () => {
    const listed = await agent.request({ cmd: 'history.list', creator: 'agent-h' });
    assert.equal(listed.ok, true, listed.error);
    assert.deepEqual(
      listed.sessions.map((session: { id: string; name: string; createdBy: unknown }) => [session.id, session.name, session.createdBy]),
      [[sessionId, 'history-cli', { kind: 'agent', name: 'agent-h' }]],
    );
    assert.deepEqual((await agent.request({ cmd: 'history.list', creator: 'someone-else' })).sessions, []);

    const search = await agent.request({ cmd: 'history.search', query: 'zebra-42-quartz' });
    const marked = search.hits[0].snippet.filter((segment: { match: boolean }) => segment.match).map((segment: { text: string }) => segment.text).join('');
    assert.match(marked, /zebra/);

    const commands = await agent.request({ cmd: 'history.commands', sessionId });
    assert.equal(commands.ok, true, commands.error);
    const byLine = new Map(commands.commands.map((command: { commandLine: string; exitCode: number | null }) => [command.commandLine, command.exitCode]));
    assert.equal(byLine.get('false'), 1);
    assert.equal(byLine.get('echo "zebra-$((40+2))-quartz"'), 0);

    // The command's offsets point at its output in the stored bytes.
    const echo = commands.commands.find((command: { commandLine: string }) => command.commandLine.startsWith('echo'));
    const slice = await agent.request({ cmd: 'history.read', sessionId, offset: echo.startOffset, limit: echo.endOffset - echo.startOffset });
    assert.equal(slice.ok, true, slice.error);
    assert.match(slice.bytes, /zebra-42-quartz/);
    assert.equal(slice.offset, echo.startOffset);

    // Paging by nextOffset reads everything there is, exactly once.
    let offset: number | undefined;
    let text = '';
    for (let page = 0; page < 1000; page++) {
      const read = await agent.request({ cmd: 'history.read', sessionId, limit: 64, ...(offset === undefined ? {} : { offset }) });
      assert.equal(read.ok, true, read.error);
      text += read.bytes;
      if (read.nextOffset >= read.totalSize) break;
      assert.ok(read.nextOffset > (offset ?? -1));
      offset = read.nextOffset;
    }
    assert.match(text, /line-a\r?\nline-b/);
  });

  it('refuses bad requests with a specific error', async () => {
    const missing = await agent.request({ cmd: 'history.read', sessionId: 'no-such-session' });
    assert.equal(missing.ok, false);
    assert.match(missing.error, /no history session no-such-session/);
    const badFilter = await agent.request({ cmd: 'history.list', exit: 'sometimes' });
    assert.equal(badFilter.ok, false);
    assert.match(badFilter.error, /exit/);
    const noQuery = await agent.request({ cmd: 'history.search' });
    assert.equal(noQuery.ok, false);
    assert.match(noQuery.error, /query/);
    // Search syntax errors are words, not errors.
    const syntax = await agent.request({ cmd: 'history.search', query: '"zebra-42 AND (' });
    assert.equal(syntax.ok, true, syntax.error);
  });

  it('keeps history from tokens limited to terminals', async () => {
    const terminal = await api.call('terminal.create', { file: '/bin/sh' });
    const limited = await api.call('tokens.create', { name: 'one-terminal', scopes: ['read'], terminals: [terminal.id] });
    const reader = await api.call('tokens.create', { name: 'reader', scopes: ['read'] });
    const limitedClient = await t.connect();
    assert.equal((await limitedClient.request({ cmd: 'auth', token: limited.secret })).ok, true);
    const refused = await limitedClient.request({ cmd: 'history.list' });
    assert.equal(refused.ok, false);
    assert.equal(refused.error, 'auth:forbidden history.list');
    const readerClient = await t.connect();
    assert.equal((await readerClient.request({ cmd: 'auth', token: reader.secret })).ok, true);
    assert.equal((await readerClient.request({ cmd: 'history.list' })).ok, true);
    // The other tests expect every session to have ended.
    await api.call('terminal.close', { id: terminal.id });
    await pollUntil(async () => (await cli(['history', 'list', '--json', '--status', 'running'])).stdout.trim() === '[]', { what: 'its session to end' });
  });

  it('switchboard history list, search, show, commands and export', async () => {
    const list = await cli(['history', 'list']);
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, /^ID\s+STARTED\s+DURATION\s+STATUS/);
    assert.match(list.stdout, new RegExp(`${sessionId}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+\\S+\\s+\\S+.*agent:agent-h\\s+history-cli`));
    const json = await cli(['history', 'list', '--json', '--status', 'running']);
    assert.deepEqual(JSON.parse(json.stdout), [], 'the session has ended');

    const search = await cli(['history', 'search', 'zebra-42-quartz']);
    assert.equal(search.status, 0, search.stderr);
    assert.match(search.stdout, new RegExp(`^${sessionId}  .*\\[zebra`, 'm'));

    // A unique prefix of the id is enough.
    const show = await cli(['history', 'show', sessionId.slice(0, Math.max(4, sessionId.length - 3))]);
    assert.equal(show.status, 0, show.stderr);
    assert.match(show.stdout, /zebra-42-quartz/);
    assert.ok(!show.stdout.includes('\x1b['), 'ANSI stripped');
    const commands = await cli(['history', 'show', sessionId, '--commands']);
    assert.match(commands.stdout, /^WHEN\s+EXIT\s+DURATION\s+SESSION\s+CMD\s+CWD\s+COMMAND/);
    assert.match(commands.stdout, /\s1\s+.*false$/m);
    const matching = await cli(['history', 'commands', 'zebra']);
    assert.match(matching.stdout, /echo "zebra/);

    const castPath = join(t.workspace, 'session.cast');
    const exported = await cli(['history', 'export', sessionId, '--output', 'session.cast']);
    assert.equal(exported.status, 0, exported.stderr);
    const lines = readFileSync(castPath, 'utf8').trimEnd().split('\n');
    const header = JSON.parse(lines[0]!);
    assert.equal(header.version, 2);
    assert.ok(lines.slice(1).every((line) => Array.isArray(JSON.parse(line))));
    assert.equal(statSync(castPath).mode & 0o777, 0o600);
    const text = await cli(['history', 'export', sessionId, '--format', 'text']);
    assert.match(text.stdout, /zebra-42-quartz/);

    const unknown = await cli(['history', 'show', 'zzz-nope']);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^switchboard history: no history session zzz-nope/);
    const usage = await cli(['history', 'list', '--since', 'last tuesday']);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--since must be a date/);
  });
});
