/**
 * Who can reach the control socket and the claws sockets (docs/security.md §1, §2): the real
 * server under umask 000, and a real second user (uid) trying to connect. Root bypasses file
 * modes, so the other user's client runs through setpriv; without root those tests skip and say so.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { Hub } from '../../../src/node/hub.ts';
import { createLogger } from '../../../src/node/logger.ts';
import { startServedApp } from '../../helpers/servedApp.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { NdjsonClient } from '../control/controlTestKit.ts';
import { connectAsOtherUser, otherUserOrSkip } from './otherUser.ts';

/** Every entry under `dir` (not following links) with its mode, for a readable assertion. */
function modesUnder(dir: string): Record<string, string> {
  const modes: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const info = lstatSync(join(dir, name));
    modes[name] = (info.mode & 0o777).toString(8);
  }
  return modes;
}

describe('sockets: who can connect', () => {
  it('under umask 000, the data dir and .claws are 0700 and every socket and file in them 0600', async () => {
    const app = await startServedApp({ umask: '000' });
    try {
      // The umask really was 000 for the server (Linux tells; elsewhere this line is skipped).
      const status = `/proc/${serverPid(app.dataDir)}/status`;
      if (existsSync(status)) assert.equal(/^Umask:\s+(\d+)/m.exec(readFileSync(status, 'utf8'))?.[1], '0000');
      assert.equal(statSync(app.dataDir).mode & 0o777, 0o700);
      const dataModes = modesUnder(app.dataDir);
      assert.equal(dataModes['control.sock'], '600');
      for (const [name, mode] of Object.entries(dataModes)) {
        const isDir = lstatSync(join(app.dataDir, name)).isDirectory();
        assert.equal(mode, isDir ? '700' : '600', `${name} in the data dir is ${mode}: ${JSON.stringify(dataModes)}`);
      }
      const claws = join(app.workspace, '.claws');
      assert.equal(statSync(claws).mode & 0o777, 0o700);
      assert.deepEqual(modesUnder(claws), { 'claws.sock': '600' });
    } finally {
      await app.stop();
    }
  });

  it('refuses another user on the control socket and a claws socket in a group- and world-writable workspace, even with the directories opened up', async (t) => {
    const other = otherUserOrSkip(t);
    if (!other) return;
    const temp = createTempHome('sb-sec-uid-');
    t.after(() => temp.dispose());
    // Every directory on the way is open to the other user, so only our own modes stand in the way;
    // the workspace folder is writable by everyone (a shared checkout).
    chmodSync(dirname(temp.workspace), 0o755);
    chmodSync(temp.workspace, 0o777);
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: createLogger({ level: 'silent' }), env: {} });
    t.after(() => hub.dispose());
    await hub.start();
    const control = hub.controlSocketPath;
    const claws = join(temp.workspace, '.claws', 'claws.sock');
    assert.equal(statSync(join(temp.workspace, '.claws')).mode & 0o777, 0o700);

    // The user itself gets in.
    const own = await NdjsonClient.connect(claws);
    assert.equal((await own.request({ cmd: 'ping' })).ok, true);
    own.close();

    // The directories (0700) keep the other user out.
    assert.equal(await connectAsOtherUser(other, control), 'ERROR EACCES');
    assert.equal(await connectAsOtherUser(other, claws), 'ERROR EACCES');

    // Opened up (another tool chmod'ed them): the sockets' own 0600 still does.
    chmodSync(temp.dataDir, 0o711);
    chmodSync(join(temp.workspace, '.claws'), 0o711);
    assert.equal(await connectAsOtherUser(other, control), 'ERROR EACCES');
    assert.equal(await connectAsOtherUser(other, claws), 'ERROR EACCES');

    // The control run: with the socket's mode opened too, the same client gets in. So the refusals
    // above are the modes' doing, not the harness's.
    chmodSync(control, 0o666);
    assert.match(await connectAsOtherUser(other, control), /^ANSWER .*"ok":true/);
  });

  it('refuses another user a SWITCHBOARD_SOCKET in a world-writable sticky folder (as /tmp) by the socket\'s own 0600', async (t) => {
    const other = otherUserOrSkip(t);
    if (!other) return;
    const temp = createTempHome('sb-sec-tmpsock-');
    t.after(() => temp.dispose());
    const shared = join(dirname(temp.workspace), 'shared-tmp');
    mkdirSync(shared);
    chmodSync(dirname(temp.workspace), 0o755);
    chmodSync(shared, 0o1777);
    const socketPath = join(shared, 'sb.sock');
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: createLogger({ level: 'silent' }), env: { SWITCHBOARD_SOCKET: socketPath }, clawsCompatSockets: false });
    t.after(() => hub.dispose());
    await hub.start();
    assert.equal(hub.controlSocketPath, socketPath);
    assert.equal(statSync(shared).mode & 0o7777, 0o1777, 'a folder that is not ours keeps its mode');
    assert.equal(statSync(socketPath).mode & 0o777, 0o600);
    assert.equal(await connectAsOtherUser(other, socketPath), 'ERROR EACCES');
    chmodSync(socketPath, 0o666);
    assert.match(await connectAsOtherUser(other, socketPath), /^ANSWER .*"ok":true/, 'the control run: the harness reaches it once the mode allows');
  });

  it('at the length limit of a socket address, still binds under a temporary name: shutdown leaves alone a socket another server bound at the path since', async (t) => {
    const temp = createTempHome('sb-sec-longsock-');
    t.after(() => temp.dispose());
    // A path of exactly 107 bytes (the most a Unix socket address holds): `.control.sock.<random>` would not fit.
    const base = join(dirname(temp.workspace), 'sock');
    const name = 'control.sock';
    const padding = 107 - Buffer.byteLength(join(base, name));
    assert.ok(padding > 0, base);
    const socketPath = join(base + 'x'.repeat(padding), name);
    assert.equal(Buffer.byteLength(socketPath), 107);
    mkdirSync(dirname(socketPath), { mode: 0o700 });
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: createLogger({ level: 'silent' }), env: { SWITCHBOARD_SOCKET: socketPath }, clawsCompatSockets: false });
    t.after(() => hub.dispose());
    await hub.start();
    assert.equal(hub.controlSocketPath, socketPath);
    assert.equal(statSync(socketPath).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dirname(socketPath)), [name], 'no temporary name is left behind');
    const ours = await NdjsonClient.connect(socketPath);
    assert.equal((await ours.request({ cmd: 'ping' })).ok, true);
    ours.close();
    // Another server at the path since (ours was removed by someone): our shutdown must not delete it.
    rmSync(socketPath);
    const other = createServer((socket) => socket.end());
    t.after(() => other.close());
    await new Promise<void>((resolve) => other.listen(socketPath, resolve));
    await hub.shutdown();
    assert.ok(lstatSync(socketPath).isSocket(), 'the other server keeps its socket');
  });

  it('skips a .claws owned by another user, changing nothing there, and still serves the control socket', async (t) => {
    const other = otherUserOrSkip(t);
    if (!other) return;
    const temp = createTempHome('sb-sec-clawsowner-');
    t.after(() => temp.dispose());
    const foreign = join(temp.workspace, '.claws');
    mkdirSync(foreign, { mode: 0o755 });
    chmodSync(foreign, 0o755);
    chownSync(foreign, other.uid, other.gid);
    const lines: string[] = [];
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: createLogger({ level: 'warn', sink: (line) => lines.push(line) }), env: {} });
    t.after(() => hub.dispose());
    await hub.start();
    const after = statSync(foreign);
    assert.deepEqual([after.uid, after.mode & 0o777], [other.uid, 0o755], 'the other user\'s .claws is neither chown\'ed nor chmod\'ed');
    assert.deepEqual(readdirSync(foreign), [], 'no socket is bound in it');
    assert.deepEqual(hub.controlServer.sockets, [{ workspace: null, socket: hub.controlSocketPath }]);
    const warning = lines.find((line) => line.includes('claws compatibility socket not available'));
    assert.ok(warning, lines.join('\n'));
    assert.ok(warning.includes(`is owned by uid ${other.uid}, not by this user`), warning);
    const client = await NdjsonClient.connect(hub.controlSocketPath);
    assert.equal((await client.request({ cmd: 'ping' })).ok, true);
    client.close();
  });
});

/** The pid serve.json names (the server itself, not the shell that started it). */
function serverPid(dataDir: string): number {
  return (JSON.parse(readFileSync(join(dataDir, 'serve.json'), 'utf8')) as { pid: number }).pid;
}
