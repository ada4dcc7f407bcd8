/**
 * Conformance: every claws/1 command, its fields and its error strings (claws.md "claws/1
 * commands"), over a raw NDJSON connection to a real Hub with real PTYs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, type Frame, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

describe('claws/1 commands', () => {
  let t: TestHub;
  let client: NdjsonClient;
  before(async () => {
    t = await startTestHub();
    client = await t.connect();
  });
  after(async () => {
    await t.dispose();
  });

  /** The terminal's whole output so far, ANSI-stripped. */
  async function log(terminalId: string): Promise<string> {
    return (await client.request({ cmd: 'readLog', terminalId, offset: 0 })).bytes;
  }

  it('ping answers with the server time', async () => {
    const frame = await client.request({ id: 1, cmd: 'ping' });
    assert.ok(Math.abs(frame.serverTime - Date.now()) < 5_000);
  });

  it('create returns the new terminal id in `id` while `rid` keeps the request id; list shows it', async () => {
    const created = await client.request({ id: 100, cmd: 'create', name: 'worker-1', ...shells.bashPlain, env: t.env, clientName: 'test-agent', wrapped: true });
    assert.equal(created.rid, 100);
    assert.equal(typeof created.id, 'string');
    assert.notEqual(created.id, 100);
    assert.equal(created.wrapped, true);
    assert.equal(created.logPath, null);

    const list = await client.request({ id: 101, cmd: 'list' });
    const entry = list.terminals.find((terminal: Frame) => terminal.id === created.id);
    assert.ok(entry, 'listed');
    assert.equal(entry.name, 'worker-1');
    assert.equal(typeof entry.pid, 'number');
    assert.equal(entry.hasShellIntegration, false);
    assert.equal(entry.active, false);
    assert.equal(entry.logPath, null);
    assert.equal(entry.wrapped, true);
    assert.equal(entry.cwd, t.workspace, 'default cwd: the workspace folder');
    assert.equal(entry.status, 'running');
    assert.equal(entry.exitCode, null);
    assert.equal(entry.cols, 80);
    assert.equal(entry.rows, 24);
    assert.deepEqual(entry.createdBy, { kind: 'agent', name: 'test-agent' });
    await client.request({ cmd: 'close', terminalId: created.id });
  });

  it('create takes cwd (relative to the workspace), env, size and shell; bad ones are refused clearly', async () => {
    const created = await client.request({ cmd: 'create', ...shells.bashPlain, cwd: '.', env: { ...t.env, MARKER: 'm-42' }, cols: 100, rows: 30 });
    const id = created.id as string;
    assert.equal(created.terminal.cols, 100);
    assert.equal(created.terminal.cwd, t.workspace);
    const exec = await client.request({ cmd: 'exec', terminalId: id, command: 'echo "$MARKER $SWITCHBOARD_TERMINAL_ID $SWITCHBOARD_SOCKET $(stty size)"' });
    assert.equal(exec.event.output, `m-42 ${id} ${t.socketPath} 30 100\n`);
    // claws' own names for the same things: its hooks, claws_done and its clients read these.
    const claws = await client.request({ cmd: 'exec', terminalId: id, command: 'echo "$CLAWS_TERMINAL_ID $CLAWS_WRAPPED $CLAWS_SOCKET"' });
    assert.equal(claws.event.output, `${id} 1 ${join(t.workspace, '.claws', 'claws.sock')}\n`);
    await client.request({ cmd: 'close', terminalId: id });

    const missingCwd = await client.request({ cmd: 'create', cwd: '/definitely/not/here' });
    assert.equal(missingCwd.ok, false);
    assert.match(missingCwd.error, /cwd does not exist: \/definitely\/not\/here/);
    const badShell = await client.request({ cmd: 'create', shellPath: '/no/such/shell' });
    assert.equal(badShell.ok, false);
    assert.match(badShell.error, /cannot start \/no\/such\/shell/);
    assert.equal(badShell.code, 'PTY_SPAWN_FAILED');
  });

  it("takes null for an optional field as absent, as claws' Python client sends it", async () => {
    // claws' clients/python/claws/client.py: create(name, cwd=None, wrapped=False) → "cwd": null.
    const created = await client.request({ cmd: 'create', name: 'from-python', cwd: null, wrapped: false, env: t.env, ...shells.bashPlain });
    assert.equal(created.ok, true, created.error);
    assert.equal(created.terminal.cwd, t.workspace);
    const id = created.id as string;
    const exec = await client.request({ cmd: 'exec', terminalId: id, command: 'echo py', timeoutMs: null });
    assert.equal(exec.ok, true, exec.error);
    assert.equal(exec.event.output, 'py\n');
    const log = await client.request({ cmd: 'readLog', terminalId: id, offset: null, limit: null, strip: null });
    assert.equal(log.ok, true, log.error);
    // A null where a value is required is still refused, naming the field.
    const refused = await client.request({ cmd: 'exec', terminalId: id, command: null });
    assert.equal(refused.ok, false);
    assert.match(refused.error, /^command: /);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('terminal commands carry the terminal id in `id` (rid = terminal id) or in `terminalId`', async () => {
    const id = await createTerminal(client, t.env);
    const viaId = await client.request({ id, cmd: 'send', text: 'echo via-id' });
    assert.equal(viaId.rid, id);
    assert.equal(viaId.id, id);
    assert.equal(viaId.mode, 'wrapped');
    const viaField = await client.request({ id: 'req-7', cmd: 'send', terminalId: id, text: 'echo via-field' });
    assert.equal(viaField.rid, 'req-7');
    await pollUntil(async () => (await log(id)).includes('via-field\r\n'), { what: 'both sends to run' });
    assert.ok((await log(id)).includes('via-id\r\n'));
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('answers "unknown terminal id X" for every terminal command', async () => {
    for (const cmd of ['show', 'send', 'exec', 'readLog', 'readScreen', 'wait', 'resize', 'signal', 'rename']) {
      const extra: Frame = { send: { text: 'x' }, exec: { command: 'true' }, wait: { idleMs: 10 }, resize: { cols: 80, rows: 24 }, signal: { signal: 'SIGINT' }, rename: { name: 'n' } }[cmd] ?? {};
      const frame = await client.request({ id: 'ghost-1', cmd, ...extra });
      assert.equal(frame.ok, false, cmd);
      assert.equal(frame.error, 'unknown terminal id ghost-1', cmd);
      // A numeric id can name no terminal (ids are strings): claws' words, then what went wrong.
      const numeric = await client.request({ id: 77, cmd, ...extra });
      assert.ok(String(numeric.error).startsWith('unknown terminal id 77: no terminalId given'), `${cmd}: ${numeric.error}`);
    }
  });

  it('send types text with Enter (\\r) by default, without Enter on newline:false', async () => {
    const id = await createTerminal(client, t.env);
    await client.request({ cmd: 'send', terminalId: id, text: 'echo part', newline: false });
    await client.request({ cmd: 'send', terminalId: id, text: '-two' });
    await pollUntil(async () => (await log(id)).includes('part-two\r\n'), { what: 'the joined line to run' });
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('send wraps text in bracketed paste on paste:true, and automatically for multi-line text when the program enabled it', async () => {
    const id = await createTerminal(client, t.env);
    // `od -c` shows the exact bytes the program reads (the tty stays canonical, so ^D ends it); the
    // shell enables nothing, so DECSET 2004 is set by hand.
    const started = await client.request({ cmd: 'send', terminalId: id, text: "printf '\\033[?2004h'; stty -echo; od -An -c" });
    await pollUntil(async () => (await client.request({ cmd: 'readScreen', terminalId: id })).bracketedPaste === true, { what: 'bracketed paste mode' });
    const sent = await client.request({ cmd: 'send', terminalId: id, text: 'one\ntwo', newline: false });
    assert.equal(sent.pasted, true);
    assert.ok(sent.offset >= started.offset);
    const explicit = await client.request({ cmd: 'send', terminalId: id, text: 'x', paste: true, newline: false });
    assert.equal(explicit.pasted, true);
    const plain = await client.request({ cmd: 'send', terminalId: id, text: 'y', newline: false });
    assert.equal(plain.pasted, false);
    await client.request({ cmd: 'send', terminalId: id, text: '\x04\x04', newline: false });
    const text = await pollUntil(async () => {
      const output = (await client.request({ cmd: 'readLog', terminalId: id, offset: sent.offset, strip: false })).bytes as string;
      return output.includes(' y') ? output : undefined;
    }, { what: 'od to print the bytes it read' });
    // od prints ESC as 033: the paste markers around both pasted bodies, none around "y".
    assert.match(text.replace(/\s+/g, ' '), /033 \[ 2 0 0 ~ o n e \\n t w o 033 \[ 2 0 1 ~ 033 \[ 2 0 0 ~ x 033 \[ 2 0 1 ~ y/);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('send strips a paste-end marker from pasted text', async () => {
    const id = await createTerminal(client, t.env);
    await client.request({ cmd: 'send', terminalId: id, text: 'stty -echo; od -An -c' });
    await pollUntil(async () => (await log(id)).includes('od -An -c'), { what: 'od to start' });
    const sent = await client.request({ cmd: 'send', terminalId: id, text: 'a\x1b[201~b', paste: true, newline: false });
    await client.request({ cmd: 'send', terminalId: id, text: '\x04\x04', newline: false });
    const text = await pollUntil(async () => {
      const output = (await client.request({ cmd: 'readLog', terminalId: id, offset: sent.offset, strip: false })).bytes as string;
      return output.includes(' b ') ? output.replace(/\s+/g, ' ') : undefined;
    }, { what: 'od output' });
    assert.match(text, /033 \[ 2 0 0 ~ a b 033 \[ 2 0 1 ~/);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('send after a paste presses Enter as a separate write about 30 ms later', async () => {
    const id = await createTerminal(client, t.env);
    // A reader that reports each read(2) separately: the paste and the Enter arrive in different reads.
    await client.request({
      cmd: 'send',
      terminalId: id,
      text:
        "printf '\\033[?2004h'; stty raw -echo; node -e 'process.stdout.write(\"READY\\r\\n\"); " +
        'process.stdin.on("data", (b) => { process.stdout.write("READ" + JSON.stringify(b.toString("latin1")) + "\\r\\n"); if (b.includes(4)) process.exit(0); })\'',
    });
    await pollUntil(async () => (await log(id)).includes('READY\r\n'), { what: 'the reader to start' });
    const sent = await client.request({ cmd: 'send', terminalId: id, text: 'hi', paste: true });
    await client.request({ cmd: 'send', terminalId: id, text: '\x04', newline: false });
    const reads = await pollUntil(async () => {
      const output = (await client.request({ cmd: 'readLog', terminalId: id, offset: sent.offset })).bytes as string;
      return output.includes('u0004') ? output : undefined;
    }, { what: 'the reads to be reported' });
    // The paste and its Enter are separate reads; the Ctrl-D sent right after may share the Enter's (a loaded machine).
    assert.match(reads, /READ"\\u001b\[200~hi\\u001b\[201~"\r\nREAD"\\r(\\u0004)?"\r\n/);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('readLog reads absolute byte offsets: tail by default, offset/limit windows, nextOffset, strip', async () => {
    const id = await createTerminal(client, t.env);
    await client.request({ cmd: 'exec', terminalId: id, command: "printf '\\033[31mRED\\033[0m ünï\\n'" });
    const tail = await client.request({ cmd: 'readLog', terminalId: id });
    assert.equal(tail.logPath, null);
    assert.equal(tail.offset, 0, 'the whole (short) log is the tail');
    assert.equal(tail.nextOffset, tail.totalSize);
    assert.equal(tail.truncated, false);
    assert.ok(tail.bytes.includes('RED ünï\r\n'), 'stripped by default');
    const raw = await client.request({ cmd: 'readLog', terminalId: id, strip: false });
    assert.ok(raw.bytes.includes('\x1b[31mRED\x1b[0m'));

    const first = await client.request({ cmd: 'readLog', terminalId: id, offset: 0, limit: 10, strip: false });
    assert.equal(first.offset, 0);
    assert.equal(first.nextOffset, 10);
    assert.equal(first.truncated, true, 'more follows');
    const second = await client.request({ cmd: 'readLog', terminalId: id, offset: first.nextOffset, limit: 1_000_000, strip: false });
    assert.equal(second.offset, 10);
    assert.equal(first.bytes + second.bytes, raw.bytes);

    const small = await client.request({ cmd: 'readLog', terminalId: id, limit: 5, strip: false });
    assert.equal(small.nextOffset, small.totalSize);
    assert.equal(small.offset, small.totalSize - 5);
    const beyond = await client.request({ cmd: 'readLog', terminalId: id, offset: 10_000_000 });
    assert.equal(beyond.bytes, '');
    assert.equal(beyond.offset, beyond.totalSize);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('readLog clamps an offset below the retained window up and says truncated', async () => {
    const id = await createTerminal(client, t.env);
    // 5 MB through a 4 MiB ring: the first bytes are gone.
    await client.request({ cmd: 'exec', terminalId: id, command: 'head -c 5000000 /dev/zero | tr "\\0" "z" > /dev/null; seq 1 700000 | tail -c 5000000 >/dev/null; yes abcdefghij | head -c 5000000; echo', timeoutMs: 60_000 });
    const read = await client.request({ cmd: 'readLog', terminalId: id, offset: 0, limit: 100 });
    assert.ok(read.totalSize > 5_000_000);
    assert.ok(read.offset >= read.totalSize - 4 * 1024 * 1024, `clamped up to the retained window (offset ${read.offset})`);
    assert.equal(read.truncated, true);
    const huge = await client.request({ cmd: 'readLog', terminalId: id, offset: read.offset, limit: 10_000_000, strip: false });
    assert.equal(huge.nextOffset - huge.offset, 524288, 'limit clamped to 512 KiB');
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('poll returns command events after a cursor, capped at 100 (the newest, when more are waiting)', async () => {
    const id = await createTerminal(client, t.env, shells.bashIntegrated);
    await waitForIntegration(client, id);
    const start = (await client.request({ cmd: 'poll' })).cursor;
    // Typed by "a person" (send): shell integration reports it.
    await client.request({ cmd: 'send', terminalId: id, text: 'echo typed; (exit 4)' });
    const typed = await pollUntil(async () => {
      const page = await client.request({ cmd: 'poll', since: start });
      return page.events.find((event: Frame) => event.terminalId === id);
    }, { what: 'the typed command event' });
    assert.equal(typed.commandLine, 'echo typed; (exit 4)');
    assert.equal(typed.output, 'typed\n');
    assert.equal(typed.exitCode, 4);
    assert.equal(typed.terminalName, 'bash');
    assert.equal(typeof typed.seq, 'number');
    assert.ok(typed.endedAt >= typed.startedAt);

    const exec = await client.request({ cmd: 'exec', terminalId: id, command: 'echo via-exec' });
    const page = await client.request({ cmd: 'poll', since: typed.seq });
    assert.deepEqual(page.events.map((event: Frame) => event.seq), [exec.event.seq]);
    assert.equal(page.cursor, exec.event.seq);
    assert.equal(page.truncated, false);
    assert.equal(page.limit, 100);

    for (let index = 0; index < 3; index++) await client.request({ cmd: 'exec', terminalId: id, command: `echo n${index}` });
    const limited = await client.request({ cmd: 'poll', since: exec.event.seq, limit: 2 });
    assert.deepEqual(limited.events.map((event: Frame) => event.output), ['n1\n', 'n2\n']);
    assert.equal(limited.truncated, true, 'n0 was skipped');
    const rest = await client.request({ cmd: 'poll', since: limited.cursor, limit: 1000 });
    assert.equal(rest.limit, 100, 'client limit is capped by the server');
    assert.deepEqual(rest.events, []);
    assert.equal(rest.cursor, limited.cursor);
    assert.equal(rest.truncated, false);
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('show asks the UI to reveal the pane (terminal.reveal event)', async () => {
    const id = await createTerminal(client, t.env);
    const ui = createLocalHubClient(t.hub);
    const reveals: Frame[] = [];
    ui.on('terminal.reveal', (payload) => reveals.push(payload));
    const shown = await client.request({ id, cmd: 'show', preserveFocus: true });
    assert.equal(shown.ok, true);
    await pollUntil(() => reveals.length === 1, { what: 'the reveal event' });
    assert.deepEqual(reveals[0], { id, preserveFocus: true });
    ui.dispose();
    await client.request({ cmd: 'close', terminalId: id });
  });

  it('close ends the terminal and is idempotent', async () => {
    const id = await createTerminal(client, t.env);
    const closed = await client.request({ id, cmd: 'close' });
    assert.equal(closed.ok, true);
    assert.equal(closed.alreadyClosed, false);
    const list = await client.request({ cmd: 'list' });
    assert.equal(list.terminals.some((terminal: Frame) => terminal.id === id), false);
    const again = await client.request({ id, cmd: 'close' });
    assert.equal(again.ok, true);
    assert.equal(again.alreadyClosed, true);
    assert.equal((await client.request({ id: 'never-existed', cmd: 'close' })).alreadyClosed, true);
  });

  it('a request that names no terminal says its request id was taken for one; close does not hide it as already closed', async () => {
    const mistake = (id: number) => `unknown terminal id ${id}: no terminalId given, so the request id ${id} was taken as the terminal id (the claws convention); send the terminal in terminalId`;
    const send = await client.request({ id: 10, cmd: 'send', text: 'x' });
    assert.deepEqual([send.error, send.code], [mistake(10), 'NOT_FOUND']);
    const screen = await client.request({ id: 11, cmd: 'readScreen' });
    assert.equal(screen.error, mistake(11));
    const close = await client.request({ id: 12, cmd: 'close' });
    assert.deepEqual([close.ok, close.error, close.code], [false, mistake(12), 'INVALID_PARAMS']);
    // claws' own shape — a terminal id in `id` — keeps claws' exact words.
    const gone = await client.request({ id: 't-00000000', cmd: 'send', text: 'x' });
    assert.equal(gone.error, 'unknown terminal id t-00000000');
  });

  it('create refuses a name another terminal has, as rename does, naming that terminal', async () => {
    const first = await createTerminal(client, t.env, { name: 'same-name' });
    const second = await client.request({ cmd: 'create', name: ' same-name ', ...shells.bashPlain, env: t.env });
    assert.equal(second.ok, false);
    assert.equal(second.code, 'INVALID_PARAMS');
    assert.equal(second.error, `the name "same-name" is taken by terminal ${first}; names point at one terminal — pick another or rename that one first`);
    const other = await createTerminal(client, t.env, { name: 'other-name' });
    const renamed = await client.request({ cmd: 'rename', terminalId: other, name: 'same-name' });
    assert.equal(renamed.error, second.error, 'the same words as rename');
    // Two creates with one name at once: one terminal gets it.
    const racing = await Promise.all([1, 2].map(() => client.request({ cmd: 'create', name: 'raced', ...shells.bashPlain, env: t.env })));
    assert.equal(racing.filter((frame) => frame.ok).length, 1, JSON.stringify(racing.map((frame) => frame.error)));
    for (const id of [first, other, racing.find((frame) => frame.ok)!.id]) await client.request({ cmd: 'close', terminalId: id });
  });

  it('says which field is missing or of the wrong type, not just "Invalid input"', async () => {
    client.send({ cmd: 'list' });
    const noId = await client.waitFor((frame) => frame.rid === undefined && typeof frame.error === 'string' && frame.error.startsWith('id:'));
    assert.equal(noId.error, 'id: required (a string or number)');
    const scrollback = await client.request({ cmd: 'readScreen', terminalId: 't-00000000', scrollback: 'lots' });
    assert.equal(scrollback.error, 'scrollback: Invalid input: expected boolean or number, received string');
  });

  it('introspect describes the server', async () => {
    const frame = await client.request({ cmd: 'introspect', clientName: 'probe', clientVersion: '1.0.0' });
    assert.equal(frame.extensionVersion, '9.9.9-test');
    assert.equal(frame.nodeVersion, process.version);
    assert.equal(frame.platform, `${process.platform}-${process.arch}`);
    // node-pty's native module: the file this process really loaded (a stale build elsewhere would not be it).
    assert.deepEqual(frame.nodePty, { loaded: true, error: null, loadedFrom: realpathSync(createRequire(import.meta.url).resolve('node-pty/build/Release/pty.node')) });
    assert.ok(existsSync(frame.nodePty.loadedFrom));
    // Not Electron here: no Electron ABI to report.
    assert.equal(frame.electronAbi, null);
    assert.equal(typeof frame.terminals, 'number');
    assert.equal(typeof frame.uptime_ms, 'number');
    assert.ok(frame.servers.some((server: Frame) => server.socket === t.socketPath));
    for (const cmd of ['list', 'create', 'show', 'send', 'exec', 'readLog', 'poll', 'close', 'introspect', 'ping', 'readScreen', 'wait', 'resize', 'signal', 'rename', 'audit']) {
      assert.ok(frame.commands.includes(cmd), cmd);
    }
  });
});
