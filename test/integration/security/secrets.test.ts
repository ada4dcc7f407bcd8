/**
 * Secrets end to end (docs/security.md "Secrets"): a password typed with echo off never reaches
 * History, and control-socket token secrets never reach the database, the data dir's logs, the
 * app's log or the bus — checked on the real files (the SQLite database and its WAL, byte for
 * byte), the log lines at trace level and a bus subscription to everything. Each check also finds
 * a marker that is meant to be there, so a check that cannot see into a file fails instead of
 * passing.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../src/node/hub.ts';
import { createLogger } from '../../../src/node/logger.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../helpers/tempHome.ts';
import { runChild } from '../cli/cliHarness.ts';
import { NdjsonClient } from '../control/controlTestKit.ts';

/** Every file under `dir` whose bytes hold `needle` (the database, its WAL and shm included). */
function filesHolding(dir: string, needle: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((name) => {
    const path = join(dir, name);
    try {
      return statSync(path).isFile() && readFileSync(path).includes(needle);
    } catch (error) {
      // SQLite removes its -shm file when the last connection closes, which may be just now.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  });
}

async function startHub(t: TestContext) {
  const temp = createTempHome('sb-sec-secrets-');
  t.after(() => temp.dispose());
  const logLines: string[] = [];
  const hub = new Hub({
    dataDir: temp.dataDir,
    workspaceFolders: [temp.workspace],
    host: 'test',
    logger: createLogger({ level: 'trace', sink: (line) => logLines.push(line) }),
    env: {},
    clawsCompatSockets: false,
  });
  t.after(() => hub.dispose());
  await hub.start();
  const api = createLocalHubClient(hub);
  t.after(() => api.dispose());
  return { temp, hub, api, logLines };
}

describe('secrets', () => {
  it('a password typed with echo off (read -s in a real bash pane, typed as a person types) never reaches History, its database file or the log', async (t) => {
    const { temp, hub, api, logLines } = await startHub(t);
    const terminal = await api.call('terminal.create', { file: 'bash', args: ['--norc', '--noprofile'], env: testEnv(temp.home), name: 'login' });
    const received: string[] = [];
    api.on('terminal.output', (output) => {
      if (output.id === terminal.id) received.push(output.data);
    });
    await api.call('terminal.attach', { id: terminal.id });
    const output = () => received.join('');
    const password = `hunter2-${Date.now().toString(36)}-Secret`;
    const marker = `len-${password.length + 1000}`;
    // stty -echo first, so echo is off before the prompt shows whatever order bash sets it in; the
    // prompt is quoted so that the echoed command line does not already read "Password: ".
    await api.call('terminal.write', { id: terminal.id, data: `stty -echo; read -rs -p Pass'word: ' pw; stty echo; echo; echo "len-$((\${#pw}+1000))"\r` });
    await pollUntil(() => output().includes('Password: '), { what: 'the password prompt', timeoutMs: 20_000 });
    // The person's path: the same call the app's pane makes for every key (Electron IPC or the WebSocket).
    for (const key of password) await api.call('terminal.write', { id: terminal.id, data: key });
    await api.call('terminal.write', { id: terminal.id, data: '\r' });
    await pollUntil(() => output().includes(marker), { what: 'the shell to read the password', timeoutMs: 20_000 });
    assert.ok(!output().includes(password), `the terminal did not echo it (else it would be output, which History keeps): ${JSON.stringify(output())}`);
    await api.call('terminal.write', { id: terminal.id, data: 'exit\r' });
    await pollUntil(async () => (await api.call('terminal.list', {})).find((candidate) => candidate.id === terminal.id)?.state === 'exited', { what: 'the shell to exit', timeoutMs: 20_000 });
    await api.call('terminal.close', { id: terminal.id });

    const { sessions } = await api.call('history.list', {});
    const session = sessions.find((candidate) => candidate.terminalId === terminal.id);
    assert.ok(session, 'the session is in History');
    assert.equal(session.receivedInput, true);
    hub.history.indexNow();
    assert.ok((await api.call('history.search', { query: marker })).hits.some((hit) => hit.sessionId === session.id), 'search finds what was printed');
    assert.deepEqual((await api.call('history.search', { query: password })).hits, [], 'search does not find the password');
    const { events } = await api.call('history.events', { id: session.id });
    assert.ok(!JSON.stringify(events).includes(password));
    assert.ok(!(await api.call('history.export', { id: session.id, format: 'text' })).contents.includes(password));
    assert.ok(!(await api.call('history.export', { id: session.id, format: 'cast' })).contents.includes(password));

    await hub.shutdown();
    assert.ok(filesHolding(temp.dataDir, marker).some((name) => name.startsWith('switchboard.db')), 'the marker is in the database file: the byte check sees stored output');
    assert.deepEqual(filesHolding(temp.dataDir, password), [], 'no file of the data dir holds the password');
    assert.ok(logLines.some((line) => line.includes(marker)), 'the trace log carries the output');
    assert.ok(!logLines.some((line) => line.includes(password)), 'nor the password');
  });

  it('the CLI never prints a token it was given — refused, revoked, forbidden or fine — even at trace level', async (t) => {
    const { temp, hub, api } = await startHub(t);
    await api.call('settings.update', { controlTokenAuth: true });
    const reader = await api.call('tokens.create', { name: 'reader', scopes: ['read'] });
    const revoked = await api.call('tokens.create', { name: 'revoked', scopes: ['drive'] });
    await api.call('tokens.revoke', { id: revoked.token.id });
    const terminal = (await api.call('terminal.create', { file: '/bin/sh' })).id;
    const wrong = `sbt_${'w'.repeat(43)}`;
    const env = { ...testEnv(temp.home), SWITCHBOARD_LOG_LEVEL: 'trace' };
    const runs = [
      { argv: ['ls', '--token', wrong], token: wrong, ok: false, says: /auth:invalid/ },
      { argv: ['ls'], env: { SWITCHBOARD_TOKEN: revoked.secret }, token: revoked.secret, ok: false, says: /auth:invalid/ },
      { argv: ['send', terminal, 'true', '--token', reader.secret], token: reader.secret, ok: false, says: /auth:forbidden send/ },
      { argv: ['ls', '--json'], env: { SWITCHBOARD_TOKEN: reader.secret }, token: reader.secret, ok: true, says: /^$/ },
    ];
    for (const run of runs) {
      const result = await runChild([...run.argv, '--socket', hub.controlSocketPath], { env: { ...env, ...run.env } });
      assert.equal(result.status === 0, run.ok, `${run.argv.join(' ')}: ${result.status} ${result.stderr}`);
      assert.match(result.stderr.split('\n').filter((line) => !/^\d{4}-\d\d-\d\dT/.test(line)).join('\n'), run.says, run.argv.join(' '));
      assert.ok(!result.stdout.includes(run.token) && !result.stderr.includes(run.token), `${run.argv.join(' ')} printed its token:\n${result.stdout}\n${result.stderr}`);
      assert.ok(!result.stderr.includes(run.token.slice(4)));
    }
  });

  it('control token secrets never reach the database, the data dir\'s logs, the app\'s log or the bus, after being created, used, refused and revoked', async (t) => {
    const { temp, hub, api, logLines } = await startHub(t);
    await api.call('settings.update', { controlTokenAuth: true });
    const tokensChanged: unknown[] = [];
    api.on('tokens.changed', (tokens) => tokensChanged.push(tokens));
    // A bus subscriber to everything, for all that follows.
    const watcherToken = await api.call('tokens.create', { name: 'watcher', scopes: ['read'] });
    const watcher = await NdjsonClient.connect(hub.controlSocketPath);
    t.after(() => watcher.close());
    assert.equal((await watcher.request({ cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: 'watcher', token: watcherToken.secret })).ok, true);
    assert.equal((await watcher.request({ cmd: 'subscribe', topic: '**' })).ok, true);

    const driver = await api.call('tokens.create', { name: 'driver', scopes: ['drive'] });
    const client = await NdjsonClient.connect(hub.controlSocketPath);
    t.after(() => client.close());
    assert.equal((await client.request({ cmd: 'auth', token: driver.secret })).ok, true);
    // Minted over the socket, as `switchboard tokens create` does.
    const minted = await client.request({ cmd: 'tokens.create', name: 'minted', scopes: ['read'] });
    assert.equal(minted.ok, true, JSON.stringify(minted));
    const mintedSecret = minted.secret as string;
    const terminal = await client.request({ cmd: 'create', name: 'work', shellPath: 'bash', shellArgs: ['--norc', '--noprofile'], env: testEnv(temp.home) });
    assert.equal(terminal.ok, true, JSON.stringify(terminal));
    const marker = `tokmark-${Date.now().toString(36)}`;
    const exec = await client.request({ cmd: 'exec', terminalId: terminal.id, command: `echo ${marker}-$((40+2))` });
    assert.equal(exec.ok, true, JSON.stringify(exec));
    const reader = await NdjsonClient.connect(hub.controlSocketPath);
    t.after(() => reader.close());
    assert.equal((await reader.request({ cmd: 'hello', protocol: 'claws/2', role: 'worker', peerName: 'reader', token: mintedSecret })).ok, true);
    assert.equal((await reader.request({ cmd: 'list' })).ok, true);
    // Near misses are refused and must not be echoed anywhere either.
    const nearMiss = `${driver.secret.slice(0, -1)}${driver.secret.endsWith('A') ? 'B' : 'A'}`;
    assert.equal((await (await NdjsonClient.connect(hub.controlSocketPath)).request({ cmd: 'auth', token: nearMiss })).error, 'auth:invalid');
    assert.equal((await client.request({ cmd: 'tokens.revoke', tokenId: minted.token.id })).ok, true);
    assert.equal((await reader.request({ cmd: 'list' })).error, 'auth:invalid');
    await client.request({ cmd: 'close', terminalId: terminal.id });
    await pollUntil(() => watcher.frames.some((frame) => JSON.stringify(frame).includes('peer')), { what: 'bus traffic on the watcher' });

    await hub.shutdown();
    const secrets = { watcher: watcherToken.secret, driver: driver.secret, minted: mintedSecret, 'near miss': nearMiss };
    const busText = JSON.stringify(watcher.frames);
    assert.ok(filesHolding(temp.dataDir, `${marker}-42`).some((name) => name.startsWith('switchboard.db')), 'the exec output is in the database file: the byte check sees stored data');
    assert.ok(logLines.some((line) => line.includes(`${marker}-42`)), 'the trace log carries the output');
    assert.ok(busText.length > 100 && busText.includes('system.peer'), 'the watcher saw bus traffic');
    for (const [name, secret] of Object.entries(secrets)) {
      for (const needle of [secret, secret.slice(4)]) {
        assert.deepEqual(filesHolding(temp.dataDir, needle), [], `the ${name} token is in a file of the data dir`);
        assert.ok(!logLines.some((line) => line.includes(needle)), `the ${name} token is in the log: ${logLines.find((line) => line.includes(needle))}`);
        assert.ok(!busText.includes(needle), `the ${name} token went out on the bus`);
        assert.ok(!JSON.stringify(tokensChanged).includes(needle), `the ${name} token is in a tokens.changed event`);
      }
    }
  });
});
