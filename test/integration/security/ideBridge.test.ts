/**
 * The IDE bridge's reach (docs/security.md §5): it listens on 127.0.0.1 and nowhere else (the
 * real listening socket, as the kernel reports it, and connections through other addresses), and
 * its lock directory is one only this user can write to before it is used. A real Hub.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../src/node/hub.ts';
import { createLogger } from '../../../src/node/logger.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { otherUserOrSkip } from './otherUser.ts';

/** 'connected' or the error code connecting to host:port gave. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** The local addresses of listening TCP sockets on `port`, from /proc/net/tcp and tcp6 (Linux). */
function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== '0A') continue; // 0A: LISTEN
      const [address, portHex] = fields[1]!.split(':');
      if (Number.parseInt(portHex!, 16) === port) found.push(`${file.endsWith('6') ? 'tcp6' : 'tcp'} ${address}`);
    }
  }
  return found;
}

async function startHub(t: TestContext, claudeConfigDir: string) {
  const temp = createTempHome('sb-sec-ide-');
  t.after(() => temp.dispose());
  const lines: string[] = [];
  const hub = new Hub({
    dataDir: temp.dataDir,
    workspaceFolders: [temp.workspace],
    host: 'test',
    logger: createLogger({ level: 'warn', sink: (line) => lines.push(line) }),
    env: { CLAUDE_CONFIG_DIR: claudeConfigDir },
    clawsCompatSockets: false,
  });
  t.after(() => hub.dispose());
  await hub.start();
  const api = createLocalHubClient(hub);
  t.after(() => api.dispose());
  const state = await api.call('ide.getState', {});
  assert.ok(state.port, 'the bridge listens');
  return { hub, state: { port: state.port, lockFile: state.lockFile }, lines };
}

describe('IDE bridge: where it can be reached', () => {
  it('listens on 127.0.0.1 only: the kernel lists one listener at 127.0.0.1, and other addresses are refused', async (t) => {
    const root = createTempHome('sb-sec-ide-cfg-');
    t.after(() => root.dispose());
    const { state } = await startHub(t, join(root.home, 'claude'));
    const { port } = state;
    assert.equal(await tryConnect('127.0.0.1', port), 'connected');
    // A wildcard bind (0.0.0.0 or ::) would accept these.
    assert.equal(await tryConnect('127.0.0.2', port), 'ECONNREFUSED', 'another loopback address');
    const ipv6 = await tryConnect('::1', port);
    assert.ok(ipv6 === 'ECONNREFUSED' || ipv6 === 'EADDRNOTAVAIL' || ipv6 === 'ENETUNREACH', `::1: ${ipv6}`);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && !entry.internal && entry.family === 'IPv4');
    if (external) assert.equal(await tryConnect(external.address, port), 'ECONNREFUSED', `this host's address ${external.address}`);
    if (existsSync('/proc/net/tcp')) assert.deepEqual(listeningAddresses(port), ['tcp 0100007F'], 'one listening socket, on 127.0.0.1');
  });

  it('removes group and other write permission from an ide/ directory that has it, before using it, and says so', async (t) => {
    const root = createTempHome('sb-sec-ide-cfg-');
    t.after(() => root.dispose());
    const claudeConfigDir = join(root.home, 'claude');
    const lockDir = join(claudeConfigDir, 'ide');
    mkdirSync(lockDir, { recursive: true });
    chmodSync(lockDir, 0o777);
    // Another IDE's lock file there stays.
    writeFileSync(join(lockDir, '1.lock'), JSON.stringify({ pid: 1, workspaceFolders: [], ideName: 'Visual Studio Code', transport: 'ws', authToken: 'x' }), { mode: 0o600 });
    const { state, lines } = await startHub(t, claudeConfigDir);
    assert.equal(statSync(lockDir).mode & 0o777, 0o755, 'only the write bits of group and others are removed (it is Claude Code\'s directory)');
    const warning = lines.find((line) => line.includes('the IDE lock directory was writable by other users'));
    assert.ok(warning, lines.join('\n'));
    assert.match(warning, /"mode":"777"/);
    assert.equal(state.lockFile, join(lockDir, `${state.port}.lock`));
    assert.deepEqual(readdirSync(lockDir).sort(), ['1.lock', `${state.port}.lock`].sort());
  });

  it('writes no lock file into an ide/ directory owned by another user, and changes nothing there; the bridge still listens', async (t) => {
    const other = otherUserOrSkip(t);
    if (!other) return;
    const root = createTempHome('sb-sec-ide-cfg-');
    t.after(() => root.dispose());
    const claudeConfigDir = join(root.home, 'claude');
    const lockDir = join(claudeConfigDir, 'ide');
    mkdirSync(lockDir, { recursive: true });
    chmodSync(lockDir, 0o777);
    chownSync(lockDir, other.uid, other.gid);
    // A lock file of "ours" that looks stale: it must not be deleted in a directory we do not trust.
    writeFileSync(join(lockDir, '2.lock'), JSON.stringify({ pid: 999_999_999, workspaceFolders: [], ideName: 'Switchboard', transport: 'ws', runningInWindows: false, authToken: 'x' }), { mode: 0o600 });
    const { state, lines } = await startHub(t, claudeConfigDir);
    assert.equal(state.lockFile, null);
    assert.deepEqual(readdirSync(lockDir), ['2.lock'], 'nothing written, nothing removed');
    const info = statSync(lockDir);
    assert.deepEqual([info.uid, info.mode & 0o777], [other.uid, 0o777], 'neither chown\'ed nor chmod\'ed');
    const warning = lines.find((line) => line.includes('cannot use the IDE lock directory'));
    assert.ok(warning, lines.join('\n'));
    assert.ok(warning.includes(`is owned by uid ${other.uid}, not by this user`), warning);
    assert.equal(await tryConnect('127.0.0.1', state.port), 'connected');
  });
});
