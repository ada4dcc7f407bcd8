/**
 * Token scopes at their edges (docs/security.md §2, §3): a terminal-limited drive token and token
 * management, token auth over a claws socket, a token that expires or is revoked on a live
 * connection (its requests and its subscriptions), and a control-tokens.json that is not valid.
 * A real Hub, raw NDJSON clients.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../src/node/hub.ts';
import { createLogger } from '../../../src/node/logger.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { NdjsonClient, startTestHub, type Frame } from '../control/controlTestKit.ts';

async function hubWithAuth(t: TestContext, options: { clawsCompatSockets?: boolean } = {}) {
  const testHub = await startTestHub(options);
  t.after(() => testHub.dispose());
  const api = createLocalHubClient(testHub.hub);
  t.after(() => api.dispose());
  await api.call('settings.update', { controlTokenAuth: true });
  return { testHub, api };
}

/** The output a client got pushed for `terminal.<id>.output`, decoded. */
function pushedOutput(client: NdjsonClient, terminalId: string): string {
  return client.frames
    .filter((frame) => frame.push === 'message' && frame.topic === `terminal.${terminalId}.output` && typeof frame.payload?.data === 'string')
    .map((frame) => Buffer.from(frame.payload.data as string, 'base64').toString('utf8'))
    .join('');
}

/**
 * `watcher` (a live subscriber) has seen `marker`; a ping answered on `client` afterwards proves
 * every frame written to `client` before then has arrived too.
 */
async function settle(client: NdjsonClient): Promise<Frame> {
  return client.request({ cmd: 'ping' });
}

/** The secret of a test token named `name` (well-formed: `sbt_` and 43 characters). */
function tokenSecret(name: string): string {
  return `sbt_${name.padEnd(43, 'x')}`;
}

/**
 * A Hub (not started) with token auth on and these drive tokens in control-tokens.json, written
 * as the app writes them; `tokenClock` is the clock they expire by.
 */
function createHubWithTokenFile(temp: { dataDir: string; workspace: string }, tokens: Array<{ id: string; expiresAt: number | null }>, tokenClock?: () => number) {
  const stored = tokens.map(({ id, expiresAt }) => ({
    id,
    name: id,
    scopes: ['drive'],
    terminals: null,
    createdAt: Date.now(),
    expiresAt,
    revokedAt: null,
    secretSha256: createHash('sha256').update(tokenSecret(id)).digest('hex'),
  }));
  writeFileSync(join(temp.dataDir, 'control-tokens.json'), JSON.stringify({ version: 1, tokens: stored }), { mode: 0o600 });
  writeFileSync(join(temp.dataDir, 'settings.json'), JSON.stringify({ controlTokenAuth: true }), { mode: 0o600 });
  const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: createLogger({ level: 'silent' }), env: {}, clawsCompatSockets: false, tokenClock });
  return { hub, client: createLocalHubClient(hub) };
}

describe('token scopes at their edges', () => {
  it('refuses token management to a drive token limited to terminals: it cannot list, mint or revoke', async (t) => {
    const { testHub, api } = await hubWithAuth(t, { clawsCompatSockets: false });
    const terminal = (await api.call('terminal.create', { file: '/bin/sh' })).id;
    const other = await api.call('tokens.create', { name: 'other', scopes: ['read'] });
    const limited = await api.call('tokens.create', { name: 'limited driver', scopes: ['drive'], terminals: [terminal] });
    const client = await testHub.connect();
    assert.equal((await client.request({ cmd: 'auth', token: limited.secret })).ok, true);
    assert.equal((await client.request({ cmd: 'send', terminalId: terminal, text: 'true' })).ok, true, 'it does drive its terminal');
    assert.equal((await client.request({ cmd: 'tokens.list' })).error, 'auth:forbidden tokens.list');
    assert.equal((await client.request({ cmd: 'tokens.create', name: 'wider', scopes: ['drive'] })).error, 'auth:forbidden tokens.create');
    assert.equal((await client.request({ cmd: 'tokens.revoke', tokenId: other.token.id })).error, 'auth:forbidden tokens.revoke');
    const tokens = await api.call('tokens.list', {});
    assert.deepEqual(tokens.map((token) => [token.name, token.revokedAt]).sort(), [['limited driver', null], ['other', null]], 'nothing was minted or revoked');
  });

  it('enforces token auth on a claws socket exactly as on the control socket', async (t) => {
    const { testHub, api } = await hubWithAuth(t);
    const terminal = (await api.call('terminal.create', { file: '/bin/sh' })).id;
    const claws = join(testHub.workspace, '.claws', 'claws.sock');
    const client = await testHub.connect(claws);
    assert.equal((await client.request({ cmd: 'ping' })).ok, true);
    assert.equal((await client.request({ cmd: 'list' })).error, 'auth:required');
    assert.equal((await client.request({ cmd: 'exec', terminalId: terminal, command: 'echo no' })).error, 'auth:required');
    assert.equal((await client.request({ cmd: 'auth', token: 'sbt_wrong' })).error, 'auth:invalid');
    const reader = await api.call('tokens.create', { name: 'reader', scopes: ['read'] });
    assert.equal((await client.request({ cmd: 'auth', token: reader.secret })).ok, true);
    assert.equal((await client.request({ cmd: 'list' })).ok, true);
    assert.equal((await client.request({ cmd: 'send', terminalId: terminal, text: 'echo no' })).error, 'auth:forbidden send');
    const hello = await (await testHub.connect(claws)).request({ cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: 'x', token: 'sbt_wrong' });
    assert.equal(hello.error, 'auth:invalid');
  });

  it('cuts off a connection whose token is revoked or expires while it is connected: its requests and its subscriptions', async (t) => {
    const temp = createTempHome('sb-sec-expiry-');
    t.after(() => temp.dispose());
    mkdirSync(temp.dataDir, { recursive: true, mode: 0o700 });
    // Tokens written as the app writes them; one expires a few seconds after the Hub starts.
    const secret = tokenSecret;
    const expiresAt = Date.now() + 6_000;
    const { hub, client: api } = createHubWithTokenFile(temp, [{ id: 'expiring', expiresAt }, { id: 'revoked', expiresAt: null }, { id: 'watcher', expiresAt: null }]);
    t.after(() => hub.dispose());
    await hub.start();
    t.after(() => api.dispose());
    const terminal = (await api.call('terminal.create', { file: '/bin/sh' })).id;

    const subscribed = async (name: string) => {
      const client = await NdjsonClient.connect(hub.controlSocketPath);
      t.after(() => client.close());
      const hello = await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: name, token: secret(name) });
      assert.equal(hello.ok, true, JSON.stringify(hello));
      const subscription = await client.request({ cmd: 'subscribe', topic: `terminal.${terminal}.output` });
      assert.equal(subscription.ok, true, JSON.stringify(subscription));
      return client;
    };
    const expiring = await subscribed('expiring');
    const revoked = await subscribed('revoked');
    const watcher = await subscribed('watcher');
    const type = async (marker: string) => {
      await api.call('terminal.write', { id: terminal, data: `echo ${marker}\n` });
      await watcher.waitFor(() => pushedOutput(watcher, terminal).includes(marker), 10_000, `${marker} on the watcher`);
    };
    assert.ok(Date.now() < expiresAt - 1_000, 'the setup took too long to see the token before it expires');
    await type('BEFORE1');
    for (const client of [expiring, revoked]) {
      await settle(client);
      assert.ok(pushedOutput(client, terminal).includes('BEFORE1'), 'both see output while their tokens are good');
      assert.equal((await client.request({ cmd: 'list' })).ok, true);
    }

    await api.call('tokens.revoke', { id: 'revoked' });
    assert.equal((await revoked.request({ cmd: 'list' })).error, 'auth:invalid');
    await type('AFTERREVOKE');
    await settle(revoked);
    assert.ok(!pushedOutput(revoked, terminal).includes('AFTERREVOKE'), 'no output reaches a revoked token\'s subscription');

    // Expiry: waited for by asking, as a client would; the token is good until then.
    const refusal = await (async () => {
      for (;;) {
        const answer = await expiring.request({ cmd: 'list' });
        if (!answer.ok) return answer;
        assert.ok(Date.now() < expiresAt + 1_000, 'still accepted a second after it expired');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    assert.ok(Date.now() >= expiresAt, 'refused only once expired');
    assert.equal(refusal.error, 'auth:invalid');
    await type('AFTEREXPIRY');
    await settle(expiring);
    assert.ok(!pushedOutput(expiring, terminal).includes('AFTEREXPIRY'), 'no output reaches an expired token\'s subscription');
    // Refused once with auth:invalid, the connection has no token left: it must authenticate again.
    assert.equal((await expiring.request({ cmd: 'subscribe', topic: `terminal.${terminal}.output` })).error, 'auth:required');
  });

  it('pushes nothing to a subscription whose token has expired, even before the expiry timer has run', async (t) => {
    const temp = createTempHome('sb-sec-expired-push-');
    t.after(() => temp.dispose());
    mkdirSync(temp.dataDir, { recursive: true, mode: 0o700 });
    // The tokens' clock jumps an hour and a half ahead on demand: the token is expired for every
    // check, while the Hub's timer that cuts lapsed tokens off is still an hour away.
    let ahead = 0;
    const tokenClock = () => Date.now() + ahead;
    const api = createHubWithTokenFile(temp, [{ id: 'expiring', expiresAt: Date.now() + 3_600_000 }, { id: 'watcher', expiresAt: null }, { id: 'publisher', expiresAt: null }], tokenClock);
    t.after(() => api.hub.dispose());
    await api.hub.start();
    t.after(() => api.client.dispose());
    const terminal = (await api.client.call('terminal.create', { file: '/bin/sh' })).id;
    const subscribed = async (name: string) => {
      const client = await NdjsonClient.connect(api.hub.controlSocketPath);
      t.after(() => client.close());
      assert.equal((await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: name, token: tokenSecret(name) })).ok, true);
      assert.equal((await client.request({ cmd: 'subscribe', topic: `terminal.${terminal}.output` })).ok, true);
      assert.equal((await client.request({ cmd: 'subscribe', topic: 'agent.**' })).ok, true);
      return client;
    };
    const expiring = await subscribed('expiring');
    const watcher = await subscribed('watcher');
    const type = async (marker: string) => {
      await api.client.call('terminal.write', { id: terminal, data: `echo ${marker}\n` });
      await watcher.waitFor(() => pushedOutput(watcher, terminal).includes(marker), 10_000, `${marker} on the watcher`);
    };
    await type('BEFORE');
    await settle(expiring);
    assert.ok(pushedOutput(expiring, terminal).includes('BEFORE'), 'output reaches it while the token is good');

    ahead = 5_400_000;
    await type('AFTER');
    const publisher = await subscribed('publisher');
    assert.equal((await publisher.request({ cmd: 'publish', topic: 'agent.note', payload: { text: 'AFTERPUBLISH' } })).ok, true);
    await watcher.waitFor(() => watcher.frames.some((frame) => frame.topic === 'agent.note'), 10_000, 'the published message on the watcher');
    assert.equal((await expiring.request({ cmd: 'list' })).error, 'auth:invalid');
    assert.ok(!pushedOutput(expiring, terminal).includes('AFTER'), 'no terminal output reaches an expired token\'s subscription');
    assert.ok(!expiring.frames.some((frame) => frame.topic === 'agent.note'), 'no published message reaches it either');
  });

  it('keeps a token\'s limits on a connection that presents it while auth is off', async (t) => {
    const testHub = await startTestHub({ clawsCompatSockets: false });
    t.after(() => testHub.dispose());
    const api = createLocalHubClient(testHub.hub);
    t.after(() => api.dispose());
    const terminal = (await api.call('terminal.create', { file: '/bin/sh' })).id;
    const other = (await api.call('terminal.create', { file: '/bin/sh' })).id;
    const reader = await api.call('tokens.create', { name: 'reader', scopes: ['read'], terminals: [terminal] });
    const client = await testHub.connect();
    assert.equal((await client.request({ cmd: 'send', terminalId: terminal, text: 'true' })).ok, true, 'auth is off: no token, no limits');
    assert.equal((await client.request({ cmd: 'auth', token: reader.secret })).ok, true);
    assert.equal((await client.request({ cmd: 'readScreen', terminalId: terminal })).ok, true);
    assert.equal((await client.request({ cmd: 'send', terminalId: terminal, text: 'true' })).error, 'auth:forbidden send');
    assert.equal((await client.request({ cmd: 'readScreen', terminalId: other })).error, 'auth:forbidden readScreen');
    assert.equal((await client.request({ cmd: 'tokens.list' })).error, 'auth:forbidden tokens.list');
    const list = await client.request({ cmd: 'list' });
    assert.deepEqual(list.terminals.map((entry: { id: string }) => entry.id), [terminal]);
  });

  it('ends the subscriptions of clients that never authenticated when token auth is switched on', async (t) => {
    const testHub = await startTestHub({ clawsCompatSockets: false });
    t.after(() => testHub.dispose());
    const api = createLocalHubClient(testHub.hub);
    t.after(() => api.dispose());
    const terminal = (await api.call('terminal.create', { file: '/bin/sh' })).id;
    const subscribe = async (client: NdjsonClient, token?: string) => {
      assert.equal((await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: 'p', ...(token ? { token } : {}) })).ok, true);
      assert.equal((await client.request({ cmd: 'subscribe', topic: `terminal.${terminal}.output` })).ok, true);
    };
    const anonymous = await testHub.connect();
    await subscribe(anonymous);
    const reader = await api.call('tokens.create', { name: 'reader', scopes: ['read'] });
    const watcher = await testHub.connect();
    await subscribe(watcher, reader.secret);
    const type = async (marker: string) => {
      await api.call('terminal.write', { id: terminal, data: `echo ${marker}\n` });
      await watcher.waitFor(() => pushedOutput(watcher, terminal).includes(marker), 10_000, `${marker} on the watcher`);
      await settle(watcher);
    };
    await type('AUTHOFF');
    await anonymous.waitFor(() => pushedOutput(anonymous, terminal).includes('AUTHOFF'), 10_000, 'output while auth is off');
    await api.call('settings.update', { controlTokenAuth: true });
    await type('AUTHON');
    assert.equal((await anonymous.request({ cmd: 'ping' })).ok, true, 'still connected: ping stays open');
    assert.ok(!pushedOutput(anonymous, terminal).includes('AUTHON'), 'no output reaches a client without a token once auth is on');
    assert.equal((await anonymous.request({ cmd: 'subscribe', topic: `terminal.${terminal}.output` })).error, 'auth:required');
  });

  it('starts with no tokens and a warning when control-tokens.json is not valid, and refuses every token (fails closed)', async (t) => {
    for (const [what, contents] of [
      ['not JSON', '{"version": 1, "tokens": [ {'],
      ['a future version', JSON.stringify({ version: 2, tokens: [] })],
      ['a token with a bad hash', JSON.stringify({ version: 1, tokens: [{ id: 'a', name: 'a', scopes: ['drive'], terminals: null, createdAt: 0, expiresAt: null, revokedAt: null, secretSha256: 'nothex' }] })],
    ] as const) {
      const temp = createTempHome('sb-sec-badtokens-');
      t.after(() => temp.dispose());
      mkdirSync(temp.dataDir, { recursive: true, mode: 0o700 });
      writeFileSync(join(temp.dataDir, 'control-tokens.json'), contents, { mode: 0o600 });
      writeFileSync(join(temp.dataDir, 'settings.json'), JSON.stringify({ controlTokenAuth: true }), { mode: 0o600 });
      const lines: string[] = [];
      const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: createLogger({ level: 'warn', sink: (line) => lines.push(line) }), env: {}, clawsCompatSockets: false });
      t.after(() => hub.dispose());
      await hub.start();
      const warning = lines.find((line) => line.includes('control tokens file is invalid; starting with none'));
      assert.ok(warning, `${what}: ${lines.join('\n')}`);
      assert.ok(warning.includes(join(temp.dataDir, 'control-tokens.json')), warning);
      const api = createLocalHubClient(hub);
      t.after(() => api.dispose());
      assert.deepEqual(await api.call('tokens.list', {}), [], what);
      const client = await NdjsonClient.connect(hub.controlSocketPath);
      t.after(() => client.close());
      assert.equal((await client.request({ cmd: 'list' })).error, 'auth:required', what);
      assert.equal((await client.request({ cmd: 'auth', token: `sbt_${'a'.repeat(43)}` })).error, 'auth:invalid', what);
    }
  });
});
