import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { nullLogger } from '../../../../src/node/logger.ts';
import { controlTokensFilePath, TokenStore } from '../../../../src/node/control/tokenStore.ts';
import type { ApiError } from '../../../../src/common/api/errors.ts';
import { ControlConstants } from '../../../../src/common/constants.ts';

describe('TokenStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-tokens-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const filePath = controlTokensFilePath(dir);
  let now = 1_000_000;
  const open = () => new TokenStore({ filePath, logger: nullLogger, now: () => now });

  it('stores only a SHA-256 of the secret, in a 0600 file, and verifies it after a reload', async () => {
    const store = open();
    await store.load();
    const { token, secret } = await store.create({ name: 'ci', scopes: ['read'], terminals: ['t1'] });
    const text = readFileSync(filePath, 'utf8');
    assert.ok(!text.includes(secret), 'the secret is not on disk');
    assert.ok(!text.includes(secret.slice(4)), 'not even without its prefix');
    assert.equal(statSync(filePath).mode & 0o777, 0o600);
    const reloaded = open();
    await reloaded.load();
    const verified = reloaded.verify(secret);
    assert.ok(verified.ok);
    assert.deepEqual(verified.token, token);
    assert.equal(reloaded.verify(secret + 'x').ok, false);
    assert.equal(reloaded.verify('').ok, false);
    assert.ok(!('secretSha256' in reloaded.list()[0]!));
  });

  it('expires tokens', async () => {
    const store = open();
    await store.load();
    const { secret } = await store.create({ name: 'short', scopes: ['drive'], expiresInDays: 1 });
    assert.equal(store.verify(secret).ok, true);
    now += 24 * 60 * 60 * 1000 + 1;
    assert.equal(store.verify(secret).ok, false);
  });

  it('revokes tokens, persistently', async () => {
    const store = open();
    await store.load();
    const { token, secret } = await store.create({ name: 'gone', scopes: ['drive'] });
    const revoked = await store.revoke(token.id);
    assert.equal(revoked?.revokedAt, now);
    assert.equal(store.verify(secret).ok, false);
    assert.equal(await store.revoke('nope'), null);
    const reloaded = open();
    await reloaded.load();
    assert.equal(reloaded.verify(secret).ok, false);
    assert.equal(reloaded.list().find((t) => t.id === token.id)?.revokedAt, now);
  });
  it('follows restored panes to their new ids, persistently, and leaves the ids of gone terminals alone', async () => {
    const store = open();
    await store.load();
    const { token, secret } = await store.create({ name: 'panes', scopes: ['drive'], terminals: ['t-old1', 't-old2'] });
    const unlimited = await store.create({ name: 'all', scopes: ['read'] });
    await store.followRestoredTerminals(new Map([['t-old1', 't-new1'], ['t-other', 't-new9']]));
    assert.deepEqual(store.get(token.id)?.terminals, ['t-new1', 't-old2']);
    assert.equal(store.get(unlimited.token.id)?.terminals, null);
    const reloaded = open();
    await reloaded.load();
    assert.deepEqual(reloaded.get(token.id)?.terminals, ['t-new1', 't-old2']);
    const verified = reloaded.verify(secret);
    assert.ok(verified.ok && verified.token.terminals?.includes('t-new1'));
  });
  it('keeps at most maxStoredTokens: the oldest revoked or expired go first; when all are good, TOKEN_LIMIT', async () => {
    const capDir = mkdtempSync(join(tmpdir(), 'sb-tokens-cap-'));
    try {
      const store = new TokenStore({ filePath: controlTokensFilePath(capDir), logger: nullLogger, now: () => now });
      await store.load();
      const max = ControlConstants.maxStoredTokens;
      const made: string[] = [];
      for (let index = 0; index < max; index++) made.push((await store.create({ name: `t${index}`, scopes: ['read'] })).token.id);
      await assert.rejects(store.create({ name: 'one more', scopes: ['read'] }), (error: ApiError) => error.code === 'TOKEN_LIMIT' && new RegExp(`${max} access tokens exist and all are still good.*revoke one first`).test(error.message));
      assert.equal(store.list().length, max, 'nothing was added or dropped');
      await store.revoke(made[10]!);
      await store.revoke(made[3]!);
      const { secret } = await store.create({ name: 'after a revoke', scopes: ['read'] });
      assert.equal(store.verify(secret).ok, true);
      const names = store.list().map((token) => token.name);
      assert.equal(names.length, max);
      assert.ok(!names.includes('t3') && names.includes('t10'), 'the oldest revoked one made room; the other stays listed');
      const reloaded = new TokenStore({ filePath: controlTokensFilePath(capDir), logger: nullLogger, now: () => now });
      await reloaded.load();
      assert.equal(reloaded.list().length, max);
    } finally {
      rmSync(capDir, { recursive: true, force: true });
    }
  });
});
