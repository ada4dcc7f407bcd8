/**
 * The relay server's own edges (docs/security.md §7, "Secrets"): `switchboard relay` binds
 * loopback unless told otherwise, its log never carries a token, and a broken tokens file never
 * locks everyone out or lets anyone in. A real `switchboard relay` child process, a real daemon
 * link from an in-process Hub, raw HTTP and WebSocket viewers.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import WebSocket from 'ws';
import { pollUntil } from '../../helpers/poll.ts';
import { type RelayProcess as SpawnedRelay, startRelayProcess, stop } from '../../helpers/remoteRelay.ts';
import { testEnv } from '../../helpers/tempHome.ts';
import { runChild, runInProcess } from '../cli/cliHarness.ts';
import { connectClient, startTestHub, waitConnected } from '../relay/relayTestKit.ts';

interface RelayProcess extends SpawnedRelay {
  stop(): Promise<void>;
}

async function startRelay(t: TestContext, tokensFile: string, home: string, logLevel = 'trace'): Promise<RelayProcess> {
  const relay = await startRelayProcess(tokensFile, home, { logLevel });
  const stopRelay = () => stop(relay.child, relay.exited);
  t.after(stopRelay);
  return { ...relay, stop: stopRelay };
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
    // A path the URL parser cannot read, a token in it, as a page and as an upgrade: 400 (not a 500 with the URL in the log).
    const relayPort = Number(new URL(relay.url).port);
    for (const upgrade of ['', 'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n']) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = createConnection({ host: '127.0.0.1', port: relayPort }, () => socket.write(`GET //?token=${rotated.viewerToken} HTTP/1.1\r\nHost: 127.0.0.1:${relayPort}\r\nConnection: close\r\n${upgrade}\r\n`));
        let text = '';
        socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      assert.match(answer, /^HTTP\/1\.1 400/, answer);
      assert.match(answer, /bad path/);
    }
    client.dispose();
    await relay.stop();

    const log = relay.stderr();
    assert.match(log, /DEBUG|TRACE|INFO/, 'the log was written');
    for (const [name, token] of Object.entries({ ...prefixed('box', box), ...prefixed('other', other), ...prefixed('rotated', rotated) })) {
      assert.ok(!log.includes(token), `${name} is in the relay's log:\n${log.split('\n').filter((line) => line.includes(token)).join('\n')}`);
      assert.ok(!relay.stdout().includes(token), `${name} is on the relay's stdout`);
    }
  });

  it('lets 32 viewers watch one machine at once and answers the 33rd 503; a freed place is taken again', async (t) => {
    const dir = tempDir(t);
    const tokensFile = join(dir, 'tokens.json');
    const box = await addMachine(tokensFile, 'box');
    const relay = await startRelay(t, tokensFile, dir, 'warn');
    const open: WebSocket[] = [];
    t.after(() => open.forEach((socket) => socket.terminate()));
    const connect = () =>
      new Promise<WebSocket | string>((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${relay.port}/ws/ui?machineId=box`, { headers: { authorization: `Bearer ${box.viewerToken}` } });
        socket.once('open', () => resolve(socket));
        socket.once('unexpected-response', (_req, res) => {
          resolve(String(res.statusCode));
          socket.terminate();
        });
        socket.once('error', (error) => resolve(error.message));
      });
    for (let n = 0; n < 32; n++) {
      const socket = await connect();
      assert.ok(typeof socket !== 'string', `viewer ${n + 1}: ${String(socket)}`);
      open.push(socket);
    }
    assert.equal(await connect(), '503');
    const first = open.shift()!;
    const closed = new Promise((resolve) => first.once('close', resolve));
    first.close();
    await closed;
    const again = await pollUntil(async () => {
      const socket = await connect();
      return typeof socket === 'string' ? undefined : socket;
    }, { what: 'a viewer in the freed place' });
    open.push(again);
  });

  it('refuses a tokens file others may write: the relay does not start on one, and a running relay keeps its last good tokens', async (t) => {
    const dir = tempDir(t);
    const tokensFile = join(dir, 'tokens.json');
    const box = await addMachine(tokensFile, 'box');
    chmodSync(tokensFile, 0o666);
    const refused = await runChild(['relay', '--port', '0', '--tokens', tokensFile], { env: testEnv(dir), timeoutMs: 15_000 });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /relay tokens file .* is writable by other users \(mode 666\); refusing to use it: chmod 600 it/);
    assert.equal(refused.stdout, '', 'nothing listened');

    chmodSync(tokensFile, 0o600);
    const relay = await startRelay(t, tokensFile, dir, 'warn');
    assert.equal(await viewerSocket(relay, 'box', box.viewerToken), 'open');
    // Someone who can write the file now puts in a machine of their own and opens it to all.
    const evilTokensFile = join(dir, 'evil.json');
    const evil = await addMachine(evilTokensFile, 'box');
    writeFileSync(tokensFile, readFileSync(evilTokensFile));
    chmodSync(tokensFile, 0o666);
    assert.equal(await viewerSocket(relay, 'box', evil.viewerToken), '401', 'their token is not taken');
    assert.equal(await viewerSocket(relay, 'box', box.viewerToken), 'open', 'the last good tokens still work');
    assert.match(relay.stderr(), /relay tokens file is broken; still using the last good version.*writable by other users/);
  });

  it('warns about a tokens file others may read, and still serves', async (t) => {
    const dir = tempDir(t);
    const tokensFile = join(dir, 'tokens.json');
    const box = await addMachine(tokensFile, 'box');
    chmodSync(tokensFile, 0o644);
    const relay = await startRelay(t, tokensFile, dir, 'warn');
    assert.equal(await viewerSocket(relay, 'box', box.viewerToken), 'open');
    assert.match(relay.stderr(), /the relay tokens file is readable by other users; chmod 600 it.*"mode":"644"/);
  });

  it('keeps the last good tokens when the tokens file turns broken, says so, and takes the next good one', async (t) => {
    const dir = tempDir(t);
    const tokensFile = join(dir, 'tokens.json');
    const box = await addMachine(tokensFile, 'box');
    const relay = await startRelay(t, tokensFile, dir, 'warn');
    assert.equal(await viewerSocket(relay, 'box', box.viewerToken), 'open');
    const reports = () => relay.stderr().split('\n').filter((line) => line.includes('relay tokens file is broken; still using the last good version'));
    let reported = 0;
    for (const [what, contents] of [
      ['not JSON', '{"version": 1, "machines": {'],
      ['a bad entry', JSON.stringify({ version: 1, machines: { box: { daemonTokenSha256: 'x', viewerTokenSha256: 'y', createdAt: 'now' } } })],
      ['empty', ''],
    ] as const) {
      writeFileSync(tokensFile, contents, { mode: 0o600 });
      assert.equal(await viewerSocket(relay, 'box', box.viewerToken), 'open', `${what}: the last good token still works`);
      assert.equal(await viewerLinkStatus(relay, 'box', box.viewerToken), 303, `${what}: the page login too`);
      assert.equal(await viewerSocket(relay, 'box', 'sbrv_wrong'), '401', `${what}: and nothing else does`);
      // Said once per problem, not once per request that re-read the file (three requests above).
      reported += 1;
      await pollUntil(() => reports().length === reported, { what: `${what}: the log says so, once` });
    }
    assert.equal(reports().length, 3, reports().join('\n'));
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
