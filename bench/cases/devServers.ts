/**
 * How soon a pane's dev server shows in `info.servers` (src/node/servers): a Node server in a
 * real bash pane of an in-process PtyHost opens its port on a signal, after a random quiet spell
 * (so the scan interval has backed off to its longest), either silently (found only by the
 * periodic look) or printing its URL as it listens (found after the output). Measured per round:
 * from just before the server's listen() call (stamped by the server with the shared epoch clock;
 * the bind happens inside the call) to `onDidChangeServers` showing the port — p50, p95, max; and
 * the same for close(). Numbers include timer delays on a loaded machine. Also: looks per second over idle shells at their prompts (should be 0),
 * and over the same shells each running a quiet program, with the socket table reads they share and the CPU they cost.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import { ServerMonitorConstants } from '../../src/node/servers/serverMonitor.ts';
import type { PtySession } from '../../src/node/pty/ptySession.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';
import { freePort } from '../../test/helpers/freePort.ts';

/** SIGUSR1: listen (printing the URL when argv[3] is "print"); SIGUSR2: close. Each stamps the moment in a file. */
const serverScript = `
const http = require('node:http');
const fs = require('node:fs');
const [port, mode, stampFile] = [Number(process.argv[2]), process.argv[3], process.argv[4]];
// Written whole (rename) just before the socket opens or closes: the bind and the close happen inside the call.
const stamp = () => {
  fs.writeFileSync(stampFile + '.new', String(performance.timeOrigin + performance.now()));
  fs.renameSync(stampFile + '.new', stampFile);
};
let server = null;
process.on('SIGUSR1', () => {
  server = http.createServer((request, response) => response.end('ok'));
  stamp();
  server.listen(port, () => {
    if (mode === 'print') console.log('  Local: http://localhost:' + port + '/');
  });
});
process.on('SIGUSR2', () => {
  stamp();
  server.close();
});
setInterval(() => {}, 1 << 30);
`;

const now = () => performance.timeOrigin + performance.now();

async function until(what: string, test: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentiles(label: string, values: number[]): BenchResult[] {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
  return [
    { label: `${label} p50`, value: at(0.5), unit: 'ms' },
    { label: `${label} p95`, value: at(0.95), unit: 'ms' },
    { label: `${label} max`, value: sorted.at(-1)!, unit: 'ms' },
  ];
}

export const devServersCase: BenchCase = {
  name: 'dev-servers',
  description: 'dev server port open/close → info.servers (silent and printing its URL), and looks over idle shells',
  async run({ quick, log }) {
    if (process.platform !== 'linux') {
      log('skipped: listening sockets are read from /proc (Linux)');
      return [];
    }
    // Quick mode checks that the case runs: one round each (a round waits 2–4 s for the look interval to back off).
    const rounds = quick ? 1 : 20;
    const idleShells = quick ? 4 : 20;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-servers-'));
    writeFileSync(join(dir, 'server.cjs'), serverScript);
    const stampFile = join(dir, 'stamp');
    const host = new PtyHost({ logger: nullLogger, defaultCwd: dir, mirrorMode: 'inline' });
    const results: BenchResult[] = [];
    try {
      const env = { HOME: dir, PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' };
      for (const mode of ['silent', 'print'] as const) {
        const port = await freePort();
        const session: PtySession = await host.create({ file: 'bash', env, shellIntegration: true, createdBy: { kind: 'person', name: 'bench' } });
        await until('the prompt', () => session.info.shellIntegration);
        let changedAt = 0;
        let listening = false;
        const changes = session.onDidChangeServers(({ servers }) => {
          const has = servers.some((server) => server.port === port);
          if (has !== listening) {
            listening = has;
            changedAt = now();
          }
        });
        session.write(`${JSON.stringify(process.execPath)} server.cjs ${port} ${mode} ${stampFile}\r`);
        let pid = 0;
        await until('the server process', () => {
          const children = readFileSync(`/proc/${session.info.pid}/task/${session.info.pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
          pid = children.find((child) => {
            try {
              return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('server.cjs');
            } catch {
              return false; // a child of the prompt that already ended
            }
          }) ?? 0;
          return pid > 0;
        });
        await pause(300);
        const opens: number[] = [];
        const closes: number[] = [];
        for (let round = 0; round < rounds; round++) {
          // Quiet long enough for the scan interval to have backed off to its longest.
          await pause(1000 + Math.random() * 1000);
          process.kill(pid, 'SIGUSR1');
          await until('the port to show', () => listening);
          opens.push(changedAt - Number(readFileSync(stampFile, 'utf8')));
          await pause(1000 + Math.random() * 1000);
          process.kill(pid, 'SIGUSR2');
          await until('the port to go', () => !listening);
          closes.push(changedAt - Number(readFileSync(stampFile, 'utf8')));
        }
        changes.dispose();
        log(`${mode}: opened after (ms) ${opens.map((value) => value.toFixed(0)).join(' ')}; closed after ${closes.map((value) => value.toFixed(0)).join(' ')}`);
        results.push(...percentiles(`${mode} server: port open → servers`, opens), ...percentiles(`${mode} server: port closed → servers`, closes));
        await host.close(session.id);
      }

      const shells: PtySession[] = [];
      for (let index = 0; index < idleShells; index++) shells.push(await host.create({ file: 'bash', env, shellIntegration: true, createdBy: { kind: 'person', name: 'bench' } }));
      await until('the idle prompts', () => shells.every((shell) => shell.info.shellIntegration));
      await until('the idle shells to be left alone', () => host.serverMonitor!.looking === 0);
      const before = host.serverMonitor!.scans;
      const windowMs = quick ? 1000 : 5000;
      await pause(windowMs);
      results.push({ label: `looks/s over ${idleShells} idle shells`, value: ((host.serverMonitor!.scans - before) * 1000) / windowMs, unit: '/s', digits: 2 });

      // The same shells each running a quiet program (as agents wait for their next prompt): each
      // is looked at every maxIntervalMs, and the looks of one tick share the socket tables' read.
      // Started over one interval, as agents are started one after another, not all at once.
      for (const shell of shells) {
        shell.write('sleep 600\r');
        await pause(ServerMonitorConstants.maxIntervalMs / shells.length);
      }
      await pause(quick ? 1_500 : 4_500); // past the first, closer looks and the 3 s after the trigger
      const quietScans = host.serverMonitor!.scans;
      const quietReads = host.serverMonitor!.tableReads;
      const cpuBefore = process.cpuUsage();
      const quietStarted = performance.now();
      await pause(windowMs);
      const quietMs = performance.now() - quietStarted;
      const cpu = process.cpuUsage(cpuBefore);
      results.push(
        { label: `looks/s over ${idleShells} panes running a quiet program`, value: ((host.serverMonitor!.scans - quietScans) * 1000) / quietMs, unit: '/s', digits: 1 },
        { label: `socket table reads/s for those looks`, value: ((host.serverMonitor!.tableReads - quietReads) * 1000) / quietMs, unit: '/s', digits: 1 },
        { label: `this process's CPU meanwhile (the Hub's side)`, value: ((cpu.user + cpu.system) / 1000 / quietMs) * 100, unit: '% of a core', digits: 2 },
      );
    } finally {
      await host.closeAll();
      host.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
    return results;
  },
};
