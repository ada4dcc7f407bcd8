/**
 * Phase 1: the hostile burst against a fresh Hub, with the well-behaved pinger running throughout
 * and for a while after. Returns the figures and which targets were missed.
 */
import { ControlConstants } from '../src/common/constants.ts';
import { runBurst, type BurstResult } from './burst.ts';
import { SoakHub, type HubMeasure, type LoopDelay } from './hubHandle.ts';
import { LineClient } from './lineClient.ts';
import { Pinger, pingStats, type PingStats } from './pinger.ts';

export interface HostileOptions {
  connections: number;
  seconds: number;
  frames: number;
  /** How long the pinger goes on after the burst's clients have gone. */
  afterSeconds: number;
  seed: number;
  cpuProf?: string | undefined;
  log: (line: string) => void;
}

export interface HostileFigures {
  options: Omit<HostileOptions, 'log' | 'cpuProf'>;
  burst: BurstResult;
  pingDuring: PingStats;
  pingAfter: PingStats;
  /** The Hub's own event-loop delay during and after the burst. */
  loopDuring: LoopDelay;
  loopAfter: LoopDelay;
  /** Most terminals opened over the socket running at once, sampled every 250 ms and at the end. */
  maxSocketTerminalsRunning: number;
  /** Terminals the burst got started (exited ones included). */
  terminalsStarted: number;
  limits: { total: number; perClient: number; createBurst: number; createPerSecond: number };
  /** The Hub after the burst's clients left: connections it still holds (the pinger's one only). */
  after: HubMeasure;
  /** Shells still alive after all terminals were closed and the Hub shut down. */
  shellsLeft: number;
  hubLogLines: number;
  failures: string[];
}

/** The target the pinger must meet during and after the burst. */
export const burstPingTargetMs = 100;

export async function runHostilePhase(options: HostileOptions): Promise<HostileFigures> {
  const { log } = options;
  const hub = await SoakHub.start({ cpuProf: options.cpuProf });
  const failures: string[] = [];
  try {
    const probe = await LineClient.connect(hub.socketPath, 'probe');
    const introspect = await probe.request({ cmd: 'introspect' });
    await probe.close();
    const commands = (introspect.commands as string[] | undefined) ?? ['ping', 'list', 'create', 'send', 'exec'];
    const pinger = await Pinger.start(hub.socketPath);
    let maxRunning = 0;
    let sampling: Promise<void> | undefined;
    const sample = () => {
      // One sample at a time; each is a cheap IPC question, no GC.
      if (sampling) return;
      sampling = hub
        .count()
        .then((counts) => {
          maxRunning = Math.max(maxRunning, counts.socketTerminalsRunning);
        })
        .catch(() => undefined)
        .finally(() => (sampling = undefined));
    };
    log(`burst: ${options.connections} connections × ${options.seconds} s, ~${options.frames} frames, seed ${options.seed}`);
    await hub.loopDelay();
    const burstStart = Date.now();
    const burst = await runBurst({ socketPath: hub.socketPath, connections: options.connections, seconds: options.seconds, frames: options.frames, seed: options.seed, commands, onTick: sample });
    const burstEnd = Date.now();
    const loopDuring = await hub.loopDelay();
    await sampling;
    const counts = await hub.count();
    maxRunning = Math.max(maxRunning, counts.socketTerminalsRunning);
    const terminalsStarted = counts.socketTerminalsStarted;
    log(`burst sent ${burst.framesSent} frames (${(burst.bytesSent / 1048576).toFixed(1)} MiB), ${burst.answers} answers; terminals started ${terminalsStarted}, most running at once ${maxRunning}`);
    log(`then ${options.afterSeconds} s of pings with the burst's clients gone`);
    await new Promise((resolve) => setTimeout(resolve, options.afterSeconds * 1000));
    const samples = await pinger.stop();
    const loopAfter = await hub.loopDelay();
    await hub.connectionsGone();
    const pingDuring = pingStats(samples, burstStart, burstEnd);
    const pingAfter = pingStats(samples, burstEnd);
    const after = await hub.measure();
    // Creates still queued when the burst ended start afterwards: count them too.
    const started = Math.max(terminalsStarted, after.socketTerminalsStarted);
    maxRunning = Math.max(maxRunning, after.socketTerminalsRunning);
    await hub.closeTerminals();
    const shellsLeft = (await hub.shutdown()).length;
    const limits = { total: ControlConstants.socketMaxTerminals, perClient: ControlConstants.socketMaxTerminalsPerClient, createBurst: ControlConstants.createBurst, createPerSecond: ControlConstants.createPerSecond };

    for (const [when, stats] of [['during', pingDuring], ['after', pingAfter]] as const) {
      if (stats.count === 0) failures.push(`no pings were sent ${when} the burst`);
      if (stats.max > burstPingTargetMs) failures.push(`ping ${when} the burst: max ${formatMs(stats.max)} (target every ping < ${burstPingTargetMs} ms; ${stats.count - stats.answered} unanswered)`);
      if (stats.errors > 0) failures.push(`ping ${when} the burst: ${stats.errors} answers were errors`);
    }
    if (maxRunning > limits.total) failures.push(`${maxRunning} terminals opened over the socket ran at once (limit socketMaxTerminals ${limits.total})`);
    const uncoded = Object.entries(burst.uncoded);
    if (uncoded.length > 0) failures.push(`refusals without a code: ${uncoded.map(([message, n]) => `${n}× "${message}"`).join(', ')}`);
    if (burst.badServerLines > 0) failures.push(`${burst.badServerLines} lines from the Hub were not JSON`);
    if (after.connections > 0) failures.push(`the Hub still holds ${after.connections} control connections after every client left`);
    if (after.socketTerminalsRunning > limits.total) failures.push(`${after.socketTerminalsRunning} socket terminals still run after the burst (limit ${limits.total})`);
    if (shellsLeft > 0) failures.push(`${shellsLeft} shells still run after the Hub closed its terminals and shut down`);
    return {
      options: { connections: options.connections, seconds: options.seconds, frames: options.frames, afterSeconds: options.afterSeconds, seed: options.seed },
      burst,
      pingDuring,
      pingAfter,
      loopDuring,
      loopAfter,
      maxSocketTerminalsRunning: maxRunning,
      terminalsStarted: started,
      limits,
      after,
      shellsLeft,
      hubLogLines: hub.logLines(),
      failures,
    };
  } finally {
    await hub.shutdown();
    hub.dispose();
  }
}

export function formatMs(ms: number): string {
  return Number.isFinite(ms) ? `${ms.toFixed(ms < 10 ? 2 : 0)} ms` : 'never answered';
}
