/**
 * `switchboard send` + `switchboard wait --pattern` as separate processes, and `switchboard read
 * --limit`, against the REAL control socket of `switchboard serve` with real bash terminals
 * (issue 16: a wait that matched the echo of the typed line; a read that printed part of an
 * escape sequence, nonce included).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil } from '../../helpers/poll.ts';
import { runChild } from './cliHarness.ts';
import { startRealSwitchboard, type RealSwitchboard } from './realServer.ts';

describe('wait after send and read --limit, as separate CLI runs', () => {
  let app: RealSwitchboard;
  const cli = (argv: string[]) => runChild(argv, { env: app.cliEnv, timeoutMs: 30_000 });
  let agent = '';

  before(async () => {
    app = await startRealSwitchboard();
    const created = await cli(['new', '--name', 'agent', '--cwd', app.workspace]);
    assert.equal(created.status, 0, created.stderr);
    agent = created.stdout.trim();
    // The user's shell with Switchboard's shell integration, as `new` starts it.
    await pollUntil(async () => (JSON.parse((await cli(['ls', '--json'])).stdout) as Array<{ id: string; hasShellIntegration: boolean }>).find((terminal) => terminal.id === agent)?.hasShellIntegration, {
      timeoutMs: 15_000,
      what: 'shell integration in the new terminal',
    });
  });
  after(async () => {
    await app?.stop();
  });

  it('send --json, then wait --since that offset: matches the output of `sleep 2; echo done-marker`, not its echo', async () => {
    const startedAt = Date.now();
    const sent = await cli(['send', 'agent', '--json', 'sleep 2; echo done-marker']);
    assert.equal(sent.status, 0, sent.stderr);
    const { offset } = JSON.parse(sent.stdout) as { offset: number };
    const waited = await cli(['wait', 'agent', '--pattern', 'done-marker', '--since', String(offset), '--timeout', '15000']);
    assert.equal(waited.status, 0, waited.stderr);
    assert.equal(waited.stdout, 'done-marker\n');
    const elapsedMs = Date.now() - startedAt;
    assert.ok(elapsedMs >= 1900, `wait returned after ${elapsedMs} ms, before \`sleep 2\` could have ended`);
  });

  it('send while a command still runs, then wait without --since: the echo drawn when the shell reads the line does not match', async () => {
    const startedAt = Date.now();
    // Long enough that the wait below starts (a few process starts later) before bash reads and
    // draws the line typed ahead, at about 3 s, and well before its output, at about 5 s.
    assert.equal((await cli(['send', 'agent', 'sleep 3'])).status, 0);
    assert.equal((await cli(['send', 'agent', 'sleep 2; echo ahead-marker'])).status, 0);
    const waited = await cli(['wait', 'agent', '--pattern', 'ahead-marker', '--timeout', '15000']);
    const elapsedMs = Date.now() - startedAt;
    assert.equal(waited.status, 0, `${waited.stderr} (the wait ended ${elapsedMs} ms after the first send)`);
    assert.equal(waited.stdout, 'ahead-marker\n');
    assert.ok(elapsedMs >= 4900, `wait returned after ${elapsedMs} ms, before both sleeps could have ended`);
  });

  it('read --limit that would cut into the last prompt mark prints no part of it, nor its nonce', async () => {
    assert.equal((await cli(['wait', 'agent', '--idle', '300'])).status, 0);
    const whole = JSON.parse((await cli(['read', 'agent', '--raw', '--json', '--offset', '0'])).stdout) as { bytes: string; totalSize: number };
    const promptEnd = whole.bytes.lastIndexOf('\x1b]633;B;');
    assert.ok(promptEnd !== -1, 'the prompt is marked');
    const nonce = /^\x1b\]633;B;([0-9a-f]+)\x07/.exec(whole.bytes.substring(promptEnd))![1]!;
    const plain = (await cli(['read', 'agent', '--offset', '0'])).stdout;
    // Cuts inside the mark: in its number, in the nonce, just before its BEL.
    for (const into of [3, 10, 20, nonce.length + 7]) {
      const limit = Buffer.byteLength(whole.bytes.substring(promptEnd + into));
      const read = await cli(['read', 'agent', '--limit', String(limit)]);
      assert.equal(read.status, 0, read.stderr);
      assert.ok(!read.stdout.includes(nonce.substring(0, 6)) && !read.stdout.includes('633'), `--limit ${limit} printed ${JSON.stringify(read.stdout)}`);
      assert.ok(plain.endsWith(read.stdout));
    }
    const json = JSON.parse((await cli(['read', 'agent', '--json', '--limit', String(Buffer.byteLength(whole.bytes.substring(promptEnd + 10)))])).stdout) as { offset: number; totalSize: number };
    assert.equal(json.totalSize, whole.totalSize, 'nothing was printed meanwhile');
    assert.equal(json.offset, json.totalSize, 'the slice starts after the mark it would have cut');
  });
});
