/**
 * Through a real `switchboard relay` (in-process RelayServer) to a real Hub with real PTYs: a
 * viewer opens a terminal, types, sees the output and the exit; the app's own panes shared as agent
 * terminals; the rules of remote terminals (limits, clamps, cwd, timers, bindings).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { RelayMessage } from '../../../src/common/protocol/relay/messages.ts';
import type { RelayClient } from '../../../src/node/relay/relayClient.ts';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { bashShell, connectClient, screenOf, startTestHub, startTestRelay, type TestHub, type TestRelay, TestViewer, waitConnected } from './relayTestKit.ts';

describe('relay: terminals end to end (real relay, real Hub, real PTYs)', () => {
  let relay: TestRelay;
  let hub: TestHub;
  let client: RelayClient;
  let daemonToken: string;
  let viewerToken: string;
  const viewers: TestViewer[] = [];
  const viewer = async (options: { channelId?: string; name?: string } = {}) => {
    const connected = await TestViewer.connect(relay, 'm1', viewerToken, options);
    viewers.push(connected);
    await connected.waitFor((frame) => frame.type === 'machineStatus', { what: 'machineStatus' });
    return connected;
  };

  before(async () => {
    relay = await startTestRelay({ machines: ['m1'] });
    daemonToken = relay.tokens.get('m1')!.daemonToken;
    viewerToken = relay.tokens.get('m1')!.viewerToken;
    hub = await startTestHub();
    client = connectClient(hub.hub, relay.url, 'm1', daemonToken, { maxRemoteTerminals: 3 });
    await waitConnected(client);
  });

  after(async () => {
    for (const v of viewers) await v.close();
    await client.stop();
    client.dispose();
    hub.dispose();
    await relay.close();
  });

  it('tells a joining viewer that the machine is online and which channel it is bound to', async () => {
    const v = await viewer({ channelId: 'chan-presence' });
    const status = v.frames.find((frame) => frame.type === 'machineStatus');
    assert.deepEqual(status && { ...status, occurredAt: 'x' }, { type: 'machineStatus', machineId: 'm1', state: 'online', occurredAt: 'x', channelId: 'chan-presence' });
  });

  it('opens a terminal for a viewer, shows it locally as a remote pane, runs `echo hi` and reports the exit', async () => {
    const v = await viewer({ name: 'Ada on her phone' });
    const opened = await v.request('terminalOpen', { sessionId: 'sess-A', cols: 100, rows: 30, cwd: hub.temp.workspace });
    assert.equal(opened.type, 'terminalOpened', JSON.stringify(opened));
    if (opened.type !== 'terminalOpened') return;
    assert.equal(opened.sessionId, 'sess-A');
    assert.equal(opened.channelId, v.channelId);
    assert.equal(opened.cwd, realpathSync(hub.temp.workspace));
    assert.match(opened.shell, /bash$/);
    assert.match(opened.startedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const info = hub.hub.ptyHost.get(opened.terminalId)?.info;
    assert.ok(info, 'the terminal is a Hub terminal');
    assert.deepEqual(info.createdBy, { kind: 'remote', name: 'Ada on her phone' });
    assert.equal(info.cols, 100);
    assert.equal(info.rows, 30);

    v.typeInto(opened.terminalId, 'echo hi-$((6*7))\r');
    await v.waitForText(opened.terminalId, 'hi-42');
    const terminal = v.terminals.get(opened.terminalId)!;
    assert.deepEqual(terminal.seqErrors, []);
    assert.equal(terminal.snapshots, 0, 'a new terminal streams from its first byte, no snapshot');
    // Every output frame carries at most 8 KiB.
    for (const frame of v.frames) if (frame.type === 'terminalOutput') assert.ok(Buffer.from(frame.dataBase64, 'base64').length <= 8192);

    v.typeInto(opened.terminalId, 'exit 3\r');
    const exit = await v.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === opened.terminalId, { what: 'terminalExit' });
    assert.equal(exit.type === 'terminalExit' && exit.reason, 'process_exit');
    assert.equal(exit.type === 'terminalExit' && exit.exitCode, 3);
    assert.equal(exit.type === 'terminalExit' && exit.channelId, v.channelId);
    // The exit comes after every output frame of the terminal.
    const last = v.frames.filter((frame) => 'terminalId' in frame && frame.terminalId === opened.terminalId).at(-1);
    assert.equal(last?.type, 'terminalExit');
    await pollUntil(() => !hub.hub.ptyHost.get(opened.terminalId), { what: 'the remote pane to be removed' });
  });

  it('clamps the size, defaults cwd to $HOME and refuses bad cwds and the terminal limit', async () => {
    const v = await viewer();
    const small = await v.openTerminal({ cols: 3, rows: 1 });
    const big = await v.openTerminal({ cols: 5000, rows: 900, cwd: '' });
    assert.deepEqual([hub.hub.ptyHost.get(small)!.info.cols, hub.hub.ptyHost.get(small)!.info.rows], [20, 5]);
    assert.deepEqual([hub.hub.ptyHost.get(big)!.info.cols, hub.hub.ptyHost.get(big)!.info.rows], [300, 100]);
    assert.equal(hub.hub.ptyHost.get(big)!.info.cwd, realpathSync((await import('node:os')).homedir()));

    const relative = await v.request('terminalOpen', { sessionId: 's', cols: 80, rows: 24, cwd: 'relative/dir' });
    assert.deepEqual(pick(relative, 'type', 'error'), { type: 'terminalError', error: 'cwd must be absolute' });
    const missing = await v.request('terminalOpen', { sessionId: 's', cols: 80, rows: 24, cwd: join(hub.temp.workspace, 'nope') });
    assert.deepEqual(pick(missing, 'type', 'error'), { type: 'terminalError', error: 'cwd is not a directory' });

    await v.openTerminal(); // the third (this test's limit is 3; the default is 8)
    const refused = await v.request('terminalOpen', { sessionId: 's', cols: 80, rows: 24 });
    assert.deepEqual(pick(refused, 'type', 'error', 'sessionId'), { type: 'terminalError', error: 'Terminal limit reached', sessionId: 's' });

    for (const id of [small, big]) v.send('terminalClose', { terminalId: id, channelId: v.channelId });
    for (const id of [small, big]) {
      const exit = await v.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === id, { what: `exit of ${id}` });
      assert.equal(exit.type === 'terminalExit' && exit.reason, 'closed_by_user');
    }
    for (const remote of [...hub.hub.ptyHost.list()].filter((info) => info.createdBy.kind === 'remote')) await hub.hub.ptyHost.close(remote.id);
  });

  it('resizes within the clamps and ends an idle terminal with disconnect_timeout', async () => {
    const v = await viewer();
    const id = await v.openTerminal({ idleTimeoutMs: 1500 });
    v.send('terminalResize', { terminalId: id, channelId: v.channelId, cols: 1, rows: 1000 });
    await pollUntil(() => hub.hub.ptyHost.get(id)?.info.cols === 20 && hub.hub.ptyHost.get(id)?.info.rows === 100, { what: 'clamped resize' });
    const exit = await v.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === id, { what: 'idle exit', timeoutMs: 20_000 });
    assert.equal(exit.type === 'terminalExit' && exit.reason, 'disconnect_timeout');
  });

  it('keeps a terminal a viewer opened alive while someone types in it in the app, and ends it once nobody does', async () => {
    const v = await viewer();
    const idleMs = 1500;
    const id = await v.openTerminal({ idleTimeoutMs: idleMs });
    v.typeInto(id, 'echo viewer-$((1+1))\r');
    await v.waitForText(id, 'viewer-2');
    // The viewer stops typing; a person at the machine goes on in the app's pane for three idle periods.
    const person = createLocalHubClient(hub.hub, { kind: 'person', name: 'you' });
    try {
      const startedAt = Date.now();
      let round = 0;
      await pollUntil(
        async () => {
          round++;
          await person.call('terminal.write', { id, data: `echo local-${round}\r` });
          return Date.now() - startedAt > 3 * idleMs;
        },
        { intervalMs: 300, timeoutMs: 20_000, what: 'a person to type in the app for three idle periods' },
      );
      await v.waitForText(id, `local-${round}`);
      assert.equal(v.frames.find((frame) => frame.type === 'terminalExit' && frame.terminalId === id), undefined, 'local typing kept it alive');
      assert.ok(hub.hub.ptyHost.get(id), 'the pane is still there');
    } finally {
      person.dispose();
    }
    const exit = await v.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === id, { what: 'the idle exit once nobody types', timeoutMs: 20_000 });
    assert.equal(exit.type === 'terminalExit' && exit.reason, 'disconnect_timeout');
  });

  it('tells the viewer the name the app gives the terminal it opened (`bash 2`, not the shell\'s `bash`)', async () => {
    const local = await hub.hub.ptyHost.create({ ...bashShell, cwd: hub.temp.workspace, createdBy: { kind: 'person', name: 'you' } });
    const v = await viewer();
    const opened = await v.request('terminalOpen', { sessionId: 'sess-name', cols: 80, rows: 24 });
    assert.equal(opened.type, 'terminalOpened', JSON.stringify(opened));
    if (opened.type !== 'terminalOpened') return;
    const name = hub.hub.ptyHost.get(opened.terminalId)!.info.name;
    assert.match(local.info.name, /^bash( \d+)?$/);
    assert.notEqual(name, 'bash', 'a second bash is numbered in the app');
    assert.equal(opened.title, name);
    v.send('terminalClose', { terminalId: opened.terminalId, channelId: v.channelId });
    await v.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === opened.terminalId);
    await hub.hub.ptyHost.close(local.id);
  });

  it("keeps one viewer's terminal away from another viewer's channel (binding) unless it is shared", async () => {
    const owner = await viewer();
    const other = await viewer();
    const id = await owner.openTerminal();
    const refusalsBefore = client.stats.refusals.binding ?? 0;
    other.typeInto(id, 'echo intruder-$((1+1))\r');
    owner.typeInto(id, 'echo owner-$((2+2))\r');
    await owner.waitForText(id, 'owner-4');
    await pollUntil(() => (client.stats.refusals.binding ?? 0) > refusalsBefore, { what: 'binding refusal' });
    assert.ok(!owner.terminalText(id).includes('intruder-2'), 'input from another channel must not reach the terminal');
    assert.equal(other.terminals.get(id), undefined, 'the other viewer got no output');
    owner.send('terminalClose', { terminalId: id, channelId: owner.channelId });
    await owner.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === id);
  });

  it('shares a local pane as an agent terminal: announced, attachable with a snapshot, drivable, then withdrawn', async () => {
    const session = await hub.hub.ptyHost.create({ ...bashShell, cwd: hub.temp.workspace, createdBy: { kind: 'person', name: 'you' }, name: 'build' });
    session.write('echo before-share-$((3*3))\r');
    const v = await viewer();
    // Not shared: invisible, and attaching is refused like an unknown terminal.
    const unknownBefore = client.stats.refusals['unknown-terminal'] ?? 0;
    v.send('agentTerminalAttach', { terminalId: session.id, channelId: v.channelId });
    await pollUntil(() => (client.stats.refusals['unknown-terminal'] ?? 0) > unknownBefore, { what: 'refused attach' });

    client.setShared(session.id, true);
    const started = await v.waitFor((frame) => frame.type === 'agentTerminalStarted' && frame.terminalId === session.id, { what: 'agentTerminalStarted' });
    assert.equal(started.type === 'agentTerminalStarted' && started.channelId, '*');
    assert.equal(started.type === 'agentTerminalStarted' && started.title, 'build');
    assert.equal(started.type === 'agentTerminalStarted' && started.status, 'running');
    assert.equal(started.type === 'agentTerminalStarted' && started.sessionId, client.sessionId);

    // A viewer joining later learns the list from the relay at once.
    const late = await viewer();
    await late.waitFor((frame) => frame.type === 'agentTerminalStarted' && frame.terminalId === session.id, { what: 'cached announcement' });

    await pollUntil(async () => (await session.readScreen()).lines.join('\n').includes('before-share-9'), { what: 'local output' });
    v.send('agentTerminalAttach', { terminalId: session.id, channelId: v.channelId });
    await v.waitForText(session.id, 'before-share-9');
    assert.equal(v.terminals.get(session.id)!.snapshots, 1);

    v.typeInto(session.id, 'echo from-remote-$((5*5))\r');
    await v.waitForText(session.id, 'from-remote-25');
    assert.deepEqual(v.terminals.get(session.id)!.seqErrors, []);
    // The viewer's view is the pane's screen.
    const local = (await session.readScreen()).lines;
    const remote = await screenOf(v.terminalText(session.id), session.info.cols, session.info.rows);
    assert.deepEqual(remote, local);

    client.setShared(session.id, false);
    const withdrawn = await v.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === session.id && frame.channelId === '*', { what: 'withdrawal' });
    assert.equal(withdrawn.type === 'terminalExit' && withdrawn.reason, 'closed_by_user');
    const mark = v.frames.length;
    session.write('echo after-unshare\r');
    await pollUntil(async () => (await session.readScreen()).lines.join('\n').includes('after-unshare'), { what: 'local output after unshare' });
    assert.ok(!v.frames.slice(mark).some((frame) => frame.type === 'terminalOutput' && frame.terminalId === session.id), 'no output after unsharing');
    await hub.hub.ptyHost.close(session.id);
  });

  it('shares every pane with share-all and tells viewers when a shared pane exits', async () => {
    const v = await viewer();
    client.setShareAll(true);
    try {
      const session = await hub.hub.ptyHost.create({ ...bashShell, cwd: hub.temp.workspace, createdBy: { kind: 'person', name: 'you' } });
      await v.waitFor((frame) => frame.type === 'agentTerminalStarted' && frame.terminalId === session.id, { what: 'announcement under share-all' });
      v.send('agentTerminalSnapshotRequest', { terminalId: session.id, channelId: v.channelId });
      await v.waitFor((frame) => frame.type === 'terminalSnapshot' && frame.terminalId === session.id, { what: 'snapshot' });
      session.write('exit 0\r');
      const exit = await v.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === session.id && frame.channelId === v.channelId, { what: 'exit on the viewer channel' });
      assert.equal(exit.type === 'terminalExit' && exit.reason, 'process_exit');
      // Other updates may come first (readiness, servers); the one that matters says it exited.
      const updated = await v.waitFor((frame) => frame.type === 'agentTerminalUpdated' && frame.terminalId === session.id && frame.status !== 'running', { what: 'status update' });
      assert.equal(updated.type === 'agentTerminalUpdated' && updated.status, 'exited');
      await hub.hub.ptyHost.close(session.id);
    } finally {
      client.setShareAll(false);
    }
  });

  it('answers a hosted-agent task with taskError', async () => {
    const v = await viewer();
    v.send('task', { taskId: 'task-1', sessionId: 's', channelId: v.channelId, prompt: 'hello' });
    const answer = await v.waitFor((frame) => frame.type === 'taskError' && frame.taskId === 'task-1', { what: 'taskError' });
    assert.equal(answer.type === 'taskError' && answer.error, 'tasks are not supported by this daemon');
    assert.equal(answer.type === 'taskError' && answer.retryable, false);
  });
});

describe('relay: what the relay itself refuses', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startTestRelay({ machines: ['m1', 'm2'] });
  });
  after(async () => {
    await relay.close();
  });

  it('refuses viewers and daemons without the right token for the machine (401)', async () => {
    const m1 = relay.tokens.get('m1')!;
    const m2 = relay.tokens.get('m2')!;
    await assert.rejects(TestViewer.connect(relay, 'm1', 'nope'), { status: 401 });
    await assert.rejects(TestViewer.connect(relay, 'm1', m2.viewerToken), { status: 401 });
    await assert.rejects(TestViewer.connect(relay, 'm1', m1.daemonToken), { status: 401 }, 'a daemon token is not a viewer token');
    await assert.rejects(TestViewer.connect(relay, 'unknown', m1.viewerToken), { status: 401 });
    await assert.rejects(TestViewer.connect(relay, 'bad id!', m1.viewerToken), { status: 400 });
    await assert.rejects(TestViewer.connect(relay, 'm1', m1.viewerToken, { channelId: '*' }), { status: 400 });
  });

  it('answers requests for an offline machine, and drops frames on the wrong channel or of daemon types', async () => {
    const m1 = relay.tokens.get('m1')!;
    const v = await TestViewer.connect(relay, 'm1', m1.viewerToken);
    const status = await v.waitFor((frame) => frame.type === 'machineStatus');
    assert.equal(status.type === 'machineStatus' && status.state, 'offline');
    const open = await v.request('terminalOpen', { sessionId: 's', cols: 80, rows: 24 });
    assert.deepEqual(pick(open, 'type', 'error'), { type: 'terminalError', error: 'machine is offline' });
    const browse = await v.request('browseDir', { machineId: 'm1', path: '/' });
    assert.deepEqual(pick(browse, 'type', 'ok', 'error'), { type: 'browseDirResult', ok: false, error: 'machine is offline' });

    const before = relay.server.refusals.get('viewer:binding') ?? 0;
    v.send('terminalInput', { terminalId: 't', channelId: 'someone-else', dataBase64: 'YQ==' });
    v.send('browseDir', { requestId: 'r', channelId: v.channelId, machineId: 'm2', path: '/' });
    await pollUntil(() => (relay.server.refusals.get('viewer:binding') ?? 0) >= before + 2, { what: 'two binding refusals' });
    v.send('terminalOutput', { terminalId: 't', sessionId: 's', channelId: v.channelId, seq: 1, dataBase64: 'YQ==' });
    await pollUntil(() => relay.server.refusals.get('viewer:unexpected-type'), { what: 'daemon-type refusal' });
    v.sendRaw('{"type":"nope"}');
    v.sendRaw('not json');
    await pollUntil(() => relay.server.refusals.get('viewer:unknown-type') && relay.server.refusals.get('viewer:json'), { what: 'parse refusals' });
    assert.equal(v.closed, undefined, 'bad frames never close the viewer');
    await v.close();
  });
});

function pick(frame: RelayMessage, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, (frame as unknown as Record<string, unknown>)[key]]));
}



describe('relay: a viewer whose own socket is slow (relay-side skip-ahead)', () => {
  it('drops output for the lagging viewer only, then redraws it from a fresh snapshot once it reads again', async () => {
    const relay = await startTestRelay({ machines: ['m1'], server: { viewerLagBytes: 64 * 1024 } });
    const hub = await startTestHub();
    const client = connectClient(hub.hub, relay.url, 'm1', relay.tokens.get('m1')!.daemonToken, { shareAll: true });
    const slow = await TestViewer.connect(relay, 'm1', relay.tokens.get('m1')!.viewerToken, { channelId: 'slow' });
    const fast = await TestViewer.connect(relay, 'm1', relay.tokens.get('m1')!.viewerToken, { channelId: 'fast' });
    try {
      await waitConnected(client);
      const session = await hub.hub.ptyHost.create({ ...bashShell, cwd: hub.temp.workspace, cols: 80, rows: 24, createdBy: { kind: 'person', name: 'you' } });
      for (const v of [slow, fast]) {
        await v.waitFor((frame) => frame.type === 'agentTerminalStarted' && frame.terminalId === session.id, { what: 'announcement' });
        v.send('agentTerminalAttach', { terminalId: session.id, channelId: v.channelId });
        await v.waitFor((frame) => frame.type === 'terminalSnapshot' && frame.terminalId === session.id, { what: 'first snapshot' });
      }
      const rawSocket = (slow.socket as unknown as { _socket: import('node:net').Socket })._socket;
      rawSocket.pause();
      session.write('yes "a line of flood output, long enough to fill buffers" | head -c 40000000; echo; echo FLOOD-$((1+1))-DONE\r');
      await pollUntil(() => relay.server.stats.m1!.outputDroppedForLag > 0, { timeoutMs: 60_000, what: 'the relay to drop output for the lagging viewer' });
      await fast.waitForText(session.id, 'FLOOD-2-DONE', 120_000);
      rawSocket.resume();
      const snapshotsBefore = slow.terminals.get(session.id)!.snapshots;
      await pollUntil(() => slow.terminals.get(session.id)!.snapshots > snapshotsBefore, { timeoutMs: 30_000, what: 'a fresh snapshot for the slow viewer' });
      let local: string[] = [];
      let remote: string[] = [];
      await pollUntil(
        async () => {
          local = (await session.readScreen()).lines;
          remote = await screenOf(slow.terminalText(session.id), 80, 24);
          return JSON.stringify(local) === JSON.stringify(remote);
        },
        { timeoutMs: 30_000, what: 'the slow viewer to show the pane again' },
      ).catch(() => assert.deepEqual(remote, local));
      assert.deepEqual(slow.terminals.get(session.id)!.seqErrors, []);
      assert.deepEqual(fast.terminals.get(session.id)!.seqErrors, [], 'the fast viewer lost nothing');
      assert.equal(fast.terminals.get(session.id)!.snapshots, 1, 'the fast viewer was never redrawn');
      await hub.hub.ptyHost.close(session.id);
    } finally {
      await slow.close();
      await fast.close();
      client.dispose();
      hub.dispose();
      await relay.close();
    }
  });
});

describe('relay: the daemon stops', () => {
  it('ends remote terminals with daemon_shutdown, tells the viewer, and the relay reports the machine offline', async () => {
    const relay = await startTestRelay({ machines: ['m1'] });
    const hub = await startTestHub();
    const client = connectClient(hub.hub, relay.url, 'm1', relay.tokens.get('m1')!.daemonToken);
    const v = await TestViewer.connect(relay, 'm1', relay.tokens.get('m1')!.viewerToken);
    try {
      await waitConnected(client);
      await v.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'online', { what: 'online' });
      const id = await v.openTerminal();
      const mark = v.frames.length;
      await client.stop();
      assert.equal(client.status.state, 'stopped');
      const exit = await v.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === id, { what: 'exit' });
      assert.equal(exit.type === 'terminalExit' && exit.reason, 'daemon_shutdown');
      const offline = await v.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'offline', { what: 'offline', from: mark });
      assert.equal(offline.type === 'machineStatus' && offline.previousState, 'online');
      assert.equal(hub.hub.ptyHost.get(id), undefined);
    } finally {
      await v.close();
      client.dispose();
      hub.dispose();
      await relay.close();
    }
  });
});
