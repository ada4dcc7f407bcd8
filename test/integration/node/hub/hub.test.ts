import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EventPayload, TerminalInfo } from '../../../../src/common/api/contract.ts';
import { ApiError } from '../../../../src/common/api/errors.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../../src/node/hub.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';

const bash = { file: 'bash', args: ['--norc', '--noprofile'], shellIntegration: false };

async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ApiError, `expected ApiError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Collects one client's events by name. */
function recordEvents(client: LocalHubClient) {
  const events: { event: string; payload: any }[] = [];
  for (const name of ['terminal.added', 'terminal.changed', 'terminal.removed', 'terminal.output', 'settings.changed', 'layout.changed'] as const) {
    client.on(name, (payload) => events.push({ event: name, payload }));
  }
  return events;
}

/** Everything a client received for one terminal since attach, checking the offsets are contiguous. */
function outputOf(events: { event: string; payload: any }[], id: string, fromOffset: number): string {
  let offset = fromOffset;
  let text = '';
  for (const { event, payload } of events) {
    if (event !== 'terminal.output' || payload.id !== id) continue;
    const output = payload as EventPayload<'terminal.output'>;
    assert.equal(output.offset, offset + Buffer.byteLength(output.data), 'output offsets must be contiguous');
    offset = output.offset;
    text += output.data;
  }
  return text;
}

describe('Hub in-process (real PTYs)', () => {
  let temp: ReturnType<typeof createTempHome>;
  let hub: Hub;
  let client: LocalHubClient;
  const create = (extra: Record<string, unknown> = {}) => client.call('terminal.create', { ...bash, env: testEnv(temp.home), ...extra });

  before(async () => {
    temp = createTempHome();
    hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, version: '9.9.9', env: {} });
    await hub.start();
  });

  after(() => {
    hub.dispose();
    temp.dispose();
  });

  afterEach(async () => {
    client?.dispose();
    const second = createLocalHubClient(hub);
    for (const info of await second.call('terminal.list', {})) await second.call('terminal.close', { id: info.id });
    second.dispose();
  });

  it('reports its state and creates the data dir 0700', async () => {
    client = createLocalHubClient(hub);
    const state = await client.call('app.getState', {});
    assert.equal(state.host, 'test');
    assert.equal(state.version, '9.9.9');
    assert.deepEqual(state.workspaceFolders, [temp.workspace]);
    assert.equal(state.dataDir, temp.dataDir);
    assert.equal(state.homeDir, homedir());
    assert.equal(state.layout, null);
    assert.equal(statSync(temp.dataDir).mode & 0o777, 0o700);
  });

  it('creates a terminal in the first workspace folder, lists it and announces it to every client', async () => {
    client = createLocalHubClient(hub);
    const other = createLocalHubClient(hub, { kind: 'agent', name: 'observer' });
    const seen = recordEvents(other);
    try {
      const info = await create({ name: 'first' });
      assert.equal(info.state, 'running');
      assert.equal(info.cwd, temp.workspace);
      assert.equal(info.name, 'first');
      assert.deepEqual(info.createdBy, { kind: 'person', name: 'test' });
      assert.ok(info.pid && processAlive(info.pid));
      assert.deepEqual((await client.call('terminal.list', {})).map((t) => t.id), [info.id]);
      await pollUntil(() => seen.find((e) => e.event === 'terminal.added' && e.payload.id === info.id), { what: 'terminal.added' });
    } finally {
      other.dispose();
    }
  });

  it('gives terminals without a name one no other terminal has: bash, bash 2, bash 3; a chosen name is kept', async () => {
    client = createLocalHubClient(hub);
    const first = await create();
    const second = await create();
    const third = await create();
    assert.deepEqual([first.name, second.name, third.name], ['bash', 'bash 2', 'bash 3']);
    // A freed name is used again; a name given on purpose stays, even a taken one.
    await client.call('terminal.close', { id: second.id });
    assert.equal((await create()).name, 'bash 2');
    assert.equal((await create({ name: 'bash' })).name, 'bash');
    await client.call('terminal.rename', { id: third.id, name: 'watcher' });
    assert.equal((await create()).name, 'bash 3');
  });

  it('attaches with a snapshot, streams output from its offset, and sees SWITCHBOARD_SOCKET', async () => {
    client = createLocalHubClient(hub);
    const events = recordEvents(client);
    const info = await create();
    await client.call('terminal.write', { id: info.id, data: 'echo before-$((40+2))\r' });
    const attached = await pollUntil(async () => {
      const result = await client.call('terminal.attach', { id: info.id });
      if (result.snapshot.includes('before-42')) return result;
      await client.call('terminal.detach', { id: info.id });
      return undefined;
    }, { what: 'snapshot with earlier output' });
    assert.equal(attached.info.id, info.id);
    assert.equal(attached.cols, 80);
    assert.equal(attached.rows, 24);
    await client.call('terminal.write', { id: info.id, data: 'echo "sock=$SWITCHBOARD_SOCKET id=$SWITCHBOARD_TERMINAL_ID" $((20+22))\r' });
    const text = await pollUntil(() => {
      const output = outputOf(events, info.id, attached.offset);
      return output.includes(' 42') ? output : undefined;
    }, { what: 'echo output' });
    assert.ok(text.includes(`sock=${join(temp.dataDir, 'control.sock')} id=${info.id}`), text);
    assert.ok(!text.includes('before-42'), 'output after attach must not repeat the snapshot');
  });

  it('resizes, renames and announces the changes; refuses 0x0', async () => {
    client = createLocalHubClient(hub);
    const events = recordEvents(client);
    const info = await create();
    await client.call('terminal.resize', { id: info.id, cols: 100, rows: 30 });
    await pollUntil(() => events.find((e) => e.event === 'terminal.changed' && e.payload.cols === 100 && e.payload.rows === 30), { what: 'resize event' });
    await rejectsWith(client.callRaw('terminal.resize', { id: info.id, cols: 0, rows: 0 }), 'INVALID_PARAMS', /cols: Too small: expected number to be >=2/);
    const renamed = await client.call('terminal.rename', { id: info.id, name: 'build' });
    assert.equal(renamed.name, 'build');
    assert.equal(renamed.cols, 100);
    await pollUntil(() => events.find((e) => e.event === 'terminal.changed' && e.payload.name === 'build'), { what: 'rename event' });
  });

  it('says on attach whether the shell is still starting: after its rc printed, before its first prompt', async (t) => {
    client = createLocalHubClient(hub);
    // A real rc that prints a banner and then takes a second (nvm, conda): the integration's cwd
    // report and the banner are out, the prompt is not.
    const rc = join(temp.home, '.bashrc');
    writeFileSync(rc, `echo loading-tools\ntouch ${join(temp.home, 'banner-shown')}\nsleep 1\nPS1='$ '\n`);
    t.after(() => rmSync(rc, { force: true }));
    const info = await create({ args: [], shellIntegration: true });
    await pollUntil(() => existsSync(join(temp.home, 'banner-shown')), { what: 'the rc to print its banner' });
    const starting = await pollUntil(async () => {
      const result = await client.call('terminal.attach', { id: info.id });
      if (result.snapshot.includes('loading-tools')) return result;
      await client.call('terminal.detach', { id: info.id });
      return undefined;
    }, { what: 'the banner in the snapshot' });
    assert.ok(starting.offset > 0);
    assert.equal(starting.startingUp, true);
    const ready = await pollUntil(async () => {
      const result = await client.call('terminal.attach', { id: info.id });
      return result.snapshot.includes('$ ') ? result : undefined;
    }, { what: 'the first prompt' });
    assert.equal(ready.startingUp, false);
    // Without our integration nothing is known: never "starting".
    const plain = await create();
    assert.equal((await client.call('terminal.attach', { id: plain.id })).startingUp, false);
  });

  it('closes a terminal: the process ends, it leaves the list, and terminal.removed is sent', async () => {
    client = createLocalHubClient(hub);
    const events = recordEvents(client);
    const info = await create();
    await client.call('terminal.attach', { id: info.id });
    await client.call('terminal.close', { id: info.id });
    assert.deepEqual(await client.call('terminal.list', {}), []);
    assert.ok(events.some((e) => e.event === 'terminal.removed' && e.payload.id === info.id));
    await pollUntil(() => !processAlive(info.pid!), { what: 'shell to exit' });
    await rejectsWith(client.call('terminal.write', { id: info.id, data: 'x' }), 'NOT_FOUND');
  });

  it('answers bad params, unknown methods and unknown ids with specific codes', async () => {
    client = createLocalHubClient(hub);
    await rejectsWith(client.callRaw('terminal.create', { cols: 'wide' }), 'INVALID_PARAMS', /cols: Invalid input: expected number, received string/);
    await rejectsWith(client.callRaw('terminal.create', { shell: 'zsh' }), 'INVALID_PARAMS', /Unrecognized key: "shell"/);
    await rejectsWith(client.callRaw('terminal.write', { id: 'no such id!', data: 'x' }), 'INVALID_PARAMS', /id: terminal ids are/);
    await rejectsWith(client.callRaw('terminal.write', null), 'INVALID_PARAMS');
    await rejectsWith(client.callRaw('terminal.teleport', {}), 'UNKNOWN_METHOD', /terminal\.teleport/);
    await rejectsWith(client.callRaw('__proto__', {}), 'UNKNOWN_METHOD');
    for (const [method, params] of [
      ['terminal.write', { id: 'nope', data: 'x' }],
      ['terminal.resize', { id: 'nope', cols: 80, rows: 24 }],
      ['terminal.rename', { id: 'nope', name: 'x' }],
      ['terminal.attach', { id: 'nope' }],
      ['terminal.detach', { id: 'nope' }],
      ['terminal.ack', { id: 'nope', chars: 10 }],
      ['terminal.close', { id: 'nope' }],
      ['terminal.markSeen', { id: 'nope' }],
    ] as const) {
      await rejectsWith(client.callRaw(method, params), 'NOT_FOUND', /nope/);
    }
  });

  it('refuses a missing cwd and a program that does not exist', async () => {
    client = createLocalHubClient(hub);
    await rejectsWith(create({ cwd: join(temp.workspace, 'missing') }), 'INVALID_PARAMS', /cwd/);
    await rejectsWith(create({ file: 'definitely-not-a-program-xyz', args: [] }), 'PTY_SPAWN_FAILED', /definitely-not-a-program-xyz/);
    assert.deepEqual(await client.call('terminal.list', {}), []);
  });

  it('answers TERMINAL_EXITED to a write after the process exited', async () => {
    client = createLocalHubClient(hub);
    const info = await create({ args: ['--norc', '--noprofile', '-c', 'exit 3'] });
    const exited = await pollUntil(async () => (await client.call('terminal.list', {})).find((t: TerminalInfo) => t.id === info.id && t.state === 'exited'), { what: 'exit' });
    assert.equal(exited.exitCode, 3);
    await rejectsWith(client.call('terminal.write', { id: info.id, data: 'x' }), 'TERMINAL_EXITED');
    await rejectsWith(client.call('terminal.resize', { id: info.id, cols: 90, rows: 20 }), 'TERMINAL_EXITED');
  });

  it("keeps serving one client while another sends garbage or has a broken event sink", async () => {
    client = createLocalHubClient(hub);
    const events = recordEvents(client);
    const broken = hub.connect({ sendEvent: () => { throw new Error('sink exploded'); } }, { kind: 'remote', name: 'broken' });
    const noisy = createLocalHubClient(hub, { kind: 'agent', name: 'noisy' });
    try {
      const info = await create();
      const attached = await client.call('terminal.attach', { id: info.id });
      assert.equal((await broken.call('terminal.attach', { id: info.id })).ok, true);
      const garbage: Array<[string, unknown]> = [
        ['terminal.write', { id: info.id }],
        ['terminal.resize', { id: info.id, cols: -1, rows: 1e9 }],
        ['terminal.create', 'bash'],
        ['nope', undefined],
        ['terminal.close', { id: 'x'.repeat(500) }],
      ];
      const outcomes = await Promise.all(garbage.map(([method, params]) => noisy.callRaw(method, params).then(() => 'ok', (error: ApiError) => error.code)));
      assert.deepEqual(outcomes, ['INVALID_PARAMS', 'INVALID_PARAMS', 'INVALID_PARAMS', 'UNKNOWN_METHOD', 'INVALID_PARAMS']);
      await client.call('terminal.write', { id: info.id, data: 'echo still $((6*7))\r' });
      await pollUntil(() => outputOf(events, info.id, attached.offset).includes('still 42'), { what: 'output despite the noise' });
      assert.equal((await client.call('terminal.list', {})).length, 1);
    } finally {
      broken.dispose();
      noisy.dispose();
    }
  });

  it("releases a client's attachments when it leaves, so a client that never acks cannot stall the PTY", async () => {
    client = createLocalHubClient(hub);
    const info = await create();
    const lazy = createLocalHubClient(hub, { kind: 'remote', name: 'lazy' });
    let lazyChars = 0;
    lazy.on('terminal.output', ({ data }) => (lazyChars += data.length));
    await lazy.call('terminal.attach', { id: info.id });
    // 1 MB of output: far past the 100 000-char high watermark while `lazy` acks nothing.
    await client.call('terminal.write', { id: info.id, data: 'head -c 1000000 /dev/zero | tr "\\0" x; echo; echo done-$((1+1))\r' });
    await pollUntil(() => lazyChars > 100_000, { what: 'the lazy client to receive a high watermark of output' });
    const stalled = await client.call('terminal.attach', { id: info.id });
    assert.ok(stalled.offset < 600_000, `the PTY should be paused by the client that does not ack (offset ${stalled.offset})`);
    assert.ok(!stalled.snapshot.includes('done-2'));
    lazy.dispose();
    await pollUntil(async () => {
      const now = await client.call('terminal.attach', { id: info.id });
      return now.snapshot.includes('done-2');
    }, { what: 'output to resume once the lazy client left', timeoutMs: 15_000 });
  });

  it('persists settings and tells the other clients', async () => {
    client = createLocalHubClient(hub);
    const other = createLocalHubClient(hub);
    const seen = recordEvents(other);
    try {
      const settings = await client.call('settings.update', { theme: 'dark', fontSize: 16 });
      assert.equal(settings.theme, 'dark');
      assert.equal(settings.fontSize, 16);
      assert.ok(seen.some((e) => e.event === 'settings.changed' && e.payload.fontSize === 16));
      assert.equal(statSync(join(temp.dataDir, 'settings.json')).mode & 0o777, 0o600);
      await rejectsWith(client.callRaw('settings.update', { fontSize: 4 }), 'INVALID_PARAMS', /fontSize/);
      assert.equal((await client.call('app.getState', {})).settings.fontSize, 16);
    } finally {
      other.dispose();
    }
  });

  it('keeps the layout for a reloaded renderer and tells the other clients', async () => {
    client = createLocalHubClient(hub);
    const other = createLocalHubClient(hub);
    const seen = recordEvents(other);
    const mine = recordEvents(client);
    try {
      const layout = { tabs: [{ id: 'a', title: 'main', root: { type: 'pane' as const, terminalId: 't-1' } }], activeTabId: 'a', focusedTerminalId: 't-1' };
      await client.call('layout.set', layout);
      assert.deepEqual(seen.find((e) => e.event === 'layout.changed')?.payload, layout);
      assert.equal(mine.some((e) => e.event === 'layout.changed'), false);
      client.dispose();
      client = createLocalHubClient(hub);
      assert.deepEqual((await client.call('app.getState', {})).layout, layout);
      await rejectsWith(client.callRaw('layout.set', { tabs: [] }), 'INVALID_PARAMS', /activeTabId/);
    } finally {
      other.dispose();
    }
  });

  it('rejects calls from a disposed client with CONNECTION_CLOSED', async () => {
    client = createLocalHubClient(hub);
    client.dispose();
    await rejectsWith(client.call('terminal.list', {}), 'CONNECTION_CLOSED');
  });
});

describe('Hub.dispose()', () => {
  it('leaves no PTY process behind, including background jobs of the shells', async (t) => {
    const temp = createTempHome();
    t.after(() => temp.dispose());
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {} });
    await hub.start();
    const client = createLocalHubClient(hub);
    const events = recordEvents(client);
    const pidFile = join(temp.workspace, 'bg.pid');
    const first = await client.call('terminal.create', { ...bash, env: testEnv(temp.home) });
    const second = await client.call('terminal.create', { ...bash, env: testEnv(temp.home) });
    const attached = await client.call('terminal.attach', { id: first.id });
    await client.call('terminal.write', { id: first.id, data: `sleep 1000 & echo $! > ${pidFile}; echo started-$((2+3))\r` });
    await pollUntil(() => outputOf(events, first.id, attached.offset).includes('started-5'), { what: 'background job' });
    const { readFileSync } = await import('node:fs');
    const backgroundPid = Number(readFileSync(pidFile, 'utf8').trim());
    const pids = [first.pid!, second.pid!, backgroundPid];
    for (const pid of pids) assert.ok(processAlive(pid), `pid ${pid} should run before dispose`);
    hub.dispose();
    await pollUntil(() => pids.every((pid) => !processAlive(pid)), { what: `processes ${pids.join(', ')} to be gone`, timeoutMs: 5_000 });
    assert.equal(hub.connectionCount, 0);
    await rejectsWith(client.call('terminal.list', {}), 'CONNECTION_CLOSED');
  });
});
