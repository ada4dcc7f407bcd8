/**
 * Conformance: `exec` never degrades. Output and exit code in bash, zsh, fish and sh, with and
 * without shell integration, for the tricky commands; FIFO per terminal; alt-screen refusal;
 * timeouts; capped output; a client leaving mid-exec.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, type Frame, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

type ShellName = keyof typeof shells;

describe('exec', () => {
  let t: TestHub;
  let client: NdjsonClient;
  before(async () => {
    t = await startTestHub();
    client = await t.connect();
  });
  after(async () => {
    await t.dispose();
  });

  async function terminal(shell: ShellName): Promise<string> {
    const id = await createTerminal(client, t.env, shells[shell]);
    if (shell.endsWith('Integrated')) await waitForIntegration(client, id);
    return id;
  }

  async function exec(terminalId: string, command: string, extra: Frame = {}): Promise<Frame> {
    const response = await client.request({ cmd: 'exec', terminalId, command, ...extra }, 60_000);
    assert.equal(response.ok, true, `exec ${JSON.stringify(command)} failed: ${response.error}`);
    return response.event;
  }

  const tmp = realpathSync(tmpdir());

  for (const shell of Object.keys(shells) as ShellName[]) {
    it(`runs tricky commands in ${shell}`, async () => {
      const id = await terminal(shell);
      const fish = shell.startsWith('fish');

      let event = await exec(id, 'echo hello');
      assert.equal(event.output, 'hello\n');
      assert.equal(event.exitCode, 0);
      assert.equal(event.commandLine, 'echo hello');
      assert.equal(event.terminalId, id);
      assert.equal(event.source, shell.endsWith('Integrated') ? 'shell' : 'exec');

      event = await exec(id, "printf 'no trailing newline'");
      assert.equal(event.output, 'no trailing newline');

      event = await exec(id, 'sh -c "exit 3"');
      assert.equal(event.exitCode, 3);
      event = await exec(id, 'false');
      assert.equal(event.exitCode, 1);

      event = await exec(id, 'echo to-stderr >&2; echo to-stdout');
      assert.equal(event.output, 'to-stderr\nto-stdout\n');

      event = await exec(id, '# only a comment');
      assert.equal(event.output, '');
      assert.equal(event.exitCode, 0);

      event = await exec(id, 'echo one\necho two');
      assert.equal(event.output, 'one\ntwo\n');

      event = await exec(id, `echo "it's" 'a "test"' "tab\there" a!b # comment`);
      assert.equal(event.output, `it's a "test" tab\there a!b\n`);

      // The command prints text that looks like our sentinel, with another nonce.
      event = await exec(id, "printf '\\033]6973;E;0123456789abcdef;0\\007 6973;S; fake marker\\n'; echo after");
      assert.equal(event.output, ' 6973;S; fake marker\nafter\n');
      assert.equal(event.exitCode, 0);

      event = await exec(id, `cd ${tmp}`);
      assert.equal(event.exitCode, 0);
      event = await exec(id, 'pwd');
      assert.equal(event.output, `${tmp}\n`);
      if (shell.endsWith('Integrated')) {
        const list = await client.request({ cmd: 'list' });
        assert.equal(list.terminals.find((terminal: Frame) => terminal.id === id).cwd, tmp, 'the shell reported the new cwd');
      }

      event = await exec(id, fish ? 'set -g SB_X 42' : 'SB_X=42');
      event = await exec(id, 'echo "x=$SB_X"');
      assert.equal(event.output, 'x=42\n', 'execs run in the shell itself');

      await client.request({ cmd: 'close', terminalId: id });
    });
  }

  it('keeps the tail of 1 MB of output, capped at 256 KiB', async () => {
    for (const shell of ['bashPlain', 'bashIntegrated'] as const) {
      const id = await terminal(shell);
      const event = await exec(id, 'seq 1 150000', { timeoutMs: 60_000 });
      assert.equal(event.truncated, true);
      assert.ok(Buffer.byteLength(event.output) <= 256 * 1024);
      assert.ok(Buffer.byteLength(event.output) > 200 * 1024);
      assert.ok(event.output.endsWith('149999\n150000\n'), shell);
      assert.equal(event.exitCode, 0);
      await client.request({ cmd: 'close', terminalId: id });
    }
  });

  it('gives a command that reads stdin the terminal: it waits for input sent with `send`', async () => {
    for (const shell of ['bashPlain', 'bashIntegrated', 'fishPlain', 'sh'] as const) {
      const id = await terminal(shell);
      const command = shell.startsWith('fish') ? 'read -P "" line; echo "got:$line"' : 'read -r line; echo "got:$line"';
      const pending = client.request({ cmd: 'exec', terminalId: id, command, timeoutMs: 20_000 });
      const other = await t.connect();
      // Type the answer once the command runs (its echo reached the terminal).
      await pollUntil(async () => ((await other.request({ cmd: 'readLog', terminalId: id })).bytes as string).includes('got:'), { what: 'the exec to be typed' });
      await other.request({ cmd: 'send', terminalId: id, text: 'an answer' });
      const response = await pending;
      assert.equal(response.ok, true, response.error);
      assert.match(response.event.output, /got:an answer\n$/, shell);
      other.close();
      await client.request({ cmd: 'close', terminalId: id });
    }
  });

  it('runs concurrent execs of one terminal one at a time, in order', async () => {
    const id = await terminal('bashPlain');
    const connections = await Promise.all([t.connect(), t.connect(), t.connect()]);
    const done: number[] = [];
    const results = await Promise.all(
      connections.map(async (connection, index) => {
        // Later ones are quicker: if they ran in parallel they would finish first.
        const response = await connection.request({ cmd: 'exec', terminalId: id, command: `sleep 0.${3 - index}; echo job${index}` });
        done.push(index);
        return response;
      }),
    );
    assert.deepEqual(done, [0, 1, 2]);
    results.forEach((response, index) => assert.equal(response.event.output, `job${index}\n`));
    assert.ok(results[0]!.event.seq < results[1]!.event.seq && results[1]!.event.seq < results[2]!.event.seq);
    for (const connection of connections) connection.close();
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('refuses to type into a full-screen program', async () => {
    const id = await terminal('bashPlain');
    await client.request({ cmd: 'send', terminalId: id, text: "printf '\\033[?1049h'; cat" });
    await pollUntil(async () => (await client.request({ cmd: 'readScreen', terminalId: id })).altScreen === true, { what: 'the alt screen' });
    const refused = await client.request({ cmd: 'exec', terminalId: id, command: 'echo never' });
    assert.equal(refused.ok, false);
    assert.equal(refused.error, `terminal ${id} is running a full-screen program`);
    assert.equal(refused.code, 'BUSY', 'our own clients get a code to act on');
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('times out with "exec timeout after Nms"; the terminal keeps working and a timed-out queued exec is never typed', async () => {
    const id = await terminal('bashPlain');
    const slow = client.request({ cmd: 'exec', terminalId: id, command: 'sleep 1.5; echo slow-done', timeoutMs: 300 });
    const queued = client.request({ cmd: 'exec', terminalId: id, command: 'echo queued-never-typed', timeoutMs: 200 });
    const [slowResponse, queuedResponse] = await Promise.all([slow, queued]);
    assert.equal(slowResponse.ok, false);
    assert.match(slowResponse.error, new RegExp(`^exec timeout after 300ms: the command is still running in terminal ${id}`));
    assert.equal(slowResponse.code, 'TIMEOUT');
    assert.deepEqual([slowResponse.typed, slowResponse.running, slowResponse.output], [true, true, '']);
    assert.match(queuedResponse.error, /^exec timeout after 200ms\b/);
    assert.equal(queuedResponse.typed, false);
    const next = await exec(id, 'echo next');
    assert.equal(next.output, 'next\n');
    const log = (await client.request({ cmd: 'readLog', terminalId: id, offset: 0 })).bytes as string;
    assert.ok(log.includes('slow-done'));
    assert.equal(log.includes('queued-never-typed'), false);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('survives a client that disconnects mid-exec: the command finishes and the terminal keeps working', async () => {
    const id = await terminal('bashIntegrated');
    const leaving = await t.connect();
    leaving.send({ id: 1, cmd: 'exec', terminalId: id, command: 'sleep 0.3; echo finished-anyway' });
    await pollUntil(async () => ((await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).runningCommand ?? '').includes('sleep'), {
      what: 'the exec to start',
    });
    leaving.close();
    const after = await exec(id, 'echo after-disconnect');
    assert.equal(after.output, 'after-disconnect\n');
    const page = await client.request({ cmd: 'poll', since: 0, limit: 100 });
    assert.ok(page.events.some((event: Frame) => event.terminalId === id && event.output === 'finished-anyway\n'), JSON.stringify(page.events.filter((event: Frame) => event.terminalId === id)));
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('never types an exec whose client left while it waited for its turn (Ctrl-C on `switchboard exec`), and lets the connection go', async () => {
    const id = await terminal('bashIntegrated');
    await client.request({ cmd: 'send', terminalId: id, text: 'sleep 1.5' });
    await pollUntil(async () => (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).runningCommand === 'sleep 1.5', { what: 'sleep to run' });
    const connectionsBefore = t.hub.controlServer.connectionCount;
    const leaving = await t.connect();
    leaving.send({ id: 'gone', cmd: 'exec', terminalId: id, command: 'echo typed-for-nobody' });
    await pollUntil(async () => t.hub.controlServer.connectionCount === connectionsBefore + 1, { what: 'the connection' });
    // The exec is queued behind `sleep`; the client goes (its socket fully closed, not half).
    await new Promise((resolve) => setTimeout(resolve, 100));
    leaving.close();
    // Within a probe's interval the Hub sees the client is gone, not merely done sending.
    await pollUntil(async () => t.hub.controlServer.connectionCount === connectionsBefore, { timeoutMs: 3_000, what: 'the connection to close' });
    await pollUntil(async () => (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).runningCommand === null, { what: 'sleep to end' });
    // The prompt is back: an exec still waiting would type now. Ours runs instead, and alone.
    const next = await exec(id, 'echo next');
    assert.equal(next.output, 'next\n');
    const log = (await client.request({ cmd: 'readLog', terminalId: id, offset: 0 })).bytes as string;
    assert.equal(log.includes('typed-for-nobody'), false, log);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('still answers an exec to a client that only shut down its sending side, though it outlasts the probes', async () => {
    const id = await terminal('bashIntegrated');
    const half = await t.connect();
    half.socket.end(`${JSON.stringify({ id: 'half', cmd: 'exec', terminalId: id, command: 'sleep 1.2; echo answered' })}\n`);
    const answer = await half.next(10_000);
    assert.equal(answer.ok, true, answer.error);
    assert.equal(answer.event.output, 'answered\n');
    await half.waitClosed();
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('fails an exec whose terminal exits, and refuses exec on an exited terminal', async () => {
    const id = await terminal('bashPlain');
    const response = await client.request({ cmd: 'exec', terminalId: id, command: 'exit 5' });
    assert.equal(response.ok, false);
    assert.equal(response.error, `terminal ${id} exited while running the command (its shell exited with code 5)`);
    assert.equal(response.code, 'TERMINAL_EXITED');
    assert.equal(response.exitCode, 5);
    await pollUntil(async () => (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).status === 'exited', { what: 'the exit' });
    const again = await client.request({ cmd: 'exec', terminalId: id, command: 'echo x' });
    assert.equal(again.error, `terminal ${id} has exited`);
    await client.request({ cmd: 'close', terminalId: id });
  });

  for (const shell of ['bashIntegrated', 'zshIntegrated', 'fishIntegrated'] as const) {
    it(`gets its own output when a line typed before it runs after it was typed (${shell})`, async () => {
      const id = await terminal(shell);
      await client.request({ cmd: 'send', terminalId: id, text: 'sleep 0.4' });
      await pollUntil(async () => (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).runningCommand === 'sleep 0.4', {
        what: 'sleep to run',
      });
      // Typed ahead: the shell runs it once sleep ends, after the exec below has typed its line.
      await client.request({ cmd: 'send', terminalId: id, text: 'echo typed-ahead' });
      const before = (await client.request({ cmd: 'poll' })).cursor;
      const event = await exec(id, shell.startsWith('fish') ? 'echo mine; false' : 'echo mine; (exit 4)');
      assert.equal(event.output, 'mine\n');
      assert.equal(event.exitCode, shell.startsWith('fish') ? 1 : 4);
      const events = (await client.request({ cmd: 'poll', since: before })).events as Frame[];
      const typedAhead = events.find((entry) => entry.terminalId === id && entry.commandLine === 'echo typed-ahead');
      assert.equal(typedAhead?.output, 'typed-ahead\n', JSON.stringify(events));
      await client.request({ cmd: 'close', terminalId: id });
    });
  }

  it('runs after a command that took the line an agent typed ahead as its input (`read`), once no command starts from it', async () => {
    const id = await terminal('bashIntegrated');
    await client.request({ cmd: 'send', terminalId: id, text: 'read -r answer; sleep 0.2; echo "got $answer"' });
    await pollUntil(async () => ((await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).runningCommand ?? '').startsWith('read'), {
      what: 'read to run',
    });
    await client.request({ cmd: 'send', terminalId: id, text: 'forty-two' });
    const before = (await client.request({ cmd: 'poll' })).cursor;
    const event = await exec(id, 'echo after-read');
    assert.equal(event.output, 'after-read\n');
    const events = (await client.request({ cmd: 'poll', since: before })).events as Frame[];
    const read = events.find((entry) => entry.terminalId === id && entry.commandLine.startsWith('read'));
    assert.equal(read?.output, 'forty-two\ngot forty-two\n', JSON.stringify(events));
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('waits for a running program to end instead of typing into it, and says so when it times out', async () => {
    const id = await terminal('bashIntegrated');
    // `cat` reads the terminal like a REPL would: a typed line would become its input.
    await client.request({ cmd: 'send', terminalId: id, text: 'cat' });
    await pollUntil(async () => (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).runningCommand === 'cat', { what: 'cat to run' });
    const timedOut = await client.request({ cmd: 'exec', terminalId: id, command: 'echo not-for-cat', timeoutMs: 600 });
    assert.equal(timedOut.ok, false);
    assert.equal(timedOut.code, 'TIMEOUT');
    assert.equal(
      timedOut.error,
      `exec timeout after 600ms: terminal ${id} was waiting for \`cat\` to finish; the command was not typed`,
    );
    const waiting = client.request({ cmd: 'exec', terminalId: id, command: 'echo after-cat', timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    let log = (await client.request({ cmd: 'readLog', terminalId: id, offset: 0 })).bytes as string;
    assert.equal(log.includes('after-cat'), false, 'nothing typed into cat');
    await client.request({ cmd: 'send', terminalId: id, text: '\x04', newline: false });
    const response = await waiting;
    assert.equal(response.ok, true, response.error);
    assert.equal(response.event.output, 'after-cat\n');
    assert.equal(response.event.source, 'shell');
    log = (await client.request({ cmd: 'readLog', terminalId: id, offset: 0 })).bytes as string;
    assert.equal(log.includes('not-for-cat'), false, 'the timed-out exec was never typed');
    assert.equal(log.includes('6973'), false, 'no sentinel wrapper was typed');
    // Typed once the prompt was drawn: the line editor echoes it, the tty does not echo it first.
    const screen = (await client.request({ cmd: 'readScreen', terminalId: id })).lines as string[];
    assert.equal(screen.filter((line) => line.includes('echo after-cat')).length, 1, screen.join('\n'));
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('uses the sentinel inside a nested shell and does not double-log it', async () => {
    const id = await terminal('bashIntegrated');
    await client.request({ cmd: 'send', terminalId: id, text: 'sh' });
    await pollUntil(async () => (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).runningCommand === 'sh', { what: 'the nested shell' });
    const before = (await client.request({ cmd: 'poll' })).cursor;
    const event = await exec(id, 'echo nested $((6*7))');
    assert.equal(event.output, 'nested 42\n');
    assert.equal(event.source, 'exec');
    await client.request({ cmd: 'send', terminalId: id, text: 'exit' });
    await pollUntil(async () => (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).runningCommand === null, { what: 'the nested shell to end' });
    const events = (await client.request({ cmd: 'poll', since: before })).events as Frame[];
    assert.deepEqual(
      events.filter((entry) => entry.terminalId === id).map((entry) => entry.commandLine),
      ['echo nested $((6*7))', 'sh'],
    );
    await client.request({ cmd: 'close', terminalId: id });
  });
});
