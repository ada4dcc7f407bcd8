/**
 * A busy machine: what a person or an agent waits for from a terminal's screen while every core is
 * taken by other work (a build, tests — what a machine running agents does), against the same on
 * an idle machine, in the same run:
 * - a screen read (`readScreen`: how an agent's state is read from its screen, and what
 *   `switchboard read` answers), right after the terminal printed a line;
 * - an attach's snapshot (what a new or reloaded pane waits for before it draws anything).
 * Both are answered by the mirror's worker thread, whose CPU priority decides how long they wait
 * behind the other work (src/node/threadPriority.ts). The load is one plain busy loop per core, at
 * the default priority, in processes of their own, for the measured window only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import type { PtySession } from '../../src/node/pty/ptySession.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';
import { median, percentile } from './relayBench.ts';

/** A busy loop per core, each ending by itself after `seconds` (bounded even if this process dies). */
export function startLoad(seconds: number): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${seconds * 1000}; while (Date.now() < end) {}`], { stdio: 'ignore' }),
  );
}

export async function stopLoad(load: ChildProcess[]): Promise<void> {
  await Promise.all(
    load.map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      return exited;
    }),
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Prints a line, waits a little (the output reaches the mirror's queue), then times `measure`. */
async function timed(session: PtySession, count: number, measure: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    session.write(`echo tick ${index}\r`);
    await pause(40);
    const started = performance.now();
    await measure();
    times.push(performance.now() - started);
  }
  return times;
}

export const busyMachineCase: BenchCase = {
  name: 'busy-machine',
  description: 'screen read and attach snapshot with every core busy (a build) vs the same idle',
  async run({ quick, log }) {
    const count = quick ? 5 : 40;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-busy-'));
    const host = new PtyHost({ defaultCwd: dir, logger: nullLogger });
    try {
      const session = await host.create({ file: '/bin/bash', args: ['--norc', '--noprofile'], cwd: dir, env: { HOME: dir, PS1: '$ ' }, createdBy: { kind: 'person', name: 'bench' } });
      // A screenful and some scrollback, as a working terminal has.
      session.write('for i in $(seq 1 400); do echo "line $i of some build output"; done\r');
      await pause(1_000);
      const readScreen = () => session.readScreen();
      const snapshot = async () => (await session.attach({ lossless: false, onOutput: () => {} })).dispose();

      const measure = async () => ({ reads: await timed(session, count, readScreen), snapshots: await timed(session, count, snapshot) });
      const idle = await measure();
      const load = startLoad(quick ? 10 : 60);
      let busy: typeof idle;
      try {
        await pause(500); // the loops are running
        busy = await measure();
      } finally {
        await stopLoad(load);
      }
      log(`${count} of each, idle then with ${load.length} busy loop(s) (one per core)`);
      const rows = (what: string, idleTimes: number[], busyTimes: number[]): BenchResult[] => [
        { label: `${what}, idle: p50`, value: median(idleTimes), unit: 'ms', digits: 1 },
        { label: `${what}, idle: p95`, value: percentile(idleTimes, 95), unit: 'ms', digits: 1 },
        { label: `${what}, every core busy: p50`, value: median(busyTimes), unit: 'ms', digits: 1 },
        { label: `${what}, every core busy: p95`, value: percentile(busyTimes, 95), unit: 'ms', digits: 1 },
      ];
      return [...rows('screen read', idle.reads, busy.reads), ...rows('attach snapshot', idle.snapshots, busy.snapshots)];
    } finally {
      host.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
