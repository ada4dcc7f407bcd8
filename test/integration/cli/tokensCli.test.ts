/** `switchboard tokens` and `--token` / `$SWITCHBOARD_TOKEN` against a real Hub's control socket. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { startTestHub, type TestHub } from '../control/controlTestKit.ts';
import { runInProcess } from './cliHarness.ts';

describe('switchboard tokens', () => {
  let t: TestHub;
  let api: LocalHubClient;
  const cli = (argv: string[], env: NodeJS.ProcessEnv = {}) => runInProcess([...argv, '--socket', t.socketPath], { env });

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    api = createLocalHubClient(t.hub);
  });
  after(async () => {
    api.dispose();
    await t.dispose();
  });

  it('creates, lists and revokes tokens; with auth on, --token and SWITCHBOARD_TOKEN authenticate', async () => {
    const created = await cli(['tokens', 'create', 'agent', '--scope', 'drive', '--expires-days', '7', '--json']);
    assert.equal(created.status, 0, created.stderr);
    const { token, secret } = JSON.parse(created.stdout);
    assert.match(secret, /^sbt_/);
    const reader = await cli(['tokens', 'create', 'reader', '--scope', 'read']);
    assert.equal(reader.status, 0, reader.stderr);
    const readSecret = reader.stdout.trim();

    const listed = await cli(['tokens', 'list']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /^ID\s+NAME\s+SCOPE/);
    assert.match(listed.stdout, new RegExp(`${token.id}\\s+agent\\s+drive\\s+all\\s+\\S+\\s+\\d{4}-\\d\\d-\\d\\d\\s+active`));
    assert.ok(!listed.stdout.includes(secret));

    await api.call('settings.update', { controlTokenAuth: true });
    try {
      const refused = await cli(['ls']);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /auth:required — this Switchboard requires an access token: pass --token or set SWITCHBOARD_TOKEN/);
      assert.equal((await cli(['ls', '--token', readSecret])).status, 0);
      assert.equal((await cli(['ls'], { SWITCHBOARD_TOKEN: readSecret })).status, 0);
      const forbidden = await cli(['new'], { SWITCHBOARD_TOKEN: readSecret });
      assert.match(forbidden.stderr, /auth:forbidden create/);
      const readerCannotManage = await cli(['tokens', 'list', '--token', readSecret]);
      assert.match(readerCannotManage.stderr, /auth:forbidden tokens\.list/);

      const revoked = await cli(['tokens', 'revoke', token.id, '--json'], { SWITCHBOARD_TOKEN: secret });
      assert.equal(revoked.status, 0, revoked.stderr);
      assert.equal(typeof JSON.parse(revoked.stdout).revokedAt, 'number');
      const afterRevoke = await cli(['ls', '--token', secret]);
      assert.match(afterRevoke.stderr, /auth:invalid/);
    } finally {
      await api.call('settings.update', { controlTokenAuth: false });
    }
    const usage = await cli(['tokens', 'create', 'x', '--scope', 'admin']);
    assert.equal(usage.status, 2);
    const noScope = await cli(['tokens', 'create', 'x']);
    assert.equal(noScope.status, 2);
    assert.match(noScope.stderr, /--scope is required: read or drive/);
  });

  it('limits a token to terminals given by name or id prefix, and refuses an unknown one', async () => {
    const build = await api.call('terminal.create', { name: 'build-box', file: 'bash', args: ['--norc', '--noprofile'] });
    try {
      const byName = await cli(['tokens', 'create', 'limited', '--scope', 'read', '--terminal', 'build-box', '--terminal', build.id.slice(0, 6), '--json']);
      assert.equal(byName.status, 0, byName.stderr);
      assert.deepEqual(JSON.parse(byName.stdout).token.terminals, [build.id]);
      const unknown = await cli(['tokens', 'create', 'nothing', '--scope', 'read', '--terminal', 'no-such-terminal']);
      assert.equal(unknown.status, 1);
      assert.match(unknown.stderr, /no-such-terminal/);
      assert.ok(!(await cli(['tokens', 'list'])).stdout.includes('nothing'), 'no token was made');
    } finally {
      await api.call('terminal.close', { id: build.id });
    }
  });
});
