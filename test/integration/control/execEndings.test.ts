/**
 * `exec` as agents really use it: right after `create`, into a shell whose rc files take a moment
 * (as pyenv's, nvm's and conda's do), and every way a command can end — a subshell line, the shell
 * exiting, a nested shell exiting, a command that waits for input past the timeout. Real Hub, real
 * PTYs and shells, real control socket.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from '../../helpers/poll.ts';
import { which } from '../node/pty/ptyTestKit.ts';
import { createTerminal, type Frame, type NdjsonClient, shells, startTestHub, type TestHub } from './controlTestKit.ts';

/** Each shell's rc, as slow as a real one: half a second before the first prompt. */
function writeSlowRcFiles(home: string): void {
  writeFileSync(join(home, '.bashrc'), "sleep 0.5\necho rc-loaded\nPS1='$ '\n");
  writeFileSync(join(home, '.zshrc'), 'sleep 0.5\necho rc-loaded\n');
  mkdirSync(join(home, '.config', 'fish'), { recursive: true });
  writeFileSync(join(home, '.config', 'fish', 'config.fish'), 'sleep 0.5\necho rc-loaded\n');
}

describe('exec into a shell that is still starting, and every way a command ends', () => {
  let t: TestHub;
  let client: NdjsonClient;
  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    writeSlowRcFiles(t.home);
    client = await t.connect();
  });
  after(async () => {
    await t.dispose();
  });

  async function log(terminalId: string): Promise<string> {
    return (await client.request({ cmd: 'readLog', terminalId, offset: 0 })).bytes as string;
  }

  for (const shell of ['bashIntegrated', 'zshIntegrated', 'fishIntegrated'] as const) {
    const name = shell.replace('Integrated', '');
    it(`create then exec at once (${name}, slow rc): the clean way, right output and exit code`, { skip: which(name) === null ? `${name} is not installed` : false }, async () => {
      const id = await createTerminal(client, t.env, shells[shell]);
      const command = name === 'fish' ? 'echo "at-once "(math 6 \\* 7); false' : 'echo "at-once $((6*7))"; false';
      const response = await client.request({ cmd: 'exec', terminalId: id, command, timeoutMs: 30_000 }, 40_000);
      assert.equal(response.ok, true, response.error);
      assert.equal(response.event.output, 'at-once 42\n');
      assert.equal(response.event.exitCode, 1);
      assert.equal(response.event.source, 'shell', 'run at the prompt, not inside the sentinel wrapper');
      const output = await log(id);
      assert.equal(output.includes('6973'), false, 'no wrapper in the pane');
      assert.ok(output.indexOf('rc-loaded') < output.indexOf('echo "at-once'), 'typed after the rc finished');
      await client.request({ cmd: 'close', terminalId: id });
    });

    it(`a line the shell refuses (syntax error) is answered at once, not at the timeout (${name})`, { skip: which(name) === null ? `${name} is not installed` : false }, async () => {
      const id = await createTerminal(client, t.env, shells[shell]);
      const started = Date.now();
      // Lines that look complete, so exec types them as they are (not as `eval '…'`).
      const command = name === 'fish' ? 'echo $((6*7))' : 'echo ok; then';
      const response = await client.request({ cmd: 'exec', terminalId: id, command, timeoutMs: 30_000 }, 40_000);
      assert.equal(response.ok, false);
      assert.match(response.error, new RegExp(`^the shell in terminal ${id} did not run the command \\(a syntax error\\?\\); it said: ".*${name === 'fish' ? '\\$\\(\\(' : 'then'}.*"$`));
      assert.equal(response.code, 'INVALID_PARAMS');
      assert.ok(Date.now() - started < 20_000, 'answered when the prompt came back');
      const after = await client.request({ cmd: 'exec', terminalId: id, command: 'echo next', timeoutMs: 20_000 }, 30_000);
      assert.equal(after.ok, true, after.error);
      assert.equal(after.event.output, 'next\n');
      await client.request({ cmd: 'close', terminalId: id });
    });
  }

  it('create then exec of lines that start with a subshell, at once (bash, slow rc)', async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    const failed = await client.request({ cmd: 'exec', terminalId: id, command: '(exit 5)', timeoutMs: 20_000 }, 30_000);
    assert.equal(failed.ok, true, failed.error);
    assert.equal(failed.event.exitCode, 5);
    const inFolder = await client.request({ cmd: 'exec', terminalId: id, command: '(cd / && echo "in $PWD")', timeoutMs: 20_000 }, 30_000);
    assert.deepEqual([inFolder.event.output, inFolder.event.exitCode, inFolder.event.source], ['in /\n', 0, 'shell']);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it("an agent's send with Enter right after create runs as a command, after the rc", async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    const before = (await client.request({ cmd: 'poll' })).cursor;
    const sent = await client.request({ cmd: 'send', terminalId: id, text: 'echo sent-$((1+1))' });
    assert.equal(sent.ok, true, sent.error);
    const event = await pollUntil(
      async () => ((await client.request({ cmd: 'poll', since: before })).events as Frame[]).find((entry) => entry.terminalId === id),
      { what: 'the sent line to run as a command' },
    );
    assert.deepEqual([event.commandLine, event.output, event.exitCode], ['echo sent-$((1+1))', 'sent-2\n', 0]);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('a command that ends the shell reports the shell exit code and says so', async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    const response = await client.request({ cmd: 'exec', terminalId: id, command: 'exit 4', timeoutMs: 20_000 }, 30_000);
    assert.equal(response.ok, false);
    assert.equal(response.code, 'TERMINAL_EXITED');
    assert.equal(response.error, `terminal ${id} exited while running the command (its shell exited with code 4)`);
    assert.equal(response.exitCode, 4);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('exit in a nested shell without integration ends the exec at once instead of hanging', async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    await client.request({ cmd: 'send', terminalId: id, text: 'bash --norc --noprofile' });
    await pollUntil(async () => (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === id).runningCommand === 'bash --norc --noprofile', {
      what: 'the nested shell',
    });
    const started = Date.now();
    const response = await client.request({ cmd: 'exec', terminalId: id, command: 'exit 3', timeoutMs: 20_000 }, 30_000);
    assert.equal(response.ok, false);
    assert.equal(response.code, 'TERMINAL_EXITED');
    assert.equal(response.error, `the shell running in terminal ${id} (\`bash --norc --noprofile\`) exited while running the command`);
    assert.equal(response.exitCode, 3);
    assert.ok(Date.now() - started < 15_000, 'answered when the shell exited, not at the timeout');
    // The terminal's own shell is still there.
    const after = await client.request({ cmd: 'exec', terminalId: id, command: 'echo still-here', timeoutMs: 20_000 }, 30_000);
    assert.equal(after.event.output, 'still-here\n');
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('a timeout returns the output so far and the line the pane waits on; the command keeps running', async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    const response = await client.request({ cmd: 'exec', terminalId: id, command: 'echo asking; read -p "name? " x; echo "hello $x"', timeoutMs: 4_000 }, 10_000);
    assert.equal(response.ok, false);
    assert.equal(response.code, 'TIMEOUT');
    assert.equal(response.error, `exec timeout after 4000ms: the command is still running in terminal ${id}; the pane's last line: "name?"`);
    assert.deepEqual([response.typed, response.running, response.output, response.lastLine], [true, true, 'asking\nname? ', 'name?']);
    // The agent answers; the command finishes and is logged for poll.
    const before = (await client.request({ cmd: 'poll' })).cursor;
    await client.request({ cmd: 'send', terminalId: id, text: 'bob' });
    const event = await pollUntil(
      async () => ((await client.request({ cmd: 'poll', since: before })).events as Frame[]).find((entry) => entry.terminalId === id),
      { what: 'the command to finish' },
    );
    assert.equal(event.output, 'asking\nname? bob\nhello bob\n');
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('marks a command prints in a terminal without our integration do not make later execs wait for marks', async () => {
    const id = await createTerminal(client, t.env, shells.bashPlain);
    // A command start with no end and a prompt: as if the shell reported them itself.
    const fake = await client.request({ cmd: 'exec', terminalId: id, command: "printf '\\033]133;A\\a\\033]133;B\\a\\033]633;C\\a'; echo faked", timeoutMs: 20_000 }, 30_000);
    assert.deepEqual([fake.ok, fake.event?.output, fake.event?.source], [true, 'faked\n', 'exec']);
    const next = await client.request({ cmd: 'exec', terminalId: id, command: 'echo next; (exit 3)', timeoutMs: 10_000 }, 20_000);
    assert.equal(next.ok, true, next.error);
    assert.deepEqual([next.event.output, next.event.exitCode, next.event.source], ['next\n', 3, 'exec']);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('a multi-line exec is shown and recorded as the agent sent it, not as its eval wrapper', async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    const command = 'echo first\necho second';
    const response = await client.request({ cmd: 'exec', terminalId: id, command, timeoutMs: 20_000 }, 30_000);
    assert.equal(response.ok, true, response.error);
    assert.deepEqual([response.event.commandLine, response.event.output], [command, 'first\nsecond\n']);
    const session = t.hub.ptyHost.get(id)!;
    assert.equal(session.info.lastCommand?.commandLine, command, 'the sidebar shows the command');
    await client.request({ cmd: 'close', terminalId: id });
  });
});
