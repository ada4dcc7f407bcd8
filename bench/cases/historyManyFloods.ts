/**
 * What History's recording costs the Hub's thread while many terminals flood: 20 terminals each
 * `cat`-ing a build log over and over, recorded, with the recording transactions in the recording
 * worker (as shipped) and on the Hub's thread (the peer: `recordingWorkerPath: null`, as before
 * the worker), alternating in the same run. The Hub's thread is the one that reads every PTY and
 * answers every client: a `setImmediate` probe every 20 ms measures how long it waits to run
 * (what a client's `ping` would add), and the floods' bytes say how much output got through.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSettings, type Settings } from '../../src/common/api/contract.ts';
import { HistoryService } from '../../src/node/history/historyService.ts';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';
import { buildLogText, median } from './historyCorpus.ts';

interface RoundFigures {
  /** Probe delays (ms), sorted. */
  delays: number[];
  /** Output of all floods, bytes per second. */
  bytesPerSecond: number;
}

export const historyManyFloodsCase: BenchCase = {
  name: 'history-many-floods',
  description: "the Hub thread's responsiveness with 20 recorded floods: recording in its worker vs on the Hub's thread (same run, alternating)",
  async run({ quick, log }) {
    const floods = quick ? 3 : 20;
    const seconds = quick ? 1 : 8;
    const rounds = quick ? 1 : 3;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-floods-'));
    const file = join(dir, 'flood.txt');
    writeFileSync(file, buildLogText(quick ? 256 * 1024 : 8 * 1024 * 1024, 1));
    log(`${floods} terminals each cat-ing ${quick ? '256 KiB' : '8 MiB'} of build log in a loop for ${seconds} s, recorded; ${rounds} round(s) each way, alternating`);
    const inWorker: RoundFigures[] = [];
    const onHubThread: RoundFigures[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        for (const worker of round % 2 === 0 ? [true, false] : [false, true]) {
          const figures = await floodRound({ dir: join(dir, `r${round}-${worker ? 'worker' : 'hub'}`), file, floods, seconds, worker });
          (worker ? inWorker : onHubThread).push(figures);
          log(`round ${round + 1}, recording ${worker ? 'in its worker' : "on the Hub's thread"}: delay p99 ${percentile(figures.delays, 0.99).toFixed(1)} ms, max ${figures.delays.at(-1)!.toFixed(1)} ms; ${(figures.bytesPerSecond / 1e6).toFixed(1)} MB/s`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const p99 = (all: RoundFigures[]) => median(all.map((figures) => percentile(figures.delays, 0.99)));
    const max = (all: RoundFigures[]) => median(all.map((figures) => figures.delays.at(-1)!));
    const rate = (all: RoundFigures[]) => median(all.map((figures) => figures.bytesPerSecond)) / 1e6;
    const results: BenchResult[] = [
      { label: "Hub thread delay p99, recording on the Hub's thread (peer, median of rounds)", value: p99(onHubThread), unit: 'ms' },
      { label: 'Hub thread delay p99, recording in its worker (median of rounds)', value: p99(inWorker), unit: 'ms' },
      { label: "Hub thread delay max, recording on the Hub's thread (median of rounds)", value: max(onHubThread), unit: 'ms' },
      { label: 'Hub thread delay max, recording in its worker (median of rounds)', value: max(inWorker), unit: 'ms' },
      { label: "floods' output, recording on the Hub's thread (median)", value: rate(onHubThread), unit: 'MB/s' },
      { label: "floods' output, recording in its worker (median)", value: rate(inWorker), unit: 'MB/s' },
    ];
    return results;
  },
};

async function floodRound(options: { dir: string; file: string; floods: number; seconds: number; worker: boolean }): Promise<RoundFigures> {
  const dataDir = join(options.dir, 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const settings: Settings = { ...defaultSettings };
  const host = new PtyHost({ logger: nullLogger, defaultCwd: options.dir });
  const history = new HistoryService({ dataDir, ptyHost: host, settings: () => settings, logger: nullLogger, ...(options.worker ? {} : { recordingWorkerPath: null }) });
  history.start();
  try {
    const script = `end=$((SECONDS+${options.seconds})); while [ $SECONDS -lt $end ]; do cat '${options.file}'; done`;
    const terminals = [];
    for (let index = 0; index < options.floods; index++) {
      terminals.push(await host.create({ file: 'bash', args: ['--norc', '--noprofile', '-c', script], cols: 120, rows: 40, createdBy: { kind: 'person', name: 'bench' } }));
    }
    const started = performance.now();
    const delays: number[] = [];
    const probe = setInterval(() => {
      const at = performance.now();
      setImmediate(() => delays.push(performance.now() - at));
    }, 20);
    await Promise.all(terminals.map((terminal) => terminal.exited));
    clearInterval(probe);
    const elapsed = (performance.now() - started) / 1000;
    const bytes = terminals.reduce((sum, terminal) => sum + terminal.offset, 0);
    history.flush();
    delays.sort((a, b) => a - b);
    return { delays, bytesPerSecond: bytes / elapsed };
  } finally {
    host.dispose();
    history.dispose();
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}
