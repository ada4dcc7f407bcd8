/**
 * `npm run soak` must not rot: its two phases run here at a tiny size against a real Hub in its own
 * process (soak/run.ts). What is checked is that they ran and that nothing went wrong — every
 * refusal of the hostile burst carries a code, the well-behaved clients got no error, no terminal
 * ran past the limits and no shell, connection, file descriptor or timer was left behind. Speed
 * (ping latency) is asserted only by the soak script itself, never here.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { ControlConstants } from '../../../src/common/constants.ts';
import { processStart } from '../../../soak/hubHandle.ts';
import { runHostilePhase } from '../../../soak/hostilePhase.ts';
import { runLoadPhase } from '../../../soak/loadPhase.ts';
import { formatReport } from '../../../soak/report.ts';
import { soakSizes } from '../../../soak/run.ts';

const log = () => {};

describe('npm run soak at a tiny size', () => {
  it('the hostile burst runs; every refusal is coded, terminals stay within the limits, nothing is left behind', async () => {
    const { hostile } = soakSizes({ quick: true });
    const figures = await runHostilePhase({ ...hostile, connections: 3, seconds: 1, frames: 600, afterSeconds: 0.5, log });
    assert.equal(figures.burst.framesSent, 600);
    assert.ok(figures.burst.answers > 0, 'the Hub answered the burst');
    assert.deepEqual(figures.burst.uncoded, {}, 'every refusal carries a code');
    assert.equal(figures.burst.badServerLines, 0, 'every line from the Hub is JSON');
    assert.ok(figures.pingDuring.count + figures.pingAfter.count > 0, 'the pinger ran');
    assert.equal(figures.pingDuring.errors + figures.pingAfter.errors, 0, 'every ping answered ok');
    assert.ok(figures.maxSocketTerminalsRunning <= ControlConstants.socketMaxTerminals);
    assert.equal(figures.after.connections, 0, 'the burst’s connections are gone');
    assert.equal(figures.shellsLeft, 0, 'no shell outlives the Hub');
  });

  it('the soak runs with zero errors and leaves no terminal, shell, connection, file descriptor or timer behind', async () => {
    const figures = await runLoadPhase({ clients: 8, floods: 2, seconds: 2, execTerminals: 2, sendTerminals: 1, log });
    assert.equal(figures.errors, 0, figures.errorSamples.join(' | '));
    for (const [role, count] of Object.entries(figures.requests)) assert.ok(count > 0, `${role} clients ran`);
    assert.ok(figures.floodBytes > 0, 'the floods wrote output');
    assert.ok(figures.ping.count > 0 && figures.ping.errors === 0, 'the pinger ran');
    assert.equal(figures.after.terminals, 0);
    assert.equal(figures.after.connections, 0);
    assert.equal(figures.shellsLeft, 0);
    assert.ok(figures.after.fds <= figures.before.fds, `fds ${figures.before.fds} → ${figures.after.fds}`);
    assert.ok((figures.after.resources.Timeout ?? 0) <= (figures.before.resources.Timeout ?? 0), `timers ${JSON.stringify(figures.before.resources)} → ${JSON.stringify(figures.after.resources)}`);
    const report = formatReport({ date: new Date().toISOString(), mode: 'quick', loadBefore: [0, 0, 0], loadAfter: [0, 0, 0], load: figures });
    assert.match(report, /\| errors \| 0 \|/);
    // Memory read cold, after a first round and after the measured one, each with every terminal closed.
    assert.equal(figures.cold.terminals + figures.before.terminals, 0);
    assert.match(report, /\| Hub RSS cold → after the first round \| [\d.]+ MiB → [\d.]+ MiB/);
    assert.match(report, /\| Hub heap before → after the measured round \| [\d.]+ MiB → [\d.]+ MiB/);
    // Where the CPU went (Linux): the Hub's main thread ran, and its process with every thread ran at least as long.
    if (process.platform === 'linux') {
      const cpu = figures.cpu!;
      assert.ok(cpu.seconds >= 2 && cpu.threadRan > 0 && cpu.threadWaited >= 0, JSON.stringify(cpu));
      assert.ok(cpu.hubProcess >= cpu.threadRan * 0.9 && cpu.machineBusy > 0 && cpu.machineBusy <= 1, JSON.stringify(cpu));
      assert.match(report, /\| the Hub's main thread during the load: on a CPU \/ ready but waiting for one \| [\d.]+ s \/ [\d.]+ s of [\d.]+ s/);
    }
  });

  it('tells a shell that still runs from another process that got its pid later', { skip: process.platform !== 'linux' && 'no /proc' }, async () => {
    // "No shell outlives the Hub" checks the pids it saw; the floods fork so fast that a pid comes
    // round again within minutes, and a stranger holding it was once reported as our shell.
    const child = spawn('sleep', ['30']);
    await once(child, 'spawn');
    const started = processStart(child.pid!);
    assert.match(started ?? '', /^\d+$/, 'a running process has a start time');
    assert.equal(processStart(child.pid!), started, 'the same process, the same start time');
    // A process started later has a later start time (clock ticks: wait past one tick).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = spawn('sleep', ['30']);
    await once(later, 'spawn');
    assert.ok(Number(processStart(later.pid!)) > Number(started), `${processStart(later.pid!)} after ${started}`);
    child.kill();
    later.kill();
    await Promise.all([once(child, 'exit'), once(later, 'exit')]);
    assert.equal(processStart(child.pid!), null, 'a process that is gone has none');
  });
});
