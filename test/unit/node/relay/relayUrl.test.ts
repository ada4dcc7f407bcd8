import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { daemonUrl, MachineId } from '../../../../src/node/relay/relayUrl.ts';
import { defaultMachineId } from '../../../../src/cli/commands/relay.ts';

describe('relay daemon URL', () => {
  it('appends /ws/daemon and the machine id, keeping the configured path prefix and query', () => {
    assert.equal(daemonUrl('wss://relay.example.com', 'box').toString(), 'wss://relay.example.com/ws/daemon?machineId=box');
    assert.equal(daemonUrl('wss://relay.example.com/', 'box').toString(), 'wss://relay.example.com/ws/daemon?machineId=box');
    assert.equal(daemonUrl('wss://example.com/relay/?region=eu', 'box').toString(), 'wss://example.com/relay/ws/daemon?region=eu&machineId=box');
    assert.equal(daemonUrl('wss://example.com/ws/daemon', 'box').toString(), 'wss://example.com/ws/daemon?machineId=box');
    assert.equal(daemonUrl('https://example.com', 'box').toString(), 'wss://example.com/ws/daemon?machineId=box');
    assert.equal(daemonUrl('ws://127.0.0.1:7600', 'box').toString(), 'ws://127.0.0.1:7600/ws/daemon?machineId=box');
    assert.equal(daemonUrl('ws://localhost:7600', 'box').toString(), 'ws://localhost:7600/ws/daemon?machineId=box');
    assert.equal(daemonUrl('ws://[::1]:7600', 'box').toString(), 'ws://[::1]:7600/ws/daemon?machineId=box');
  });

  it('refuses plain ws:// to anything but loopback, credentials or tokens in the URL, and other schemes', () => {
    assert.throws(() => daemonUrl('ws://relay.example.com', 'box'), /plain ws:\/\/ is only allowed to a loopback relay; use wss:\/\/relay\.example\.com/);
    assert.throws(() => daemonUrl('ws://10.0.0.5:7600', 'box'), /only allowed to a loopback relay/);
    assert.throws(() => daemonUrl('wss://user:pw@relay.example.com', 'box'), /must not carry credentials/);
    assert.throws(() => daemonUrl('wss://relay.example.com/?token=abc', 'box'), /must not carry a token/);
    assert.throws(() => daemonUrl('ftp://relay.example.com', 'box'), /must be wss:\/\//);
    assert.throws(() => daemonUrl('not a url', 'box'), /not a URL/);
    assert.throws(() => daemonUrl('wss://relay.example.com', 'a b'), /invalid machine id "a b"/);
  });

  it('accepts plain machine ids and derives one from a host name', () => {
    for (const good of ['box', 'home-box.lan', 'A_1']) assert.ok(MachineId.safeParse(good).success, good);
    for (const bad of ['', '-x', '.x', 'a/b', 'a b', 'x'.repeat(129)]) assert.ok(!MachineId.safeParse(bad).success, bad);
    assert.equal(defaultMachineId('my laptop (2)'), 'my-laptop--2-');
    assert.equal(defaultMachineId('---'), 'switchboard');
    assert.ok(MachineId.safeParse(defaultMachineId('Kévin’s Mac')).success);
  });
});
