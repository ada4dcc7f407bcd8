/**
 * The recorder on real PTYs and a real SQLite file: coalescing (at most one chunk per terminal per
 * committed batch, one transaction per batch), exact replay bytes (multi-byte UTF-8, escape
 * sequences split across writes, invalid UTF-8), resize markers, the per-session cap, the
 * no-input rule's setting, and History switched off.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PtySession } from '../../../../src/node/pty/ptySession.ts';
import type { CommittedBatch } from '../../../../src/node/history/historyRecorder.ts';
import { isInteractiveShell } from '../../../../src/node/pty/shellLaunch.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createHistoryKit, type HistoryKit } from './historyTestKit.ts';

let kit: HistoryKit;
afterEach(() => kit?.dispose());

/** Every byte the terminal produced, as PtySession delivered it. */
function captureOutput(terminal: PtySession): Buffer[] {
  const received: Buffer[] = [];
  terminal.onDidOutput(({ bytes }) => received.push(Buffer.from(bytes)));
  return received;
}

function storedOutput(kit: HistoryKit, sessionId: string): Buffer {
  const events = kit.history.events(sessionId, -1, 100_000)!.events;
  return Buffer.concat(events.filter((event) => event.kind === 'output').map((event) => Buffer.from(event.kind === 'output' ? event.data : '', 'base64')));
}

async function runToExit(kit: HistoryKit, script: string): Promise<{ terminal: PtySession; sessionId: string; produced: Buffer }> {
  const terminal = await kit.host.create({ file: 'bash', args: ['-c', script], env: kit.env, shellIntegration: false, createdBy: { kind: 'agent', name: 'test-agent' } });
  const received = captureOutput(terminal);
  const sessionId = kit.history.sessionOfTerminal(terminal.id);
  assert.ok(sessionId, 'recording starts with the terminal');
  await terminal.exited;
  return { terminal, sessionId, produced: Buffer.concat(received) };
}

describe('History recorder (real PTYs, real SQLite)', () => {
  it('stores exactly the bytes the PTY produced: multi-byte UTF-8, split escape sequences, invalid UTF-8', async () => {
    kit = createHistoryKit();
    // Each printf is its own write with a pause between, so the sequences straddle PTY reads and batches.
    const script = [
      `printf '\\342\\234'`, // first two bytes of ✓
      'sleep 0.05',
      `printf '\\223 done \\033['`, // last byte of ✓, then half a CSI
      'sleep 0.05',
      `printf '31mred\\033[0m\\n'`,
      'sleep 0.05',
      `printf 'bad: \\377\\376 end\\n'`, // not UTF-8 at all
      `printf '日本語のテキスト 🎉\\n'`,
    ].join('; ');
    const { sessionId, produced } = await runToExit(kit, script);
    assert.ok(produced.includes(Buffer.from([0xff, 0xfe])), 'the PTY really produced the invalid bytes');
    assert.ok(produced.toString('utf8').includes('✓ done \x1b[31mred'), 'and the split sequences');
    const stored = storedOutput(kit, sessionId);
    assert.deepEqual(stored, produced);
    const session = kit.history.get(sessionId)!;
    assert.equal(session.byteCount, produced.length);
    assert.equal(session.exitCode, 0);
    assert.equal(session.live, false);
    assert.deepEqual(session.createdBy, { kind: 'agent', name: 'test-agent' });
    // history.read in small pieces gives the same bytes.
    const pieces: Buffer[] = [];
    for (let offset = 0; ; ) {
      const read = kit.history.read(sessionId, offset, 7)!;
      if (read.data.length === 0) break;
      assert.equal(read.offset, offset);
      pieces.push(read.data);
      offset = read.nextOffset;
    }
    assert.deepEqual(Buffer.concat(pieces), produced);
  });

  it('stores a multi-batch flood of two terminals byte for byte', async () => {
    kit = createHistoryKit();
    let batches = 0;
    kit.history.onDidCommit(() => batches++);
    // Two terminals at once, each printing distinct numbered lines over many 16 ms batches.
    const [left, right] = await Promise.all([runToExit(kit, 'seq 1 300000'), runToExit(kit, "seq 1 120000 | sed 's/^/right ✓ /'")]);
    assert.ok(kit.history.flush());
    assert.ok(batches > 3, `the flood spanned many batches (${batches})`);
    for (const { sessionId, produced } of [left, right]) {
      assert.ok(produced.length > 1_000_000);
      const stored = storedOutput(kit, sessionId);
      assert.equal(stored.length, produced.length);
      assert.ok(stored.equals(produced), 'every byte in place');
    }
  });

  it('coalesces many small outputs: at most one chunk per terminal per batch, one transaction per batch', async () => {
    kit = createHistoryKit();
    const commits: CommittedBatch[] = [];
    kit.history.onDidCommit((batch) => commits.push(batch));
    const terminal = await kit.host.create({
      file: 'bash',
      // 150 tiny writes, about a millisecond apart: many PTY batches.
      args: ['-c', 'for i in $(seq 1 150); do printf "%s," $i; sleep 0.001; done; printf "\\n"'],
      env: kit.env,
      shellIntegration: false,
      createdBy: { kind: 'person', name: 'you' },
    });
    let batches = 0;
    terminal.onDidOutput(() => batches++);
    const received = captureOutput(terminal);
    const sessionId = kit.history.sessionOfTerminal(terminal.id)!;
    await terminal.exited;
    const events = kit.history.events(sessionId, -1, 100_000)!.events;
    const chunks = events.filter((event) => event.kind === 'output');
    const mine = commits.flatMap((batch) => batch.sessions.filter((session) => session.id === sessionId));
    assert.ok(mine.every((session) => session.chunks <= 1), `each committed batch holds at most one chunk of the terminal: ${JSON.stringify(mine.map((s) => s.chunks))}`);
    assert.equal(chunks.length, mine.reduce((sum, session) => sum + session.chunks, 0), 'every chunk came in a committed batch');
    assert.ok(batches > chunks.length, `PTY batches (${batches}) were coalesced into fewer chunks (${chunks.length})`);
    assert.deepEqual(storedOutput(kit, sessionId), Buffer.concat(received));
    assert.match(Buffer.concat(received).toString(), /^1,2,3,.*,150,/);
  });

  it('writes every terminal of a batch in one transaction', async () => {
    kit = createHistoryKit();
    const commits: CommittedBatch[] = [];
    kit.history.onDidCommit((batch) => commits.push(batch));
    const script = 'for i in $(seq 1 40); do printf "%s " $i; sleep 0.01; done';
    const terminals = await Promise.all([0, 1, 2].map(() => kit.host.create({ file: 'bash', args: ['-c', script], env: kit.env, shellIntegration: false, createdBy: { kind: 'person', name: 'you' } })));
    await Promise.all(terminals.map((terminal) => terminal.exited));
    assert.ok(commits.some((batch) => batch.sessions.filter((session) => session.chunks > 0).length >= 2), 'output of several terminals went into one transaction');
  });

  it('records resizes as markers at their byte offset, and the size history replays', async () => {
    kit = createHistoryKit({ settings: { historyRecordIdleSessions: true } });
    const terminal = await kit.bash({ cols: 100, rows: 30 });
    const sessionId = kit.history.sessionOfTerminal(terminal.id)!;
    terminal.write('echo before\r');
    await pollUntil(() => storedOutput(kit, sessionId).toString().includes('before\r\n'), { what: 'first output' });
    const offsetAtResize = terminal.offset;
    terminal.resize(120, 40);
    terminal.write('echo after\r');
    await pollUntil(() => storedOutput(kit, sessionId).toString().includes('after\r\n'), { what: 'second output' });
    const events = kit.history.events(sessionId, -1, 1000)!.events;
    const resize = events.find((event) => event.kind === 'resize');
    assert.ok(resize && resize.kind === 'resize');
    assert.deepEqual([resize.cols, resize.rows, resize.offset], [120, 40, offsetAtResize]);
    const index = events.indexOf(resize);
    assert.ok(events.slice(0, index).every((event) => event.kind !== 'output' || event.offset + Buffer.from(event.data, 'base64').length <= offsetAtResize));
    assert.ok(events.slice(index + 1).every((event) => event.offset >= offsetAtResize));
    const session = kit.history.get(sessionId)!;
    assert.deepEqual([session.cols, session.rows], [100, 30], 'the session keeps its starting size');
    assert.deepEqual(kit.history.latestSessionOfTerminal(terminal.id), { id: sessionId, endedAt: null, cols: 120, rows: 40 });
  });

  it('keeps the newest output of a session past the per-session cap and marks it truncated', async () => {
    kit = createHistoryKit({ settings: { historyMaxSessionMiB: 1 } });
    // About 3 MiB of numbered lines.
    const { sessionId, produced } = await runToExit(kit, 'seq -w 1 400000');
    assert.ok(produced.length > 3 * 1024 * 1024 - 500_000);
    const session = kit.history.get(sessionId)!;
    assert.equal(session.truncated, true);
    assert.ok(session.byteCount <= 1024 * 1024, `stored ${session.byteCount} bytes`);
    assert.ok(session.firstOffset > 0);
    assert.equal(session.byteCount, produced.length - session.firstOffset);
    assert.deepEqual(storedOutput(kit, sessionId), produced.subarray(session.firstOffset), 'the newest bytes, exactly');
    const read = kit.history.read(sessionId, 0, 10)!;
    assert.equal(read.truncated, true);
    assert.equal(read.offset, session.firstOffset);
    const tail = kit.history.tail(sessionId, 1000).steps.flatMap((step) => (step.kind === 'output' ? [step.data] : []));
    assert.deepEqual(Buffer.concat(tail), produced.subarray(produced.length - 1000));
  });

  it('keeps idle shells when the setting says so, and records nothing while History is off', async () => {
    kit = createHistoryKit({ settings: { historyRecordIdleSessions: true } });
    const idle = await kit.bash({ name: 'idle-kept' });
    const idleSession = kit.history.sessionOfTerminal(idle.id)!;
    await kit.host.close(idle.id);
    assert.equal(kit.history.get(idleSession)?.name, 'idle-kept');

    kit.settings.historyEnabled = false;
    kit.history.applySettings(kit.settings);
    assert.equal(kit.history.status().state, 'disabled');
    const unrecorded = await kit.bash();
    assert.equal(kit.history.sessionOfTerminal(unrecorded.id), null);
    const produced = captureOutput(unrecorded);
    unrecorded.write('echo not-$((1+1))-recorded\r');
    await pollUntil(() => Buffer.concat(produced).toString().includes('not-2-recorded'), { what: 'the unrecorded output' });
    const offsetAtEnable = unrecorded.offset;
    kit.settings.historyEnabled = true;
    kit.history.applySettings(kit.settings);
    assert.equal(kit.history.status().state, 'recording');
    const later = kit.history.sessionOfTerminal(unrecorded.id);
    assert.ok(later, 'switching History on records running terminals from then on');
    unrecorded.write('echo now-$((2+2))-recorded\r');
    await pollUntil(() => storedOutput(kit, later).toString().includes('now-4-recorded'), { what: 'the recorded output' });
    assert.equal(kit.history.get(later)!.firstOffset, offsetAtEnable);
    assert.ok(!storedOutput(kit, later).toString().includes('not-2-recorded'));
    assert.equal(kit.history.read(later, 0, 100)!.offset, offsetAtEnable);
  });

  it('tells interactive shells from programs', () => {
    assert.equal(isInteractiveShell('/bin/bash', []), true);
    assert.equal(isInteractiveShell('/usr/bin/zsh', ['-l', '-i']), true);
    assert.equal(isInteractiveShell('bash', ['--norc', '--noprofile']), true);
    assert.equal(isInteractiveShell('bash', ['-c', 'make']), false);
    assert.equal(isInteractiveShell('bash', ['-lc', 'make']), false);
    // An option's value is not a script: an rc of one's own, a shell option, fish's init command.
    assert.equal(isInteractiveShell('bash', ['--init-file', '/home/me/.bashrc.work', '-i']), true);
    assert.equal(isInteractiveShell('bash', ['--rcfile', 'rc', '+O', 'histappend']), true);
    assert.equal(isInteractiveShell('zsh', ['-o', 'vi']), true);
    assert.equal(isInteractiveShell('fish', ['-C', 'set -g x 1']), true);
    assert.equal(isInteractiveShell('bash', ['--init-file', 'rc', 'script.sh']), false, 'a script after the value still runs');
    assert.equal(isInteractiveShell('bash', ['--init-file', 'rc', '-c', 'make']), false);
    assert.equal(isInteractiveShell('bash', ['script.sh']), false);
    // The same letter without a value in another shell: bash -C (noclobber), zsh -d (no global rcs).
    assert.equal(isInteractiveShell('bash', ['-C', 'script.sh']), false);
    assert.equal(isInteractiveShell('zsh', ['-d', 'script.zsh']), false);
    assert.equal(isInteractiveShell('zsh', ['-d', '-i']), true);
    assert.equal(isInteractiveShell('bash', ['script.sh']), false);
    // The same letter without a value in another shell: bash -C (noclobber), zsh -d (no global rcs).
    assert.equal(isInteractiveShell('bash', ['-C', 'script.sh']), false);
    assert.equal(isInteractiveShell('zsh', ['-d', 'script.zsh']), false);
    assert.equal(isInteractiveShell('zsh', ['-d', '-i']), true);
    assert.equal(isInteractiveShell('/usr/bin/npm', ['test']), false);
    assert.equal(isInteractiveShell('/usr/bin/python3', []), false);
  });
});
