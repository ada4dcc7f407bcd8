import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { controlSocketPath, defaultUserDataDir, ensurePrivateDir, resolveDataDir, UnsafeDirectoryError, writePrivateFileAtomic } from '../../../src/node/paths.ts';
import { createTempHome } from '../../helpers/tempHome.ts';

describe('paths: the data dir', () => {
  it('is SWITCHBOARD_HOME when set, made absolute', () => {
    assert.equal(resolveDataDir({ env: { SWITCHBOARD_HOME: '/srv/sb' }, platform: 'linux', homeDir: '/home/u' }), '/srv/sb');
    assert.equal(resolveDataDir({ env: { SWITCHBOARD_HOME: 'rel' }, platform: 'linux', homeDir: '/home/u' }), join(process.cwd(), 'rel'));
  });

  it("matches Electron's userData for each platform", () => {
    assert.equal(defaultUserDataDir({ env: {}, platform: 'linux', homeDir: '/home/u' }), '/home/u/.config/Switchboard');
    assert.equal(defaultUserDataDir({ env: { XDG_CONFIG_HOME: '/x/cfg' }, platform: 'linux', homeDir: '/home/u' }), '/x/cfg/Switchboard');
    assert.equal(defaultUserDataDir({ env: { XDG_CONFIG_HOME: 'relative' }, platform: 'linux', homeDir: '/home/u' }), '/home/u/.config/Switchboard');
    assert.equal(defaultUserDataDir({ env: {}, platform: 'darwin', homeDir: '/Users/u' }), '/Users/u/Library/Application Support/Switchboard');
    assert.equal(defaultUserDataDir({ env: { APPDATA: 'C:/Users/u/AppData/Roaming' }, platform: 'win32', homeDir: 'C:/Users/u' }), join('C:/Users/u/AppData/Roaming', 'Switchboard'));
  });

  it('puts the control socket in the data dir unless SWITCHBOARD_SOCKET overrides it', () => {
    assert.equal(controlSocketPath('/d', {}), '/d/control.sock');
    assert.equal(controlSocketPath('/d', { SWITCHBOARD_SOCKET: '/run/sb.sock' }), '/run/sb.sock');
  });
});

describe('paths: private files', () => {
  it('creates the dir 0700 and tightens a looser existing one', async (t) => {
    const temp = createTempHome();
    t.after(() => temp.dispose());
    const fresh = join(temp.dataDir, 'a', 'b');
    await ensurePrivateDir(fresh);
    assert.equal(statSync(fresh).mode & 0o777, 0o700);
    const loose = join(temp.home, 'loose');
    mkdirSync(loose, { mode: 0o755 });
    chmodSync(loose, 0o755);
    await ensurePrivateDir(loose);
    assert.equal(statSync(loose).mode & 0o777, 0o700);
  });

  it('with refuseLinks, refuses a symbolic link, a dangling link, a file and another user\'s directory, changing none of them; creates and tightens a real one', async (t) => {
    const temp = createTempHome();
    t.after(() => temp.dispose());
    const target = join(temp.home, 'target');
    mkdirSync(target, { mode: 0o755 });
    chmodSync(target, 0o755);
    const link = join(temp.workspace, 'link');
    symlinkSync(target, link);
    await assert.rejects(ensurePrivateDir(link, { refuseLinks: true }), (error: Error) => {
      assert.ok(error instanceof UnsafeDirectoryError);
      assert.equal(error.message, `${link} is a symbolic link; refusing to use it (nothing was changed there)`);
      return true;
    });
    assert.equal(statSync(target).mode & 0o777, 0o755);
    const dangling = join(temp.workspace, 'dangling');
    symlinkSync(join(temp.home, 'nowhere'), dangling);
    await assert.rejects(ensurePrivateDir(dangling, { refuseLinks: true }), /is a symbolic link/);
    assert.equal(existsSync(join(temp.home, 'nowhere')), false, 'nothing created where it points');
    const file = join(temp.workspace, 'file');
    writeFileSync(file, 'x');
    await assert.rejects(ensurePrivateDir(file, { refuseLinks: true }), /exists and is not a directory/);

    const fresh = join(temp.workspace, 'a', 'fresh');
    await ensurePrivateDir(fresh, { refuseLinks: true });
    assert.equal(statSync(fresh).mode & 0o777, 0o700);
    const loose = join(temp.workspace, 'loose');
    mkdirSync(loose, { mode: 0o755 });
    chmodSync(loose, 0o755);
    await ensurePrivateDir(loose, { refuseLinks: true });
    assert.equal(statSync(loose).mode & 0o777, 0o700);

    // Another user's directory: only root can make one to test with.
    if (process.getuid?.() === 0) {
      const foreign = join(temp.workspace, 'foreign');
      mkdirSync(foreign, { mode: 0o755 });
      chmodSync(foreign, 0o755);
      chownSync(foreign, 65534, 65534);
      await assert.rejects(ensurePrivateDir(foreign, { refuseLinks: true }), /is owned by uid 65534, not by this user \(uid 0\)/);
      assert.equal(statSync(foreign).mode & 0o777, 0o755);
    } else {
      t.diagnostic('not root: the foreign-owner case is not exercised');
    }
  });

  it('writes files 0600 atomically, leaving no temp file behind', async (t) => {
    const temp = createTempHome();
    t.after(() => temp.dispose());
    await ensurePrivateDir(temp.dataDir);
    const file = join(temp.dataDir, 'x.json');
    await writePrivateFileAtomic(file, 'one');
    await writePrivateFileAtomic(file, 'two');
    assert.equal(readFileSync(file, 'utf8'), 'two');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(temp.dataDir), ['x.json']);
  });

  it('with exclusive, never replaces what is already at the path (EEXIST), and leaves no temp file', async (t) => {
    const temp = createTempHome();
    t.after(() => temp.dispose());
    await ensurePrivateDir(temp.dataDir);
    const file = join(temp.dataDir, 'x.lock');
    await writePrivateFileAtomic(file, 'ours', { exclusive: true });
    assert.equal(readFileSync(file, 'utf8'), 'ours');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    writeFileSync(file, 'theirs');
    await assert.rejects(writePrivateFileAtomic(file, 'ours again', { exclusive: true }), { code: 'EEXIST' });
    assert.equal(readFileSync(file, 'utf8'), 'theirs');
    assert.deepEqual(readdirSync(temp.dataDir), ['x.lock']);
  });
});
