/**
 * The control socket, measured against peers in the same run:
 *   1. a no-op request round trip (`ping`) against a bare Node Unix-socket NDJSON echo server
 *      doing the same framing (split lines, JSON.parse, JSON.stringify) — p50 and p99;
 *   2. `exec "true"` round trip against tmux doing the same thing the usual way
 *      (`send-keys` + `wait-for`), when tmux is installed;
 *   3. many concurrent clients sending many requests, counting errors.
 * The Hub runs in-process on a temp data dir with real PTYs, exactly as `switchboard serve` does.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hub } from '../../src/node/hub.ts';
import { nullLogger } from '../../src/node/logger.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';

export const controlSocketCase: BenchCase = {
  name: 'control-socket',
  description: 'control socket: ping round trip vs a bare Unix-socket echo server, exec "true" vs tmux, concurrent clients',
  async run({ quick, log }) {
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-socket-'));
    const hub = new Hub({ dataDir: join(dir, 'data'), workspaceFolders: [dir], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    const echoPath = join(dir, 'echo.sock');
    const echo = await startEchoServer(echoPath);
    const results: BenchResult[] = [];
    try {
      await hub.start();
      const socketPath = hub.controlSocketPath;

      // 1. Round trips, alternating between the two servers so noise hits both alike.
      const pings = quick ? 300 : 5_000;
      const ours = await LineClient.connect(socketPath);
      const bare = await LineClient.connect(echoPath);
      const ourTimes: number[] = [];
      const bareTimes: number[] = [];
      for (let i = 0; i < 200; i++) {
        await ours.request({ id: `w${i}`, cmd: 'ping' });
        await bare.request({ id: `w${i}`, cmd: 'ping' });
      }
      for (let i = 0; i < pings; i++) {
        bareTimes.push(await timed(() => bare.request({ id: i, cmd: 'ping' })));
        ourTimes.push(await timed(() => ours.request({ id: i, cmd: 'ping' })));
      }
      ours.close();
      bare.close();
      log(`${pings} sequential pings on one connection each`);
      results.push(
        { label: 'ping p50: control socket', value: percentile(ourTimes, 50) * 1000, unit: 'µs' },
        { label: 'ping p50: bare echo server', value: percentile(bareTimes, 50) * 1000, unit: 'µs' },
        { label: 'ping p50 ratio (target <= 2)', value: percentile(ourTimes, 50) / percentile(bareTimes, 50), unit: 'x', digits: 2 },
        { label: 'ping p99: control socket (target < 2 ms)', value: percentile(ourTimes, 99), unit: 'ms', digits: 3 },
      );

      // 2. exec "true" against tmux.
      const execs = quick ? 10 : 100;
      const client = await LineClient.connect(socketPath);
      const created = await client.request({ id: 'c', cmd: 'create', name: 'bench', shellPath: 'bash' });
      const terminalId = String(created.id);
      await client.request({ id: 'warm', cmd: 'exec', terminalId, command: 'true', timeoutMs: 10_000 });
      const execTimes: number[] = [];
      for (let i = 0; i < execs; i++) {
        execTimes.push(await timed(() => client.request({ id: `e${i}`, cmd: 'exec', terminalId, command: 'true', timeoutMs: 10_000 })));
      }
      client.close();
      results.push({ label: 'exec "true" p50: control socket', value: percentile(execTimes, 50), unit: 'ms', digits: 2 });
      const tmuxTimes = tmuxExecTimes(execs, dir, log);
      if (tmuxTimes) {
        results.push(
          { label: 'exec "true" p50: tmux send-keys + wait-for', value: percentile(tmuxTimes, 50), unit: 'ms', digits: 2 },
          { label: 'exec ratio ours / tmux (target < 1)', value: percentile(execTimes, 50) / percentile(tmuxTimes, 50), unit: 'x', digits: 2 },
        );
      }

      // 3. Concurrent clients.
      const clients = quick ? 10 : 50;
      const perClient = quick ? 100 : 1_000;
      const started = performance.now();
      const outcomes = await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          const line = await LineClient.connect(socketPath);
          let errors = 0;
          for (let i = 0; i < perClient; i++) {
            const response = await line.request({ id: `${c}-${i}`, cmd: i % 10 === 0 ? 'list' : 'ping' });
            if (response.ok !== true) errors++;
          }
          line.close();
          return errors;
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const errors = outcomes.reduce((sum, n) => sum + n, 0);
      log(`${clients} clients × ${perClient} requests (every tenth a list), all at once`);
      results.push(
        { label: 'concurrent requests per second', value: (clients * perClient) / seconds, unit: 'req/s', digits: 0 },
        { label: 'concurrent request errors (target 0)', value: errors, unit: '', digits: 0 },
      );
      return results;
    } finally {
      hub.dispose();
      await new Promise<void>((resolve) => echo.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** The peer: an NDJSON server that answers like ours, with nothing behind it. */
function startEchoServer(path: string): Promise<Server> {
  const server = createServer((socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const request = JSON.parse(line) as { id: unknown };
        socket.write(JSON.stringify({ id: request.id, rid: request.id, protocol: 'claws/1', ok: true, serverTime: Date.now() }) + '\n');
      }
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

/** One connection, one request at a time, answers matched by order (each waits for its reply). */
class LineClient {
  readonly #socket: Socket;
  #buffered = '';
  #waiting: ((response: Record<string, unknown>) => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffered += chunk;
      let newline: number;
      while ((newline = this.#buffered.indexOf('\n')) >= 0) {
        const line = this.#buffered.slice(0, newline);
        this.#buffered = this.#buffered.slice(newline + 1);
        const waiting = this.#waiting;
        this.#waiting = undefined;
        waiting?.(JSON.parse(line) as Record<string, unknown>);
      }
    });
  }

  static connect(path: string): Promise<LineClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path, () => resolve(new LineClient(socket)));
      socket.once('error', reject);
    });
  }

  request(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.#waiting = resolve;
      this.#socket.write(JSON.stringify(message) + '\n');
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}

function tmuxExecTimes(count: number, dir: string, log: (line: string) => void): number[] | undefined {
  const socketName = `sb-bench-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socketName, ...args], { stdio: 'ignore' });
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
  } catch {
    log('tmux is not installed: the tmux comparison is skipped');
    return undefined;
  }
  try {
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-c', dir, 'bash --norc --noprofile');
    const once = (i: number) => {
      tmux('send-keys', '-t', 'bench', `true; tmux -L ${socketName} wait-for -S done-${i}`, 'Enter');
      tmux('wait-for', `done-${i}`);
    };
    once(-1);
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      once(i);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
  }
}

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
