/**
 * Recording must not slow the terminal: the PTY flood of pty-flood (`cat` of a build-log-like
 * file through PtySession with the mirror and a lossless subscriber acking like the renderer),
 * with History recording it and without, alternating in the same run. Target: on ≥ 0.95× off.
 * Also reports how long after the flood the last byte was committed to switchboard.db.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSettings, type Settings } from '../../src/common/api/contract.ts';
import { TerminalConstants } from '../../src/common/constants.ts';
import { HistoryService } from '../../src/node/history/historyService.ts';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import type { BenchCase } from '../benchCase.ts';
import { buildLogText, median } from './historyCorpus.ts';

const cols = 120;
const rows = 40;

export const historyRecordingCase: BenchCase = {
  name: 'history-recording',
  description: 'PTY flood bytes/s with History recording on vs off (same run, alternating)',
  async run({ quick, log }) {
    // Quick mode checks that the case runs; its figures mean nothing.
    const sizeBytes = quick ? 4 * 1024 * 1024 : 50 * 1024 * 1024;
    const rounds = quick ? 1 : 7;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-history-'));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const settings: Settings = { ...defaultSettings };
    const host = new PtyHost({ logger: nullLogger, defaultCwd: dir });
    const history = new HistoryService({ dataDir, ptyHost: host, settings: () => settings, logger: nullLogger });
    try {
      const file = join(dir, 'flood.txt');
      writeFileSync(file, buildLogText(sizeBytes, 1));
      history.start();
      log(`file: ${(sizeBytes / 1024 / 1024).toFixed(0)} MiB of build-log-like text; ${rounds} round(s) each, alternating`);
      const setRecording = (on: boolean) => {
        settings.historyEnabled = on;
        history.applySettings(settings);
      };
      const off: number[] = [];
      const on: number[] = [];
      const commitLag: number[] = [];
      const cpuOff: number[] = [];
      const cpuOn: number[] = [];
      setRecording(true);
      await flood(host, history, file); // warm-up
      // The checkpoint worker starts with the first write, so ask after the warm-up.
      if (!history.checkpointsInWorker) log('WAL checkpoint worker not running: checkpoints run on the Hub thread');
      for (let round = 0; round < rounds; round++) {
        for (const recording of round % 2 === 0 ? [false, true] : [true, false]) {
          setRecording(recording);
          const result = await flood(host, history, file);
          (recording ? on : off).push(result.bytesPerSecond);
          (recording ? cpuOn : cpuOff).push(result.cpuMsPerMB);
          if (recording) commitLag.push(result.commitLagMs);
        }
        log(`round ${round + 1}: off ${mbps(off.at(-1)!)} MB/s, on ${mbps(on.at(-1)!)} MB/s`);
      }
      const offMedian = median(off);
      const onMedian = median(on);
      return [
        { label: 'flood, History off (median)', value: offMedian / 1e6, unit: 'MB/s' },
        { label: 'flood, History recording (median)', value: onMedian / 1e6, unit: 'MB/s' },
        { label: 'ratio on / off (target >= 0.95)', value: onMedian / offMedian, unit: 'x', digits: 3 },
        { label: 'last byte committed after the flood ended', value: median(commitLag), unit: 'ms' },
        // Machine noise (other processes) moves throughput a lot; the Hub process's CPU per MB does not.
        { label: 'Hub process CPU per MB, History off', value: median(cpuOff), unit: 'ms/MB' },
        { label: 'Hub process CPU per MB, History recording', value: median(cpuOn), unit: 'ms/MB' },
      ];
    } finally {
      host.dispose();
      history.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** One flood: bytes/s until the subscriber has everything and the mirror parsed it; then how long until History committed it all. */
async function flood(host: PtyHost, history: HistoryService, file: string): Promise<{ bytesPerSecond: number; commitLagMs: number; cpuMsPerMB: number }> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const session = await host.create({ file: 'cat', args: [file], cols, rows, createdBy: { kind: 'person', name: 'bench' } });
  let received = 0;
  let unacked = 0;
  const attachment = await session.attach({
    lossless: true,
    onOutput: (data, endOffset) => {
      received = endOffset;
      unacked += data.length;
      if (unacked >= TerminalConstants.ackBatchChars) {
        attachment.ack(unacked);
        unacked = 0;
      }
    },
  });
  await session.exited;
  await waitFor(() => received === session.offset);
  await session.readScreen();
  const ended = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  const bytes = session.offset;
  // Outside the timing: History writes what it still holds (it does so on exit already).
  history.flush();
  const commitLagMs = performance.now() - ended;
  // And indexes it now, so that this run's indexing (off the hot path, in slices) does not slow the next run.
  history.indexNow();
  // And copies the WAL into the database file and shrinks it, as the worker does once things are quiet.
  if (history.checkpointsInWorker) await history.checkpointNow({ shrinkWal: true });
  attachment.dispose();
  await host.close(session.id);
  return { bytesPerSecond: bytes / ((ended - started) / 1000), commitLagMs, cpuMsPerMB: (cpu.user + cpu.system) / 1000 / (bytes / 1e6) };
}

function waitFor(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (condition() ? resolve() : setImmediate(check));
    check();
  });
}

function mbps(bytesPerSecond: number): string {
  return (bytesPerSecond / 1e6).toFixed(1);
}
