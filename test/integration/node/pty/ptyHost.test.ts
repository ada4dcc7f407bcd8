/**
 * PtyHost and PtySession on real PTYs running real bash (`--norc --noprofile`, temp HOME).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { TerminalInfo } from '../../../../src/common/api/contract.ts';
import { ApiError } from '../../../../src/common/api/errors.ts';
import { TerminalConstants } from '../../../../src/common/constants.ts';
import type { PtySession } from '../../../../src/node/pty/ptySession.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { bufferLines, createTestHost, isProcessAlive, person, replay, ringText, waitForOutput } from './ptyTestKit.ts';

const plainBash = { file: 'bash', args: ['--norc', '--noprofile'], shellIntegration: false } as const;

let kit: ReturnType<typeof createTestHost>;
beforeEach(() => {
  kit = createTestHost();
});
afterEach(() => kit.dispose());

function createBash(extra: { cols?: number; rows?: number } = {}): Promise<PtySession> {
  return kit.host.create({ ...plainBash, args: [...plainBash.args], env: { ...kit.env, PS1: '$ ' }, createdBy: person, ...extra });
}

describe('PtyHost: processes', { timeout: 30_000 }, () => {
  test('runs a shell that echoes, and reports its exit code', async () => {
    const added: TerminalInfo[] = [];
    const changed: TerminalInfo[] = [];
    kit.host.onDidAddTerminal((info) => added.push(info));
    kit.host.onDidChangeTerminal((info) => changed.push(info));
    const session = await createBash();
    assert.equal(added.length, 1);
    assert.equal(added[0]?.id, session.id);
    assert.equal(session.info.state, 'running');
    assert.equal(session.info.cwd, kit.temp.workspace);
    assert.ok(session.info.pid && session.info.pid > 0);
    assert.deepEqual(kit.host.list().map((info) => info.id), [session.id]);

    session.write('echo "hello-$((40+2))"\r');
    await waitForOutput(session, 'hello-42');
    session.write('exit 3\r');
    assert.deepEqual(await session.exited, { exitCode: 3, signal: null });
    assert.equal(session.info.state, 'exited');
    assert.equal(session.info.exitCode, 3);
    assert.ok(session.info.endedAt !== null);
    assert.ok(changed.some((info) => info.id === session.id && info.state === 'exited' && info.exitCode === 3));

    assert.throws(() => session.write('x'), (error: unknown) => error instanceof ApiError && error.code === 'TERMINAL_EXITED');
    assert.throws(() => session.resize(100, 40), (error: unknown) => error instanceof ApiError && error.code === 'TERMINAL_EXITED');
  });

  test('puts the terminal variables and the caller env into the PTY environment', async () => {
    const session = await kit.host.create({
      file: 'bash',
      args: ['--norc', '--noprofile', '-c', 'echo "[$TERM|$COLORTERM|$TERM_PROGRAM|$SWITCHBOARD_TERMINAL_ID|$MY_VAR]"'],
      env: { ...kit.env, MY_VAR: 'mine' },
      createdBy: person,
      id: 'env-check',
    });
    await session.exited;
    assert.match(ringText(session), /\[xterm-256color\|truecolor\|Switchboard\|env-check\|mine\]/);
  });

  test('a Hub started by npm (npm run serve, npx) gives the shell the person\'s environment, not npm\'s', async () => {
    // What npm puts in a script's environment, on top of this process's own.
    const added: Record<string, string> = {
      npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
      npm_lifecycle_event: 'serve',
      npm_config_prefix: '/usr/local',
      INIT_CWD: kit.temp.workspace,
      PATH: `${join(kit.temp.workspace, 'node_modules', '.bin')}:/node_modules/.bin:${process.env.PATH}`,
    };
    const saved = Object.fromEntries(Object.keys(added).map((key) => [key, process.env[key]]));
    Object.assign(process.env, added);
    try {
      // As nvm does in a ~/.bashrc: it refuses to load under npm_config_prefix.
      const session = await kit.host.create({
        file: 'bash',
        args: ['--norc', '--noprofile', '-c', 'if [ -n "$npm_config_prefix" ]; then echo "nvm is not compatible with npm_config_prefix"; fi; echo "[path:${PATH%%:*}|npm:$(env | grep -c ^npm_)|init:${INIT_CWD:-none}]"'],
        env: { HOME: kit.temp.home, LANG: 'C.UTF-8' },
        createdBy: person,
      });
      await session.exited;
      const text = ringText(session);
      assert.doesNotMatch(text, /nvm is not compatible/);
      assert.match(text, /\[path:[^|]*\|npm:0\|init:none\]/);
      assert.doesNotMatch(text, /\[path:[^|]*node_modules\/\.bin\|/, 'the clone\'s node_modules/.bin is not first on PATH');
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  test('a resize is seen by the program (stty size) and by the mirror', async () => {
    const session = await createBash({ cols: 80, rows: 24 });
    session.write('stty size\r');
    await waitForOutput(session, '24 80');
    session.resize(100, 30);
    assert.equal(session.info.cols, 100);
    assert.equal(session.info.rows, 30);
    const from = session.offset;
    session.write('stty size\r');
    await waitForOutput(session, '30 100', { from });
    const screen = await session.readScreen();
    assert.equal(screen.cols, 100);
    assert.equal(screen.rows, 30);
    assert.throws(() => session.resize(0, 10), (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS');
  });

  // Found by fuzzing (fuzz/boundaries/controlTerminal.ts): a resize in that window failed with `ioctl(2) failed, EBADF`, an INTERNAL error.
  test('a resize while the shell is exiting is refused with TERMINAL_EXITED, never the PTY’s ioctl error', async () => {
    const errors: unknown[] = [];
    for (let round = 0; round < 5; round++) {
      const session = await createBash();
      await waitForOutput(session, /\$ $/);
      session.write('exit\r');
      // Resize at every turn of the event loop until it is refused: the first refusal falls between the PTY closing and the exit event most times.
      for (let turn = 0; errors.length === round && turn < 100_000; turn++) {
        await new Promise((resolve) => setImmediate(resolve));
        try {
          session.resize(80 + (turn % 2), 24);
        } catch (error) {
          errors.push(error);
        }
      }
    }
    assert.equal(errors.length, 5);
    for (const error of errors) assert.ok(error instanceof ApiError && error.code === 'TERMINAL_EXITED', `refused with ${String(error)}`);
  });

  test('kill ends every process group of the terminal, escalating past ignored signals', async () => {
    const session = await createBash();
    // A background job (its own process group), one that ignores SIGHUP and SIGTERM, and a
    // foreground job.
    session.write("sleep 1000 & echo BG=$!; (trap '' HUP TERM; exec sleep 1001) & echo STUBBORN=$!\r");
    const text = await waitForOutput(session, /STUBBORN=(\d+)/);
    const background = Number(/BG=(\d+)/.exec(text)?.[1]);
    const stubborn = Number(/STUBBORN=(\d+)/.exec(text)?.[1]);
    session.write('sleep 1002\r');
    const shellPid = session.info.pid!;
    const foreground = await pollUntil(() => findChild(shellPid, 'sleep 1002'), { what: 'foreground sleep' });
    for (const pid of [background, stubborn, foreground]) assert.equal(isProcessAlive(pid), true);

    const status = await session.kill();
    assert.equal(status.exitCode, null);
    assert.equal(status.signal, 'SIGHUP');
    await pollUntil(() => [shellPid, background, stubborn, foreground].every((pid) => !isProcessAlive(pid)), {
      what: 'all processes of the terminal to end',
      timeoutMs: 5_000,
    });
  });

  test('killing several terminals at once ends every one\'s jobs, the stubborn ones too (one look at /proc serves them all)', async () => {
    const sessions = await Promise.all([createBash(), createBash(), createBash()]);
    const pids: number[] = [];
    for (const [index, session] of sessions.entries()) {
      session.write(`sleep 100${index} & echo BG=$!; (trap '' HUP TERM; exec sleep 200${index}) & echo STUBBORN=$!\r`);
      const text = await waitForOutput(session, /STUBBORN=(\d+)/);
      pids.push(session.info.pid!, Number(/BG=(\d+)/.exec(text)?.[1]), Number(/STUBBORN=(\d+)/.exec(text)?.[1]));
    }
    for (const pid of pids) assert.equal(isProcessAlive(pid), true);
    const statuses = await Promise.all(sessions.map((session) => session.kill()));
    assert.deepEqual(statuses.map((status) => status.signal), ['SIGHUP', 'SIGHUP', 'SIGHUP']);
    await pollUntil(() => pids.every((pid) => !isProcessAlive(pid)), { what: 'every process of the three terminals to end', timeoutMs: 5_000 });
  });

  test('close() kills, disposes and announces the removal', async () => {
    const removed: string[] = [];
    kit.host.onDidRemoveTerminal(({ id }) => removed.push(id));
    const session = await createBash();
    const pid = session.info.pid!;
    await kit.host.close(session.id);
    assert.deepEqual(removed, [session.id]);
    assert.equal(kit.host.get(session.id), undefined);
    assert.throws(() => kit.host.require(session.id), (error: unknown) => error instanceof ApiError && error.code === 'NOT_FOUND');
    assert.equal(isProcessAlive(pid), false);
  });

  test('dispose() ends every terminal at once', async () => {
    const first = await createBash();
    const second = await createBash();
    second.write('sleep 1000 & echo BG=$!\r');
    const background = Number(/BG=(\d+)/.exec(await waitForOutput(second, /BG=(\d+)/))?.[1]);
    const pids = [first.info.pid!, second.info.pid!, background];
    kit.host.dispose();
    await pollUntil(() => pids.every((pid) => !isProcessAlive(pid)), { what: 'processes to end after dispose', timeoutMs: 5_000 });
  });

  test('dispose() leaves no timers or handles behind', async () => {
    const count = (...types: string[]) => process.getActiveResourcesInfo().filter((type) => types.includes(type)).length;
    // Earlier tests' PTYs and mirror worker may still be closing: start from a settled state.
    await pollUntil(() => count('TTYWrap', 'MessagePort') === 0, { what: 'earlier terminals to finish closing' });
    const baselineTimers = count('Timeout', 'Immediate');
    const running = await createBash();
    running.write('echo busy\r');
    await waitForOutput(running, 'busy');
    const attachment = await running.attach({ lossless: true, onOutput: () => {} });
    const exited = await kit.host.create({ file: 'seq', args: ['1', '10'], env: kit.env, createdBy: person });
    await exited.exited;
    await exited.serializeScreen();
    assert.ok(attachment.snapshot.includes('busy'));
    kit.host.dispose();
    // No PTY handle (TTYWrap), no worker port, no timer of ours is left.
    await pollUntil(() => count('TTYWrap', 'MessagePort') === 0 && count('Timeout', 'Immediate') <= baselineTimers, {
      what: 'every handle and timer to be released',
      timeoutMs: 5_000,
    }).catch((error: Error) => {
      throw new Error(`${error.message}; still active: ${JSON.stringify(process.getActiveResourcesInfo())}`);
    });
  });

  test('a cwd that does not exist is refused with INVALID_PARAMS', async () => {
    await assert.rejects(
      kit.host.create({ ...plainBash, args: [...plainBash.args], cwd: '/no/such/dir', createdBy: person }),
      (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS' && error.message === 'cwd does not exist: /no/such/dir',
    );
    const file = join(kit.temp.workspace, 'file.txt');
    writeFileSync(file, 'x');
    await assert.rejects(
      kit.host.create({ ...plainBash, args: [...plainBash.args], cwd: file, createdBy: person }),
      (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS' && /not a directory/.test(error.message),
    );
    assert.deepEqual(kit.host.list(), []);
  });

  test('a program that cannot start is refused with PTY_SPAWN_FAILED', async () => {
    await assert.rejects(
      kit.host.create({ file: '/no/such/shell', createdBy: person }),
      (error: unknown) => error instanceof ApiError && error.code === 'PTY_SPAWN_FAILED' && error.message.startsWith('cannot start /no/such/shell: '),
    );
    const notExecutable = join(kit.temp.workspace, 'script.sh');
    writeFileSync(notExecutable, 'echo hi\n');
    await assert.rejects(
      kit.host.create({ file: notExecutable, createdBy: person }),
      (error: unknown) => error instanceof ApiError && error.code === 'PTY_SPAWN_FAILED' && /not executable/.test(error.message),
    );
    await assert.rejects(
      kit.host.create({ file: 'no-such-program-xyz', env: kit.env, createdBy: person }),
      (error: unknown) => error instanceof ApiError && error.code === 'PTY_SPAWN_FAILED' && /not found on PATH/.test(error.message),
    );
    assert.deepEqual(kit.host.list(), []);
  });

  test('the default shell is $SHELL when it is executable', async () => {
    const session = await kit.host.create({ env: { ...kit.env, SHELL: '/bin/sh' }, args: [], createdBy: person });
    assert.equal(session.info.file, '/bin/sh');
    const fallback = await kit.host.create({ env: { ...kit.env, SHELL: '/no/such/shell' }, createdBy: person, shellIntegration: false });
    assert.match(fallback.info.file, /\/bash$/);
  });

  test('an id in use is refused', async () => {
    await kit.host.create({ ...plainBash, args: [...plainBash.args], id: 'same', createdBy: person });
    await assert.rejects(
      kit.host.create({ ...plainBash, args: [...plainBash.args], id: 'same', createdBy: person }),
      (error: unknown) => error instanceof ApiError && error.code === 'INVALID_PARAMS',
    );
  });
});

describe('PtySession: output pipeline', { timeout: 60_000 }, () => {
  test('no output is lost when a fast program exits: the ring and a subscriber get every line', async () => {
    // The program waits for a key, so the whole flood arrives while the subscriber is live (and
    // acks from inside onOutput, which must not confuse the flow-control accounting).
    const session = await kit.host.create({
      file: 'bash',
      args: ['--norc', '--noprofile', '-c', 'read -r go; exec seq 1 100000'],
      env: kit.env,
      createdBy: person,
    });
    const received: string[] = [];
    let lastEnd = -1;
    let unacked = 0;
    const attachment = await session.attach({
      lossless: true,
      onOutput: (data, endOffset) => {
        received.push(data);
        lastEnd = endOffset;
        // Ack in steps, as the renderer does from xterm.js write callbacks.
        unacked += data.length;
        if (unacked >= TerminalConstants.ackBatchChars) {
          attachment.ack(unacked);
          unacked = 0;
        }
      },
    });
    session.write('\r');
    await session.exited;
    await pollUntil(() => lastEnd === session.offset, { what: 'subscriber to catch up' });
    // Every char delivered is accounted for: acking what is left clears the subscriber's debt.
    assert.equal(attachment.unacknowledged, unacked);
    attachment.ack(unacked);
    assert.equal(attachment.unacknowledged, 0);
    const expected = '\r\n' + Array.from({ length: 100000 }, (_, index) => `${index + 1}\r\n`).join('');
    assert.equal(ringText(session), expected);
    assert.equal(session.offset, Buffer.byteLength(expected));
    // The subscriber's stream continues exactly from the attach offset.
    assert.equal(received.join(''), session.readRing(attachment.offset).data.toString('utf8'));
  });

  test('a snapshot after 20 000 lines reproduces the mirror exactly', async () => {
    const session = await createBash({ cols: 90, rows: 20 });
    session.write('for i in $(seq 1 20000); do echo "line $i: $((i * 7)) é"; done; echo DONE-$((6*7))\r');
    await waitForOutput(session, 'DONE-42', { timeoutMs: 30_000 });
    await waitForOutput(session, /DONE-42\r\n(\x1b\[\?2004h)?\$ $/, { timeoutMs: 10_000 });
    const attachment = await session.attach({ lossless: true, onOutput: () => {} });
    assert.equal(attachment.offset, session.offset);
    assert.equal(attachment.cols, 90);
    assert.equal(attachment.rows, 20);
    const fresh = await replay([attachment.snapshot], attachment.cols, attachment.rows, TerminalConstants.scrollbackLines);
    const mirror = await session.readScreen({ scrollback: true });
    assert.deepEqual(bufferLines(fresh), mirror.lines);
    assert.equal(mirror.lines.length, TerminalConstants.scrollbackLines + 20);
    assert.equal(fresh.buffer.active.cursorX, mirror.cursorX);
    assert.equal(fresh.buffer.active.cursorY, mirror.cursorY);
    assert.ok(mirror.lines.includes('line 20000: 140000 é'));
    attachment.dispose();
  });

  for (const mirrorMode of ['worker', 'inline'] as const) {
    test(`attaching during a flood: snapshot + following output has no gap and no overlap (${mirrorMode} mirror)`, async () => {
      kit.dispose();
      kit = createTestHost({ mirrorMode });
      const session = await createBash({ cols: 80, rows: 24 });
      session.write('seq 1 300000; echo FLOOD-$((1+1))-END\r');
      await waitForOutput(session, /\n1\d{3}\r\n/);
      const chunks: string[] = [];
      let expectedStart = -1;
      const attachment = await session.attach({
        lossless: true,
        onOutput: (data, endOffset) => {
          chunks.push(data);
          // Offsets chain: each batch starts where the previous one ended.
          const start = endOffset - Buffer.byteLength(data);
          assert.equal(start, expectedStart);
          expectedStart = endOffset;
          attachment.ack(data.length);
        },
      });
      expectedStart = attachment.offset;
      assert.ok(attachment.offset > 0);
      await waitForOutput(session, /FLOOD-2-END\r\n(\x1b\[\?2004h)?\$ $/, { timeoutMs: 30_000 });
      await pollUntil(() => expectedStart === session.offset, { what: 'subscriber to reach the end' });
      const fresh = await replay([attachment.snapshot, ...chunks], 80, 24, TerminalConstants.scrollbackLines);
      const mirror = await session.readScreen({ scrollback: true });
      assert.deepEqual(bufferLines(fresh), mirror.lines);
      assert.equal(chunks.join(''), session.readRing(attachment.offset).data.toString('utf8'));
    });
  }

  test('a lossless subscriber that does not ack pauses the program; acking resumes it', async () => {
    const session = await kit.host.create({ file: 'seq', args: ['1', '2000000'], env: kit.env, createdBy: person });
    let unacked = 0;
    const attachment = await session.attach({ lossless: true, onOutput: (data) => (unacked += data.length) });
    // Output stops growing well short of the 13 MB the program wants to write.
    let previous = -1;
    let stableSince = Date.now();
    await pollUntil(
      () => {
        if (session.offset !== previous) {
          previous = session.offset;
          stableSince = Date.now();
          return false;
        }
        return Date.now() - stableSince > 300;
      },
      { what: 'output to stall', timeoutMs: 15_000 },
    );
    assert.ok(session.offset < 2 * 1024 * 1024, `paused at ${session.offset}`);
    assert.ok(unacked > TerminalConstants.highWatermarkChars, `subscriber holds ${unacked} unacked chars`);
    assert.equal(session.exitStatus, null);
    // Acknowledge as the renderer would from now on: the program runs to completion.
    let acked = 0;
    const ackLoop = setInterval(() => {
      attachment.ack(unacked - acked);
      acked = unacked;
    }, 5);
    try {
      assert.deepEqual(await session.exited, { exitCode: 0, signal: null });
    } finally {
      clearInterval(ackLoop);
    }
    assert.ok(ringText(session).endsWith('1999999\r\n2000000\r\n'));
  });

  test('disposing a stuck subscriber releases the paused program', async () => {
    const session = await kit.host.create({ file: 'seq', args: ['1', '500000'], env: kit.env, createdBy: person });
    const attachment = await session.attach({ lossless: true, onOutput: () => {} });
    await pollUntil(() => session.offset > TerminalConstants.highWatermarkChars, { what: 'some output' });
    attachment.dispose();
    assert.deepEqual(await session.exited, { exitCode: 0, signal: null });
  });

  test('a lossy subscriber never holds the program back', async () => {
    const session = await kit.host.create({ file: 'seq', args: ['1', '300000'], env: kit.env, createdBy: person });
    await session.attach({ lossless: false, onOutput: () => {} });
    assert.deepEqual(await session.exited, { exitCode: 0, signal: null });
  });

  test('an exited terminal can still be attached and shows its last screen', async () => {
    const session = await kit.host.create({ file: 'bash', args: ['--norc', '--noprofile', '-c', 'echo last words'], env: kit.env, createdBy: person });
    await session.exited;
    const attachment = await session.attach({ lossless: true, onOutput: () => assert.fail('no output after exit') });
    assert.equal(attachment.offset, session.offset);
    assert.match(attachment.snapshot, /last words/);
    attachment.dispose();
  });

  test('multi-byte output keeps exact byte offsets', async () => {
    const session = await kit.host.create({
      file: 'bash',
      args: ['--norc', '--noprofile', '-c', 'for i in $(seq 1 3000); do printf "é€😀%s" "$i"; done'],
      env: kit.env,
      createdBy: person,
    });
    const pieces: string[] = [];
    const outputs: Array<{ data: string; startOffset: number; endOffset: number }> = [];
    session.onDidOutput((output) => outputs.push(output));
    await session.exited;
    for (const output of outputs) {
      assert.equal(output.endOffset - output.startOffset, Buffer.byteLength(output.data));
      assert.equal(output.data.includes('\ufffd'), false);
      pieces.push(output.data);
    }
    assert.equal(pieces.join(''), ringText(session));
    assert.ok(ringText(session).endsWith('é€😀3000'));
  });

  test('BEL and OSC 9/777 raise attention and a notification; markSeen clears it', async () => {
    const notes: Array<{ id: string; title: string; body: string }> = [];
    kit.host.onDidNotify((note) => notes.push(note));
    const session = await createBash();
    session.rename('builder');
    session.write("printf 'ding\\a\\n'\r");
    await pollUntil(() => session.info.needsAttention, { what: 'needsAttention after BEL' });
    assert.deepEqual(notes, [{ id: session.id, title: 'builder', body: '' }]);
    session.markSeen();
    assert.equal(session.info.needsAttention, false);
    session.write("printf '\\e]777;notify;Build;all green\\a'\r");
    await pollUntil(() => notes.length === 2, { what: 'OSC 777 notification' });
    assert.deepEqual(notes[1], { id: session.id, title: 'Build', body: 'all green' });
    session.markSeen();
    session.write("printf '\\e]9;done\\a'\r");
    await pollUntil(() => notes.length === 3, { what: 'OSC 9 notification' });
    assert.deepEqual(notes[2], { id: session.id, title: 'builder', body: 'done' });
    assert.equal(session.info.needsAttention, true);
  });

  test('a flood of notifications and marks raises one notification and few info changes', async () => {
    const notes: unknown[] = [];
    kit.host.onDidNotify((note) => notes.push(note));
    const session = await createBash();
    let infoChanges = 0;
    kit.host.onDidChangeTerminal((info) => {
      if (info.id === session.id) infoChanges++;
    });
    // 2 000 notifications and 2 000 prompt marks in a few batches.
    session.write("for i in $(seq 2000); do printf '\\e]9;n%s\\a\\e]133;A\\a' $i; done; echo flood-$((1+1))-done\r");
    await waitForOutput(session, /flood-2-done/);
    assert.equal(notes.length, 1, 'one notification until the terminal is seen');
    assert.ok(infoChanges < 200, `info changes are coalesced per batch (got ${infoChanges})`);
  });

  test('the ring keeps the last ringBytes and reports a truncated read', async () => {
    kit.dispose();
    kit = createTestHost({ ringBytes: 64 * 1024 });
    const session = await kit.host.create({ file: 'seq', args: ['1', '100000'], env: kit.env, createdBy: person });
    await session.exited;
    const read = session.readRing(0);
    assert.equal(read.truncated, true);
    assert.equal(read.endOffset, session.offset);
    assert.equal(read.endOffset - read.startOffset, 64 * 1024);
    assert.ok(read.data.toString().endsWith('99999\r\n100000\r\n'));
  });
});

function findChild(parentPid: number, commandLine: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.substring(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      if (ppid === parentPid && cmdline === commandLine) return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}
