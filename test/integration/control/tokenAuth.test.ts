/**
 * Token auth over the real control socket (docs/protocol.md, "Access tokens"): a real Hub, raw
 * NDJSON clients, tokens created through the Hub API as the Settings view does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { startTestHub, type TestHub } from './controlTestKit.ts';

describe('control socket token auth', () => {
  let t: TestHub;
  let api: LocalHubClient;
  let terminalA: string;
  let terminalB: string;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    api = createLocalHubClient(t.hub);
    terminalA = (await api.call('terminal.create', { file: '/bin/sh' })).id;
    terminalB = (await api.call('terminal.create', { file: '/bin/sh' })).id;
  });
  after(async () => {
    api.dispose();
    await t.dispose();
  });

  it('with auth off, every command works without a token', async () => {
    const client = await t.connect();
    const list = await client.request({ cmd: 'list' });
    assert.equal(list.ok, true);
    const exec = await client.request({ cmd: 'exec', terminalId: terminalA, command: 'echo hi' });
    assert.equal(exec.ok, true, JSON.stringify(exec));
  });

  it('with auth on, refuses commands before auth, bad tokens, and verbs outside the scope', async () => {
    await api.call('settings.update', { controlTokenAuth: true });
    try {
      const read = await api.call('tokens.create', { name: 'reader', scopes: ['read'] });
      assert.match(read.secret, /^sbt_[A-Za-z0-9_-]{43}$/);
      const client = await t.connect();
      assert.equal((await client.request({ cmd: 'ping' })).ok, true, 'ping stays open');
      const before = await client.request({ cmd: 'list' });
      assert.deepEqual([before.ok, before.error], [false, 'auth:required']);
      const wrong = await client.request({ cmd: 'auth', token: 'sbt_nope' });
      assert.deepEqual([wrong.ok, wrong.error], [false, 'auth:invalid']);
      assert.equal((await client.request({ cmd: 'list' })).error, 'auth:required');
      const ok = await client.request({ cmd: 'auth', token: read.secret });
      assert.equal(ok.ok, true, JSON.stringify(ok));
      assert.equal((await client.request({ cmd: 'list' })).ok, true);
      assert.equal((await client.request({ cmd: 'readScreen', terminalId: terminalA })).ok, true);
      const exec = await client.request({ cmd: 'exec', terminalId: terminalA, command: 'echo no' });
      assert.deepEqual([exec.ok, exec.error], [false, 'auth:forbidden exec']);
      const mint = await client.request({ cmd: 'tokens.create', name: 'x', scopes: ['drive'] });
      assert.equal(mint.error, 'auth:forbidden tokens.create');

      // Revocation cuts off a connection that already authenticated.
      await api.call('tokens.revoke', { id: read.token.id });
      assert.equal((await client.request({ cmd: 'list' })).error, 'auth:invalid');
      const fresh = await t.connect();
      assert.equal((await fresh.request({ cmd: 'auth', token: read.secret })).error, 'auth:invalid');
    } finally {
      await api.call('settings.update', { controlTokenAuth: false });
    }
  });

  it('limits a token to its terminals', async () => {
    await api.call('settings.update', { controlTokenAuth: true });
    try {
      const { secret } = await api.call('tokens.create', { name: 'only A', scopes: ['drive'], terminals: [terminalA] });
      const client = await t.connect();
      assert.equal((await client.request({ cmd: 'auth', token: secret })).ok, true);
      const onA = await client.request({ cmd: 'exec', terminalId: terminalA, command: 'echo a' });
      assert.equal(onA.ok, true, JSON.stringify(onA));
      const onB = await client.request({ cmd: 'send', terminalId: terminalB, text: 'echo b' });
      assert.deepEqual([onB.ok, onB.error], [false, 'auth:forbidden send']);
      // claws quirk: the terminal in the request's own id.
      const byId = await client.request({ id: terminalB, cmd: 'readLog' });
      assert.equal(byId.error, 'auth:forbidden readLog');
      const list = await client.request({ cmd: 'list' });
      assert.deepEqual(list.terminals.map((terminal: { id: string }) => terminal.id), [terminalA]);
      assert.equal((await client.request({ cmd: 'create' })).error, 'auth:forbidden create');
      // Nor may it listen to another terminal's output or command events on the bus.
      const bus = await t.connect();
      assert.equal((await bus.request({ cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: 'limited', token: secret })).ok, true);
      for (const topic of [`terminal.${terminalB}.output`, `command.${terminalB}.end`, 'command.**', '**']) {
        assert.equal((await bus.request({ cmd: 'subscribe', topic })).error, 'auth:forbidden subscribe', topic);
      }
      assert.equal((await bus.request({ cmd: 'subscribe', topic: `command.${terminalA}.end` })).ok, true);
    } finally {
      await api.call('settings.update', { controlTokenAuth: false });
    }
  });

  it('limits a token to terminals given by name (spaces and all) or id prefix, and refuses a name no terminal has', async () => {
    await api.call('terminal.rename', { id: terminalB, name: 'web server' });
    const byName = await api.call('tokens.create', { name: 'by name', scopes: ['read'], terminals: ['web server', terminalA.slice(0, 6)] });
    assert.deepEqual(byName.token.terminals, [terminalB, terminalA], 'stored as ids, which follow restored panes');
    // The same rule on the socket.
    const client = await t.connect();
    const overSocket = await client.request({ cmd: 'tokens.create', name: 'socket', scopes: ['read'], terminals: ['web server'] });
    assert.deepEqual(overSocket.token?.terminals, [terminalB], JSON.stringify(overSocket));
    const typo = await client.request({ cmd: 'tokens.create', name: 'typo', scopes: ['read'], terminals: ['webserver'] });
    assert.deepEqual([typo.ok, typo.code, typo.error], [false, 'INVALID_PARAMS', 'cannot limit token "typo" to terminal "webserver": no open terminal has that id or name; did you mean "web server"?']);
    await assert.rejects(api.call('tokens.create', { name: 'nothing', scopes: ['read'], terminals: ['no such pane'] }), {
      message: 'cannot limit token "nothing" to terminal "no such pane": no open terminal has that id or name (give the id or name of an open terminal)',
    });
    // "t-" starts every id: ambiguous, and it says so.
    await assert.rejects(api.call('tokens.create', { name: 'vague', scopes: ['read'], terminals: ['t-'] }), /cannot limit token "vague" to terminal "t-": it matches \d+ terminals by id prefix .*; give the id$/);
    const names = (await api.call('tokens.list', {})).map((token) => token.name);
    assert.ok(!names.includes('typo') && !names.includes('nothing') && !names.includes('vague'), 'a refused token is not created');
  });

  it('accepts the token in a claws/2 hello, and refuses a wrong or missing one', async () => {
    await api.call('settings.update', { controlTokenAuth: true });
    try {
      const { secret } = await api.call('tokens.create', { name: 'bus', scopes: ['read'] });
      const client = await t.connect();
      const hello = await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'worker', peerName: 'w1', token: secret });
      assert.equal(hello.ok, true, JSON.stringify(hello));
      assert.equal((await client.request({ cmd: 'list' })).ok, true);
      const bad = await (await t.connect()).request({ cmd: 'hello', protocol: 'claws/2', role: 'worker', peerName: 'w2', token: 'sbt_x' });
      assert.equal(bad.error, 'auth:invalid');
      const bare = await (await t.connect()).request({ cmd: 'hello', protocol: 'claws/2', role: 'worker', peerName: 'w3' });
      assert.equal(bare.error, 'auth:required');
    } finally {
      await api.call('settings.update', { controlTokenAuth: false });
    }
  });
});
