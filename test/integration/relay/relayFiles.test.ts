/**
 * browseDir / readFile / mkDir confined to the shared workspace folders, on a real file system:
 * `..`, symlinks out of the root, blocked directories and files, pagination, and the same through
 * a real relay.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileAccess } from '../../../src/node/relay/fileAccess.ts';
import type { RelayClient } from '../../../src/node/relay/relayClient.ts';
import { connectClient, startTestHub, startTestRelay, type TestHub, type TestRelay, TestViewer, waitConnected } from './relayTestKit.ts';

describe('relay files: scope rules (real file system)', () => {
  let root: string;
  let workspace: string;
  let outside: string;
  let home: string;
  let files: FileAccess;

  before(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-relay-files-')));
    workspace = join(root, 'workspace');
    outside = join(root, 'outside');
    home = join(root, 'home');
    for (const dir of [workspace, outside, home, join(workspace, 'src'), join(workspace, 'zeta-dir'), join(workspace, '.ssh'), join(workspace, 'nested', '.config')]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(workspace, 'README.md'), '# hello\n');
    writeFileSync(join(workspace, 'alpha.txt'), 'a');
    writeFileSync(join(workspace, '.ssh', 'id_ed25519'), 'secret');
    writeFileSync(join(workspace, 'nested', '.config', 'token'), 'secret');
    writeFileSync(join(workspace, 'binary.bin'), Buffer.from([1, 2, 0, 3]));
    writeFileSync(join(workspace, 'big.txt'), 'é'.repeat(400_000)); // 800 000 bytes
    writeFileSync(join(outside, 'secret.txt'), 'outside');
    symlinkSync(outside, join(workspace, 'escape'));
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'escape.txt'));
    symlinkSync(join(workspace, 'src'), join(workspace, 'src-link'));
    files = new FileAccess({ roots: [workspace], homeDir: home });
  });

  after(() => rmSync(root, { recursive: true, force: true }));

  it('lists a shared folder: directories first, then by name, without blocked entries, with sizes and times', async () => {
    const result = await files.browseDir(workspace, {});
    assert.ok(result.ok, !result.ok ? result.error : '');
    const names = result.entries.map((entry) => entry.name);
    assert.deepEqual(names, ['escape', 'nested', 'src', 'src-link', 'zeta-dir', 'README.md', 'alpha.txt', 'big.txt', 'binary.bin', 'escape.txt']);
    assert.equal(result.hasMore, false);
    const readme = result.entries.find((entry) => entry.name === 'README.md')!;
    assert.deepEqual({ ...readme, modifiedAt: readme.modifiedAt.length }, { name: 'README.md', path: join(workspace, 'README.md'), isDirectory: false, size: 8, modifiedAt: 20 });
  });

  it('pages with limit and a decimal cursor', async () => {
    const first = await files.browseDir(workspace, { limit: 4 });
    assert.ok(first.ok);
    assert.equal(first.entries.length, 4);
    assert.equal(first.hasMore, true);
    assert.equal(first.nextCursor, '4');
    const second = await files.browseDir(workspace, { limit: 4, cursor: first.nextCursor });
    assert.ok(second.ok);
    assert.deepEqual(second.entries.map((entry) => entry.name), ['zeta-dir', 'README.md', 'alpha.txt', 'big.txt']);
    const bad = await files.browseDir(workspace, { cursor: 'x' });
    assert.deepEqual(bad, { ok: false, error: 'invalid cursor "x": expected a decimal offset' });
  });

  it('refuses `..`, relative paths, symlinks out of the root and paths outside it', async () => {
    assert.deepEqual(await files.browseDir(`${workspace}/src/..`, {}), { ok: false, error: `path "${workspace}/src/.." is blocked` });
    assert.deepEqual(await files.readFile(`${workspace}/../outside/secret.txt`, {}), { ok: false, error: `path "${workspace}/../outside/secret.txt" is blocked` });
    assert.deepEqual(await files.browseDir('workspace', {}), { ok: false, error: 'path "workspace" must be absolute' });
    assert.deepEqual(await files.browseDir(join(workspace, 'escape'), {}), { ok: false, error: `path "${join(workspace, 'escape')}" is outside allowed root "${workspace}"` });
    assert.deepEqual(await files.readFile(join(workspace, 'escape.txt'), {}), { ok: false, error: `path "${join(workspace, 'escape.txt')}" is outside allowed root "${workspace}"` });
    assert.deepEqual(await files.browseDir(outside, {}), { ok: false, error: `path "${outside}" is outside allowed root "${workspace}"` });
    assert.deepEqual(await files.readFile('~/x', {}), { ok: false, error: 'path "~/x" does not exist' });
    // A symlink that stays inside the root is fine.
    const inside = await files.browseDir(join(workspace, 'src-link'), {});
    assert.ok(inside.ok);
  });

  it('refuses blocked directories and files, also when reached through a symlink', async () => {
    assert.deepEqual(await files.browseDir(join(workspace, '.ssh'), {}), { ok: false, error: `path "${join(workspace, '.ssh')}" is blocked` });
    assert.deepEqual(await files.readFile(join(workspace, 'nested', '.config', 'token'), {}), { ok: false, error: `path "${join(workspace, 'nested', '.config', 'token')}" is blocked` });
    assert.deepEqual(await files.readFile('/etc/shadow', {}), { ok: false, error: 'path "/etc/shadow" is blocked' });
    symlinkSync(join(workspace, '.ssh'), join(workspace, 'keys'));
    try {
      assert.deepEqual(await files.browseDir(join(workspace, 'keys'), {}), { ok: false, error: `path "${join(workspace, 'keys')}" is blocked` });
    } finally {
      rmSync(join(workspace, 'keys'));
    }
    assert.deepEqual(await files.mkDir(join(workspace, '.aws')), { ok: false, error: `path "${join(workspace, '.aws')}" is blocked` });
  });

  it('reads text files, caps them without splitting a UTF-8 char, and refuses binary files', async () => {
    assert.deepEqual(await files.readFile(join(workspace, 'README.md'), {}), { ok: true, content: '# hello\n', truncated: false });
    const big = await files.readFile(join(workspace, 'big.txt'), {});
    assert.ok(big.ok);
    assert.equal(big.truncated, true);
    assert.equal(Buffer.byteLength(big.content), 512 * 1024);
    assert.ok(!big.content.includes('\ufffd'));
    const small = await files.readFile(join(workspace, 'big.txt'), { maxBytes: 5 });
    assert.deepEqual(small, { ok: true, content: 'éé', truncated: true });
    assert.deepEqual(await files.readFile(join(workspace, 'binary.bin'), {}), { ok: false, error: `path "${join(workspace, 'binary.bin')}" is not a text file` });
    assert.deepEqual(await files.readFile(join(workspace, 'src'), {}), { ok: false, error: `path "${join(workspace, 'src')}" is not a file` });
  });

  it('creates a directory inside the root only', async () => {
    assert.deepEqual(await files.mkDir(join(workspace, 'made')), { ok: true });
    assert.ok(existsSync(join(workspace, 'made')));
    assert.deepEqual(await files.mkDir(join(workspace, 'made')), { ok: false, error: `path "${join(workspace, 'made')}" already exists` });
    assert.deepEqual(await files.mkDir(join(workspace, 'escape', 'new')), { ok: false, error: `path "${join(workspace, 'escape', 'new')}" is outside allowed root "${workspace}"` });
    assert.ok(!existsSync(join(outside, 'new')));
    assert.deepEqual(await files.mkDir(join(workspace, 'no', 'parent')), { ok: false, error: `path "${join(workspace, 'no', 'parent')}" does not exist` });
  });
});

describe('relay files: through the relay', () => {
  let relay: TestRelay;
  let hub: TestHub;
  let client: RelayClient;
  let viewer: TestViewer;

  before(async () => {
    relay = await startTestRelay({ machines: ['m1'] });
    hub = await startTestHub();
    writeFileSync(join(hub.temp.workspace, 'notes.txt'), 'remote notes\n');
    client = connectClient(hub.hub, relay.url, 'm1', relay.tokens.get('m1')!.daemonToken);
    await waitConnected(client);
    viewer = await TestViewer.connect(relay, 'm1', relay.tokens.get('m1')!.viewerToken);
  });

  after(async () => {
    await viewer.close();
    client.dispose();
    hub.dispose();
    await relay.close();
  });

  it('browses, reads and creates inside the shared workspace folder and refuses the rest', async () => {
    const listing = await viewer.request('browseDir', { machineId: 'm1', path: hub.temp.workspace });
    assert.equal(listing.type, 'browseDirResult');
    assert.deepEqual(listing.type === 'browseDirResult' && listing.entries?.map((entry) => entry.name), ['notes.txt']);
    const read = await viewer.request('readFile', { machineId: 'm1', path: join(hub.temp.workspace, 'notes.txt') });
    assert.deepEqual(read.type === 'readFileResult' && [read.ok, read.content], [true, 'remote notes\n']);
    const made = await viewer.request('mkDir', { machineId: 'm1', path: join(hub.temp.workspace, 'from-remote') });
    assert.deepEqual(made.type === 'mkDirResult' && made.ok, true);
    assert.ok(existsSync(join(hub.temp.workspace, 'from-remote')));
    const refused = await viewer.request('readFile', { machineId: 'm1', path: '/etc/passwd' });
    assert.deepEqual(refused.type === 'readFileResult' && [refused.ok, refused.error], [false, `path "/etc/passwd" is outside allowed root "${hub.temp.workspace}"`]);
  });
});
