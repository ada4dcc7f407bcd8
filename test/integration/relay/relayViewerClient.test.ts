/**
 * The remote view's IHubClient (src/browser/relayHubClient.ts) in Node's own WebSocket against a
 * real `switchboard relay`, with a scripted daemon on the other side that sends exactly the frames
 * a test needs (seq gaps, exits, approvals) and records what the client sent. The full stack with a
 * real Hub and real Chromium is test/e2e/remoteView.test.ts.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket as WsSocket } from 'ws';
import { ApiError } from '../../../src/common/api/errors.ts';
import type { EventPayload } from '../../../src/common/api/contract.ts';
import { parseEnvelope } from '../../../src/common/protocol/relay/envelope.ts';
import { encodeFrame, rfc3339 } from '../../../src/common/protocol/relay/frames.ts';
import type { RelayFields, RelayMessage, RelayMessageType } from '../../../src/common/protocol/relay/messages.ts';
import { machineOfflineMessage, RelayHubClient } from '../../../src/browser/relayHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { startTestRelay, type TestRelay, TestViewer } from './relayTestKit.ts';

/** A daemon that says hello, answers the client's sync request, and otherwise does what the test tells it. */
class ScriptedDaemon {
  readonly received: RelayMessage[] = [];
  /** Terminals this daemon answers snapshot requests for. */
  readonly alive = new Set<string>();
  readonly #socket: WsSocket;

  private constructor(socket: WsSocket) {
    this.#socket = socket;
    socket.on('message', (data) => {
      const parsed = parseEnvelope(data.toString());
      if (!parsed.ok) return;
      this.received.push(parsed.message);
      // Terminals that still run answer a snapshot request (a restored tab checks its own).
      if (parsed.message.type === 'agentTerminalSnapshotRequest' && this.alive.has(parsed.message.terminalId)) {
        const { terminalId, channelId } = parsed.message;
        this.send('terminalSnapshot', { terminalId, sessionId: 'view', channelId, seq: 0, dataBase64: '' });
      }
      // The client's barrier: answer it like a daemon whose home is not shared.
      if (parsed.message.type === 'browseDir') {
        this.send('browseDirResult', { requestId: parsed.message.requestId, channelId: parsed.message.channelId, ok: false, error: 'path "~" is outside allowed root "/w"' });
      }
    });
  }

  static async connect(relay: TestRelay, machineId: string): Promise<ScriptedDaemon> {
    const socket = new WsSocket(`${relay.url}/ws/daemon?machineId=${machineId}`, { headers: { Authorization: `Bearer ${relay.tokens.get(machineId)!.daemonToken}` } });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const daemon = new ScriptedDaemon(socket);
    socket.send(encodeFrame('hello', { machineId, daemonVersion: '9.9.9', os: 'linux', arch: 'x64' }));
    await new Promise((resolve) => socket.once('message', resolve)); // welcome
    return daemon;
  }

  send<T extends RelayMessageType>(type: T, fields: RelayFields<T>): void {
    this.#socket.send(encodeFrame(type, fields));
  }

  announce(terminalId: string, fields: Partial<RelayFields<'agentTerminalStarted'>> = {}): void {
    this.send('agentTerminalStarted', {
      jobId: terminalId,
      terminalId,
      sessionId: 'switchboard:m1',
      channelId: '*',
      projectId: '/w',
      commandPreview: 'bash',
      title: `pane ${terminalId}`,
      cwd: '/w/src',
      status: 'running',
      startedAt: rfc3339(),
      ...fields,
    });
  }

  waitFor<T extends RelayMessageType>(type: T, predicate: (frame: Extract<RelayMessage, { type: T }>) => boolean = () => true, from = 0): Promise<Extract<RelayMessage, { type: T }>> {
    return pollUntil(() => this.received.slice(from).find((frame): frame is Extract<RelayMessage, { type: T }> => frame.type === type && predicate(frame as never)), {
      what: `the daemon to receive ${type}`,
    });
  }

  close(): Promise<void> {
    if (this.#socket.readyState === WsSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#socket.close();
    });
  }
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

function memoryStorage() {
  const items = new Map<string, string>();
  return { items, getItem: (key: string) => items.get(key) ?? null, setItem: (key: string, value: string) => void items.set(key, value), removeItem: (key: string) => void items.delete(key) };
}

describe('RelayHubClient against a real relay and a scripted daemon', () => {
  let relay: TestRelay;
  let daemon: ScriptedDaemon;
  const clients: RelayHubClient[] = [];

  const connect = async (options: { storage?: ReturnType<typeof memoryStorage>; channelId?: string } = {}) => {
    const client = await RelayHubClient.connect({
      target: { machineId: 'm1', socketUrl: `${relay.url}/ws/ui`, viewerName: 'tablet' },
      storage: options.storage,
      ...(options.channelId ? { channelId: options.channelId } : {}),
      createSocket: (url) => new WebSocket(url, { headers: { Authorization: `Bearer ${relay.tokens.get('m1')!.viewerToken}` } } as never),
      timing: { snapshotTimeoutMs: 3_000, syncTimeoutMs: 2_000, resnapshotAfterResizeMs: 20 },
    });
    clients.push(client);
    return client;
  };

  before(async () => {
    relay = await startTestRelay({ machines: ['m1'] });
    daemon = await ScriptedDaemon.connect(relay, 'm1');
    daemon.announce('t1');
  });

  afterEach(() => {
    for (const client of clients.splice(0)) client.dispose();
  });

  after(async () => {
    await daemon.close();
    await relay.close();
  });

  it('connects once the machine has sent its list: the shared terminals, host "remote", an empty layout', async () => {
    const client = await connect();
    const state = await client.call('app.getState', {});
    assert.equal(state.host, 'remote');
    assert.deepEqual(state.layout, { tabs: [], activeTabId: null, focusedTerminalId: null });
    const list = await client.call('terminal.list', {});
    assert.deepEqual(
      list.map((info) => [info.id, info.name, info.cwd, info.state, info.createdBy.kind]),
      [['t1', 'pane t1', '/w/src', 'running', 'person']],
    );
    const sync = await daemon.waitFor('browseDir', (frame) => frame.channelId === client.channelId);
    assert.equal(sync.path, '~', 'the barrier is a cheap browseDir');
  });

  it('attaches with a snapshot, streams output, and re-snapshots the pane after a seq gap', async () => {
    const client = await connect();
    const outputs: EventPayload<'terminal.output'>[] = [];
    client.on('terminal.output', (event) => outputs.push(event));
    const attaching = client.call('terminal.attach', { id: 't1' });
    await daemon.waitFor('agentTerminalAttach', (frame) => frame.channelId === client.channelId);
    const channelId = client.channelId;
    daemon.send('terminalSnapshot', { terminalId: 't1', sessionId: 'switchboard:m1', channelId, seq: 5, dataBase64: b64('$ ') });
    const attached = await attaching;
    assert.equal(attached.snapshot, '$ ');
    assert.equal(attached.info.id, 't1');

    daemon.send('terminalOutput', { terminalId: 't1', sessionId: 'switchboard:m1', channelId, seq: 6, dataBase64: b64('ls\r\n') });
    const mark = daemon.received.length;
    daemon.send('terminalOutput', { terminalId: 't1', sessionId: 'switchboard:m1', channelId, seq: 8, dataBase64: b64('lost\r\n') });
    await daemon.waitFor('agentTerminalSnapshotRequest', (frame) => frame.terminalId === 't1' && frame.channelId === channelId, mark);
    daemon.send('terminalSnapshot', { terminalId: 't1', sessionId: 'switchboard:m1', channelId, seq: 8, dataBase64: b64('$ ls\r\na b\r\n$ ') });
    daemon.send('terminalOutput', { terminalId: 't1', sessionId: 'switchboard:m1', channelId, seq: 9, dataBase64: b64('x') });
    await pollUntil(() => outputs.length >= 3, { what: 'three output events' });
    assert.deepEqual(
      outputs.map((event) => event.data),
      ['ls\r\n', '\x1bc$ ls\r\na b\r\n$ ', 'x'],
    );
    // Offsets grow with every event, starting after the attach snapshot.
    assert.ok(outputs[0]!.offset > attached.offset && outputs[1]!.offset > outputs[0]!.offset && outputs[2]!.offset > outputs[1]!.offset);
  });

  it('sends input (split into frames, named by the relay), resizes and then asks for a snapshot at the new size', async () => {
    const client = await connect();
    const channelId = client.channelId;
    const attaching = client.call('terminal.attach', { id: 't1' });
    await daemon.waitFor('agentTerminalAttach', (frame) => frame.channelId === channelId);
    daemon.send('terminalSnapshot', { terminalId: 't1', sessionId: 'switchboard:m1', channelId, seq: 1, dataBase64: b64('') });
    await attaching;

    const text = `echo ${'é'.repeat(6000)}\r`;
    const mark = daemon.received.length;
    await client.call('terminal.write', { id: 't1', data: text });
    const inputs = await pollUntil(() => {
      const frames = daemon.received.slice(mark).filter((frame): frame is Extract<RelayMessage, { type: 'terminalInput' }> => frame.type === 'terminalInput');
      return frames.map((frame) => Buffer.from(frame.dataBase64, 'base64').toString('utf8')).join('') === text ? frames : undefined;
    }, { what: 'all input frames' });
    assert.ok(inputs.length > 1, 'a long input is split');
    for (const frame of inputs) {
      assert.ok(Buffer.from(frame.dataBase64, 'base64').length <= 8192);
      assert.equal(frame.channelId, channelId);
      assert.equal(frame.viewerName, 'tablet', 'the relay stamps the name the view connected with');
    }

    const beforeResize = daemon.received.length;
    await client.call('terminal.resize', { id: 't1', cols: 132, rows: 40 });
    const resize = await daemon.waitFor('terminalResize', () => true, beforeResize);
    assert.deepEqual([resize.terminalId, resize.cols, resize.rows], ['t1', 132, 40]);
    await daemon.waitFor('agentTerminalSnapshotRequest', (frame) => frame.terminalId === 't1', beforeResize);
  });

  it('opens a terminal through the relay, and reports a refusal with the machine\'s words', async () => {
    const client = await connect();
    const added: string[] = [];
    client.on('terminal.added', (info) => added.push(info.id));
    const creating = client.call('terminal.create', { cwd: '/w', cols: 500, rows: 2 });
    const open = await daemon.waitFor('terminalOpen', (frame) => frame.channelId === client.channelId);
    assert.equal(open.cols, 300, 'clamped to the protocol\'s bounds');
    assert.equal(open.rows, 5);
    assert.equal(open.cwd, '/w');
    assert.equal(open.viewerName, 'tablet');
    daemon.send('terminalOpened', { requestId: open.requestId, terminalId: 'r-1', sessionId: open.sessionId, channelId: open.channelId, shell: '/bin/bash', cwd: '/w', startedAt: rfc3339() });
    const info = await creating;
    assert.deepEqual([info.id, info.name, info.cwd, info.createdBy.name], ['r-1', 'bash', '/w', 'you']);
    assert.deepEqual(added, ['r-1']);
    assert.ok((await client.call('terminal.list', {})).some((terminal) => terminal.id === 'r-1'));

    // The machine names it as its app does (`bash 6` beside five other bash panes): one name in both places.
    const named = client.call('terminal.create', {});
    const third = await daemon.waitFor('terminalOpen', (frame) => frame.requestId !== open.requestId && frame.channelId === client.channelId);
    daemon.send('terminalOpened', { requestId: third.requestId, terminalId: 'r-6', sessionId: third.sessionId, channelId: third.channelId, shell: '/bin/bash', cwd: '/w', startedAt: rfc3339(), title: 'bash 6' });
    assert.equal((await named).name, 'bash 6');

    const refused = client.call('terminal.create', {});
    const second = await daemon.waitFor('terminalOpen', (frame) => ![open.requestId, third.requestId].includes(frame.requestId) && frame.channelId === client.channelId);
    daemon.send('terminalError', { requestId: second.requestId, sessionId: second.sessionId, channelId: second.channelId, error: 'Terminal limit reached' });
    await assert.rejects(refused, (error: unknown) => error instanceof ApiError && error.code === 'PTY_SPAWN_FAILED' && error.message === 'Terminal limit reached');
    await assert.rejects(client.call('terminal.create', { file: '/bin/sh' }), { code: 'INVALID_PARAMS' });
    await assert.rejects(client.call('terminal.create', { cwd: '~/src' }), (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS' && /absolute path/.test(error.message));

    // Its exit marks it ended; closing it then removes it.
    const changed = new Promise<EventPayload<'terminal.changed'>>((resolve) => client.on('terminal.changed', resolve));
    daemon.send('terminalExit', { terminalId: 'r-1', sessionId: open.sessionId, channelId: client.channelId, exitCode: 3, reason: 'process_exit', endedAt: rfc3339() });
    assert.deepEqual([(await changed).state, (await changed).exitCode], ['exited', 3]);
    const removed = new Promise<string>((resolve) => client.on('terminal.removed', ({ id }) => resolve(id)));
    await client.call('terminal.close', { id: 'r-1' });
    assert.equal(await removed, 'r-1');
  });

  it('keeps its layout and its own terminals in the tab across a reload, and forgets those that ended', async () => {
    const storage = memoryStorage();
    const first = await connect({ storage });
    const answered = new Set<string>();
    const open = async (terminalId: string) => {
      const creating = first.call('terminal.create', {});
      const request = await daemon.waitFor('terminalOpen', (frame) => frame.channelId === first.channelId && !answered.has(frame.requestId));
      answered.add(request.requestId);
      daemon.send('terminalOpened', { requestId: request.requestId, terminalId, sessionId: request.sessionId, channelId: request.channelId, shell: 'bash', cwd: '/w', startedAt: rfc3339() });
      await creating;
    };
    await open('r-keep');
    await open('r-gone');
    const layout = {
      tabs: [
        { id: 'tab-1', root: { type: 'pane' as const, terminalId: 'r-keep' } },
        { id: 'tab-2', root: { type: 'pane' as const, terminalId: 'r-gone' } },
      ],
      activeTabId: 'tab-1',
      focusedTerminalId: 'r-keep',
    };
    await first.call('layout.set', layout);
    first.dispose();

    // Across the reload r-keep still runs; r-gone ended (it answers nothing).
    daemon.alive.add('r-keep');
    const second = await connect({ storage });
    assert.equal(second.channelId, first.channelId, 'same tab, same channel');
    assert.deepEqual((await second.call('app.getState', {})).layout, layout, 'the window prunes r-gone\'s tab itself');
    const ids = (await second.call('terminal.list', {})).map((terminal) => terminal.id);
    assert.ok(ids.includes('r-keep'));
    assert.ok(!ids.includes('r-gone'));
    second.dispose();

    // Once none of its terminals is left, the layout is not restored (an empty window, no new terminal).
    daemon.alive.clear();
    const third = await connect({ storage });
    assert.deepEqual((await third.call('app.getState', {})).layout, { tabs: [], activeTabId: null, focusedTerminalId: null });
    assert.ok(!(await third.call('terminal.list', {})).some((terminal) => terminal.id === 'r-keep'));
  });

  it('lists a pending approval, answers it, and drops it once the machine settles it', async () => {
    const client = await connect();
    daemon.send('permissionRequest', {
      sessionId: 'switchboard:m1',
      channelId: '*',
      requestId: 'rv-1',
      toolName: 'openDiff',
      toolInput: { reviewId: 'rv-1', path: '/w/a.txt', title: 'a.txt', diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n' },
    });
    await pollUntil(() => client.approvals.pending.length === 1, { what: 'the approval' });
    assert.equal(client.approvals.pending[0]!.review?.path, '/w/a.txt');
    assert.equal(client.approvals.decide('rv-1', true), true);
    const answer = await daemon.waitFor('permissionResponse', (frame) => frame.requestId === 'rv-1');
    assert.deepEqual([answer.approved, answer.sessionId, answer.channelId, answer.viewerName], [true, 'switchboard:m1', client.channelId, 'tablet']);
    daemon.send('permissionResponse', { sessionId: 'switchboard:m1', channelId: '*', requestId: 'rv-1', approved: true, outcome: 'accepted', decidedBy: 'tablet' });
    await pollUntil(() => client.approvals.pending.length === 0, { what: 'the approval to be settled' });
    assert.deepEqual([client.approvals.settled[0]!.outcome, client.approvals.settled[0]!.decidedBy, client.approvals.settled[0]!.confirmed], ['accepted', 'tablet', true]);
  });

  it('drops a terminal the machine stops sharing, and refuses what the relay cannot carry', async () => {
    daemon.announce('t2');
    const client = await connect();
    assert.ok((await client.call('terminal.list', {})).some((terminal) => terminal.id === 't2'));
    const removed = new Promise<string>((resolve) => client.on('terminal.removed', ({ id }) => resolve(id)));
    daemon.send('terminalExit', { terminalId: 't2', sessionId: 'switchboard:m1', channelId: '*', reason: 'closed_by_user', endedAt: rfc3339() });
    assert.equal(await removed, 't2');

    for (const [method, params] of [
      ['settings.update', { fontSize: 14 }],
      ['history.status', {}],
      ['terminal.rename', { id: 't1', name: 'x' }],
      ['tokens.list', {}],
    ] as const) {
      await assert.rejects(client.call(method, params as never), (error: unknown) => error instanceof ApiError && error.code === 'UNKNOWN_METHOD' && /not available in the remote view/.test(error.message), method);
    }
    await assert.rejects(client.call('terminal.write', { id: 'nope', data: 'x' }), { code: 'NOT_FOUND' });
    await assert.rejects(client.call('terminal.resize', { id: 't1', cols: 0, rows: 0 }), { code: 'INVALID_PARAMS' });
    assert.deepEqual(await client.call('terminal.ack', { id: 't1', chars: 5000 }), { ok: true });
  });
});

describe('RelayHubClient when the machine is offline or goes away', () => {
  it('fails to connect with a clear message while the machine is offline, and ends when it drops', async () => {
    const relay = await startTestRelay({ machines: ['m1'] });
    const viewerToken = relay.tokens.get('m1')!.viewerToken;
    const options = {
      target: { machineId: 'm1', socketUrl: `${relay.url}/ws/ui` },
      createSocket: (url: string) => new WebSocket(url, { headers: { Authorization: `Bearer ${viewerToken}` } } as never),
      timing: { syncTimeoutMs: 3_000 },
    };
    let daemon: ScriptedDaemon | undefined;
    try {
      await assert.rejects(RelayHubClient.connect(options), (error: unknown) => error instanceof ApiError && error.code === 'CONNECTION_CLOSED' && error.message === machineOfflineMessage('m1'));

      daemon = await ScriptedDaemon.connect(relay, 'm1');
      daemon.announce('t1');
      const client = await RelayHubClient.connect(options);
      const disconnected = new Promise<void>((resolve) => client.onDidDisconnect(() => resolve()));
      const attach = client.call('terminal.attach', { id: 't1' });
      await daemon.waitFor('agentTerminalAttach');
      await daemon.close();
      await disconnected;
      await assert.rejects(attach, { code: 'CONNECTION_CLOSED' });
      await assert.rejects(client.call('terminal.list', {}), { code: 'CONNECTION_CLOSED' });
      client.dispose();
    } finally {
      await daemon?.close();
      await relay.close();
    }
  });
});

describe('RelayHubClient refused or without a relay', () => {
  it('says UNAUTHORIZED when the relay refuses this browser (its page answers 401), and CONNECTION_CLOSED when there is no relay', async () => {
    const relay = await startTestRelay({ machines: ['m1'] });
    const port = relay.port;
    try {
      // No cookie and no bearer: the upgrade is refused, and the page itself says 401.
      await assert.rejects(
        RelayHubClient.connect({ target: { machineId: 'm1', socketUrl: `${relay.url}/ws/ui`, pageUrl: `http://127.0.0.1:${port}/m/m1/` } }),
        (error: unknown) => error instanceof ApiError && error.code === 'UNAUTHORIZED' && /no longer lets this browser view m1/.test(error.message),
      );
    } finally {
      await relay.close();
    }
    await assert.rejects(
      RelayHubClient.connect({ target: { machineId: 'm1', socketUrl: `ws://127.0.0.1:${port}/ws/ui`, pageUrl: `http://127.0.0.1:${port}/m/m1/` } }),
      (error: unknown) => error instanceof ApiError && error.code === 'CONNECTION_CLOSED' && error.message === 'cannot reach the relay',
    );
  });
});

describe('switchboard relay: approvals for viewers that join later', () => {
  it('replays pending approvals to a new viewer, forgets settled ones, and stamps the answering viewer\'s name', async () => {
    const relay = await startTestRelay({ machines: ['m1'] });
    const viewerToken = relay.tokens.get('m1')!.viewerToken;
    const daemon = await ScriptedDaemon.connect(relay, 'm1');
    const viewers: TestViewer[] = [];
    try {
      const request = (requestId: string) =>
        daemon.send('permissionRequest', { sessionId: 'switchboard:m1', channelId: '*', requestId, toolName: 'openDiff', toolInput: { path: `/w/${requestId}`, diff: '' } });
      request('rv-a');
      request('rv-b');
      const early = await TestViewer.connect(relay, 'm1', viewerToken, { name: 'laptop' });
      viewers.push(early);
      await early.waitFor((frame) => frame.type === 'permissionRequest' && frame.requestId === 'rv-b', { what: 'rv-b replayed' });
      assert.deepEqual(
        early.frames.filter((frame) => frame.type === 'permissionRequest').map((frame) => frame.type === 'permissionRequest' && frame.requestId),
        ['rv-a', 'rv-b'],
      );
      // A viewer answers: the daemon gets the relay's name for it, never the one it claims.
      early.sendRaw(JSON.stringify({ type: 'permissionResponse', sessionId: 'switchboard:m1', channelId: early.channelId, requestId: 'rv-a', approved: true, viewerName: 'the boss' }));
      const answer = await daemon.waitFor('permissionResponse', (frame) => frame.requestId === 'rv-a');
      assert.equal(answer.viewerName, 'laptop');
      // The daemon settles it for everyone.
      daemon.send('permissionResponse', { sessionId: 'switchboard:m1', channelId: '*', requestId: 'rv-a', approved: true, outcome: 'accepted', decidedBy: 'laptop' });
      await early.waitFor((frame) => frame.type === 'permissionResponse' && frame.requestId === 'rv-a', { what: 'the settlement' });

      const late = await TestViewer.connect(relay, 'm1', viewerToken);
      viewers.push(late);
      await late.waitFor((frame) => frame.type === 'permissionRequest', { what: 'a replayed request' });
      await early.close();
      assert.deepEqual(
        late.frames.filter((frame) => frame.type === 'permissionRequest').map((frame) => frame.type === 'permissionRequest' && frame.requestId),
        ['rv-b'],
        'the settled request is not replayed',
      );

      // The daemon going offline forgets them (it mirrors its pending list again when it is back).
      await daemon.close();
      await late.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'offline', { what: 'offline' });
      const afterOutage = await TestViewer.connect(relay, 'm1', viewerToken);
      viewers.push(afterOutage);
      await afterOutage.waitFor((frame) => frame.type === 'machineStatus', { what: 'status' });
      assert.equal(afterOutage.frames.filter((frame) => frame.type === 'permissionRequest').length, 0);
    } finally {
      for (const viewer of viewers) await viewer.close();
      await daemon.close();
      await relay.close();
    }
  });
});
