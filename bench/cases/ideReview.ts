/**
 * The review path Claude Code's edits take, measured end to end on an in-process Hub:
 *   1. openDiff round trip over the IDE bridge's WebSocket (a small edit, decided at once through
 *      the Hub API as the review view does) — p50 and p99;
 *   2. a 10 000-line file with a few edits: open (read + diff stats) and accept (unified diff +
 *      archive write);
 *   3. the worst case for the line diff: two unrelated 10 000-line files.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { createLocalHubClient } from '../../src/node/api/localHubClient.ts';
import { Hub } from '../../src/node/hub.ts';
import { nullLogger } from '../../src/node/logger.ts';
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
      cli.close();
      api.dispose();

      // 3. Nothing in common: the capped Myers diff.
      const left = Array.from({ length: lines }, (_, i) => `left ${i}\n`).join('');
      const right = Array.from({ length: lines }, (_, i) => `right ${i}\n`).join('');
      const diffStarted = performance.now();
      diffStats(left, right);
      unifiedDiff('/x', left, right);
      results.push({ label: `stats + unified diff, two unrelated ${lines}-line files`, value: performance.now() - diffStarted, unit: 'ms', digits: 1 });
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

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
