/**
 * The Hub owns its relay client: remote access configured through the API (settings + the
 * write-only token), as the Settings view does it, against a real `switchboard relay` (in-process
 * RelayServer) with real viewers over WebSocket. Status and its events, where the token is kept
 * (and where it never appears), refusals and misconfiguration, and the per-pane share toggle.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isApiError } from '../../../src/common/api/errors.ts';
import type { RelayStatus } from '../../../src/common/api/relayContract.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { enableRemoteAccess, type RelayHubFixture, startRelayHub } from './relayHubKit.ts';
import { bashShell, startTestRelay, type TestRelay, TestViewer } from './relayTestKit.ts';

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isApiError(error), `expected an ApiError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

describe('relay in the app: settings, token and status (real relay, real Hub)', () => {
  let relay: TestRelay;
  let daemonToken: string;
  let viewerToken: string;
  const fixtures: RelayHubFixture[] = [];
  const viewers: TestViewer[] = [];

  const hub = async (options: Parameters<typeof startRelayHub>[0] = {}) => {
    const fixture = await startRelayHub(options);
    fixtures.push(fixture);
    return fixture;
  };
  const viewer = async (options: { name?: string } = {}) => {
    const connected = await TestViewer.connect(relay, 'm1', viewerToken, options);
    viewers.push(connected);
    await connected.waitFor((frame) => frame.type === 'machineStatus', { what: 'machineStatus' });
    return connected;
  };

  before(async () => {
    relay = await startTestRelay({ machines: ['m1'] });
    daemonToken = relay.tokens.get('m1')!.daemonToken;
    viewerToken = relay.tokens.get('m1')!.viewerToken;
  });

  after(async () => {
    for (const v of viewers) await v.close();
    for (const fixture of fixtures) await fixture.stop();
    await relay.close();
  });

  it('is off until turned on; with URL, machine id and token it connects and tells every client', async () => {
    const app = await hub();
    const initial = await app.api.call('relay.getStatus', {});
    assert.deepEqual(initial, {
      state: 'off',
      url: '',
      machineId: initial.machineId,
      shared: [],
      shareAll: false,
      tokenSaved: false,
      tokenStorage: 'file',
      configuredBy: 'settings',
    });
    assert.ok(initial.machineId.length > 0, 'the machine id defaults to the host name');

    await app.api.call('settings.update', { relayUrl: relay.url, relayMachineId: 'm1', relayEnabled: true });
    const noToken = await app.waitForStatus((status) => status.reason === 'no token is saved', 'off for want of a token');
    assert.equal(noToken.state, 'off');
    assert.equal(noToken.url, relay.url);
    assert.equal(noToken.machineId, 'm1');

    const saved = await app.api.call('relay.setToken', { token: daemonToken });
    assert.equal(saved.tokenSaved, true);
    const connected = await app.waitForStatus((status) => status.state === 'connected', 'connected');
    assert.ok(connected.connectedSince !== undefined && connected.connectedSince <= Date.now());

    const states = app.eventsOf('relay.statusChanged').map((status) => status.state);
    assert.ok(states.includes('connecting'), `statusChanged went through connecting: ${states.join(', ')}`);
    assert.equal(states.at(-1), 'connected');

    // The relay sees this machine online: a viewer is told so.
    const v = await viewer();
    const presence = v.frames.find((frame) => frame.type === 'machineStatus');
    assert.equal(presence?.type === 'machineStatus' && presence.state, 'online');

    // Off again: disconnected, and the viewer hears the machine went offline.
    await app.api.call('settings.update', { relayEnabled: false });
    const off = await app.waitForStatus((status) => status.state === 'off', 'off');
    assert.equal(off.reason, undefined);
    await v.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'offline', { what: 'machine offline' });
    await app.stop();
  });

  it('keeps the token in a 0600 file, never in settings.json, the logs or app.getState, and connects with it on the next start', async () => {
    const temp = createTempHome('sb-relay-token-');
    const first = await hub({ temp });
    await enableRemoteAccess(first, relay, 'm1', daemonToken);

    const tokenFile = join(temp.dataDir, 'relay-token');
    assert.equal(readFileSync(tokenFile, 'utf8').trim(), daemonToken);
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600, 'the token file is 0600');
    assert.equal(statSync(temp.dataDir).mode & 0o777, 0o700, 'in a 0700 data dir');
    assert.equal(existsSync(join(temp.dataDir, 'relay-token.keychain')), false, 'no keychain here (no cipher given)');

    const settingsText = readFileSync(join(temp.dataDir, 'settings.json'), 'utf8');
    assert.ok(!settingsText.includes(daemonToken), 'not in settings.json');
    assert.equal(JSON.parse(settingsText).relayEnabled, true);
    const state = await first.api.call('app.getState', {});
    assert.ok(!JSON.stringify(state).includes(daemonToken), 'not in app.getState');
    const status = await first.api.call('relay.getStatus', {});
    assert.ok(!JSON.stringify(status).includes(daemonToken), 'not in relay.getStatus');
    assert.ok(!JSON.stringify(first.eventsOf('relay.statusChanged')).includes(daemonToken), 'not in any event');
    await first.stop({ keepFiles: true });
    assert.ok(first.logLines.some((line) => line.includes('relay connected')), 'the log does speak of the relay');
    assert.ok(!first.logLines.some((line) => line.includes(daemonToken)), 'but never of the token');
    // Nor does any other file in the data dir (the database, the window state…) hold it.
    for (const name of readdirSync(temp.dataDir)) {
      const path = join(temp.dataDir, name);
      if (name === 'relay-token' || !statSync(path).isFile()) continue;
      assert.ok(!readFileSync(path).includes(daemonToken), `not in ${name}`);
    }

    // "Connect on start": the next Hub on this data dir connects by itself.
    const second = await hub({ temp });
    const reconnected = await second.waitForStatus((s) => s.state === 'connected', 'connected on start');
    assert.equal(reconnected.tokenSaved, true);

    // An empty token removes it: remote access turns itself off for want of one.
    await second.api.call('relay.setToken', { token: '' });
    await second.waitForStatus((s) => s.state === 'off' && s.reason === 'no token is saved', 'off without a token');
    assert.equal(existsSync(tokenFile), false);
    await second.stop();
  });

  it('moves a token into the OS keychain when the host has one (ciphertext only on disk)', async () => {
    const temp = createTempHome('sb-relay-keychain-');
    // A stand-in for Electron's safeStorage (not available outside Electron): a reversible transform
    // that makes the plain token invisible on disk, which is all this test can check.
    const cipher = {
      isAvailable: async () => true,
      encrypt: async (text: string) => Buffer.from([...Buffer.from(text)].map((byte) => byte ^ 0x5a)),
      decrypt: async (data: Uint8Array) => Buffer.from([...data].map((byte) => byte ^ 0x5a)).toString(),
    };
    const app = await hub({ temp, hub: { relay: { tokenCipher: cipher, tuning: { remoteShell: bashShell } } } });
    const status = await app.api.call('relay.setToken', { token: daemonToken });
    assert.equal(status.tokenStorage, 'keychain');
    const sealed = join(temp.dataDir, 'relay-token.keychain');
    assert.equal(statSync(sealed).mode & 0o777, 0o600);
    assert.ok(!readFileSync(sealed, 'utf8').includes(daemonToken), 'only the ciphertext is on disk');
    assert.equal(existsSync(join(temp.dataDir, 'relay-token')), false);
    await app.api.call('settings.update', { relayUrl: relay.url, relayMachineId: 'm1', relayEnabled: true });
    await app.waitForStatus((s) => s.state === 'connected', 'connected with the keychain token');
    await app.stop({ keepFiles: true });

    // A host without a keychain (browser mode on the same data dir) cannot read it, and says why.
    const browserMode = await hub({ temp });
    const off = await browserMode.waitForStatus((s) => s.state === 'off' && s.reason !== undefined, 'off with a reason');
    assert.match(off.reason!, /keychain/);
    assert.equal(off.tokenSaved, false);
    await browserMode.stop();
  });

  it('a wrong token is refused with the reason and retried later; saving the right one connects', async () => {
    const app = await hub();
    await app.api.call('settings.update', { relayUrl: relay.url, relayMachineId: 'm1', relayEnabled: true });
    await app.api.call('relay.setToken', { token: 'sbrd_not-the-token' });
    const refused = await app.waitForStatus((status) => status.state === 'refused', 'refused');
    assert.match(refused.reason ?? '', /401/);
    assert.ok(refused.retryInMs !== undefined && refused.retryInMs >= 0);
    await app.api.call('relay.setToken', { token: daemonToken });
    await app.waitForStatus((status) => status.state === 'connected', 'connected with the right token');
    await app.stop();
  });

  it('refuses bad settings and tokens clearly, and says why a configuration cannot be used', async () => {
    const app = await hub();
    await rejectsWith(app.api.call('settings.update', { relayUrl: 'ftp://relay.example.com' }), 'INVALID_PARAMS', /wss:\/\//);
    await rejectsWith(app.api.call('settings.update', { relayUrl: 'wss://home:secret@relay.example.com' }), 'INVALID_PARAMS', /credentials/);
    await rejectsWith(app.api.call('settings.update', { relayUrl: 'wss://relay.example.com/?token=abc' }), 'INVALID_PARAMS', /token/);
    await rejectsWith(app.api.call('settings.update', { relayMachineId: '-bad id' }), 'INVALID_PARAMS', /machine ids/);
    await rejectsWith(app.api.call('relay.setToken', { token: 'has a space' }), 'INVALID_PARAMS', /printable ASCII/);
    await rejectsWith(app.api.callRaw('relay.setToken', { token: 'x', reveal: true }) as Promise<unknown>, 'INVALID_PARAMS', /reveal/);
    await app.api.call('relay.setToken', { token: daemonToken });
    // Plain ws:// to another machine would send the token and every keystroke in clear.
    await app.api.call('settings.update', { relayUrl: 'ws://relay.example.com', relayMachineId: 'm1', relayEnabled: true });
    const off = await app.waitForStatus((status) => status.state === 'off' && status.reason !== undefined, 'off with a reason');
    assert.match(off.reason!, /loopback/);
    await app.api.call('settings.update', { relayUrl: relay.url });
    await app.waitForStatus((status) => status.state === 'connected', 'connected once the URL is fixed');
    await app.stop();
  });

  it('shares a pane with its toggle (announced, then withdrawn), shares all with the setting, and keeps the flags across reconnects', async () => {
    const app = await hub();
    await enableRemoteAccess(app, relay, 'm1', daemonToken);
    const v = await viewer();
    const pane = await app.api.call('terminal.create', { file: bashShell.file, args: bashShell.args, shellIntegration: false });
    const other = await app.api.call('terminal.create', { file: bashShell.file, args: bashShell.args, shellIntegration: false });
    const announcedFor = (id: string, from: number) =>
      v.waitFor((frame) => frame.type === 'agentTerminalStarted' && frame.terminalId === id, { what: `announcement of ${id}`, from });
    const sharedIds = (status: RelayStatus) => [...status.shared].sort();

    let mark = v.frames.length;
    const shared = await app.api.call('relay.setShared', { terminalId: pane.id, shared: true });
    assert.deepEqual(shared.shared, [pane.id]);
    await announcedFor(pane.id, mark);
    assert.ok(app.eventsOf('relay.statusChanged').some((status) => status.shared.includes(pane.id)), 'statusChanged carries the shared list');

    mark = v.frames.length;
    const unshared = await app.api.call('relay.setShared', { terminalId: pane.id, shared: false });
    assert.deepEqual(unshared.shared, []);
    const exit = await v.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === pane.id, { what: 'withdrawal', from: mark });
    assert.equal(exit.type === 'terminalExit' && exit.reason, 'closed_by_user');
    assert.equal(exit.type === 'terminalExit' && exit.channelId, '*');

    // Share all: every pane but the one unshared by hand.
    mark = v.frames.length;
    await app.api.call('settings.update', { relayShareAll: true });
    await announcedFor(other.id, mark);
    const all = await app.waitForStatus((status) => status.shareAll && status.shared.includes(other.id), 'share all');
    assert.deepEqual(sharedIds(all), [other.id], 'a pane unshared by hand stays unshared under share-all');
    await app.api.call('relay.setShared', { terminalId: pane.id, shared: true });

    // The flags outlive the client: after a reconnect both are announced again.
    await app.api.call('settings.update', { relayEnabled: false });
    await app.waitForStatus((status) => status.state === 'off', 'off');
    mark = v.frames.length;
    await app.api.call('settings.update', { relayEnabled: true });
    await app.waitForStatus((status) => status.state === 'connected', 'connected again');
    await announcedFor(pane.id, mark);
    await announcedFor(other.id, mark);

    await rejectsWith(app.api.call('relay.setShared', { terminalId: 'no-such-terminal', shared: true }), 'NOT_FOUND', /no-such-terminal/);
    // A closed pane leaves the shared list.
    await app.api.call('terminal.close', { id: other.id });
    await pollUntil(async () => !(await app.api.call('relay.getStatus', {})).shared.includes(other.id), { what: 'closed pane unshared' });
    await app.stop();
  });
});
