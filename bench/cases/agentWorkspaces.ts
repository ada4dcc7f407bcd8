/**
 * Agent workspaces (issue 20), against a peer in the same run:
 * - New agent → the agent's first screen: `agent.start` with a worktree (git worktree add,
 *   .worktreeinclude, the pane, the agent) until the agent's first line is in the pane, against
 *   doing the same by hand — `git worktree add` and the same program started in a bare node-pty —
 *   until the same line arrives. Target: ≤ 1.2× (no setup script in either).
 * - The sidebar's change counts of 20 worktrees while nothing happens: the Hub's CPU over an idle
 *   window (its watchers must cost nothing while idle; target < 1 % of one core), and for scale
 *   the same window while an agent writes a file in one worktree every 500 ms.
 * The agent is a small shell script (prints a ready line, then waits on stdin), so the figures
 * are Switchboard's and git's, not an agent CLI's start-up.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawn } from 'node-pty';
import { createLocalHubClient } from '../../src/node/api/localHubClient.ts';
import { Hub } from '../../src/node/hub.ts';
import { nullLogger } from '../../src/node/logger.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';

const run = promisify(execFile);
const readyLine = 'BENCH-AGENT-READY';

async function git(cwd: string, ...args: string[]): Promise<void> {
  await run('git', args, { cwd, env: { ...process.env, LC_ALL: 'C' } });
}

async function makeRepository(parent: string): Promise<string> {
  const repo = join(parent, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'config', 'user.name', 'Bench');
  await git(repo, 'config', 'user.email', 'bench@example.com');
  await git(repo, 'config', 'commit.gpgsign', 'false');
  // A small project: 200 files, so `git worktree add` checks something out.
  for (let i = 0; i < 200; i++) writeFileSync(join(repo, 'src', `module${i}.ts`), `export const value${i} = ${i};\n`.repeat(20));
  writeFileSync(join(repo, '.gitignore'), '.env\n');
  writeFileSync(join(repo, '.env'), 'SECRET=1\n');
  writeFileSync(join(repo, '.worktreeinclude'), '.env\n');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'initial');
  return repo;
}

function writeAgent(dir: string): string {
  const path = join(dir, 'bench-agent');
  writeFileSync(path, `#!/bin/sh\nprintf '${readyLine}\\n'\nwhile IFS= read -r line; do :; done\n`);
  chmodSync(path, 0o755);
  return path;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** By hand: `git worktree add`, then the agent in a bare PTY until its first line. */
async function byHand(repo: string, worktree: string, branch: string, agentPath: string): Promise<number> {
  const started = performance.now();
  await git(repo, 'worktree', 'add', '-q', '-b', branch, worktree, 'main');
  const pty = spawn(agentPath, [], { cwd: worktree, cols: 120, rows: 30, env: { ...process.env, TERM: 'xterm-256color' } as Record<string, string> });
  try {
    await new Promise<void>((resolve) => {
      let seen = '';
      pty.onData((data) => {
        seen += data;
        if (seen.includes(readyLine)) resolve();
      });
    });
    return performance.now() - started;
  } finally {
    pty.kill();
  }
}

export const agentWorkspacesCase: BenchCase = {
  name: 'agent-workspaces',
  description: 'New agent in a worktree → first screen vs git worktree add + the CLI by hand; idle CPU of 20 watched worktrees',
  async run({ quick, log }) {
    // Quick mode checks that the case runs; its figures mean nothing.
    const rounds = quick ? 1 : 10;
    const watched = quick ? 2 : 20;
    const idleMs = quick ? 500 : 10_000;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-workspaces-'));
    const hub = new Hub({ dataDir: join(dir, 'data'), workspaceFolders: [dir], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    try {
      const repo = await makeRepository(dir);
      const agentPath = writeAgent(dir);
      await hub.start();
      const api = createLocalHubClient(hub);
      await api.call('settings.update', { agentProfiles: [{ id: 'bench', name: 'Bench agent', command: agentPath, prompt: { kind: 'none' } }] });

      const viaSwitchboard: number[] = [];
      const viaHand: number[] = [];
      const terminals: string[] = [];
      for (let round = 0; round < rounds; round++) {
        // Alternate who goes first, so a warm cache favours neither.
        const order = round % 2 === 0 ? ['switchboard', 'hand'] : ['hand', 'switchboard'];
        for (const who of order) {
          if (who === 'hand') {
            viaHand.push(await byHand(repo, join(dir, 'by-hand', `round-${round}`), `by-hand-${round}`, agentPath));
            continue;
          }
          // Listening from the pane's creation on: the agent may print before agent.start answers.
          let sawReady!: () => void;
          const ready = new Promise<void>((resolve) => (sawReady = resolve));
          const added = hub.ptyHost.onDidAddTerminal(({ id }) => {
            const output = hub.ptyHost.get(id)?.onDidOutput(({ data }) => {
              if (!data.includes(readyLine)) return;
              output?.dispose();
              sawReady();
            });
          });
          const started = performance.now();
          const result = await api.call('agent.start', { profile: 'bench', folder: repo, worktree: { branch: `bench-${round}` }, name: `bench ${round}` });
          await ready;
          added.dispose();
          viaSwitchboard.push(performance.now() - started);
          terminals.push(result.terminalId);
        }
      }
      const results: BenchResult[] = [
        { label: 'New agent → first screen, p50', value: percentile(viaSwitchboard, 50), unit: 'ms' },
        { label: 'by hand (worktree add + bare PTY), p50', value: percentile(viaHand, 50), unit: 'ms' },
        { label: 'ratio (p50; target ≤ 1.2)', value: percentile(viaSwitchboard, 50) / percentile(viaHand, 50), unit: '×', digits: 2 },
      ];

      // Idle: the Hub's CPU with `watched` agents in plain folders (the panes' own cost: PTYs,
      // mirrors, agent detection), then with as many in worktrees; the difference is what keeping
      // the worktrees' counts fresh costs while nothing changes.
      const idleCpuPercent = async (): Promise<number> => {
        await new Promise((resolve) => setTimeout(resolve, 1_000)); // the starts' own work settles
        const before = process.cpuUsage();
        const started = performance.now();
        await new Promise((resolve) => setTimeout(resolve, idleMs));
        const used = process.cpuUsage(before);
        return ((used.user + used.system) / 1000 / (performance.now() - started)) * 100;
      };
      for (const id of terminals.splice(0)) await api.call('terminal.close', { id }).catch(() => {});
      const plainFolder = join(dir, 'plain');
      mkdirSync(plainFolder);
      const plain: string[] = [];
      for (let i = 0; i < watched; i++) plain.push((await api.call('agent.start', { profile: 'bench', folder: plainFolder, name: `plain ${i}` })).terminalId);
      const plainPercent = await idleCpuPercent();
      for (const id of plain) await api.call('terminal.close', { id }).catch(() => {});
      for (let i = 0; i < watched; i++) {
        const result = await api.call('agent.start', { profile: 'bench', folder: repo, worktree: { branch: `idle-${i}` }, name: `idle ${i}` });
        terminals.push(result.terminalId);
      }
      const worktrees = (await api.call('worktree.list', {})).filter((info) => info.terminalId !== null);
      log(`${worktrees.length} worktrees watched`);
      const idlePercent = await idleCpuPercent();
      results.push({ label: `Hub CPU, ${watched} agents idle in plain folders`, value: plainPercent, unit: '% of a core', digits: 2 });
      results.push({ label: `Hub CPU, ${worktrees.length} agents idle in worktrees`, value: idlePercent, unit: '% of a core', digits: 2 });
      results.push({ label: 'worktree watching, idle (difference; target < 1)', value: idlePercent - plainPercent, unit: '% of a core', digits: 2 });

      // For scale: one agent writing a file every 500 ms.
      const busy = worktrees[0]!.path;
      const busyBefore = process.cpuUsage();
      const busyStarted = performance.now();
      for (let tick = 0; performance.now() - busyStarted < idleMs; tick++) {
        writeFileSync(join(busy, `edit-${tick % 5}.txt`), `tick ${tick}\n`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const busyCpu = process.cpuUsage(busyBefore);
      results.push({
        label: 'Hub CPU, one agent writing every 500 ms',
        value: ((busyCpu.user + busyCpu.system) / 1000 / (performance.now() - busyStarted)) * 100,
        unit: '% of a core',
        digits: 2,
      });
      for (const id of terminals) await api.call('terminal.close', { id }).catch(() => {});
      api.dispose();
      return results;
    } finally {
      await hub.shutdown().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
