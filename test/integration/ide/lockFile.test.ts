/**
 * The lock file Claude Code discovers Switchboard by: where, what, which modes, written
 * atomically, removed on shutdown, and stale ones (a crashed app) removed at the next start.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, watch, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hub } from '../../../src/node/hub.ts';
import { EditorState } from '../../../src/node/ide/editorState.ts';
import { IdeBridge } from '../../../src/node/ide/ideBridge.ts';
import { createLogger, nullLogger } from '../../../src/node/logger.ts';
import { PtyHost } from '../../../src/node/pty/ptyHost.ts';
import { ReviewArchive } from '../../../src/node/review/reviewArchive.ts';
import { ReviewQueue } from '../../../src/node/review/reviewQueue.ts';
import { freePort } from '../../helpers/freePort.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { startServe } from '../node/server/serveProcess.ts';
import { lockFilesIn, startIdeHub } from './ideTestKit.ts';

/** A pid that surely belongs to no process: one that just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe('IDE lock files', () => {
  it('writes the lock file claude-ide.md describes, 0600 in a 0700 directory, and removes it on shutdown', async () => {
    const kit = await startIdeHub();
    try {
      const path = join(kit.lockDir, `${kit.port}.lock`);
      const contents = JSON.parse(readFileSync(path, 'utf8'));
      assert.deepEqual(Object.keys(contents).sort(), ['authToken', 'ideName', 'pid', 'runningInWindows', 'transport', 'workspaceFolders']);
      assert.equal(contents.pid, process.pid, "the app's own pid");
      assert.deepEqual(contents.workspaceFolders, [kit.workspace]);
      assert.equal(contents.ideName, 'Switchboard');
      assert.equal(contents.transport, 'ws');
      assert.equal(contents.runningInWindows, false);
      assert.match(contents.authToken, /^[0-9a-f]{32}$/);
      assert.equal(mode(path), 0o600);
      assert.equal(mode(kit.lockDir), 0o700, 'the ide directory we created is private');
      assert.equal(mode(kit.claudeConfigDir), 0o700, 'so is a config dir we had to create');
      assert.deepEqual(lockFilesIn(kit.lockDir), [`${kit.port}.lock`]);
      assert.equal((await kit.api.call('ide.getState', {})).lockFile, path);
    } finally {
      await kit.dispose();
    }
    assert.deepEqual(lockFilesIn(kit.lockDir), [], 'removed on shutdown');
  });

  it('lists every workspace folder in one lock file', async () => {
    const extra = createTempHome('sb-ide-extra-');
    const kit = await startIdeHub({ extraWorkspaces: [extra.workspace] });
    try {
      assert.deepEqual(kit.lock.workspaceFolders, [kit.workspace, extra.workspace]);
      assert.equal(lockFilesIn(kit.lockDir).length, 1);
    } finally {
      await kit.dispose();
      extra.dispose();
    }
  });

  it('writes it atomically: the lock file only ever appears by a rename of a complete temp file', async () => {
    const temp = createTempHome('sb-ide-atomic-');
    const lockDir = join(temp.home, 'claude', 'ide');
    mkdirSync(lockDir, { recursive: true, mode: 0o700 });
    const seen: Array<{ type: string; name: string }> = [];
    const watcher = watch(lockDir, (type, name) => seen.push({ type, name: String(name) }));
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: { CLAUDE_CONFIG_DIR: join(temp.home, 'claude') }, clawsCompatSockets: false });
    try {
      await hub.start();
      const name = `${hub.ideBridge.port}.lock`;
      await pollUntil(() => seen.some((event) => event.name === name) || null, { what: 'the watcher to report the lock file' });
      const lockEvents = seen.filter((event) => event.name === name);
      assert.ok(lockEvents.every((event) => event.type === 'rename'), `the lock file is never written in place: ${JSON.stringify(lockEvents)}`);
      assert.ok(seen.some((event) => event.name.endsWith('.tmp')), 'it was written to a temp file first');
      assert.deepEqual(lockFilesIn(lockDir), [name]);
    } finally {
      watcher.close();
      await hub.shutdown();
      temp.dispose();
    }
  });

  it('removes stale lock files of ours at start and leaves live ones and other IDEs alone', async () => {
    const temp = createTempHome('sb-ide-stale-');
    const configDir = join(temp.home, 'claude');
    const lockDir = join(configDir, 'ide');
    mkdirSync(lockDir, { recursive: true, mode: 0o755 });
    const dead = deadPid();
    const lock = (pid: number, ideName: string) => JSON.stringify({ pid, workspaceFolders: ['/x'], ideName, transport: 'ws', runningInWindows: false, authToken: 'a'.repeat(32) });
    writeFileSync(join(lockDir, '40001.lock'), lock(dead, 'Switchboard'));
    writeFileSync(join(lockDir, '40002.lock'), lock(process.pid, 'Switchboard'));
    writeFileSync(join(lockDir, '40003.lock'), lock(dead, 'Visual Studio Code'));
    writeFileSync(join(lockDir, '40004.lock'), '{not json');
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: { CLAUDE_CONFIG_DIR: configDir }, clawsCompatSockets: false });
    try {
      await hub.start();
      assert.deepEqual(lockFilesIn(lockDir).sort(), ['40002.lock', '40003.lock', '40004.lock', `${hub.ideBridge.port}.lock`].sort());
      assert.equal(mode(lockDir), 0o755, "an existing ide directory is Claude Code's: its mode is left alone");
    } finally {
      await hub.shutdown();
      temp.dispose();
    }
  });

  it('a crashed app leaves its lock file; the next start removes it', async () => {
    const temp = createTempHome('sb-ide-crash-');
    const configDir = join(temp.home, 'claude');
    const serve = await startServe({ args: ['--port', '0', temp.workspace], home: temp.home, dataDir: temp.dataDir, env: { CLAUDE_CONFIG_DIR: configDir } });
    const lockDir = join(configDir, 'ide');
    try {
      const [crashedLock] = await pollUntil(() => (lockFilesIn(lockDir).length === 1 ? lockFilesIn(lockDir) : null), { timeoutMs: 15_000, what: "serve's lock file" });
      assert.equal(JSON.parse(readFileSync(join(lockDir, crashedLock!), 'utf8')).pid, serve.child.pid);
      serve.child.kill('SIGKILL');
      await serve.exited;
      assert.deepEqual(lockFilesIn(lockDir), [crashedLock], 'a killed app cannot clean up');

      const hub = new Hub({ dataDir: join(temp.home, 'data2'), workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: { CLAUDE_CONFIG_DIR: configDir }, clawsCompatSockets: false });
      try {
        await hub.start();
        assert.deepEqual(lockFilesIn(lockDir), [`${hub.ideBridge.port}.lock`]);
      } finally {
        await hub.shutdown();
      }
    } finally {
      if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL');
      temp.dispose();
    }
  });

  it('on shutdown leaves a lock file that is no longer ours (another app wrote its own at our port), and removes its own', async () => {
    const kit = await startIdeHub();
    const path = join(kit.lockDir, `${kit.port}.lock`);
    // Someone else's, put at our port while we run (atomically, the way lock files are written): the
    // same ideName even, but another pid and token. Only our pid and token make it ours.
    const foreign = JSON.stringify({ pid: process.ppid, workspaceFolders: ['/elsewhere'], ideName: 'Switchboard', transport: 'ws', runningInWindows: false, authToken: 'b'.repeat(32) });
    writeFileSync(`${path}.tmp`, foreign);
    renameSync(`${path}.tmp`, path);
    try {
      await kit.hub.shutdown();
      assert.equal(readFileSync(path, 'utf8'), foreign, 'the foreign lock file survives our shutdown, unchanged');
    } finally {
      await kit.dispose();
    }

    const own = await startIdeHub();
    const ownPath = join(own.lockDir, `${own.port}.lock`);
    assert.ok(existsSync(ownPath));
    await own.dispose();
    assert.equal(existsSync(ownPath), false, 'our own is removed');
  });

  it('at start never replaces a lock file someone else has at the port it bound: it binds another port and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-ide-taken-'));
    const lockDir = join(dir, 'ide');
    mkdirSync(lockDir, { mode: 0o700 });
    const taken = await freePort();
    // Another IDE's lock file (its pid alive: this test's parent), at the first port the bridge binds.
    const foreign = JSON.stringify({ pid: process.ppid, workspaceFolders: ['/elsewhere'], ideName: 'Visual Studio Code', transport: 'ws', runningInWindows: false, authToken: 'c'.repeat(32) });
    writeFileSync(join(lockDir, `${taken}.lock`), foreign);
    const lines: string[] = [];
    const ptyHost = new PtyHost({ logger: nullLogger, defaultCwd: dir });
    const archive = new ReviewArchive({ path: null, logger: nullLogger });
    const queue = new ReviewQueue({ archive, workspaceFolders: [dir], logger: nullLogger });
    const editors = new EditorState({ terminalName: () => undefined });
    const tried: number[] = [];
    const bridge = new IdeBridge({
      queue,
      editors,
      ptyHost,
      workspaceFolders: [dir],
      lockDir,
      version: 'test',
      logger: createLogger({ level: 'info', sink: (line) => lines.push(line) }),
      openFile: () => {},
      saveEditorText: async () => {},
      choosePort: (attempt) => {
        tried.push(attempt);
        return attempt === 1 ? taken : 0;
      },
    });
    try {
      await bridge.listen();
      assert.deepEqual(tried, [1, 2]);
      assert.notEqual(bridge.port, taken);
      assert.equal(readFileSync(join(lockDir, `${taken}.lock`), 'utf8'), foreign, 'the foreign lock file is untouched');
      assert.equal(bridge.lockFile, join(lockDir, `${bridge.port}.lock`));
      assert.equal(JSON.parse(readFileSync(bridge.lockFile!, 'utf8')).pid, process.pid);
      const warning = lines.find((line) => line.includes('WARN') && line.includes(`${taken}.lock`));
      assert.ok(warning, lines.join('\n'));
      assert.match(warning, /not ours/);
      // Nothing listens on the port we gave up.
      await assert.rejects(new Promise((resolve, reject) => createConnection(taken, '127.0.0.1').once('connect', resolve).once('error', reject)), /ECONNREFUSED/);
    } finally {
      bridge.dispose();
      queue.dispose();
      archive.dispose();
      editors.dispose();
      ptyHost.dispose();
    }
    assert.deepEqual(lockFilesIn(lockDir), [`${taken}.lock`], 'ours removed on dispose, the foreign one left');
    rmSync(dir, { recursive: true, force: true });
  });

  it('never writes into a real home from tests: a test Hub without CLAUDE_CONFIG_DIR writes no lock file', async () => {
    const temp = createTempHome('sb-ide-nolock-');
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: { HOME: temp.home }, clawsCompatSockets: false });
    try {
      await hub.start();
      assert.equal(hub.ideBridge.lockFile, null);
      assert.ok(hub.ideBridge.port, 'the bridge still listens (panes still get its port)');
      assert.equal(existsSync(join(temp.home, '.claude')), false);
    } finally {
      await hub.shutdown();
      temp.dispose();
    }
  });

  it('an app Hub uses ~/.claude/ide of its HOME when CLAUDE_CONFIG_DIR is not set', async () => {
    const temp = createTempHome('sb-ide-home-');
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'browser', logger: nullLogger, env: { HOME: temp.home }, clawsCompatSockets: false });
    try {
      await hub.start();
      assert.equal(hub.ideBridge.lockFile, join(temp.home, '.claude', 'ide', `${hub.ideBridge.port}.lock`));
      assert.ok(existsSync(hub.ideBridge.lockFile!));
    } finally {
      await hub.shutdown();
      temp.dispose();
    }
  });
});
