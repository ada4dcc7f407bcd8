/**
 * `wait` for a pattern after `send`: the terminal's echo of the typed text never matches, only
 * what the command prints (issue 16). Real shells on real PTYs over the real socket.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlConstants } from '../../../src/common/constants.ts';
import { createTerminal, type Frame, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

describe('wait --pattern after send skips the echo of what was sent', () => {
  let t: TestHub;
  let client: NdjsonClient;
  before(async () => {
    t = await startTestHub();
    client = await t.connect();
  });
  after(async () => {
    await t.dispose();
  });

  /** The stripped output between the send and the match: the command's own output line must be in it. */
  async function outputUpTo(id: string, from: number, to: number): Promise<string> {
    return (await client.request({ cmd: 'readLog', terminalId: id, offset: from, limit: to - from })).bytes as string;
  }

  async function sendThenWait(id: string, text: string, pattern: string): Promise<{ sent: Frame; waited: Frame; elapsedMs: number }> {
    const startedAt = Date.now();
    const sent = await client.request({ cmd: 'send', terminalId: id, text });
    assert.equal(sent.ok, true, sent.error);
    const waited = await client.request({ cmd: 'wait', terminalId: id, pattern, since: sent.offset, timeoutMs: 15_000 });
    assert.equal(waited.ok, true, waited.error);
    return { sent, waited, elapsedMs: Date.now() - startedAt };
  }

  for (const [name, shell] of [
    ['bash', shells.bashPlain],
    ['bash with shell integration', shells.bashIntegrated],
  ] as const) {
    it(`${name}: \`sleep 2; echo done-marker\` matches only once the sleep is over`, async () => {
      const id = await createTerminal(client, t.env, shell);
      if (shell.shellIntegration) await waitForIntegration(client, id);
      const { sent, waited, elapsedMs } = await sendThenWait(id, 'sleep 2; echo done-marker', 'done-marker');
      assert.equal(waited.matched, 'pattern');
      assert.equal(waited.text, 'done-marker');
      assert.ok(elapsedMs >= 1900, `matched after ${elapsedMs} ms, before \`sleep 2\` could have ended`);
      assert.match(await outputUpTo(id, sent.offset, waited.offset), /\n\r*done-marker\r\n/, 'the output line, not only the echo, came before the match');
      await client.request({ cmd: 'close', terminalId: id });
    });
  }

  it('bash without integration still running a slow rc: the send waits for the prompt, so the line is drawn once and the wait skips it', async () => {
    // A ~/.bashrc that takes a while (pyenv, nvm), and no shell integration.
    const home = mkdtempSync(join(tmpdir(), 'sb-slow-rc-'));
    writeFileSync(join(home, '.bashrc'), "sleep 0.6\nPS1='$ '\n");
    const id = await createTerminal(client, { ...t.env, HOME: home }, { shellPath: 'bash', shellIntegration: false });
    // Typed at once, as an agent does right after `create`.
    const sent = await client.request({ cmd: 'send', terminalId: id, text: 'sleep 1; echo rc-marker' });
    assert.equal(sent.ok, true, sent.error);
    const typedAt = Date.now();
    const waited = await client.request({ cmd: 'wait', terminalId: id, pattern: 'rc-marker', since: sent.offset, timeoutMs: 15_000 });
    assert.equal(waited.ok, true, waited.error);
    assert.ok(Date.now() - typedAt >= 900, 'matched before `sleep 1` could have ended');
    // Typed before the line editor started, the tty would have echoed it and the editor drawn it again.
    const screen = (await client.request({ cmd: 'readScreen', terminalId: id })).lines as string[];
    assert.equal(screen.filter((line) => line.includes('echo rc-marker')).length, 1, screen.join('\n'));
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('zsh with integration, a line wider than the terminal (redrawn as it wraps): the command start ends the echo', async () => {
    const id = await createTerminal(client, t.env, { ...shells.zshIntegrated, cols: 40 });
    await waitForIntegration(client, id);
    const { waited, elapsedMs } = await sendThenWait(id, `sleep 1; echo ${'x'.repeat(50)} zsh-marker`, 'zsh-marker');
    assert.equal(waited.text, 'zsh-marker');
    assert.ok(elapsedMs >= 900, `matched after ${elapsedMs} ms, before \`sleep 1\` could have ended`);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('fish with integration (draws the line twice: plain, then highlighted)', async () => {
    const id = await createTerminal(client, t.env, shells.fishIntegrated);
    await waitForIntegration(client, id);
    const { waited, elapsedMs } = await sendThenWait(id, 'sleep 1; echo fish-marker', 'fish-marker');
    assert.equal(waited.text, 'fish-marker');
    assert.ok(elapsedMs >= 900, `matched after ${elapsedMs} ms, before \`sleep 1\` could have ended`);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('several lines (a bracketed paste in bash): matching starts after the echo of the last one', async () => {
    const id = await createTerminal(client, t.env, shells.bashPlain);
    const { waited, elapsedMs } = await sendThenWait(id, 'sleep 1\necho two-marker', 'two-marker');
    assert.equal(waited.text, 'two-marker');
    assert.ok(elapsedMs >= 900, `matched after ${elapsedMs} ms, before \`sleep 1\` could have ended`);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('a wait sent right behind the send, without since, still skips the echo', async () => {
    const id = await createTerminal(client, t.env, shells.bashPlain);
    const startedAt = Date.now();
    // Both on the wire at once: the wait starts before the shell has echoed anything.
    client.send({ id: 'send-1', cmd: 'send', terminalId: id, text: 'sleep 1; echo behind-marker' });
    client.send({ id: 'wait-1', cmd: 'wait', terminalId: id, pattern: 'behind-marker', timeoutMs: 15_000 });
    const sent = await client.waitFor((frame) => frame.rid === 'send-1');
    const waited = await client.waitFor((frame) => frame.rid === 'wait-1');
    assert.equal(sent.ok, true, sent.error);
    assert.equal(waited.ok, true, waited.error);
    assert.equal(waited.text, 'behind-marker');
    assert.ok(Date.now() - startedAt >= 900, 'matched before `sleep 1` could have ended');
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('text typed ahead while a command runs: the echo the shell draws when it reads the line is skipped too', async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    await waitForIntegration(client, id);
    const startedAt = Date.now();
    await client.request({ cmd: 'send', terminalId: id, text: 'sleep 1' });
    // The kernel echoes this at once; bash draws it again after `sleep 1`, when it reads it.
    const { waited } = await sendThenWait(id, 'sleep 1; echo ahead-marker', 'ahead-marker');
    assert.equal(waited.text, 'ahead-marker');
    const elapsedMs = Date.now() - startedAt;
    assert.ok(elapsedMs >= 1900, `matched after ${elapsedMs} ms, before both sleeps could have ended`);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('text typed ahead while nothing echoes it (no kernel echo): its one echo, drawn at the next prompt, is skipped', async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    await waitForIntegration(client, id);
    const startedAt = Date.now();
    // The running command has echo off, as a shell does while it is still leaving its line editor
    // for the previous command (or a password prompt): the next line gets no kernel echo, and
    // bash draws it once, at its next prompt — after the time an echo is waited for.
    await client.request({ cmd: 'send', terminalId: id, text: 'stty -echo; sleep 1.3; stty echo' });
    const { waited } = await sendThenWait(id, 'sleep 1; echo unechoed-marker', 'unechoed-marker');
    assert.equal(waited.text, 'unechoed-marker');
    const elapsedMs = Date.now() - startedAt;
    assert.ok(elapsedMs >= 2200, `matched after ${elapsedMs} ms, before both sleeps could have ended`);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('input that is never echoed (read -s) does not hold matching back for longer than the echo bound', async () => {
    const id = await createTerminal(client, t.env, shells.bashPlain);
    // What it prints does not hold the secret: output that repeats the sent text would be taken for its echo.
    await client.request({ cmd: 'send', terminalId: id, text: 'read -s secret; echo "got ${#secret} chars"' });
    await client.request({ cmd: 'wait', terminalId: id, idleMs: 200, timeoutMs: 5000 });
    const { waited, elapsedMs } = await sendThenWait(id, 'hunter2', 'got (\\d+) chars');
    assert.equal(waited.text, 'got 7 chars');
    assert.ok(elapsedMs < ControlConstants.echoWaitMs + 5000, `took ${elapsedMs} ms`);
    await client.request({ cmd: 'close', terminalId: id });
  });
});
