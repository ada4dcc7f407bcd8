/**
 * The relay server's own edges (docs/security.md §7, "Secrets"): `switchboard relay` binds
 * loopback unless told otherwise, its log never carries a token, and a broken tokens file never
 * locks everyone out or lets anyone in. A real `switchboard relay` child process, a real daemon
 * link from an in-process Hub, raw HTTP and WebSocket viewers.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import WebSocket from 'ws';
import { pollUntil } from '../../helpers/poll.ts';
import { testEnv } from '../../helpers/tempHome.ts';
import { cliMain, runInProcess } from '../cli/cliHarness.ts';
import { connectClient, startTestHub, waitConnected } from '../relay/relayTestKit.ts';

interface RelayProcess {
  child: ChildProcess;
  port: number;
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<void>;
}

async function startRelay(t: TestContext, tokensFile: string, home: string, logLevel = 'trace'): Promise<RelayProcess> {
  const child = spawn(process.execPath, [cliMain, 'relay', '--port', '0', '--tokens', tokensFile, '--json'], {
    env: { ...testEnv(home), SWITCHBOARD_LOG_LEVEL: logLevel },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
  };
  t.after(stop);
  const ready = await pollUntil(
    () => {
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
      if (!line && child.exitCode !== null) throw new Error(`relay exited: ${stderr}`);
      return line ? (JSON.parse(line) as { url: string; port: number }) : undefined;
    },
    { timeoutMs: 15_000, what: 'switchboard relay ready line' },
  );
  return { child, port: ready.port, url: ready.url, stdout: () => stdout, stderr: () => stderr, stop };
}

async function addMachine(tokensFile: string, machineId: string, rotate = false) {
  const added = await runInProcess(['relay', 'add-machine', machineId, '--tokens', tokensFile, '--json', ...(rotate ? ['--rotate'] : [])]);
  assert.equal(added.status, 0, added.stderr);
  return JSON.parse(added.stdout) as { machineId: string; daemonToken: string; viewerToken: string };
}

/** The status of the viewer link's page: 303 (signed in) or 401. */
function viewerLinkStatus(relay: RelayProcess, machineId: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: relay.port, path: `/m/${machineId}/?token=${encodeURIComponent(token)}`, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a bearer viewer WebSocket; resolves with 'open' or the HTTP status it was refused with. */
function viewerSocket(relay: RelayProcess, machineId: string, token: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${relay.port}/ws/ui?machineId=${machineId}`, { headers: { authorization: `Bearer ${token}` } });
    socket.once('open', () => {
      socket.close();
      resolve('open');
    });
    socket.once('unexpected-response', (_req, res) => {
      resolve(String(res.statusCode));
      socket.terminate();
    });
    socket.once('error', () => resolve('error'));
  });
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-sec-relay-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('switchboard relay: its own edges', () => {
  it('refuses a non-loopback --host without --allow-remote, before listening', async (t) => {
    const dir = tempDir(t);
    for (const host of ['0.0.0.0', '::', '192.0.2.10', 'relay.example.com']) {
      const result = await runInProcess(['relay', '--host', host, '--port', '0', '--tokens', join(dir, 'tokens.json')]);
      assert.equal(result.status, 2, `${host}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`refusing to listen on non-loopback host ${host.replace(/[.]/g, '\\.')}; add --allow-remote`), host);
      assert.equal(result.stdout, '', `${host}: nothing is printed as ready`);
    }
  });

  it('never writes a token to its log (at trace level): daemon link, viewers, page logins right and wrong, rotation', async (t) => {
    const dir = tempDir(t);
    const tokensFile = join(dir, 'tokens.json');
    const box = await addMachine(tokensFile, 'box');
    const other = await addMachine(tokensFile, 'other');
    const relay = await startRelay(t, tokensFile, dir);
    const hub = await startTestHub();
    t.after(() => hub.dispose());
    const client = connectClient(hub.hub, relay.url, 'box', box.daemonToken);
    t.after(() => client.dispose());
    await waitConnected(client);
    assert.equal(await viewerSocket(relay, 'box', box.viewerToken), 'open');
    assert.equal(await viewerSocket(relay, 'box', box.daemonToken), '401');
    assert.equal(await viewerSocket(relay, 'box', other.viewerToken), '401');
    assert.equal(await viewerLinkStatus(relay, 'box', box.viewerToken), 303);
    assert.equal(await viewerLinkStatus(relay, 'box', other.viewerToken), 401);
    assert.equal(await viewerLinkStatus(relay, 'other', box.daemonToken), 401);
    const wrongDaemon = connectClient(hub.hub, relay.url, 'other', box.daemonToken);
    t.after(() => wrongDaemon.dispose());
    await pollUntil(() => wrongDaemon.status.state === 'refused', { timeoutMs: 10_000, what: 'the daemon with the wrong token refused' });
    wrongDaemon.dispose();
    const rotated = await addMachine(tokensFile, 'box', true);
    assert.equal(await viewerSocket(relay, 'box', box.viewerToken), '401', 'the old viewer token is gone');
    assert.equal(await viewerSocket(relay, 'box', rotated.viewerToken), 'open');
    client.dispose();
    await relay.stop();

    const log = relay.stderr();
    assert.match(log, /DEBUG|TRACE|INFO/, 'the log was written');
    for (const [name, token] of Object.entries({ ...prefixed('box', box), ...prefixed('other', other), ...prefixed('rotated', rotated) })) {
      assert.ok(!log.includes(token), `${name} is in the relay's log:\n${log.split('\n').filter((line) => line.includes(token)).join('\n')}`);
      assert.ok(!relay.stdout().includes(token), `${name} is on the relay's stdout`);
    }
  });

  it('keeps the last good tokens when the tokens file turns broken, says so, and takes the next good one', async (t) => {
    const dir = tempDir(t);
    const tokensFile = join(dir, 'tokens.json');
    const box = await addMachine(tokensFile, 'box');
    const relay = await startRelay(t, tokensFile, dir, 'warn');
    assert.equal(await viewerSocket(relay, 'box', box.viewerToken), 'open');
    for (const [what, contents] of [
      ['not JSON', '{"version": 1, "machines": {'],
      ['a bad entry', JSON.stringify({ version: 1, machines: { box: { daemonTokenSha256: 'x', viewerTokenSha256: 'y', createdAt: 'now' } } })],
      ['empty', ''],
    ] as const) {
      writeFileSync(tokensFile, contents, { mode: 0o600 });
      assert.equal(await viewerSocket(relay, 'box', box.viewerToken), 'open', `${what}: the last good token still works`);
      assert.equal(await viewerLinkStatus(relay, 'box', box.viewerToken), 303, `${what}: the page login too`);
      assert.equal(await viewerSocket(relay, 'box', 'sbrv_wrong'), '401', `${what}: and nothing else does`);
      await pollUntil(() => relay.stderr().includes('relay tokens file is broken; still using the last good version'), { what: `${what}: the log says so` });
    }
    // A good file again (a machine added by hand elsewhere, say): it is read.
    rmSync(tokensFile);
    const fresh = await addMachine(tokensFile, 'fresh');
    assert.equal(await viewerSocket(relay, 'fresh', fresh.viewerToken), 'open');
    assert.equal(await viewerSocket(relay, 'box', box.viewerToken), '401', 'box is no longer in the file');
  });
});

function prefixed(name: string, tokens: { daemonToken: string; viewerToken: string }): Record<string, string> {
  return { [`${name} daemon token`]: tokens.daemonToken, [`${name} viewer token`]: tokens.viewerToken };
}
