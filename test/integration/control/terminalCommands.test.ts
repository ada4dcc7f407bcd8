/**
 * Switchboard's own commands under the claws framing: readScreen, wait, resize, signal, rename and
 * the audit log (docs/protocol.md), against real PTYs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, type Frame, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

describe('terminal commands', () => {
  let t: TestHub;
  let client: NdjsonClient;
  before(async () => {
    t = await startTestHub();
    client = await t.connect();
  });
  after(async () => {
    await t.dispose();
  });

  it('readScreen returns the rendered screen from the mirror', async () => {
    const id = await createTerminal(client, t.env, { ...shells.bashPlain, cols: 40, rows: 10 });
    await client.request({ cmd: 'exec', terminalId: id, command: "clear; printf '\\033[1mbold\\033[0m line\\nsecond'" });
    const screen = await client.request({ cmd: 'readScreen', terminalId: id });
    assert.equal(screen.cols, 40);
    assert.equal(screen.rows, 10);
    assert.equal(screen.lines.length, 10);
    assert.equal(screen.altScreen, false);
    const first = screen.lines.findIndex((line: string) => line === 'bold line');
    assert.ok(first >= 0, JSON.stringify(screen.lines));
    assert.ok(screen.lines[first + 1].startsWith('second'));
    assert.equal(typeof screen.cursor.x, 'number');
    assert.equal(typeof screen.cursor.y, 'number');

    await client.request({ cmd: 'exec', terminalId: id, command: 'seq 1 30' });
    // The prompt after `seq` may still be on its way when exec answers: compare reads taken while
    // the screen did not change (the same full read before and after the partial one).
    const { withScrollback, someScrollback } = await pollUntil(async () => {
      const before = await client.request({ cmd: 'readScreen', terminalId: id, scrollback: true });
      const some = await client.request({ cmd: 'readScreen', terminalId: id, scrollback: 3 });
      const after = await client.request({ cmd: 'readScreen', terminalId: id, scrollback: true });
      return JSON.stringify(before.lines) === JSON.stringify(after.lines) ? { withScrollback: after, someScrollback: some } : undefined;
    }, { what: 'the screen to settle after seq' });
    assert.ok(withScrollback.lines.length > 10);
    assert.ok(withScrollback.lines.includes('1'));
    assert.equal(someScrollback.lines.length, 13);
    assert.deepEqual(someScrollback.lines.slice(10), withScrollback.lines.slice(-3));

    await client.request({ cmd: 'send', terminalId: id, text: "printf '\\033[?1049h\\033[HFULLSCREEN'; cat" });
    const alt = await pollUntil(async () => {
      const current = await client.request({ cmd: 'readScreen', terminalId: id });
      return current.altScreen ? current : undefined;
    }, { what: 'the alt screen' });
    assert.equal(alt.lines[0], 'FULLSCREEN');
    assert.equal(alt.cursor.x, 10);
    assert.equal(alt.cursor.y, 0);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('wait matches a regex on new output (ANSI stripped) and reports the offset', async () => {
    const id = await createTerminal(client, t.env);
    const waiting = client.request({ cmd: 'wait', terminalId: id, pattern: 'ready on port (\\d+)', timeoutMs: 10_000 });
    await client.request({ cmd: 'send', terminalId: id, text: "sleep 0.2; printf 'server \\033[32mready\\033[0m on port 8080\\n'" });
    const matched = await waiting;
    assert.equal(matched.ok, true, matched.error);
    assert.equal(matched.matched, 'pattern');
    assert.equal(matched.text, 'ready on port 8080');
    assert.deepEqual(matched.groups, ['8080']);
    const log = await client.request({ cmd: 'readLog', terminalId: id, offset: 0, limit: matched.offset, strip: false });
    assert.ok(log.bytes.includes('8080'), 'the offset is past the match');
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('wait only looks at output after the call, unless `since` says otherwise', async () => {
    const id = await createTerminal(client, t.env);
    const sent = await client.request({ cmd: 'send', terminalId: id, text: 'echo early-bird' });
    // The output line itself, not the echo of the typed command (`echo early-bird` ends the same way).
    await pollUntil(async () => /\n\r*early-bird\r\n/.test((await client.request({ cmd: 'readLog', terminalId: id })).bytes as string), { what: 'the output' });
    const missed = await client.request({ cmd: 'wait', terminalId: id, pattern: 'early-bird\\n', timeoutMs: 300 });
    assert.equal(missed.ok, false);
    assert.equal(missed.error, 'wait timeout after 300ms');
    assert.equal(missed.code, 'TIMEOUT');
    const found = await client.request({ cmd: 'wait', terminalId: id, pattern: 'EARLY-BIRD\\n', flags: 'i', since: sent.offset, timeoutMs: 1000 });
    assert.equal(found.matched, 'pattern');
    assert.equal(found.text, 'early-bird\n');
    const bad = await client.request({ cmd: 'wait', terminalId: id, pattern: '(unclosed', timeoutMs: 100 });
    assert.equal(bad.ok, false);
    assert.match(bad.error, /^pattern: invalid regular expression/);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('wait for exit, idle and prompt', async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    await waitForIntegration(client, id);

    const idle = await client.request({ cmd: 'wait', terminalId: id, idleMs: 150, timeoutMs: 5000 });
    assert.equal(idle.matched, 'idle');

    const atPrompt = await client.request({ cmd: 'wait', terminalId: id, prompt: true, timeoutMs: 1000 });
    assert.equal(atPrompt.matched, 'prompt', 'already at a prompt');

    const sent = await client.request({ cmd: 'send', terminalId: id, text: 'sleep 0.3; (exit 2)' });
    const prompt = await client.request({ cmd: 'wait', terminalId: id, prompt: true, since: sent.offset, timeoutMs: 5000 });
    assert.equal(prompt.matched, 'prompt');
    assert.equal(prompt.exitCode, 2);
    assert.equal(prompt.commandLine, 'sleep 0.3; (exit 2)');

    const exiting = client.request({ cmd: 'wait', terminalId: id, exit: true, timeoutMs: 5000 });
    await client.request({ cmd: 'send', terminalId: id, text: 'exit 7' });
    const exited = await exiting;
    assert.equal(exited.matched, 'exit');
    assert.equal(exited.exitCode, 7);
    const afterExit = await client.request({ cmd: 'wait', terminalId: id, exit: true, timeoutMs: 100 });
    assert.equal(afterExit.matched, 'exit', 'an exited terminal matches at once');
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('wait for a prompt without shell integration looks at the screen', async () => {
    const id = await createTerminal(client, t.env, { ...shells.sh, env: { ...t.env, PS1: 'sh$ ' } });
    const sent = await client.request({ cmd: 'send', terminalId: id, text: 'sleep 0.3' });
    const prompt = await client.request({ cmd: 'wait', terminalId: id, prompt: true, since: sent.offset, timeoutMs: 5000 });
    assert.equal(prompt.matched, 'prompt');
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('wait fails clearly when the terminal exits before the condition', async () => {
    const id = await createTerminal(client, t.env);
    const waiting = client.request({ cmd: 'wait', terminalId: id, pattern: 'never', timeoutMs: 10_000 });
    await client.request({ cmd: 'send', terminalId: id, text: 'exit' });
    const response = await waiting;
    assert.equal(response.ok, false);
    assert.equal(response.error, `terminal ${id} exited before the wait condition was met`);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('resize changes the PTY size the program sees', async () => {
    const id = await createTerminal(client, t.env);
    const resized = await client.request({ cmd: 'resize', terminalId: id, cols: 120, rows: 40 });
    assert.deepEqual([resized.cols, resized.rows], [120, 40]);
    const event = (await client.request({ cmd: 'exec', terminalId: id, command: 'stty size' })).event;
    assert.equal(event.output, '40 120\n');
    const screen = await client.request({ cmd: 'readScreen', terminalId: id });
    assert.deepEqual([screen.cols, screen.rows], [120, 40]);
    const tooBig = await client.request({ cmd: 'resize', terminalId: id, cols: 5000, rows: 40 });
    assert.equal(tooBig.ok, false);
    assert.match(tooBig.error, /^cols: /);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('signal reaches the foreground process group', async () => {
    const id = await createTerminal(client, t.env);
    const shellPid = (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).pid;
    const logHas = async (text: string) => ((await client.request({ cmd: 'readLog', terminalId: id })).bytes as string).includes(text);
    const running = client.request({ cmd: 'exec', terminalId: id, command: "trap 'echo got-usr1' USR1; echo armed; sleep 5 & wait; echo waited; sleep 5" });
    await pollUntil(() => logHas('armed\r\n'), { what: 'the trap to be set' });
    // While `wait` runs the shell itself is the foreground group: the trap fires.
    const usr1 = await client.request({ cmd: 'signal', terminalId: id, signal: 'SIGUSR1' });
    assert.equal(usr1.ok, true, usr1.error);
    assert.equal(usr1.signal, 'SIGUSR1');
    assert.equal(usr1.processGroup, shellPid);
    await pollUntil(() => logHas('got-usr1'), { what: 'the trap' });
    await pollUntil(() => logHas('waited\r\n'), { what: 'wait to return' });
    // Then `sleep 5` is the foreground job (SIGWINCH is harmless: it tells us who is in front).
    await pollUntil(async () => (await client.request({ cmd: 'signal', terminalId: id, signal: 'SIGWINCH' })).processGroup !== shellPid, { what: 'sleep in the foreground' });
    const interrupt = await client.request({ cmd: 'signal', terminalId: id, signal: 'SIGINT' });
    assert.notEqual(interrupt.processGroup, shellPid);
    const result = await running;
    assert.equal(result.ok, true, result.error);
    assert.equal(result.event.exitCode, 130);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('rename changes the name everyone sees', async () => {
    const id = await createTerminal(client, t.env);
    const renamed = await client.request({ cmd: 'rename', terminalId: id, name: 'build watcher' });
    assert.equal(renamed.name, 'build watcher');
    const list = await client.request({ cmd: 'list' });
    assert.equal(list.terminals.find((terminal: Frame) => terminal.id === id).name, 'build watcher');
    // A name points at one terminal: another terminal cannot take it.
    const other = await createTerminal(client, t.env);
    const refused = await client.request({ cmd: 'rename', terminalId: other, name: 'build watcher' });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'INVALID_PARAMS');
    assert.equal(refused.error, `the name "build watcher" is taken by terminal ${id}; names point at one terminal — pick another or rename that one first`);
    const again = await client.request({ cmd: 'rename', terminalId: id, name: 'build watcher' });
    assert.equal(again.ok, true, 'renaming a terminal to its own name is fine');
    const names = (await client.request({ cmd: 'list' })).terminals.map((terminal: Frame) => terminal.name);
    assert.equal(names.filter((name: string) => name === 'build watcher').length, 1);
    await client.request({ cmd: 'close', terminalId: other });
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('audit records who changed which terminal, filterable by peer and terminal', async () => {
    const agent = await t.connect();
    const created = await agent.request({ cmd: 'create', ...shells.bashPlain, env: t.env, clientName: 'auditor-bot' });
    const id = created.id as string;
    await agent.request({ cmd: 'send', terminalId: id, text: 'echo hi', clientName: 'auditor-bot' });
    await agent.request({ cmd: 'exec', terminalId: id, command: 'echo there' });
    await agent.request({ cmd: 'resize', terminalId: id, cols: 90, rows: 20 });
    await agent.request({ cmd: 'rename', terminalId: id, name: 'audited' });
    await agent.request({ cmd: 'signal', terminalId: id, signal: 'SIGWINCH' });
    await agent.request({ cmd: 'readLog', terminalId: id });
    await agent.request({ cmd: 'close', terminalId: id });

    const { entries } = await client.request({ cmd: 'audit', terminalId: id });
    assert.deepEqual(
      entries.map((entry: Frame) => entry.cmd),
      ['create', 'send', 'exec', 'resize', 'rename', 'signal', 'close'],
      'reads are not audited',
    );
    for (const entry of entries) {
      assert.equal(entry.peer, 'auditor-bot');
      assert.equal(entry.terminalId, id);
      assert.equal(typeof entry.at, 'number');
    }
    assert.equal(entries[1].summary, 'echo hi\\r');
    assert.equal(entries[2].summary, 'echo there');
    assert.equal(entries[3].summary, '90x20');
    const byPeer = await client.request({ cmd: 'audit', peer: 'auditor-bot', limit: 2 });
    assert.deepEqual(byPeer.entries.map((entry: Frame) => entry.cmd), ['signal', 'close']);
    assert.deepEqual((await client.request({ cmd: 'audit', peer: 'nobody' })).entries, []);
    assert.equal(t.hub.controlServer.audit.query({ terminalId: id }).length, 7);
  });
});
