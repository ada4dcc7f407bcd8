/**
 * `history.reference` over the real control socket, against a Hub recording real bash PTYs into a
 * real SQLite file: transcript files (0600 in a 0700 dir), the pointer, delivery into a pane
 * without Enter, and every bad input refused with nothing written.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

describe('history.reference on the control socket', () => {
  let t: TestHub;
  let agent: NdjsonClient;
  let api: LocalHubClient;
  let sessionId: string;
  let failing: { id: number; commandLine: string };
  let referencesDir: string;
  const listReferences = () => {
    try {
      return readdirSync(referencesDir).sort();
    } catch {
      return [];
    }
  };

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    referencesDir = join(t.dataDir, 'references');
    api = createLocalHubClient(t.hub);
    agent = await t.connect();
    const terminalId = await createTerminal(agent, t.env, { ...shells.bashIntegrated, name: 'build', clientName: 'agent-r' });
    await waitForIntegration(agent, terminalId);
    for (const command of ['printf "\\033[31mred-$((6*7))\\033[0m\\n"', 'echo "secret-transcript-$((3*3))"; sh -c "exit 3"']) {
      const executed = await agent.request({ cmd: 'exec', terminalId, command });
      assert.equal(executed.ok, true, executed.error);
    }
    assert.equal((await agent.request({ cmd: 'close', terminalId })).ok, true);
    sessionId = await pollUntil(
      async () => {
        const listed = await agent.request({ cmd: 'history.list', creator: 'agent-r' });
        const session = listed.sessions?.[0];
        return session && !session.live ? (session.id as string) : undefined;
      },
      { timeoutMs: 15_000, what: 'the session to end' },
    );
    const { commands } = await agent.request({ cmd: 'history.commands', sessionId });
    failing = commands.find((command: { commandLine: string }) => command.commandLine.includes('exit 3'));
    assert.ok(failing, JSON.stringify(commands));
  });
  after(async () => {
    api.dispose();
    await t.dispose();
  });

  it('writes each transcript as plain text to a private file and returns a pointer that names them, never their content', async () => {
    const notes = 'Why does the second command fail?\nLook at the exit code.';
    const answer = await agent.request({ cmd: 'history.reference', items: [{ sessionId, commandId: failing.id }, { sessionId }], notes });
    assert.equal(answer.ok, true, answer.error);
    assert.equal(answer.files.length, 2);
    const [command, session] = answer.files;
    assert.equal(command.path, join(referencesDir, `${sessionId}-cmd${failing.id}.txt`));
    assert.equal(command.sessionId, sessionId);
    assert.equal(command.commandId, failing.id);
    assert.equal(command.commandLine, failing.commandLine);
    assert.equal(command.exitCode, 3);
    assert.equal(typeof command.startedAt, 'number');
    assert.equal(typeof command.endedAt, 'number');
    assert.equal(command.live, false);
    assert.equal(session.path, join(referencesDir, `${sessionId}-session.txt`));
    assert.equal(session.commandLine, undefined);
    for (const file of answer.files) {
      assert.equal(statSync(file.path).mode & 0o777, 0o600, file.path);
      assert.equal(statSync(file.path).size, file.bytes);
    }
    assert.equal(statSync(referencesDir).mode & 0o777, 0o700);

    const commandText = readFileSync(command.path, 'utf8');
    assert.match(commandText, /^\$ echo "secret-transcript/);
    assert.match(commandText, /\nsecret-transcript-9\n/);
    assert.doesNotMatch(commandText, /red-42/, 'only the command\'s own output');
    const sessionText = readFileSync(session.path, 'utf8');
    assert.match(sessionText, /\nred-42\n/);
    assert.ok(!sessionText.includes('\x1b'), 'ANSI stripped');

    assert.doesNotMatch(answer.pointer, /secret-transcript-9|red-42/, 'the pointer never carries the transcript');
    assert.ok(answer.pointer.includes(command.path) && answer.pointer.includes(session.path));
    assert.match(answer.pointer, /^# switchboard: 2 transcripts from History/);
    assert.match(answer.pointer, /# 1\. "echo "secret-transcript-\$\(\(3\*3\)\)"; sh -c "exit 3"" \(exit 3, \d{4}-\d\d-\d\d \d\d:\d\d\): \//);
    assert.match(answer.pointer, /# notes: Why does the second command fail\?\n# {3}Look at the exit code\.$/);
    assert.ok(answer.pointer.split('\n').every((line: string) => line.startsWith('#')), 'every line is a comment to a shell');
    assert.deepEqual(answer.warnings, []);
    assert.equal(answer.deliveredTo, null);
  });

  it('types the pointer into the deliverTo pane without pressing Enter', async () => {
    const paneId = await createTerminal(agent, t.env, { ...shells.bashIntegrated, name: 'agent-pane' });
    await waitForIntegration(agent, paneId);
    const answer = await agent.request({ cmd: 'history.reference', items: [{ sessionId, commandId: failing.id }], deliverTo: paneId });
    assert.equal(answer.ok, true, answer.error);
    assert.equal(answer.deliveredTo, paneId);
    assert.match(answer.pointer, /^# switchboard: transcript of "echo .*" \(exit 3, .*\) at \/.*\.txt$/);
    const pane = t.hub.ptyHost.require(paneId);
    const typed = await pollUntil(async () => (await pane.readScreen()).promptInput?.includes('transcript of') ? (await pane.readScreen()).promptInput : null, {
      what: 'the pointer on the pane\'s prompt line',
    });
    assert.ok(typed?.startsWith('# switchboard: transcript of'), typed ?? '');
    // Not sent: still at the prompt, no command ran.
    assert.equal(pane.atPrompt, true);
    const { commands } = await agent.request({ cmd: 'history.commands', sessionId: t.hub.history.sessionOfTerminal(paneId) });
    assert.deepEqual(commands, []);
    // The typing is in the audit log, as any agent input is.
    const audited = await api.call('audit.list', { terminalId: paneId });
    assert.ok(
      audited.some((entry) => entry.cmd === 'history.reference'),
      JSON.stringify(audited.slice(0, 3)),
    );

    // Several lines go as one bracketed paste to a program that asked for it (bash's readline)…
    const multi = await agent.request({ cmd: 'history.reference', items: [{ sessionId, commandId: failing.id }, { sessionId }], notes: 'a\nb', deliverTo: paneId });
    assert.equal(multi.ok, true, multi.error);
    await pollUntil(async () => (await pane.readScreen()).lines.some((line) => line.startsWith('# notes: a')) || null, { what: 'the pasted lines' });
    assert.equal(pane.atPrompt, true, 'a paste is not Enter');
    await agent.request({ cmd: 'close', terminalId: paneId });

    // …and as one line to one that did not (a typed newline would be Enter).
    const catId = await createTerminal(agent, t.env, { ...shells.bashPlain, name: 'cat-pane' });
    assert.equal((await agent.request({ cmd: 'send', terminalId: catId, text: 'stty -icanon -echo; cat' })).ok, true);
    const catPane = t.hub.ptyHost.require(catId);
    await pollUntil(async () => (await catPane.readScreen()).bracketedPaste === false && catPane.offset > 0 || null, { what: 'cat running' });
    const flat = await agent.request({ cmd: 'history.reference', items: [{ sessionId, commandId: failing.id }, { sessionId }], notes: 'a\nb', deliverTo: catId });
    assert.equal(flat.ok, true, flat.error);
    // The screen wraps the long line: read it joined.
    const flatText = await pollUntil(
      async () => {
        const text = (await catPane.readScreen()).lines.map((line) => line.trimEnd()).join('');
        return text.includes('| notes: a | b') ? text : null;
      },
      { what: 'the one-line pointer from cat' },
    );
    assert.match(flatText, /# switchboard: 2 transcripts from History \(plain text files; read what you need\): \| 1\. "echo .*\| 2\. session "build" .*\| notes: a \| b/);
    await agent.request({ cmd: 'close', terminalId: catId });
  });

  it('references a session still being recorded as of now, and says so', async () => {
    const liveId = await createTerminal(agent, t.env, { ...shells.bashIntegrated, name: 'live' });
    await waitForIntegration(agent, liveId);
    assert.equal((await agent.request({ cmd: 'exec', terminalId: liveId, command: 'echo "so-far-$((2*4))"' })).ok, true);
    const liveSession = t.hub.history.sessionOfTerminal(liveId)!;
    const answer = await agent.request({ cmd: 'history.reference', items: [{ sessionId: liveSession }] });
    assert.equal(answer.ok, true, answer.error);
    const [file] = answer.files;
    assert.equal(file.live, true);
    assert.equal(file.endedAt, null);
    assert.match(file.path, new RegExp(`${liveSession}-session-upto\\d+\\.txt$`));
    assert.match(readFileSync(file.path, 'utf8'), /# still being recorded: this is its output up to .*\n[\s\S]*so-far-8/);
    assert.deepEqual(answer.warnings, [`session ${liveSession} is still being recorded: referenced as of now (its output so far)`]);
    assert.match(answer.pointer, /\(started .*, running, as of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)/);
    await agent.request({ cmd: 'close', terminalId: liveId });
  });

  it('refuses bad input with a specific error and writes nothing', async () => {
    const before = listReferences();
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ items: [{ sessionId }, { sessionId: 'no-such-a' }, { sessionId: 'no-such-b' }] }, /^no history session no-such-a, no-such-b: nothing was written$/],
      [{ items: [{ sessionId, commandId: 999_999 }] }, new RegExp(`^session ${sessionId} has no command 999999: nothing was written$`)],
      [{ items: Array.from({ length: 101 }, () => ({ sessionId })) }, /items: at most 100 items in one reference \(got 101\)/],
      [{ items: [] }, /items: give at least one session to reference/],
      [{ items: [{ sessionId }], notes: 'é'.repeat(8 * 1024 + 1) }, /notes: notes are 16386 bytes; at most 16384 \(16 KiB\)/],
      [{ items: [{ sessionId: '../etc' }] }, /session ids are/],
      [{ items: [{ sessionId }], deliverTo: 'no-such-terminal' }, /^unknown terminal id no-such-terminal$/],
    ];
    for (const [fields, error] of refusals) {
      const answer = await agent.request({ cmd: 'history.reference', ...fields });
      assert.equal(answer.ok, false, JSON.stringify(fields).slice(0, 200));
      assert.match(answer.error, error);
    }
    // Exactly 100 is fine (the same item, once).
    const hundred = await agent.request({ cmd: 'history.reference', items: Array.from({ length: 100 }, () => ({ sessionId })), notes: 'x'.repeat(16 * 1024) });
    assert.equal(hundred.ok, true, hundred.error);
    assert.deepEqual(listReferences(), [...new Set([...before, `${sessionId}-session.txt`])].sort(), 'no temp file, nothing from the refused requests');
  });

  it('writes all files or none: a failure on the last one removes the ones it wrote', async () => {
    // A directory where the command's transcript file would go: its rename fails.
    const blocked = join(referencesDir, `${sessionId}-cmd${failing.id}.txt`);
    const { rmSync } = await import('node:fs');
    rmSync(blocked, { force: true });
    mkdirSync(blocked);
    rmSync(join(referencesDir, `${sessionId}-session.txt`), { force: true });
    const before = listReferences();
    const answer = await agent.request({ cmd: 'history.reference', items: [{ sessionId }, { sessionId, commandId: failing.id }] });
    assert.equal(answer.ok, false);
    assert.match(answer.error, /EISDIR|directory/i);
    assert.deepEqual(listReferences(), before, 'the session file it had renamed into place is gone again, and no temp file is left');
    rmSync(blocked, { recursive: true });
  });

  it('needs a read token to reference, a drive token to deliver, and a token for all terminals', async () => {
    const paneId = await createTerminal(agent, t.env, { name: 'token-pane' });
    const reader = await api.call('tokens.create', { name: 'reader', scopes: ['read'] });
    const limited = await api.call('tokens.create', { name: 'limited', scopes: ['drive'], terminals: [paneId] });
    const readerClient = await t.connect();
    assert.equal((await readerClient.request({ cmd: 'auth', token: reader.secret })).ok, true);
    assert.equal((await readerClient.request({ cmd: 'history.reference', items: [{ sessionId }] })).ok, true);
    const delivering = await readerClient.request({ cmd: 'history.reference', items: [{ sessionId }], deliverTo: paneId });
    assert.equal(delivering.error, 'auth:forbidden history.reference');
    const limitedClient = await t.connect();
    assert.equal((await limitedClient.request({ cmd: 'auth', token: limited.secret })).ok, true);
    assert.equal((await limitedClient.request({ cmd: 'history.reference', items: [{ sessionId }] })).error, 'auth:forbidden history.reference');
    // Not even into its own terminal: the sessions it would hand over span every terminal.
    assert.equal((await limitedClient.request({ cmd: 'history.reference', items: [{ sessionId }], deliverTo: paneId })).error, 'auth:forbidden history.reference');
    await agent.request({ cmd: 'close', terminalId: paneId });
  });

  it('removes a session\'s transcript files when the session is deleted from History', async () => {
    const answer = await agent.request({ cmd: 'history.reference', items: [{ sessionId }, { sessionId, commandId: failing.id }] });
    assert.equal(answer.ok, true, answer.error);
    const other = listReferences().filter((name) => !name.startsWith(sessionId));
    assert.ok(other.length > 0, 'the live session\'s file from before stays');
    await api.call('history.delete', { ids: [sessionId] });
    await pollUntil(() => listReferences().every((name) => !name.startsWith(sessionId)) || null, { what: 'the deleted session\'s files to go' });
    assert.deepEqual(listReferences(), other);
  });
});
