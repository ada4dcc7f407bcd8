/**
 * History through a real Hub, as the renderer uses it: a person runs commands in a real bash,
 * closes the terminal, and finds the session with `history.list`, a unique word it printed with
 * `history.search`, exactly its output with `history.events` / `history.read`, its commands with
 * `history.commands`; plus export, delete, "don't record" and the broadcast events.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { EventPayload } from '../../../../src/common/api/contract.ts';
import { ApiError } from '../../../../src/common/api/errors.ts';
import type { HistoryEvent } from '../../../../src/common/api/historyContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../../src/node/hub.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';

const bash = { file: 'bash', args: ['--norc', '--noprofile'] };

/** Output bytes of a session, from its events, checking offsets are contiguous. */
function outputOfEvents(events: HistoryEvent[]): Buffer {
  const parts: Buffer[] = [];
  let expected: number | null = null;
  for (const event of events) {
    if (event.kind !== 'output') continue;
    const data = Buffer.from(event.data, 'base64');
    if (expected !== null) assert.equal(event.offset, expected, 'output events are contiguous');
    expected = event.offset + data.length;
    parts.push(data);
  }
  return Buffer.concat(parts);
}

describe('History through the Hub (real PTYs, real SQLite)', () => {
  let temp: ReturnType<typeof createTempHome>;
  let hub: Hub;
  let client: LocalHubClient;
  const changed: EventPayload<'history.changed'>[] = [];

  before(async () => {
    temp = createTempHome('sb-history-hub-');
    hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    await hub.start();
    client = createLocalHubClient(hub, { kind: 'person', name: 'you' });
    client.on('history.changed', (change) => changed.push(change));
  });

  after(async () => {
    client.dispose();
    await hub.shutdown();
    temp.dispose();
  });

  it('records a closed session: list, search, events, read and commands give it back exactly', async () => {
    const status = await client.call('history.status', {});
    assert.equal(status.state, 'recording');
    assert.equal(status.movedAside, null);
    const dbFile = join(temp.dataDir, 'switchboard.db');
    assert.ok(existsSync(dbFile));
    assert.equal(statSync(dbFile).mode & 0o777, 0o600, 'the database is private');

    const info = await client.call('terminal.create', { ...bash, env: testEnv(temp.home), name: 'history-demo' });
    // What a client sees: attach, and collect every output byte from the attach offset on.
    const received: Buffer[] = [];
    client.on('terminal.output', (output) => {
      if (output.id === info.id) received.push(Buffer.from(output.data, 'utf8'));
    });
    const attached = await client.call('terminal.attach', { id: info.id });
    assert.equal(attached.offset === 0 || attached.snapshot.length >= 0, true);

    const unique = `zebrafish${Date.now().toString(36)}`;
    await client.call('terminal.write', { id: info.id, data: `echo ${unique}-$((6*7)) 'ünïcödé ✓'\r` });
    await pollUntil(() => Buffer.concat(received).toString().includes(`${unique}-42 ünïcödé ✓`), { what: 'the echo output', timeoutMs: 20_000 });
    await client.call('terminal.write', { id: info.id, data: 'exit 3\r' });
    await pollUntil(async () => (await client.call('terminal.list', {})).find((t) => t.id === info.id)?.state === 'exited', { what: 'the shell to exit', timeoutMs: 20_000 });
    await client.call('terminal.close', { id: info.id });

    const { sessions } = await client.call('history.list', {});
    const session = sessions.find((candidate) => candidate.terminalId === info.id);
    assert.ok(session, 'the closed terminal is in the list');
    assert.equal(session.name, 'history-demo');
    assert.equal(session.live, false);
    assert.equal(session.exitCode, 3);
    assert.equal(session.receivedInput, true);
    assert.deepEqual(session.createdBy, { kind: 'person', name: 'you' });
    assert.equal(session.source, 'recorded');
    assert.equal(session.cwd, temp.workspace);
    assert.ok(session.endedAt !== null && session.endedAt >= session.startedAt);
    assert.deepEqual(await client.call('history.get', { id: session.id }), session);
    await pollUntil(() => changed.some((change) => change.sessionIds.includes(session.id)), { what: 'history.changed for the session' });

    // Replay bytes: exactly what the terminal produced (what the attached client received, from offset 0).
    const { events, done } = await client.call('history.events', { id: session.id });
    assert.equal(done, true);
    const replayed = outputOfEvents(events);
    assert.equal(attached.offset, 0, 'attached before any output');
    assert.deepEqual(replayed, Buffer.concat(received), 'stored output equals the bytes the terminal produced');
    assert.equal(session.byteCount, replayed.length);
    assert.ok(events.some((event) => event.kind === 'input'), 'an input marker');
    assert.ok(events.every((event) => event.kind !== 'input' || event.data === ''), 'input content is never stored');
    assert.ok(events.every((event, index) => index === 0 || event.at >= events[index - 1]!.at), 'times never go back');

    // Paging through events gives the same as one call.
    const firstPage = await client.call('history.events', { id: session.id, limit: 1 });
    assert.equal(firstPage.events.length, 1);
    const rest = await client.call('history.events', { id: session.id, afterSeq: firstPage.events[0]!.seq });
    assert.deepEqual([...firstPage.events, ...rest.events], events);

    const read = await client.call('history.read', { id: session.id, offset: 5, limit: 10 });
    assert.deepEqual(Buffer.from(read.data, 'base64'), replayed.subarray(5, 15));
    assert.equal(read.nextOffset, 15);
    assert.equal(read.endOffset, replayed.length);
    assert.equal(read.truncated, false);

    // Search finds the unique word; the snippet marks it.
    hub.history.indexNow();
    const { hits } = await client.call('history.search', { query: unique });
    const outputHit = hits.find((hit) => hit.sessionId === session.id && hit.source === 'output');
    assert.ok(outputHit, `a hit for ${unique}: ${JSON.stringify(hits)}`);
    assert.ok(outputHit.snippet.some((segment) => segment.match && segment.text.toLowerCase().includes(unique.toLowerCase())), JSON.stringify(outputHit.snippet));
    assert.equal(outputHit.sessionName, 'history-demo');
    // Diacritics and case do not matter.
    assert.ok((await client.call('history.search', { query: 'UNICODE' })).hits.some((hit) => hit.sessionId === session.id));
    // FTS syntax in the box is just words.
    for (const query of ['"unbalanced', 'foo AND', '*', 'NEAR(', `${unique} AND`, 'OR NOT']) {
      await client.call('history.search', { query });
    }
    assert.ok((await client.call('history.search', { query: `"${unique}` })).hits.some((hit) => hit.sessionId === session.id));

    const text = await client.call('history.export', { id: session.id, format: 'text' });
    assert.match(text.contents, new RegExp(`${unique}-42 ünïcödé ✓`));
    assert.ok(!text.contents.includes('\x1b'));
    assert.match(text.fileName, /^history-demo-.*\.txt$/);
  });

  it('records commands with their offsets into the stored output (shell integration)', async () => {
    // Plain `bash` gets our shell integration injected (the temp HOME has no rc files).
    const info = await client.call('terminal.create', { file: 'bash', env: testEnv(temp.home), name: 'with-commands' });
    await pollUntil(async () => (await client.call('terminal.list', {})).find((t) => t.id === info.id)?.shellIntegration, { what: 'shell integration', timeoutMs: 20_000 });
    await client.call('terminal.write', { id: info.id, data: 'echo first-output-line\r' });
    // An exec's sentinel wrapper, as typed into a shell whose integration came up after it: the
    // wrapper is not a command of the session.
    await client.call('terminal.write', { id: info.id, data: ` builtin printf '\\033]6973;S;0123abcd;%s\\007' "$PWD"; eval 'echo wrapped'; builtin printf '\\033]6973;E;0123abcd;%s\\007' "$?"\r` });
    await client.call('terminal.write', { id: info.id, data: 'false\r' });
    await pollUntil(async () => (await client.call('terminal.list', {})).find((t) => t.id === info.id)?.lastCommand?.commandLine === 'false', { what: 'two commands', timeoutMs: 20_000 });
    const sessionId = hub.history.sessionOfTerminal(info.id);
    assert.ok(sessionId);
    const live = await client.call('history.get', { id: sessionId });
    assert.equal(live.live, true);
    assert.equal((await client.call('history.list', { filter: { exit: 'running' } })).sessions.some((s) => s.id === sessionId), true);

    const { commands } = await client.call('history.commands', { sessionId });
    assert.deepEqual(
      commands.map((command) => [command.commandLine, command.exitCode]),
      [
        ['false', 1],
        ['echo first-output-line', 0],
      ],
    );
    const echo = commands[1]!;
    assert.equal(echo.sessionName, 'with-commands');
    assert.ok(echo.endOffset !== null);
    const slice = await client.call('history.read', { id: sessionId, offset: echo.startOffset, limit: echo.endOffset - echo.startOffset });
    assert.match(Buffer.from(slice.data, 'base64').toString(), /first-output-line/);
    assert.deepEqual((await client.call('history.commands', { query: 'first-out' })).commands.map((command) => command.id), [echo.id]);
    await client.call('terminal.close', { id: info.id });
    const ended = await client.call('history.get', { id: sessionId });
    assert.equal(ended.live, false);
    assert.equal(ended.commandCount, 2);
    hub.history.indexNow();
    const hits = (await client.call('history.search', { query: 'first-output-line' })).hits.filter((hit) => hit.sessionId === sessionId);
    assert.ok(hits.some((hit) => hit.source === 'command' && hit.commandId === echo.id), JSON.stringify(hits));
    assert.ok(hits.some((hit) => hit.source === 'output'));
  });

  it('leaves no trace of a shell that got no input, and "don\'t record" drops a terminal', async () => {
    const idle = await client.call('terminal.create', { ...bash, env: testEnv(temp.home), name: 'idle-shell' });
    const idleSession = hub.history.sessionOfTerminal(idle.id);
    assert.ok(idleSession);
    await client.call('terminal.close', { id: idle.id });
    assert.equal((await client.call('history.list', {})).sessions.some((s) => s.terminalId === idle.id), false, 'an idle shell leaves no trace');
    await assert.rejects(client.call('history.get', { id: idleSession }), (error: unknown) => error instanceof ApiError && error.code === 'NOT_FOUND');

    // A program that is not an interactive shell is kept even without input: its output is its work.
    const program = await client.call('terminal.create', { file: 'bash', args: ['-c', 'echo program-output'], env: testEnv(temp.home), name: 'program' });
    await pollUntil(async () => (await client.call('terminal.list', {})).find((t) => t.id === program.id)?.state === 'exited', { what: 'the program to end', timeoutMs: 20_000 });
    await client.call('terminal.close', { id: program.id });
    assert.equal((await client.call('history.list', {})).sessions.some((s) => s.terminalId === program.id), true);

    const recording: EventPayload<'history.recordingChanged'>[] = [];
    client.on('history.recordingChanged', (change) => recording.push(change));
    const secret = await client.call('terminal.create', { ...bash, env: testEnv(temp.home), name: 'secret' });
    await client.call('terminal.write', { id: secret.id, data: 'echo classified-words\r' });
    await pollUntil(() => {
      hub.history.flush();
      const id = hub.history.sessionOfTerminal(secret.id);
      return id && (hub.history.get(id)?.byteCount ?? 0) > 0;
    }, { what: 'something recorded' });
    await client.call('history.setRecording', { terminalId: secret.id, record: false });
    assert.deepEqual(recording, [{ terminalId: secret.id, record: false }]);
    assert.equal(hub.history.sessionOfTerminal(secret.id), null);
    await client.call('terminal.write', { id: secret.id, data: 'echo more-classified\r' });
    await client.call('terminal.write', { id: secret.id, data: 'exit\r' });
    await pollUntil(async () => (await client.call('terminal.list', {})).find((t) => t.id === secret.id)?.state === 'exited', { what: 'the shell to end' });
    // An ended terminal's recording is over: switching it is refused in words, not an internal error.
    await assert.rejects(client.call('history.setRecording', { terminalId: secret.id, record: true }), (error: unknown) => {
      const failure = error as { code?: string; message?: string };
      return failure.code === 'INVALID_PARAMS' && /has ended; its session in History is complete/.test(failure.message ?? '');
    });
    await client.call('terminal.close', { id: secret.id });
    hub.history.indexNow();
    assert.equal((await client.call('history.list', {})).sessions.some((s) => s.terminalId === secret.id), false);
    assert.deepEqual((await client.call('history.search', { query: 'classified' })).hits, []);
  });

  it('exports asciicast, imports it back, deletes, and refuses bad input clearly', async () => {
    const { sessions } = await client.call('history.list', { filter: { creator: 'you' } });
    const source = sessions.find((session) => session.name === 'history-demo');
    assert.ok(source);
    const cast = await client.call('history.export', { id: source.id, format: 'cast' });
    assert.match(cast.fileName, /\.cast$/);
    const lines = cast.contents.trimEnd().split('\n');
    const header = JSON.parse(lines[0]!);
    assert.equal(header.version, 2);
    assert.equal(header.width, source.cols);
    assert.equal(header.height, source.rows);
    assert.equal(header.title, 'history-demo');
    const imported = await client.call('history.import', { fileName: 'demo.cast', contents: cast.contents });
    assert.equal(imported.source, 'imported');
    assert.equal(imported.terminalId, null);
    assert.equal(imported.byteCount, source.byteCount);
    const importedBytes = outputOfEvents((await client.call('history.events', { id: imported.id })).events);
    const sourceBytes = outputOfEvents((await client.call('history.events', { id: source.id })).events);
    assert.deepEqual(importedBytes, sourceBytes);

    await assert.rejects(
      client.call('history.import', { fileName: 'bad.cast', contents: '{"version":2,"width":80,"height":24}\n[0.5, "o", "ok"]\n[1, "o"]\n' }),
      (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS' && /line 3: expected \[time, code, data\]/.test(error.message),
    );
    await assert.rejects(client.call('history.get', { id: 'nope' }), (error: unknown) => error instanceof ApiError && error.code === 'NOT_FOUND');
    await assert.rejects(client.callRaw('history.search', { query: '' }), (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS');
    await assert.rejects(client.callRaw('history.get', { id: '../etc' }), (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS');

    assert.deepEqual(await client.call('history.delete', { ids: [imported.id, 'missing'] }), { deleted: 1 });
    assert.equal((await client.call('history.list', {})).sessions.some((session) => session.id === imported.id), false);
  });

  it('exports text with each prompt once, though bash redrew it at every window resize', async () => {
    const info = await client.call('terminal.create', { ...bash, env: { ...testEnv(temp.home), PS1: 'resizing$ ' }, name: 'resized', cols: 80, rows: 24 });
    const received: string[] = [];
    const listener = client.on('terminal.output', (output) => {
      if (output.id === info.id) received.push(output.data);
    });
    await client.call('terminal.attach', { id: info.id });
    const prompts = () => received.join('').split('resizing$ ').length - 1;
    await pollUntil(() => prompts() >= 1, { what: 'the first prompt', timeoutMs: 20_000 });
    // A half-typed line, then the window is resized three times: bash rewrites prompt and line each time.
    await client.call('terminal.write', { id: info.id, data: 'echo resized-$((6*7))' });
    await pollUntil(() => received.join('').includes('echo resized-$((6*7))'), { what: 'the typed line', timeoutMs: 20_000 });
    for (const [index, cols] of [100, 60, 90].entries()) {
      await client.call('terminal.resize', { id: info.id, cols, rows: 24 });
      await pollUntil(() => prompts() >= index + 2, { what: `bash's redraw after resize ${index + 1}`, timeoutMs: 20_000 });
    }
    await client.call('terminal.write', { id: info.id, data: '\r' });
    await pollUntil(() => prompts() >= 5 && received.join('').includes('resized-42'), { what: 'the output and the next prompt', timeoutMs: 20_000 });
    await client.call('terminal.resize', { id: info.id, cols: 80, rows: 24 });
    await pollUntil(() => prompts() >= 6, { what: "bash's redraw of the empty prompt", timeoutMs: 20_000 });
    listener.dispose();

    const sessionId = hub.history.sessionOfTerminal(info.id);
    assert.ok(sessionId);
    const { contents } = await client.call('history.export', { id: sessionId, format: 'text' });
    assert.equal(contents, 'resizing$ echo resized-$((6*7))\nresized-42\nresizing$ ', 'each prompt once, as the screen shows it');
    await client.call('terminal.close', { id: info.id });
  });

  it('references a command in another terminal: a private transcript file and a one-line pointer, no Enter', async () => {
    const { commands } = await client.call('history.commands', { query: 'echo first-output-line' });
    const command = commands[0]!;
    const agentPane = await client.call('terminal.create', { ...bash, env: testEnv(temp.home), name: 'agent-pane' });
    const screen: Buffer[] = [];
    client.on('terminal.output', (output) => {
      if (output.id === agentPane.id) screen.push(Buffer.from(output.data));
    });
    await client.call('terminal.attach', { id: agentPane.id });
    const result = await client.call('history.reference', { items: [{ sessionId: command.sessionId, commandId: command.id }], terminalId: agentPane.id });
    assert.equal(result.deliveredTo, agentPane.id);
    const [file] = result.files;
    assert.equal(file?.path, join(temp.dataDir, 'references', `${command.sessionId}-cmd${command.id}.txt`));
    assert.equal(statSync(file.path).mode & 0o777, 0o600);
    assert.equal(statSync(join(temp.dataDir, 'references')).mode & 0o777, 0o700);
    const transcript = readFileSync(file.path, 'utf8');
    assert.match(transcript, /^\$ echo first-output-line\n/);
    assert.match(transcript, /first-output-line\n/);
    assert.match(result.pointer, /^# switchboard: transcript of "echo first-output-line" \(exit 0, \d{4}-\d\d-\d\d \d\d:\d\d\) at \//);
    assert.ok(!/[\r\n]/.test(result.pointer));
    await pollUntil(() => Buffer.concat(screen).toString().includes('transcript of "echo first-output-line"'), { what: 'the pointer echoed in the pane' });
    await client.call('terminal.close', { id: agentPane.id });
  });
});
