/**
 * Conformance: transport and framing of the control socket (claws.md "Transport and framing"),
 * spoken as raw NDJSON over real Unix sockets.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hub } from '../../../src/node/hub.ts';
import { createLogger, nullLogger } from '../../../src/node/logger.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { NdjsonClient, startTestHub, type TestHub } from './controlTestKit.ts';

describe('control socket framing (claws/1)', () => {
  let t: TestHub;
  before(async () => {
    t = await startTestHub();
  });
  after(async () => {
    await t.dispose();
  });

  it('answers in the claws envelope: id, rid, protocol, ok', async () => {
    const client = await t.connect();
    client.send({ id: 41, cmd: 'ping' });
    const frame = await client.next();
    assert.deepEqual(Object.keys(frame).slice(0, 4), ['id', 'rid', 'protocol', 'ok']);
    assert.equal(frame.id, 41);
    assert.equal(frame.rid, 41);
    assert.equal(frame.protocol, 'claws/1');
    assert.equal(frame.ok, true);
    assert.equal(typeof frame.serverTime, 'number');
    assert.equal('error' in frame, false, 'error only when ok:false');
  });

  it('answers bad json without id, coded INVALID_PARAMS, and keeps the connection', async () => {
    const client = await t.connect();
    client.write('{"id":1,"cmd":\n');
    assert.deepEqual(await client.next(), { protocol: 'claws/1', ok: false, error: 'bad json', code: 'INVALID_PARAMS' });
    const pong = await client.request({ id: 2, cmd: 'ping' });
    assert.equal(pong.ok, true);
  });

  it('skips blank lines and accepts CRLF line ends', async () => {
    const client = await t.connect();
    client.write('\n   \n\r\n{"id":"a","cmd":"ping"}\r\n\n');
    const frame = await client.next();
    assert.equal(frame.rid, 'a');
    assert.equal(client.frames.length, 0);
  });

  it('refuses an unknown protocol version and anything that is not a request object', async () => {
    const client = await t.connect();
    assert.deepEqual(await client.request({ id: 5, cmd: 'ping', protocol: 'claws/9' }), {
      id: 5,
      rid: 5,
      protocol: 'claws/1',
      ok: false,
      error: 'incompatible protocol version',
      code: 'INVALID_PARAMS',
    });
    assert.equal((await client.request({ id: 6, cmd: 'ping', protocol: 'claws/1' })).ok, true);
    assert.equal((await client.request({ id: 7, cmd: 'ping', protocol: 'claws/2' })).ok, true);
    client.write('[1,2]\n');
    assert.deepEqual(await client.next(), { protocol: 'claws/1', ok: false, error: 'request must be a JSON object', code: 'INVALID_PARAMS' });
    client.send({ cmd: 'ping' });
    const noId = await client.next();
    assert.equal(noId.ok, false);
    assert.match(noId.error, /^id: /);
    client.send({ id: true, cmd: 'ping' });
    assert.match((await client.next()).error, /^id: /);
    const noCmd = await client.request({ id: 8 });
    assert.match(noCmd.error, /^cmd: /);
  });

  it('still answers a client that shut down its sending side, then ends the connection', async () => {
    const client = await t.connect();
    client.socket.end('{"id":"half","cmd":"exec","terminalId":"nope","command":"true"}\n{"id":"half2","cmd":"ping"}\n');
    const answers = [await client.next(), await client.next()].map((frame) => frame.rid).sort();
    assert.deepEqual(answers, ['half', 'half2']);
    await client.waitClosed();
  });

  it('answers unknown commands with "unknown cmd: X", coded UNKNOWN_METHOD', async () => {
    const client = await t.connect();
    // Not a claws command either (those Switchboard refuses by name, see clawsUnsupported.ts).
    const frame = await client.request({ id: 9, cmd: 'no.such.command' });
    assert.equal(frame.ok, false);
    assert.equal(frame.error, 'unknown cmd: no.such.command');
    assert.equal(frame.code, 'UNKNOWN_METHOD');
  });

  it('names the field when a request has a wrong type, and never crashes', async () => {
    const client = await t.connect();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ cmd: 'send', terminalId: 't-x', text: 42 }, /^text: /],
      [{ cmd: 'send', terminalId: 't-x', text: 'a', newline: 'yes' }, /^newline: /],
      [{ cmd: 'exec', terminalId: 't-x', command: ['ls'] }, /^command: /],
      [{ cmd: 'exec', terminalId: 't-x', command: 'ls', timeoutMs: -5 }, /^timeoutMs: /],
      [{ cmd: 'readLog', terminalId: 't-x', offset: 'zero' }, /^offset: /],
      [{ cmd: 'readLog', terminalId: 't-x', strip: 1 }, /^strip: /],
      [{ cmd: 'create', env: { A: 1 } }, /^env\.A: /],
      [{ cmd: 'create', cols: 0 }, /^cols: /],
      [{ cmd: 'poll', since: -1 }, /^since: /],
      [{ cmd: 'resize', terminalId: 't-x', cols: 80 }, /^rows: /],
      [{ cmd: 'signal', terminalId: 't-x', signal: 'SIGSEGV' }, /^signal: /],
      [{ cmd: 'wait', terminalId: 't-x', timeoutMs: 10 }, /wait needs at least one of/],
      [{ cmd: 'rename', terminalId: 't-x', name: '' }, /^name: /],
      [{ cmd: 'readScreen', terminalId: { id: 1 } }, /^terminalId: /],
    ];
    for (const [request, pattern] of cases) {
      const frame = await client.request(request);
      assert.equal(frame.ok, false, JSON.stringify(request));
      assert.match(frame.error, pattern, JSON.stringify(request));
      assert.equal(frame.code, 'INVALID_PARAMS');
    }
    assert.equal((await client.request({ cmd: 'ping' })).ok, true);
  });

  it('answers "request too large" and closes the connection for a 2 MiB line; others are unaffected', async () => {
    const bystander = await t.connect();
    const client = await t.connect();
    client.write('{"id":1,"cmd":"send","text":"' + 'x'.repeat(2 * 1024 * 1024) + '"}\n');
    const frame = await client.next();
    assert.deepEqual(frame, { protocol: 'claws/1', ok: false, error: 'request too large', code: 'INVALID_PARAMS' });
    await client.waitClosed();
    assert.equal((await bystander.request({ cmd: 'ping' })).ok, true);
  });

  it('applies the 1 MiB rule to an unterminated line too', async () => {
    const client = await t.connect();
    client.write('{"id":1,"cmd":"ping","pad":"' + 'y'.repeat(1024 * 1024 + 10));
    assert.equal((await client.next()).error, 'request too large');
    await client.waitClosed();
  });

  it('answers 10 000 tiny requests sent in one chunk', async () => {
    const client = await t.connect();
    let batch = '';
    for (let index = 0; index < 10_000; index++) batch += `{"id":${index},"cmd":"ping"}\n`;
    client.write(batch);
    await pollUntil(() => client.frames.length === 10_000, { timeoutMs: 20_000, what: '10 000 answers' });
    const ids = new Set(client.frames.map((frame) => frame.rid));
    assert.equal(ids.size, 10_000);
    assert.ok(client.frames.every((frame) => frame.ok === true));
  });

  it('handles requests concurrently: a long exec does not hold up a list on the same connection', async () => {
    const client = await t.connect();
    const created = await client.request({ cmd: 'create', shellPath: 'bash', shellArgs: ['--norc', '--noprofile'], shellIntegration: false, env: t.env });
    client.send({ id: 'slow', cmd: 'exec', terminalId: created.id, command: 'sleep 0.6; echo done' });
    client.send({ id: 'fast', cmd: 'list' });
    const first = await client.next(10_000);
    const second = await client.next(10_000);
    assert.equal(first.rid, 'fast');
    assert.equal(second.rid, 'slow');
    assert.equal(second.event.output, 'done\n');
    await client.request({ cmd: 'close', terminalId: created.id });
  });

  it('serves 200 clients at once, each getting its own answer', async () => {
    const before = t.hub.controlServer.connectionCount;
    const clients = await Promise.all(Array.from({ length: 200 }, () => t.connect()));
    const answers = await Promise.all(clients.map((client, index) => client.request({ id: `c${index}`, cmd: 'introspect' })));
    answers.forEach((answer, index) => {
      assert.equal(answer.rid, `c${index}`);
      assert.equal(answer.ok, true);
    });
    for (const client of clients) client.close();
    await pollUntil(() => t.hub.controlServer.connectionCount === before, { what: 'connections to be released' });
  });

  it('drops a client that never reads its responses instead of buffering without bound', async () => {
    const client = await t.connect();
    const created = await client.request({ cmd: 'create', shellPath: 'bash', shellArgs: ['--norc', '--noprofile'], shellIntegration: false, env: t.env });
    await client.request({ cmd: 'exec', terminalId: created.id, command: 'head -c 300000 /dev/zero | tr "\\0" "x"; echo' });
    const greedy = await t.connect();
    greedy.socket.pause(); // never read
    const request = JSON.stringify({ id: 1, cmd: 'readLog', terminalId: created.id, strip: false }) + '\n';
    let writes = 0;
    while (!greedy.closed && writes < 400) {
      greedy.write(request.repeat(10));
      writes++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await pollUntil(() => greedy.closed || greedy.socket.destroyed, { timeoutMs: 15_000, what: 'the greedy client to be dropped' });
    // The server is fine and the terminal still works.
    const check = await client.request({ cmd: 'exec', terminalId: created.id, command: 'echo still here' });
    assert.equal(check.event.output, 'still here\n');
    await client.request({ cmd: 'close', terminalId: created.id });
  });
});

describe('control socket files', () => {
  it('creates the socket 0600 in a 0700 directory, also at <workspace>/.claws/claws.sock, and removes both on shutdown', async () => {
    const t = await startTestHub();
    try {
      assert.equal(statSync(t.socketPath).mode & 0o777, 0o600);
      assert.ok(lstatSync(t.socketPath).isSocket());
      assert.equal(statSync(t.dataDir).mode & 0o777, 0o700);
      const claws = join(t.workspace, '.claws', 'claws.sock');
      assert.equal(statSync(claws).mode & 0o777, 0o600);
      assert.equal(statSync(join(t.workspace, '.claws')).mode & 0o777, 0o700);
      const client = await t.connect(claws);
      const introspect = await client.request({ id: 1, cmd: 'introspect' });
      assert.deepEqual(introspect.servers, [
        { workspace: null, socket: t.socketPath },
        { workspace: t.workspace, socket: claws },
      ]);
    } finally {
      const claws = join(t.workspace, '.claws', 'claws.sock');
      await t.hub.shutdown();
      assert.equal(existsSync(t.socketPath), false);
      assert.equal(existsSync(claws), false);
      await t.dispose();
    }
  });

  it('can run without the claws compatibility socket', async () => {
    const t = await startTestHub({ clawsCompatSockets: false });
    try {
      assert.equal(existsSync(join(t.workspace, '.claws')), false);
      assert.deepEqual(t.hub.controlServer.sockets, [{ workspace: null, socket: t.socketPath }]);
    } finally {
      await t.dispose();
    }
  });

  it('replaces a stale socket file left by a dead server', async () => {
    const temp = createTempHome('sb-ctl-stale-');
    mkdirSync(temp.dataDir, { recursive: true, mode: 0o700 });
    const socketPath = join(temp.dataDir, 'control.sock');
    // A socket file nobody listens on: a server process killed before it could clean up.
    const child = spawnSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    assert.equal(child.signal, 'SIGKILL');
    assert.ok(lstatSync(socketPath).isSocket());
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    try {
      await hub.start();
      const client = await NdjsonClient.connect(socketPath);
      assert.equal((await client.request({ cmd: 'ping' })).ok, true);
      client.close();
    } finally {
      hub.dispose();
      temp.dispose();
    }
  });

  it('refuses to start when a live server holds the socket, naming the path', async () => {
    const first = await startTestHub({ clawsCompatSockets: false });
    const second = new Hub({ dataDir: first.dataDir, workspaceFolders: [first.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    try {
      await assert.rejects(second.start(), (error: Error) => {
        assert.match(error.message, /already listening/);
        assert.ok(error.message.includes(first.socketPath), error.message);
        return true;
      });
      // The first server keeps its socket.
      const client = await first.connect();
      assert.equal((await client.request({ cmd: 'ping' })).ok, true);
    } finally {
      second.dispose();
      await first.dispose();
    }
  });

  it('skips a claws socket another live server holds, but still serves the main socket', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sb-ctl-claws-'));
    const workspace = join(root, 'ws');
    mkdirSync(join(workspace, '.claws'), { recursive: true });
    const other = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => other.listen(join(workspace, '.claws', 'claws.sock'), resolve));
    const hub = new Hub({ dataDir: join(root, 'data'), workspaceFolders: [workspace], host: 'test', logger: nullLogger, env: {} });
    try {
      await hub.start();
      assert.deepEqual(hub.controlServer.sockets, [{ workspace: null, socket: join(root, 'data', 'control.sock') }]);
    } finally {
      hub.dispose();
      other.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses a .claws that is a symbolic link: the folder it points to keeps its mode and gets no socket; the control socket still works', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sb-ctl-clawslink-'));
    const workspace = join(root, 'ws');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(elsewhere, { mode: 0o755 });
    chmodSync(elsewhere, 0o755);
    // A repository can carry this: `.claws` -> some folder of the user's.
    symlinkSync(elsewhere, join(workspace, '.claws'));
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', sink: (line) => lines.push(line) });
    const hub = new Hub({ dataDir: join(root, 'data'), workspaceFolders: [workspace], host: 'test', logger, env: {} });
    try {
      await hub.start();
      assert.equal(statSync(elsewhere).mode & 0o777, 0o755, 'the linked folder is not chmod\'ed');
      assert.deepEqual(readdirSync(elsewhere), [], 'no socket is bound through the link');
      assert.ok(lstatSync(join(workspace, '.claws')).isSymbolicLink(), 'the link itself is left alone');
      assert.deepEqual(hub.controlServer.sockets, [{ workspace: null, socket: join(root, 'data', 'control.sock') }]);
      const warning = lines.find((line) => line.includes('claws compatibility socket not available'));
      assert.ok(warning, lines.join('\n'));
      assert.match(warning, /symbolic link/);
      assert.ok(warning.includes(join(workspace, '.claws')), warning);
      const client = await NdjsonClient.connect(join(root, 'data', 'control.sock'));
      assert.equal((await client.request({ cmd: 'ping' })).ok, true);
      client.close();
    } finally {
      hub.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('never follows or removes a symbolic link planted at a socket path, even one to a live socket', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sb-ctl-socklink-'));
    const dataDir = join(root, 'data');
    const workspace = join(root, 'ws');
    mkdirSync(dataDir, { mode: 0o700 });
    mkdirSync(join(workspace, '.claws'), { recursive: true, mode: 0o700 });
    const precious = join(root, 'precious.txt');
    writeFileSync(precious, 'precious');
    const other = createServer((socket) => socket.end('other\n'));
    const otherPath = join(root, 'other.sock');
    await new Promise<void>((resolve) => other.listen(otherPath, resolve));
    symlinkSync(otherPath, join(dataDir, 'control.sock'));
    symlinkSync(precious, join(workspace, '.claws', 'claws.sock'));
    const hub = new Hub({ dataDir, workspaceFolders: [workspace], host: 'test', logger: nullLogger, env: {} });
    try {
      await assert.rejects(hub.start(), /control\.sock exists and is not a socket; refusing to replace it/);
      assert.ok(lstatSync(join(dataDir, 'control.sock')).isSymbolicLink(), 'the link is left');
      assert.ok(lstatSync(otherPath).isSocket(), 'the socket it points to is left');
    } finally {
      hub.dispose();
    }
    // With a real control socket path, the claws link is skipped and left; the file it points to is untouched.
    rmSync(join(dataDir, 'control.sock'));
    const second = new Hub({ dataDir, workspaceFolders: [workspace], host: 'test', logger: nullLogger, env: {} });
    try {
      await second.start();
      assert.deepEqual(second.controlServer.sockets, [{ workspace: null, socket: join(dataDir, 'control.sock') }]);
      assert.ok(lstatSync(join(workspace, '.claws', 'claws.sock')).isSymbolicLink());
      assert.equal(readFileSync(precious, 'utf8'), 'precious');
      assert.equal(statSync(precious).mode & 0o777, 0o644 & ~process.umask());
    } finally {
      await second.shutdown();
      other.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('on shutdown leaves alone a socket another server bound at our path since', async () => {
    const t = await startTestHub({ clawsCompatSockets: false });
    const other = createServer((socket) => socket.end());
    try {
      rmSync(t.socketPath);
      await new Promise<void>((resolve) => other.listen(t.socketPath, resolve));
      await t.hub.shutdown();
      assert.ok(lstatSync(t.socketPath).isSocket(), 'the other server keeps its socket');
      const client = createConnection(t.socketPath);
      await new Promise((resolve, reject) => client.once('connect', resolve).once('error', reject));
      client.destroy();
    } finally {
      other.close();
      await t.dispose();
    }
  });

  it('does not replace a file that is not a socket', async () => {
    const temp = createTempHome('sb-ctl-file-');
    mkdirSync(temp.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(temp.dataDir, 'control.sock'), 'precious');
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    try {
      await assert.rejects(hub.start(), /is not a socket/);
    } finally {
      hub.dispose();
      temp.dispose();
    }
  });
});
