/**
 * Case 1: throughput of a PTY flood (`cat` of a big file) through the Hub's terminal pipeline —
 * a PtySession with the headless mirror on and one lossless subscriber that acks the way the
 * renderer does (in steps of TerminalConstants.ackBatchChars) — against a bare node-pty reader
 * of the same file in the same run. Runs alternate so that machine noise hits both alike. The
 * headline figure waits until the mirror has parsed everything (its screen is then exact).
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import xtermHeadless from '@xterm/headless';
import { spawn } from 'node-pty';
import { TerminalConstants } from '../../src/common/constants.ts';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';
import { machineBusyMsSince, machineCores, readMachineCpu } from '../machineCpu.ts';

const cols = 120;
const rows = 40;

export const ptyFloodCase: BenchCase = {
  name: 'pty-flood',
  description: 'bytes/s of `cat BIGFILE` through PtySession (mirror + lossless subscriber) vs a bare node-pty reader',
  async run({ quick, log }) {
    const sizeBytes = quick ? 4 * 1024 * 1024 : 50 * 1024 * 1024;
    // Five, not three: on our 2-vCPU VMs the bare reader alone swings between ~50 and ~140 MB/s from
    // one round to the next, and a median of three kept landing on either end.
    const rounds = quick ? 1 : 5;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-'));
    try {
      const file = join(dir, 'flood.txt');
      writeFloodFile(file, sizeBytes);
      log(`file: ${(sizeBytes / 1024 / 1024).toFixed(0)} MiB of build-log-like text (SGR colours, some UTF-8); ${rounds} round(s) each, alternating`);
      const bare: number[] = [];
      const pipeline: number[] = [];
      const delivered: number[] = [];
      const bareCpu: number[] = [];
      const pipelineCpu: number[] = [];
      const bareFaults: number[] = [];
      const pipelineFaults: number[] = [];
      const host = new PtyHost({ logger: nullLogger, defaultCwd: dir });
      try {
        // One untimed warm-up of each so JIT and page cache do not favour whichever runs second.
        await bareRead(file);
        await pipelineRead(host, file);
        for (let round = 0; round < rounds; round++) {
          let cpu = readMachineCpu();
          let faults = process.resourceUsage().minorPageFault;
          bare.push(await bareRead(file));
          pushCpu(bareCpu, machineBusyMsSince(cpu), sizeBytes);
          bareFaults.push((process.resourceUsage().minorPageFault - faults) / (sizeBytes / 1e6));
          cpu = readMachineCpu();
          faults = process.resourceUsage().minorPageFault;
          const rates = await pipelineRead(host, file);
          pushCpu(pipelineCpu, machineBusyMsSince(cpu), sizeBytes);
          pipelineFaults.push((process.resourceUsage().minorPageFault - faults) / (sizeBytes / 1e6));
          pipeline.push(rates.parsed);
          delivered.push(rates.delivered);
          log(`round ${round + 1}: bare ${mbps(bare.at(-1)!)} MB/s, pipeline ${mbps(rates.parsed)} MB/s (${mbps(rates.delivered)} MB/s until the subscriber had it all)`);
        }
      } finally {
        host.dispose();
      }
      const bareMedian = median(bare);
      const pipelineMedian = median(pipeline);
      const deliveredMedian = median(delivered);
      const ceiling = await headlessParseRate(file);
      const cpuBudget: BenchResult[] =
        bareCpu.length > 0 && pipelineCpu.length > 0
          ? [
              // What the ratio is made of on this machine: all cores' busy time per MB, and the rate the
              // pipeline could reach if every core worked for it (cores / CPU per MB).
              { label: 'machine CPU per MB (all processes), bare', value: median(bareCpu), unit: 'ms/MB' },
              { label: 'machine CPU per MB (all processes), Hub', value: median(pipelineCpu), unit: 'ms/MB' },
              { label: `Hub pipeline ceiling, ${machineCores} cores all busy`, value: (machineCores * 1000) / median(pipelineCpu), unit: 'MB/s' },
            ]
          : [];
      return [
        { label: 'bare node-pty reader (median)', value: bareMedian / 1e6, unit: 'MB/s' },
        { label: 'Hub pipeline: mirror + lossless subscriber', value: pipelineMedian / 1e6, unit: 'MB/s' },
        { label: 'ratio pipeline / bare (target >= 0.9)', value: pipelineMedian / bareMedian, unit: 'x', digits: 2 },
        // The same runs, timed until the subscriber had every byte (the mirror may still be parsing the last lines).
        { label: 'pipeline until the subscriber had it all', value: deliveredMedian / 1e6, unit: 'MB/s' },
        { label: 'ratio of that / bare', value: deliveredMedian / bareMedian, unit: 'x', digits: 2 },
        // The pipeline cannot beat the mirror: this is @xterm/headless alone on the same bytes.
        { label: 'reference: @xterm/headless parse alone', value: ceiling / 1e6, unit: 'MB/s' },
        ...cpuBudget,
        // Page faults of this process (`cat` not included, for either). A new terminal's mirror
        // allocates its scrollback fresh, and after each spawn (node-pty forks) every page written
        // faults again; where a fault is expensive (~15 µs on our VMs) this decides the ratio.
        { label: 'page faults per MB in this process, bare', value: median(bareFaults), unit: '/MB', digits: 0 },
        { label: 'page faults per MB in this process, Hub', value: median(pipelineFaults), unit: '/MB', digits: 0 },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** Bytes per second of reading the file through a bare node-pty `cat`, timed from the moment the process exists. */
function bareRead(file: string): Promise<number> {
  return new Promise((resolve) => {
    let bytes = 0;
    const pty = spawn('cat', [file], { cols, rows, encoding: null, env: process.env as Record<string, string> });
    const started = performance.now();
    pty.onData((data) => (bytes += (data as unknown as Buffer).length));
    pty.onExit(() => resolve(bytes / ((performance.now() - started) / 1000)));
  });
}

/**
 * Bytes per second through PtySession: `parsed` until the subscriber has everything and the
 * mirror has parsed it, `delivered` until the subscriber has everything. Timed, like the bare
 * reader, from the moment the process exists (the Hub's work before the spawn — resolving the
 * executable, the environment — is not the flood; the attach after it is, output already flows).
 */
async function pipelineRead(host: PtyHost, file: string): Promise<{ parsed: number; delivered: number }> {
  const session = await host.create({ file: 'cat', args: [file], cols, rows, createdBy: { kind: 'person', name: 'bench' } });
  const started = performance.now();
  let received = 0;
  let unacked = 0;
  let deliveries = 0;
  const attachment = await session.attach({
    lossless: true,
    onOutput: (data, endOffset) => {
      received = endOffset;
      // The renderer acknowledges in steps from xterm.js write callbacks.
      unacked += data.length;
      if (unacked >= TerminalConstants.ackBatchChars) {
        attachment.ack(unacked);
        unacked = 0;
      }
      deliveries++;
    },
  });
  await session.exited;
  await waitFor(() => received === session.offset);
  const deliveredSeconds = (performance.now() - started) / 1000;
  await session.readScreen(); // the mirror has parsed everything
  const seconds = (performance.now() - started) / 1000;
  const bytes = session.offset;
  attachment.dispose();
  await host.close(session.id);
  if (deliveries === 0) throw new Error('the subscriber received nothing');
  return { parsed: bytes / seconds, delivered: bytes / deliveredSeconds };
}

/** Bytes per second @xterm/headless parses the file (as the PTY delivers it: LF became CRLF), same size and scrollback as the mirror. */
async function headlessParseRate(file: string): Promise<number> {
  const bytes = Buffer.from(readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
  const terminal = new xtermHeadless.Terminal({ cols, rows, scrollback: TerminalConstants.scrollbackLines, allowProposedApi: true });
  try {
    const started = performance.now();
    // Wait for the parser every few MB: xterm discards writes once 50 MB are pending.
    const pauseEvery = 4 * 1024 * 1024;
    for (let offset = 0; offset < bytes.length; offset += TerminalConstants.batchMaxBytes) {
      terminal.write(bytes.subarray(offset, offset + TerminalConstants.batchMaxBytes));
      if ((offset + TerminalConstants.batchMaxBytes) % pauseEvery === 0) await new Promise<void>((resolve) => terminal.write('', resolve));
    }
    await new Promise<void>((resolve) => terminal.write('', resolve));
    return bytes.length / ((performance.now() - started) / 1000);
  } finally {
    terminal.dispose();
  }
}

function waitFor(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (condition() ? resolve() : setImmediate(check));
    check();
  });
}

/**
 * Writes `size` bytes of text that looks like a busy build log: timestamps, SGR colours, paths,
 * some non-ASCII. Written a megabyte at a time, so the timed runs do not start in a process
 * whose heap once held the whole file as strings (several times its size) for the GC to clean up.
 */
function writeFloodFile(file: string, size: number): void {
  const fd = openSync(file, 'w');
  try {
    let lines: string[] = [];
    let pending = 0;
    let written = 0;
    for (let index = 0; written + pending < size; index++) {
      const line =
        index % 7 === 0
          ? `\x1b[32m✔\x1b[0m test ${index} passed in ${index % 97} ms — données validées\n`
          : index % 13 === 0
            ? `\x1b[1;31merror\x1b[0m: src/module${index % 50}/file${index}.ts:${index % 400}:${index % 80} something went wrong\n`
            : `[${String(index).padStart(8, '0')}] compiling src/package${index % 30}/component${index}.tsx (${index * 31 % 10007} bytes)\n`;
      lines.push(line);
      pending += Buffer.byteLength(line);
      if (pending >= 1024 * 1024) {
        written += writeSync(fd, lines.join(''));
        lines = [];
        pending = 0;
      }
    }
    writeSync(fd, lines.join(''));
  } finally {
    closeSync(fd);
  }
}

/** Busy CPU ms per MB of one run, when the machine reports it. */
function pushCpu(into: number[], busyMs: number | null, bytes: number): void {
  if (busyMs !== null) into.push(busyMs / (bytes / 1e6));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function mbps(bytesPerSecond: number): string {
  return (bytesPerSecond / 1e6).toFixed(1);
}
