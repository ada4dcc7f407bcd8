/**
 * The review path Claude Code's edits take, measured end to end on an in-process Hub:
 *   1. openDiff round trip over the IDE bridge's WebSocket (a small edit, decided at once through
 *      the Hub API as the review view does) — p50 and p99;
 *   2. a 10 000-line file with a few edits: open (read + diff stats) and accept (unified diff +
 *      archive write);
 *   3. files at the review size limit (10 MiB, ~100 000 lines): a few edits, and the costliest
 *      shape for the bounded diff (edits every 200 lines) — the round trip, and the longest stall
 *      of the Hub's event loop meanwhile (what every pane would feel: the diffs run on a worker);
 *   4. the line diff alone on such files (the CPU the worker spends), and two unrelated files.
 */
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { createLocalHubClient } from '../../src/node/api/localHubClient.ts';
import { Hub } from '../../src/node/hub.ts';
import { nullLogger } from '../../src/node/logger.ts';
import { ReviewConstants } from '../../src/common/constants.ts';
import { diffStats, unifiedDiff } from '../../src/node/review/lineDiff.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';

export const ideReviewCase: BenchCase = {
  name: 'ide-review',
  description: 'IDE bridge openDiff round trip, a 10 000-line review, and the worst-case line diff',
  async run({ quick, log }) {
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-review-'));
    const hub = new Hub({ dataDir: join(dir, 'data'), workspaceFolders: [dir], host: 'test', logger: nullLogger, env: { CLAUDE_CONFIG_DIR: join(dir, 'claude') }, clawsCompatSockets: false });
    const results: BenchResult[] = [];
    try {
      await hub.start();
      const api = createLocalHubClient(hub);
      hub.reviews.onDidAdd((summary) => void api.call('review.decide', { id: summary.id, decision: 'accept' }));
      const token = JSON.parse(readFileSync(hub.ideBridge.lockFile!, 'utf8')).authToken as string;
      const cli = await RpcClient.connect(hub.ideBridge.port!, token);
      await cli.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });

      // 1. Small edits, decided as soon as they arrive.
      const file = join(dir, 'small.ts');
      writeFileSync(file, 'export const a = 1;\n');
      const rounds = quick ? 30 : 500;
      const times: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const started = performance.now();
        await cli.request('tools/call', { name: 'openDiff', arguments: { old_file_path: file, new_file_path: file, new_file_contents: `export const a = ${i};\n`, tab_name: `t${i}` } });
        times.push(performance.now() - started);
      }
      log(`${rounds} openDiff calls, each accepted at once`);
      results.push(
        { label: 'openDiff round trip p50', value: percentile(times, 50), unit: 'ms', digits: 2 },
        { label: 'openDiff round trip p99', value: percentile(times, 99), unit: 'ms', digits: 2 },
      );

      // 2. A large file with a handful of edits.
      const lines = quick ? 1_000 : 10_000;
      const big = join(dir, 'big.ts');
      const original = Array.from({ length: lines }, (_, i) => `export const value${i} = ${i};\n`);
      writeFileSync(big, original.join(''));
      const edited = [...original];
      for (let i = 0; i < lines; i += Math.floor(lines / 5)) edited[i] = `export const value${i} = -1; // edited\n`;
      const started = performance.now();
      await cli.request('tools/call', { name: 'openDiff', arguments: { old_file_path: big, new_file_path: big, new_file_contents: edited.join(''), tab_name: 'big' } });
      results.push({ label: `openDiff round trip, ${lines}-line file, 5 edits`, value: performance.now() - started, unit: 'ms', digits: 1 });

      // 3. At the size limit: ~100-byte lines up to 10 MiB (1 MiB in quick mode).
      const limitBytes = quick ? 1024 * 1024 : ReviewConstants.maxFileBytes;
      const hugeLines = Math.floor(limitBytes / 100);
      const huge = Array.from({ length: hugeLines }, (_, i) => `export const value${String(i).padStart(7, '0')} = ${String(i).padStart(7, '0')}; // ${'x'.repeat(57)}\n`);
      const hugePath = join(dir, 'huge.ts');
      writeFileSync(hugePath, huge.join(''));
      log(`${hugeLines}-line files of ${(huge.join('').length / (1024 * 1024)).toFixed(1)} MiB`);
      // The client runs on a thread of its own: encoding and parsing 10 MiB messages is its cost, not the Hub's.
      const hugeClient = await WorkerRpcClient.connect(hub.ideBridge.port!, token);
      for (const [shape, every] of [
        ['5 edits', Math.floor(hugeLines / 5)],
        ['an edit every 200 lines', 200],
      ] as const) {
        const proposal = [...huge];
        for (let i = 0; i < hugeLines; i += every) proposal[i] = `export const value${i} = -1; // edited\n`;
        await hugeClient.prepare({ name: 'openDiff', arguments: { old_file_path: hugePath, new_file_path: hugePath, new_file_contents: proposal.join(''), tab_name: `huge ${shape}` } });
        const watch = watchHubThread();
        const roundTrip = await hugeClient.callPrepared();
        // The accepted review's unified diff is computed after the answer: wait until it is archived.
        await hub.reviews.flush();
        const stall = watch.stop();
        results.push(
          { label: `openDiff round trip, ${hugeLines}-line file, ${shape}`, value: roundTrip, unit: 'ms', digits: 0 },
          { label: `  longest Hub-thread CPU burst meanwhile`, value: stall.cpuMs, unit: 'ms', digits: 1 },
          { label: `  longest Hub event-loop delay meanwhile (wall clock)`, value: stall.wallMs, unit: 'ms', digits: 1 },
        );
      }
      await hugeClient.close();
      cli.close();
      api.dispose();

      // 4. The diff itself, as the worker runs it.
      const edited200 = [...huge];
      for (let i = 0; i < hugeLines; i += 200) edited200[i] = `export const value${i} = -1; // edited\n`;
      const [hugeOld, hugeNew] = [huge.join(''), edited200.join('')];
      let diffStarted = performance.now();
      diffStats(hugeOld, hugeNew);
      unifiedDiff('/x', hugeOld, hugeNew);
      results.push({ label: `worker CPU: stats + unified diff, ${hugeLines} lines, an edit every 200`, value: performance.now() - diffStarted, unit: 'ms', digits: 0 });
      const left = Array.from({ length: hugeLines }, (_, i) => `left ${i}\n`).join('');
      const right = Array.from({ length: hugeLines }, (_, i) => `right ${i}\n`).join('');
      diffStarted = performance.now();
      diffStats(left, right);
      unifiedDiff('/x', left, right);
      results.push({ label: `worker CPU: stats + unified diff, two unrelated ${hugeLines}-line files`, value: performance.now() - diffStarted, unit: 'ms', digits: 0 });
    } finally {
      await hub.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
    return results;
  },
};

/** A minimal JSON-RPC client over the bridge's WebSocket, as the CLI connects. */
class RpcClient {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, (message: unknown) => void>();
  #nextId = 0;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { id?: number };
      if (typeof message.id === 'number') this.#pending.get(message.id)?.(message);
    });
  }

  static async connect(port: number, token: string): Promise<RpcClient> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`, 'mcp', { headers: { 'x-claude-code-ide-authorization': token } });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return new RpcClient(socket);
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.#nextId++;
    const reply = new Promise<unknown>((resolve) => this.#pending.set(id, resolve));
    this.#socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return reply;
  }

  close(): void {
    this.#socket.close();
  }
}

/**
 * How long the Hub's thread is kept from its event loop (every pane's output waits that long):
 * the wall-clock delay of a 5 ms timer, and — unlike it, unaffected by other processes competing
 * for the cores — the CPU this thread spent between two of its ticks.
 */
function watchHubThread(): { stop(): { cpuMs: number; wallMs: number } } {
  const wall = monitorEventLoopDelay({ resolution: 5 });
  wall.enable();
  let last = process.threadCpuUsage();
  let maxCpuMs = 0;
  const timer = setInterval(() => {
    const now = process.threadCpuUsage();
    maxCpuMs = Math.max(maxCpuMs, (now.user - last.user + now.system - last.system) / 1000);
    last = now;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      wall.disable();
      return { cpuMs: maxCpuMs, wallMs: wall.max / 1e6 };
    },
  };
}

/**
 * A CLI-like client on a worker thread (code evaluated there, with the `ws` package resolved
 * here): it encodes the request ahead of time and parses the reply off the Hub's thread.
 */
class WorkerRpcClient {
  readonly #worker: Worker;
  readonly #replies: Array<(message: unknown) => void> = [];

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (message) => this.#replies.shift()?.(message));
  }

  static async connect(port: number, token: string): Promise<WorkerRpcClient> {
    const wsPath = createRequire(import.meta.url).resolve('ws');
    const worker = new Worker(workerClientCode, { eval: true, workerData: { wsPath, port, token } });
    const client = new WorkerRpcClient(worker);
    await client.#next();
    return client;
  }

  /** Send the tools/call arguments to the thread, which encodes them. */
  async prepare(params: unknown): Promise<void> {
    const answered = this.#next();
    this.#worker.postMessage({ type: 'prepare', params });
    await answered;
  }

  /** Send the prepared request; the round trip in ms, as the client measured it. */
  async callPrepared(): Promise<number> {
    const answered = this.#next();
    this.#worker.postMessage({ type: 'send' });
    const reply = (await answered) as { ms: number; error: string | null };
    if (reply.error) throw new Error(`openDiff failed: ${reply.error}`);
    return reply.ms;
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }

  #next(): Promise<unknown> {
    return new Promise((resolve) => this.#replies.push(resolve));
  }
}

const workerClientCode = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.wsPath);
const socket = new WebSocket('ws://127.0.0.1:' + workerData.port, 'mcp', { headers: { 'x-claude-code-ide-authorization': workerData.token } });
const pending = new Map();
let nextId = 0;
let prepared = null;
socket.on('message', (data) => {
  const message = JSON.parse(data.toString());
  if (typeof message.id === 'number') pending.get(message.id)?.(message);
});
function call(text, id) {
  return new Promise((resolve) => { pending.set(id, resolve); socket.send(text); });
}
socket.once('open', async () => {
  await call(JSON.stringify({ jsonrpc: '2.0', id: nextId, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }), nextId++);
  parentPort.on('message', async (command) => {
    if (command.type === 'prepare') {
      const id = nextId++;
      prepared = { id, text: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: command.params }) };
      parentPort.postMessage('prepared');
      return;
    }
    const started = performance.now();
    const reply = await call(prepared.text, prepared.id);
    parentPort.postMessage({ ms: performance.now() - started, error: reply.error ? reply.error.message : reply.result.isError ? JSON.stringify(reply.result) : null });
  });
  parentPort.postMessage('ready');
});
`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
