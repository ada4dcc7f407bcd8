/**
 * Owner and mode of the data dir's files the app acts on (docs/security.md §10): settings.json
 * names the commands agent profiles run, control-tokens.json decides who may use the socket. One
 * that group or others may write to is made 0600 before it is read, with a warning; one owned by
 * another user is not read at all and is kept aside. A real Hub; the other user is real (as root).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../src/node/hub.ts';
import { createLogger } from '../../../src/node/logger.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { RelayTokenStore, relayTokenFilePath } from '../../../src/node/relay/relayTokenStore.ts';
import { NdjsonClient } from '../control/controlTestKit.ts';
import { otherUserOrSkip } from './otherUser.ts';

const secret = `sbt_${'k'.repeat(43)}`;

/** A data dir holding settings (token auth on, font size 20) and one token for `secret`, with the given mode. */
function writeDataFiles(dataDir: string, mode: number): { settings: string; tokens: string } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const settings = join(dataDir, 'settings.json');
  const tokens = join(dataDir, 'control-tokens.json');
  writeFileSync(settings, JSON.stringify({ controlTokenAuth: true, fontSize: 20 }));
  const token = { id: 'planted', name: 'planted', scopes: ['drive'], terminals: null, createdAt: 0, expiresAt: null, revokedAt: null, secretSha256: createHash('sha256').update(secret).digest('hex') };
  writeFileSync(tokens, JSON.stringify({ version: 1, tokens: [token] }));
  chmodSync(settings, mode);
  chmodSync(tokens, mode);
  return { settings, tokens };
}

async function startHub(t: TestContext, temp: ReturnType<typeof createTempHome>) {
  const lines: string[] = [];
  const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: createLogger({ level: 'warn', sink: (line) => lines.push(line) }), env: {}, clawsCompatSockets: false });
  t.after(() => hub.dispose());
  await hub.start();
  const api = createLocalHubClient(hub);
  t.after(() => api.dispose());
  return { hub, api, lines };
}

describe('data dir files: owner and mode', () => {
  it('makes a settings.json and control-tokens.json that others may write 0600 before reading them, and says so', async (t) => {
    const temp = createTempHome('sb-sec-files-');
    t.after(() => temp.dispose());
    const files = writeDataFiles(temp.dataDir, 0o666);
    const { hub, api, lines } = await startHub(t, temp);
    assert.equal(statSync(files.settings).mode & 0o777, 0o600);
    assert.equal(statSync(files.tokens).mode & 0o777, 0o600);
    for (const what of ['settings file', 'control tokens file']) {
      const warning = lines.find((line) => line.includes(`${what} was writable by other users; made it 0600`));
      assert.ok(warning, `${what}: ${lines.join('\n')}`);
      assert.match(warning, /"mode":"666"/);
    }
    // Then used: they are the user's own.
    const { settings } = await api.call('app.getState', {});
    assert.deepEqual([settings.controlTokenAuth, settings.fontSize], [true, 20]);
    const client = await NdjsonClient.connect(hub.controlSocketPath);
    t.after(() => client.close());
    assert.equal((await client.request({ cmd: 'auth', token: secret })).ok, true);
  });

  it('tidies a file only others may read (0644, as an editor makes it) to 0600 without a warning', async (t) => {
    const temp = createTempHome('sb-sec-files-');
    t.after(() => temp.dispose());
    const files = writeDataFiles(temp.dataDir, 0o644);
    const { lines } = await startHub(t, temp);
    assert.equal(statSync(files.settings).mode & 0o777, 0o600);
    assert.equal(statSync(files.tokens).mode & 0o777, 0o600);
    assert.deepEqual(lines.filter((line) => line.includes('made it 0600')), []);
  });

  it('makes a loose relay-token 0600 when it reads it, and says so without the token', async (t) => {
    const temp = createTempHome('sb-sec-files-');
    t.after(() => temp.dispose());
    mkdirSync(temp.dataDir, { recursive: true, mode: 0o700 });
    const token = `sbrd_${'r'.repeat(43)}`;
    const file = relayTokenFilePath(temp.dataDir);
    writeFileSync(file, `${token}\n`);
    chmodSync(file, 0o644);
    const lines: string[] = [];
    const store = new RelayTokenStore({ dataDir: temp.dataDir, logger: createLogger({ level: 'trace', sink: (line) => lines.push(line) }) });
    assert.equal(await store.load(), token);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(lines.some((line) => line.includes('the relay token file was readable by others; made it 0600')), lines.join('\n'));
    assert.ok(!lines.some((line) => line.includes(token)), 'the warning does not carry the token');
  });

  it('reads neither file when another user owns it: defaults and no tokens (fails closed), both kept aside untouched', async (t) => {
    const other = otherUserOrSkip(t);
    if (!other) return;
    const temp = createTempHome('sb-sec-files-');
    t.after(() => temp.dispose());
    const files = writeDataFiles(temp.dataDir, 0o644);
    const before = { settings: readFileSync(files.settings, 'utf8'), tokens: readFileSync(files.tokens, 'utf8') };
    chownSync(files.settings, other.uid, other.gid);
    chownSync(files.tokens, other.uid, other.gid);
    const { hub, api, lines } = await startHub(t, temp);

    const { settings } = await api.call('app.getState', {});
    assert.deepEqual([settings.controlTokenAuth, settings.fontSize], [false, 13], 'defaults, not the other user\'s settings');
    assert.deepEqual(await api.call('tokens.list', {}), []);
    for (const [what, file] of [['settings file', 'settings.json'], ['control tokens file', 'control-tokens.json']] as const) {
      const warning = lines.find((line) => line.includes(`${what} belongs to another user`));
      assert.ok(warning, `${what}: ${lines.join('\n')}`);
      assert.ok(warning.includes(`is owned by uid ${other.uid}, not by this user`), warning);
      const aside = readdirSync(temp.dataDir).filter((name) => name.startsWith(`${file}.untrusted-`));
      assert.equal(aside.length, 1, `${file} is kept aside: ${readdirSync(temp.dataDir).join(', ')}`);
      const info = statSync(join(temp.dataDir, aside[0]!));
      assert.deepEqual([info.uid, info.mode & 0o777], [other.uid, 0o644], 'untouched');
      assert.equal(readFileSync(join(temp.dataDir, aside[0]!), 'utf8'), file === 'settings.json' ? before.settings : before.tokens);
    }
    // With auth switched on by the user, the planted token is still nobody's.
    await api.call('settings.update', { controlTokenAuth: true });
    assert.equal(statSync(files.settings).uid, process.getuid!(), 'a new settings.json of the user\'s own');
    const client = await NdjsonClient.connect(hub.controlSocketPath);
    t.after(() => client.close());
    assert.equal((await client.request({ cmd: 'auth', token: secret })).error, 'auth:invalid');
  });
});
