/**
 * The well-behaved client: one connection that sends `ping` every ~20 ms, whatever else happens,
 * and times each answer. It runs on a worker thread, so the load the soak generates on its main
 * thread cannot delay reading the answers: the latency measured is the Hub's (and the machine's).
 *
 * Pings are sent on a fixed cadence, not one after another, so a Hub that stalls shows as many late
 * answers (and unanswered pings at the end), not as one.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { LineClient } from './lineClient.ts';

/** One ping: when it was sent (epoch ms) and how long its answer took (ms; null: never answered). */
export interface PingSample {
  sentAt: number;
  latencyMs: number | null;
  /** The answer was not ok (never expected). */
  error?: string;
}

export interface PingStats {
  count: number;
  answered: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
}

type ToWorker = { type: 'stop' };
type FromWorker = { type: 'started' } | { type: 'samples'; samples: PingSample[] } | { type: 'failed'; error: string };

export class Pinger {
  readonly #worker: Worker;

  private constructor(worker: Worker) {
    this.#worker = worker;
  }

  static async start(socketPath: string, intervalMs = 20): Promise<Pinger> {
    const worker = new Worker(new URL(import.meta.url), { workerData: { role: 'soak-pinger', socketPath, intervalMs } });
    await new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', (message: FromWorker) => (message.type === 'started' ? resolve() : reject(new Error(`pinger: ${JSON.stringify(message)}`))));
    });
    return new Pinger(worker);
  }

  /** Stop pinging; every ping sent, with the unanswered ones as null. */
  async stop(): Promise<PingSample[]> {
    const samples = new Promise<PingSample[]>((resolve, reject) => {
      this.#worker.once('error', reject);
      this.#worker.on('message', (message: FromWorker) => {
        if (message.type === 'samples') resolve(message.samples);
        else if (message.type === 'failed') reject(new Error(`pinger: ${message.error}`));
      });
    });
    this.#worker.postMessage({ type: 'stop' } satisfies ToWorker);
    const result = await samples;
    await this.#worker.terminate();
    return result;
  }
}

/** Figures of the pings sent in [from, to) (epoch ms); an unanswered ping counts as infinitely late. */
export function pingStats(samples: readonly PingSample[], from = -Infinity, to = Infinity): PingStats {
  const inWindow = samples.filter((sample) => sample.sentAt >= from && sample.sentAt < to);
  const latencies = inWindow.map((sample) => sample.latencyMs ?? Infinity).sort((a, b) => a - b);
  const at = (p: number) => (latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]!);
  return {
    count: inWindow.length,
    answered: inWindow.filter((sample) => sample.latencyMs !== null).length,
    errors: inWindow.filter((sample) => sample.error !== undefined).length,
    p50: at(50),
    p99: at(99),
    max: latencies.length === 0 ? 0 : latencies[latencies.length - 1]!,
  };
}

async function runPinger(socketPath: string, intervalMs: number): Promise<void> {
  const port = parentPort!;
  const client = await LineClient.connect(socketPath, 'ping');
  const samples: PingSample[] = [];
  let stopping = false;
  const started = performance.now();
  let sent = 0;
  const tick = () => {
    if (stopping) return;
    const sample: PingSample = { sentAt: Date.now(), latencyMs: null };
    samples.push(sample);
    const at = performance.now();
    client.request({ cmd: 'ping' }, 3_600_000).then(
      (frame) => {
        sample.latencyMs = performance.now() - at;
        if (frame.ok !== true) sample.error = String(frame.error);
      },
      (error: Error) => {
        sample.error = error.message;
      },
    );
    sent++;
    // On a fixed cadence from the start: a late timer does not push every later ping back.
    setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
  };
  port.on('message', (message: ToWorker) => {
    if (message.type !== 'stop') return;
    stopping = true;
    // Pings still in flight get a last chance to be answered (a stalled Hub shows here as nulls).
    const deadline = performance.now() + 2_000;
    const finish = () => {
      if (client.inFlight > 0 && performance.now() < deadline && !client.closed) {
        setTimeout(finish, 10);
        return;
      }
      void client.close();
      port.postMessage({ type: 'samples', samples } satisfies FromWorker);
    };
    finish();
  });
  port.postMessage({ type: 'started' } satisfies FromWorker);
  tick();
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'soak-pinger') {
  const { socketPath, intervalMs } = workerData as { socketPath: string; intervalMs: number };
  runPinger(socketPath, intervalMs).catch((error: unknown) => parentPort!.postMessage({ type: 'failed', error: String(error) } satisfies FromWorker));
}
