/**
 * The relay client against a relay that misbehaves on purpose (scriptedRelay.ts): no welcome, a
 * wrong first frame, closing right after welcome (the backoff must hold), refusing us, garbage,
 * wrong and unknown types, unknown terminals, bad base64, binding mismatches, oversized frames,
 * a flood of 10 000 frames a second, pings left unanswered, and a reader that stops reading.
 * Each is refused as gsd-relay.md says, logged once, and the client and the app carry on.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RelayClient, RelayStatus } from '../../../src/node/relay/relayClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { bashShell, connectClient, recordingLogger, startTestHub, type TestHub } from './relayTestKit.ts';
import { type ScriptedConnection, ScriptedRelay, send, welcomeThen } from './scriptedRelay.ts';

const token = 'sbrd_test-token-never-in-logs-0123456789';

describe('relay client against a misbehaving relay', () => {
  let hub: TestHub;
  let relay: ScriptedRelay;
  let client: RelayClient | undefined;
  let statuses: RelayStatus[];
  let log: ReturnType<typeof recordingLogger>;

  const start = (extra: Parameters<typeof connectClient>[4] = {}) => {
    log = recordingLogger();
    statuses = [];
    client = connectClient(hub.hub, relay.url, 'm1', token, { logger: log.logger, ...extra });
    client.onDidChangeStatus((status) => statuses.push(status));
    return client;
  };

  before(async () => {
    hub = await startTestHub();
  });

  afterEach(async () => {
    client?.dispose();
    client = undefined;
    await relay?.close();
    // Never, in any scenario, does the token reach a log line.
    assert.ok(!log.lines.some((line) => line.includes(token)), 'the token must never be logged');
  });

  after(() => hub.dispose());

  it('sends hello with the machine, version and capabilities, the token only as a bearer header, then heartbeats', async () => {
    relay = await ScriptedRelay.start();
    start({ timing: { heartbeatIntervalMs: 150 } });
    await pollUntil(() => relay.latest && relay.latest.received.filter((frame) => frame.type === 'heartbeat').length >= 2, { what: 'two heartbeats' });
    const attempt = relay.attempts[0]!;
    assert.equal(attempt.url, '/ws/daemon?machineId=m1');
    assert.equal(attempt.authorization, `Bearer ${token}`);
    const [hello, heartbeat] = [relay.latest!.received[0], relay.latest!.received.find((frame) => frame.type === 'heartbeat')];
    assert.deepEqual({ ...hello, os: typeof hello.os, arch: typeof hello.arch }, {
      type: 'hello',
      machineId: 'm1',
      daemonVersion: '9.9.9',
      os: 'string',
      arch: 'string',
      activeTasks: [],
      capabilities: {
        terminal: true,
        agentTerminalJobs: true,
        previewTunnel: true,
        previewMaxFrameBytes: 1 << 20,
        previewChunkBytes: 256 * 1024,
        previewWebSocketProtocols: true,
        localServerDetection: true,
        previewStreamWindowBytes: 1024 * 1024,
        previewBinaryBodies: true,
      },
    });
    assert.equal(heartbeat.machineId, 'm1');
    assert.equal(heartbeat.status, 'online');
    assert.equal(heartbeat.daemonVersion, '9.9.9');
    assert.match(heartbeat.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(client!.status.state, 'connected');
  });

  it('drops a relay that never sends welcome, and retries', async () => {
    relay = await ScriptedRelay.start();
    relay.behaviour = () => {}; // reads hello, says nothing
    start({ timing: { welcomeTimeoutMs: 300 } });
    const status = await pollUntil(() => statuses.find((s) => s.state === 'reconnecting'), { what: 'reconnecting after the welcome timeout' });
    assert.equal(status.state === 'reconnecting' && status.reason, 'the relay sent no welcome within 300 ms');
    await pollUntil(() => relay.attempts.length >= 2, { what: 'a second attempt' });
    assert.equal(client!.stats.connections, 0);
  });

  it('drops a relay whose first frame is not welcome', async () => {
    relay = await ScriptedRelay.start();
    relay.behaviour = (connection) => connection.ws.once('message', () => send(connection, { type: 'heartbeat', machineId: 'x', daemonVersion: '1', status: 'online', timestamp: 'now' }));
    start();
    const status = await pollUntil(() => statuses.find((s) => s.state === 'reconnecting'), { what: 'reconnecting' });
    assert.equal(status.state === 'reconnecting' && status.reason, 'unexpected first frame: "heartbeat"');
    relay.behaviour = (connection) => connection.ws.once('message', () => send(connection, '{"type":'));
    await pollUntil(() => statuses.find((s) => s.state === 'reconnecting' && s.reason.startsWith('unexpected first frame: (frame json')), { what: 'garbage first frame refused' });
  });

  it('backs off exponentially with jitter from a relay that closes right after welcome: no tight loop', async () => {
    relay = await ScriptedRelay.start();
    relay.behaviour = welcomeThen((connection) => connection.ws.close(1000, 'bye'));
    const initialMs = 100;
    const maxMs = 800;
    start({ timing: { initialMs, maxMs, jitter: 0.2, resetAfterMs: 60_000 } });
    await pollUntil(() => relay.attempts.length >= 7, { timeoutMs: 30_000, what: 'seven attempts' });
    const delays = statuses.filter((s) => s.state === 'reconnecting').map((s) => (s.state === 'reconnecting' ? s.delayMs : 0));
    for (const [index, delay] of delays.slice(0, 6).entries()) {
      const base = Math.min(initialMs * 2 ** index, maxMs);
      assert.ok(delay >= base * 0.8 - 1 && delay <= base * 1.2 + 1, `delay ${index} was ${delay} ms, expected ${base} ms ±20 %`);
    }
    // Measured on the relay's side: consecutive attempts are at least the backoff apart (a slow machine only widens the gaps).
    for (let index = 1; index < 7; index++) {
      const gap = relay.attempts[index]!.at - relay.attempts[index - 1]!.at;
      const base = Math.min(initialMs * 2 ** (index - 1), maxMs);
      assert.ok(gap >= base * 0.8 - 5, `attempt ${index} came ${gap} ms after the previous one; the backoff was ${base} ms ±20 %`);
    }
    assert.ok(client!.stats.connections >= 6, 'each attempt did reach welcome');
  });

  it('resets the backoff only after a connection that stayed up long enough', async () => {
    relay = await ScriptedRelay.start();
    let connectionNumber = 0;
    relay.behaviour = welcomeThen((connection) => {
      connectionNumber++;
      // The third connection is stable (lives past resetAfterMs), the others close at once.
      setTimeout(() => connection.ws.close(1000, 'bye'), connectionNumber === 3 ? 700 : 0);
    });
    const initialMs = 100;
    start({ timing: { initialMs, maxMs: 5_000, jitter: 0.2, resetAfterMs: 400 } });
    await pollUntil(() => statuses.filter((s) => s.state === 'reconnecting').length >= 3, { timeoutMs: 20_000, what: 'three reconnects' });
    const waits = statuses.filter((s) => s.state === 'reconnecting') as Extract<RelayStatus, { state: 'reconnecting' }>[];
    assert.ok(waits[1]!.delayMs >= 2 * initialMs * 0.8, `second wait ${waits[1]!.delayMs} ms had doubled`);
    assert.equal(waits[2]!.attempt, 1, 'after a stable connection the count starts over');
    assert.ok(waits[2]!.delayMs <= initialMs * 1.2 + 1, `after a stable connection the wait is back to ~${initialMs} ms, got ${waits[2]!.delayMs}`);
  });

  it('reports a refusal (401) as refused and retries only at the longest backoff', async () => {
    relay = await ScriptedRelay.start();
    relay.refuseWith = 401;
    start({ timing: { initialMs: 50, maxMs: 3_000 } });
    const status = await pollUntil(() => statuses.find((s) => s.state === 'refused'), { what: 'refused' });
    assert.equal(status.state === 'refused' && status.reason, 'the relay refused the connection (HTTP 401: wrong machine id or token)');
    assert.ok(status.state === 'refused' && status.delayMs >= 3_000 * 0.8);
  });

  it('refuses garbage, wrong and unknown types, unknown terminals, bad base64 and binding mismatches; logs each kind once; stays connected', async () => {
    relay = await ScriptedRelay.start();
    let connection: ScriptedConnection | undefined;
    relay.behaviour = welcomeThen((c) => (connection = c));
    const cli = start();
    await pollUntil(() => cli.status.state === 'connected' && connection, { what: 'connected' });
    const session = await hub.hub.ptyHost.create({ ...bashShell, createdBy: { kind: 'person', name: 'you' } });
    const bad: Array<[string, string]> = [
      ['json', 'not json at all'],
      ['json', '{"type":"terminalInput",'],
      ['root', '[{"type":"hello"}]'],
      ['missing-type', '{"terminalId":"t"}'],
      ['bad-type', '{"type":42}'],
      ['unknown-type', '{"type":"tunnelOpen","tunnelId":"p"}'],
      ['schema', '{"type":"terminalInput","terminalId":"x","channelId":"c","dataBase64":123}'],
      ['schema', '{"type":"terminalOpen","requestId":"r","sessionId":"s","channelId":"c","cols":"120","rows":32}'],
      ['depth', `{"type":"terminalClose","terminalId":"t","channelId":"c","x":${'['.repeat(40)}${']'.repeat(40)}}`],
      ['fields', `{"type":"terminalClose",${Array.from({ length: 300 }, (_, i) => `"f${i}":1`).join(',')}}`],
      ['items', `{"type":"terminalClose","terminalId":"t","channelId":"c","x":[${Array.from({ length: 5000 }, () => '1').join(',')}]}`],
      ['unknown-terminal', JSON.stringify({ type: 'terminalInput', terminalId: 'no-such-terminal', channelId: 'c', dataBase64: 'YQ==' })],
      // Exists locally but is not shared: exactly as unknown.
      ['unknown-terminal', JSON.stringify({ type: 'terminalInput', terminalId: session.id, channelId: 'c', dataBase64: 'ZWNobyBsZWFrZWQK' })],
      ['unknown-terminal', JSON.stringify({ type: 'agentTerminalAttach', terminalId: session.id, channelId: 'c' })],
      ['unknown-terminal', JSON.stringify({ type: 'terminalResize', terminalId: 'nope', channelId: 'c', cols: 80, rows: 24 })],
      ['bad-base64', JSON.stringify({ type: 'terminalInput', terminalId: session.id, channelId: 'c', dataBase64: 'not base64!' })],
      ['binding', JSON.stringify({ type: 'browseDir', requestId: 'b-1', channelId: 'c', machineId: 'someone-else', path: '/' })],
      ['unexpected-type', JSON.stringify({ type: 'welcome' })],
      ['unexpected-type', JSON.stringify({ type: 'terminalOutput', terminalId: 't', sessionId: 's', channelId: 'c', seq: 1, dataBase64: 'YQ==' })],
      ['unsupported', JSON.stringify({ type: 'permissionResponse', channelId: 'c', sessionId: 's', requestId: 'p', approved: true })],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [, frame] of bad) send(connection!, frame);
      connection!.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    }
    // A good request after the bad ones: answered, so everything before it was handled.
    send(connection!, { type: 'browseDir', requestId: 'good-1', channelId: 'c', machineId: 'm1', path: hub.temp.workspace });
    const answer = await pollUntil(() => connection!.received.find((frame) => frame.requestId === 'good-1'), { what: 'answer to the good request' });
    assert.equal(answer.ok, true);
    const bindingAnswer = connection!.received.find((frame) => frame.requestId === 'b-1');
    assert.deepEqual(bindingAnswer, { type: 'browseDirResult', requestId: 'b-1', channelId: 'c', ok: false, error: 'binding: machineId mismatch: got "someone-else", want "m1"' });

    const expected = new Map<string, number>();
    for (const [kind] of bad) expected.set(kind, (expected.get(kind) ?? 0) + 2);
    expected.set('binary', 2);
    assert.deepEqual(cli.stats.refusals, Object.fromEntries(expected));
    for (const kind of expected.keys()) {
      const lines = log.lines.filter((line) => line.includes(`refused a relay frame (${kind})`));
      assert.equal(lines.length, 1, `kind ${kind} is logged exactly once, got ${lines.length}`);
    }
    assert.ok(log.lines.some((line) => line.includes('refused a relay frame (unknown-type): unknown message type: "tunnelOpen"')), 'the exact envelope error is in the log');
    assert.equal(cli.stats.connections, 1, 'no bad frame took the connection down');
    assert.equal(cli.status.state, 'connected');
    assert.ok(!(await session.readScreen()).lines.join('\n').includes('leaked'), 'input for an unshared pane never reached it');
    await hub.hub.ptyHost.close(session.id);
  });

  it('closes the link on a frame over 1 MiB (1009) and reconnects', async () => {
    relay = await ScriptedRelay.start();
    relay.behaviour = welcomeThen((connection) => {
      if (relay.connections.length === 1) send(connection, JSON.stringify({ type: 'terminalClose', terminalId: 't', channelId: 'c', pad: 'x'.repeat(1024 * 1024) }));
    });
    const cli = start();
    await pollUntil(() => cli.stats.connections >= 2 && cli.status.state === 'connected', { timeoutMs: 20_000, what: 'reconnected after the oversized frame' });
    await pollUntil(() => relay.connections[0]!.closed, { what: 'first link closed' });
    assert.equal(cli.stats.refusals.size, 1);
    assert.equal(log.lines.filter((line) => line.includes('refused a relay frame (size)')).length, 1);
  });

  it('drops a relay that stops answering pings', async () => {
    relay = await ScriptedRelay.start({ autoPong: false });
    const cli = start({ timing: { heartbeatIntervalMs: 150 } });
    await pollUntil(() => statuses.find((s) => s.state === 'reconnecting' && s.reason === 'the relay stopped answering pings'), { what: 'dropped for missing pongs' });
    assert.ok(cli.stats.connections >= 1);
  });

  it('stays responsive under a flood of 10 000 bad frames a second, with bounded queues', async () => {
    relay = await ScriptedRelay.start();
    let connection: ScriptedConnection | undefined;
    relay.behaviour = welcomeThen((c) => (connection = c));
    const cli = start();
    await pollUntil(() => cli.status.state === 'connected' && connection, { what: 'connected' });
    const local = await hub.hub.ptyHost.create({ ...bashShell, createdBy: { kind: 'person', name: 'you' } });
    const frames = [
      '{"type":"terminalInput","terminalId":"ghost","channelId":"c","dataBase64":"YQ=="}',
      '{"type":"nope"}',
      'garbage',
      '{"type":"terminalResize","terminalId":"ghost","channelId":"c","cols":"x","rows":1}',
    ];
    const durationMs = 2_000;
    const perTick = 100; // every 10 ms: 10 000 frames a second
    let sent = 0;
    let maxQueued = 0;
    let pings = 0;
    const started = Date.now();
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        for (let index = 0; index < perTick; index++) send(connection!, frames[(sent + index) % frames.length]!);
        sent += perTick;
        maxQueued = Math.max(maxQueued, cli.stats.link?.queuedFrames ?? 0);
        if (sent % 2_000 === 0) send(connection!, { type: 'browseDir', requestId: `ping-${pings++}`, channelId: 'c', machineId: 'm1', path: hub.temp.workspace });
        if (Date.now() - started >= durationMs) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    // The local app kept working: a pane answers while the flood is processed.
    local.write('echo still-alive-$((7*6))\r');
    await pollUntil(async () => (await local.readScreen()).lines.join('\n').includes('still-alive-42'), { what: 'local pane output' });
    // Every flood frame was refused (none lost, none crashed anything), every request answered.
    await pollUntil(() => cli.stats.refusals && Object.values(cli.stats.refusals).reduce((a, b) => a + b, 0) >= sent, { timeoutMs: 30_000, what: 'all flood frames processed' });
    await pollUntil(() => connection!.received.filter((frame) => String(frame.requestId).startsWith('ping-')).length === pings, { what: 'every browseDir answered' });
    assert.ok(sent >= 5_000, `sent ${sent}`);
    assert.ok(maxQueued <= 512, `send queue stayed bounded (max ${maxQueued})`);
    assert.equal(cli.stats.connections, 1);
    assert.equal(cli.status.state, 'connected');
    // Four kinds, one line each, whatever the volume.
    assert.equal(log.lines.filter((line) => line.includes('refused a relay frame')).length, 4);
    await hub.hub.ptyHost.close(local.id);
  });

  it('never slows the local pane for a relay that stops reading: the viewer is skipped ahead, memory stays bounded, the link is dropped', async () => {
    relay = await ScriptedRelay.start();
    let connection: ScriptedConnection | undefined;
    relay.behaviour = welcomeThen((c) => {
      if (!connection) connection = c;
    });
    const viewerBufferBytes = 256 * 1024;
    const cli = start({ shareAll: true, viewerBufferBytes, timing: { writeTimeoutMs: 3_000, initialMs: 50, maxMs: 200 } });
    await pollUntil(() => cli.status.state === 'connected' && connection, { what: 'connected' });
    // The flood starts once the viewer has its snapshot: what is tested is a stall mid-stream, not
    // an attach to a pane already flooding (whose snapshot waits for the mirror to catch up).
    const go = join(mkdtempSync(join(tmpdir(), 'sb-flood-')), 'go');
    const flood = await hub.hub.ptyHost.create({
      file: 'bash',
      args: ['--norc', '--noprofile', '-c', `until [ -e ${go} ]; do sleep 0.02; done; yes "flood line with some text to make it longer"`],
      shellIntegration: false,
      createdBy: { kind: 'person', name: 'you' },
    });
    try {
      send(connection!, { type: 'agentTerminalAttach', terminalId: flood.id, channelId: 'viewer-1' });
      await pollUntil(() => connection!.received.some((frame) => frame.type === 'terminalSnapshot'), { what: 'the viewer’s snapshot' });
      writeFileSync(go, '');
      await pollUntil(() => connection!.received.some((frame) => frame.type === 'terminalOutput'), { what: 'output reaches the relay' });
      // The relay stops reading: TCP fills up, then nothing the client writes is flushed.
      connection!.req.socket.pause();
      const pausedAt = flood.offset;
      let maxBacklog = 0;
      await pollUntil(
        () => {
          maxBacklog = Math.max(maxBacklog, cli.stats.maxViewerBacklogBytes);
          return flood.offset - pausedAt > 32 * 1024 * 1024;
        },
        { timeoutMs: 60_000, intervalMs: 5, what: 'the pane keeps producing output while the relay is stalled' },
      );
      assert.ok(maxBacklog <= viewerBufferBytes, `viewer backlog ${maxBacklog} stayed within ${viewerBufferBytes}`);
      assert.ok(cli.stats.viewerSkips >= 1, 'the stalled viewer was skipped ahead');
      assert.ok((cli.stats.link?.bufferedBytes ?? 0) < 4 * 1024 * 1024, 'the socket buffer stays small: output waits (bounded) in the stream');
      await pollUntil(() => statuses.some((s) => s.state === 'reconnecting' && /not flushed within 3000 ms/.test(s.reason)), { timeoutMs: 30_000, what: 'write timeout drops the link' });
      await pollUntil(() => cli.stats.connections >= 2, { timeoutMs: 20_000, what: 'reconnected' });
    } finally {
      await hub.hub.ptyHost.close(flood.id);
    }
  });
});
