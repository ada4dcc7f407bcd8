import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { controlSocketPath, defaultUserDataDir, ensurePrivateDir, resolveDataDir, writePrivateFileAtomic } from '../../../src/node/paths.ts';
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
});
