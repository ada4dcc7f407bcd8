/**
 * The `switchboard relay` and `switchboard serve --relay` command lines, as child processes: the
 * token file verbs, a browser-opened terminal end to end through both real processes, and a relay
 * killed (SIGKILL) and restarted mid-session: the daemon reconnects and the viewer resumes from a
 * snapshot.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliMain, runInProcess } from '../cli/cliHarness.ts';
import { startServe, type ServeProcess } from '../node/server/serveProcess.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { testEnv } from '../../helpers/tempHome.ts';
import { connectClient, startTestHub, startTestRelay, TestViewer, waitConnected } from './relayTestKit.ts';

interface RelayProcess {
  child: ChildProcess;
  port: number;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startRelayProcess(tokensFile: string, port: number, home: string): Promise<RelayProcess> {
  const child = spawn(process.execPath, [cliMain, 'relay', '--port', String(port), '--tokens', tokensFile, '--json'], {
    env: { ...testEnv(home), SWITCHBOARD_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return pollUntil(
    () => {
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
      if (!line) {
        if (child.exitCode !== null) throw new Error(`relay exited: ${stderr}`);
        return undefined;
      }
      const ready = JSON.parse(line) as { url: string; port: number };
      return { child, port: ready.port, url: ready.url, stderr: () => stderr, exited };
    },
    { timeoutMs: 15_000, what: 'switchboard relay ready line' },
  );
}

describe('switchboard relay: machines and tokens', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'sb-relay-cli-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('adds a machine (tokens printed once, only hashes stored 0600), lists, rotates and removes it', async () => {
    const tokensFile = join(dir, 'tokens.json');
    const added = await runInProcess(['relay', 'add-machine', 'home-box', '--tokens', tokensFile, '--json']);
    assert.equal(added.status, 0, added.stderr);
    const tokens = JSON.parse(added.stdout) as { machineId: string; daemonToken: string; viewerToken: string };
    assert.equal(tokens.machineId, 'home-box');
    assert.match(tokens.daemonToken, /^sbrd_[A-Za-z0-9_-]{43}$/);
    assert.match(tokens.viewerToken, /^sbrv_[A-Za-z0-9_-]{43}$/);
    const stored = readFileSync(tokensFile, 'utf8');
    assert.ok(!stored.includes(tokens.daemonToken) && !stored.includes(tokens.viewerToken), 'tokens are never stored');
    assert.equal(statSync(tokensFile).mode & 0o777, 0o600);

    const again = await runInProcess(['relay', 'add-machine', 'home-box', '--tokens', tokensFile]);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /machine home-box already exists \(use --rotate to issue new tokens\)/);
    const rotated = await runInProcess(['relay', 'add-machine', 'home-box', '--rotate', '--tokens', tokensFile, '--json']);
    assert.notEqual(JSON.parse(rotated.stdout).daemonToken, tokens.daemonToken);

    const bad = await runInProcess(['relay', 'add-machine', '../x', '--tokens', tokensFile]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /invalid machine id "\.\.\/x"/);

    const listed = await runInProcess(['relay', 'machines', '--tokens', tokensFile, '--json']);
    assert.deepEqual(JSON.parse(listed.stdout).machines, ['home-box']);
    const removed = await runInProcess(['relay', 'remove-machine', 'home-box', '--tokens', tokensFile]);
    assert.equal(removed.status, 0);
    const missing = await runInProcess(['relay', 'remove-machine', 'home-box', '--tokens', tokensFile]);
    assert.equal(missing.status, 1);
    const unknown = await runInProcess(['relay', 'frobnicate', '--tokens', tokensFile]);
    assert.equal(unknown.status, 2);
  });

  it('refuses bad serve --relay settings before starting anything', async () => {
    const env = { SWITCHBOARD_HOME: join(dir, 'home') };
    const noToken = await runInProcess(['serve', '--relay', 'ws://127.0.0.1:1'], { env, cwd: dir });
    assert.equal(noToken.status, 2);
    assert.match(noToken.stderr, /--relay needs the machine's daemon token in SWITCHBOARD_RELAY_TOKEN/);
    const plain = await runInProcess(['serve', '--relay', 'ws://relay.example.com'], { env: { ...env, SWITCHBOARD_RELAY_TOKEN: 't' }, cwd: dir });
    assert.equal(plain.status, 2);
    assert.match(plain.stderr, /plain ws:\/\/ is only allowed to a loopback relay; use wss:\/\/relay\.example\.com/);
    const badId = await runInProcess(['serve', '--relay', 'wss://relay.example.com', '--machine-id', 'a b'], { env: { ...env, SWITCHBOARD_RELAY_TOKEN: 't' }, cwd: dir });
    assert.equal(badId.status, 2);
    const orphan = await runInProcess(['serve', '--share-all'], { env, cwd: dir });
    assert.equal(orphan.status, 2);
    assert.match(orphan.stderr, /--machine-id and --share-all need --relay URL/);
  });
});

describe('switchboard serve --relay through switchboard relay (two real processes)', () => {
  let dir: string;
  let relayProcess: RelayProcess | undefined;
  let serve: ServeProcess | undefined;

  before(() => (dir = mkdtempSync(join(tmpdir(), 'sb-relay-e2e-'))));
  after(async () => {
    serve?.child.kill('SIGTERM');
    relayProcess?.child.kill('SIGTERM');
    await serve?.exited;
    await relayProcess?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a viewer opens a terminal on the serving machine, types `echo hi`, sees it, and sees the exit', async () => {
    const tokensFile = join(dir, 'tokens.json');
    const added = JSON.parse((await runInProcess(['relay', 'add-machine', 'laptop', '--tokens', tokensFile, '--json'])).stdout) as { daemonToken: string; viewerToken: string };
    relayProcess = await startRelayProcess(tokensFile, 0, dir);
    const home = join(dir, 'home');
    serve = await startServe({
      args: ['--relay', relayProcess.url, '--machine-id', 'laptop', '--json', dir],
      home: dir,
      dataDir: home,
      env: { SWITCHBOARD_RELAY_TOKEN: added.daemonToken },
    });
    const ready = JSON.parse(serve.stdout().split('\n').find((line) => line.startsWith('{'))!);
    assert.deepEqual(ready.relay, { url: `${relayProcess.url}/ws/daemon?machineId=laptop`, machineId: 'laptop' });
    assert.ok(!serve.stdout().includes(added.daemonToken) && !serve.stderr().includes(added.daemonToken), 'the token is never printed');

    const viewer = await TestViewer.connect(relayProcess, 'laptop', added.viewerToken, { name: 'phone' });
    try {
      await viewer.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'online', { what: 'machine online', timeoutMs: 20_000 });
      const id = await viewer.openTerminal({ cwd: dir });
      viewer.typeInto(id, 'echo hi\r');
      await viewer.waitForText(id, /[\r\n]hi\r\n/).catch((error: Error) => {
        throw new Error(`${error.message}; got ${JSON.stringify(viewer.terminalText(id))}; serve stderr: ${serve!.stderr()}`);
      });
      viewer.typeInto(id, 'exit\r');
      const exit = await viewer.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === id, { what: 'terminalExit' });
      assert.equal(exit.type === 'terminalExit' && exit.reason, 'process_exit');
      assert.equal(exit.type === 'terminalExit' && exit.exitCode, 0);
    } finally {
      await viewer.close();
    }
    serve.child.kill('SIGTERM');
    assert.equal((await serve.exited).code, 0);
    serve = undefined;
  });
});

describe('relay fault: the relay process is killed and restarted mid-session', () => {
  it('the daemon reconnects and the viewer resumes its terminal from a snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-relay-fault-'));
    const tokensFile = join(dir, 'tokens.json');
    const added = JSON.parse((await runInProcess(['relay', 'add-machine', 'm1', '--tokens', tokensFile, '--json'])).stdout) as { daemonToken: string; viewerToken: string };
    let relayProcess = await startRelayProcess(tokensFile, 0, dir);
    const hub = await startTestHub();
    const client = connectClient(hub.hub, relayProcess.url, 'm1', added.daemonToken, { timing: { initialMs: 100, maxMs: 500, jitter: 0.2, resetAfterMs: 60_000 } });
    const viewers: TestViewer[] = [];
    try {
      await waitConnected(client);
      const first = await TestViewer.connect(relayProcess, 'm1', added.viewerToken, { channelId: 'phone-1' });
      viewers.push(first);
      await first.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'online', { what: 'online' });
      const id = await first.openTerminal({ cwd: hub.temp.workspace });
      first.typeInto(id, 'echo before-crash-$((2*21))\r');
      await first.waitForText(id, 'before-crash-42');

      relayProcess.child.kill('SIGKILL');
      await relayProcess.exited;
      await pollUntil(() => client.status.state === 'reconnecting', { what: 'client notices the relay is gone' });
      // The terminal lives on locally while the relay is down.
      hub.hub.ptyHost.get(id)!.write('echo during-outage-$((3*3))\r');

      relayProcess = await startRelayProcess(tokensFile, relayProcess.port, dir);
      await waitConnected(client, 2);
      const second = await TestViewer.connect(relayProcess, 'm1', added.viewerToken, { channelId: 'phone-1' });
      viewers.push(second);
      await second.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'online', { what: 'online again' });
      second.send('agentTerminalSnapshotRequest', { terminalId: id, channelId: 'phone-1' });
      const snapshot = await second.waitFor((frame) => frame.type === 'terminalSnapshot' && frame.terminalId === id, { what: 'snapshot after reconnect' });
      const text = snapshot.type === 'terminalSnapshot' ? Buffer.from(snapshot.dataBase64, 'base64').toString('utf8') : '';
      assert.ok(text.includes('before-crash-42'), 'the snapshot has what happened before the crash');
      assert.ok(text.includes('during-outage-9'), 'and what happened while the relay was down');
      second.typeInto(id, 'echo after-restart-$((5+5))\r');
      await second.waitForText(id, 'after-restart-10');
      assert.deepEqual(second.terminals.get(id)!.seqErrors, []);
    } finally {
      for (const viewer of viewers) await viewer.close();
      await client.stop();
      client.dispose();
      hub.dispose();
      relayProcess.child.kill('SIGTERM');
      await relayProcess.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an in-process relay restarted on the same port is reconnected to as well', async () => {
    const relay = await startTestRelay({ machines: ['m1'] });
    const token = relay.tokens.get('m1')!.daemonToken;
    const hub = await startTestHub();
    const client = connectClient(hub.hub, relay.url, 'm1', token);
    let restarted: { close(): Promise<void> } | undefined;
    try {
      await waitConnected(client);
      const { port, tokensFile } = relay;
      await relay.server.close();
      await pollUntil(() => client.status.state !== 'connected', { what: 'disconnect noticed' });
      const { RelayTokenStore } = await import('../../../src/node/relay/server/relayTokens.ts');
      const { RelayServer } = await import('../../../src/node/relay/server/relayServer.ts');
      const { nullLogger } = await import('../../../src/node/logger.ts');
      const server = new RelayServer({ host: '127.0.0.1', port, tokens: new RelayTokenStore({ filePath: tokensFile }), logger: nullLogger });
      restarted = server;
      await server.listen();
      await waitConnected(client, 2);
    } finally {
      client.dispose();
      hub.dispose();
      await restarted?.close();
      await relay.close();
    }
  });
});
