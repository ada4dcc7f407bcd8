/**
 * Phase 2: the soak. Many well-behaved control-socket clients — a mix of `subscribe` (claws/2
 * output streams), `exec`, `readLog` and `send` — while terminals flood output, for a while; the
 * pinger times `ping` throughout. Every answer must be ok; afterwards, with the clients gone and the
 * terminals closed, the Hub's memory, file descriptors and timers must be back where they were.
 *
 * Memory is read three times, each with the terminals closed and the Hub settled: "cold", after a
 * short warm-up of the same shape (what the Hub sets up once — the mirror worker, SQLite's caches,
 * compiled code); "before", after a first round of the whole load, which runs until the Hub's logs
 * bounded by design are full (the bus log `subscribe` cursors replay from, the audit log, the
 * command events `poll` serves; at least the load's duration, at most firstRoundMaxRounds times
 * it); "after", after the measured round. A log filling up to its cap, and malloc's pools growing
 * to what the load needs, is memory kept as designed; a leak is what a further round of the same
 * load leaves on top. So the target is judged on before → after; cold → before is reported beside it.
 */
import { idleCollectionDelayMs } from '../src/node/hub.ts';
import type { LogFill } from '../src/node/control/logFill.ts';
import { SoakHub, type BoundedLogs, type HubMeasure } from './hubHandle.ts';
import { LineClient, type Frame } from './lineClient.ts';
import { Pinger, pingStats, type PingStats } from './pinger.ts';
import { cpuShareBetween, sampleCpu, type CpuShare } from './cpuShare.ts';

export interface LoadOptions {
  clients: number;
  floods: number;
  seconds: number;
  /** Terminals `exec` goes to and terminals `send` types into (floods are separate). */
  execTerminals: number;
  sendTerminals: number;
  /** Profile the phase's Hub (`--cpu-prof` into this directory). */
  cpuProf?: string | undefined;
  log: (line: string) => void;
}

export type Role = 'subscribe' | 'exec' | 'readLog' | 'send';
const roles: Role[] = ['subscribe', 'exec', 'readLog', 'send'];

export interface LoadFigures {
  options: Omit<LoadOptions, 'log'>;
  requests: Record<Role, number>;
  /** Output chunks pushed to the subscribers. */
  pushes: number;
  errors: number;
  /** The first few errors, as they were. */
  errorSamples: string[];
  /** Bytes the flooding terminals wrote (their output offsets at the end). */
  floodBytes: number;
  ping: PingStats;
  /** The Hub's main thread and the machine's cores while the load ran (null where not Linux). */
  cpu: CpuShare | null;
  /** After the short warm-up, before any round of the load. */
  cold: HubMeasure;
  /** After the first round of the load: what the measured round is compared with. */
  before: HubMeasure;
  /** How long the first round ran (until the bounded logs were full, or its cap). */
  firstRoundSeconds: number;
  after: HubMeasure;
  shellsLeft: number;
  /** How long the Hub settled before "after" was measured. */
  settleSeconds: number;
  failures: string[];
}

export const loadPingP99TargetMs = 10;
/** The first round runs until the bounded logs are full, for at most this many times the load's duration. */
export const firstRoundMaxRounds = 4;
/** Memory after the load, within this fraction of before. */
export const memoryTolerance = 0.1;
/**
 * How long the Hub settles, its terminals closed, before its memory is measured (before and after
 * the load alike): past the collection its thread runs after terminals close (hub.ts).
 */
const settleMs = idleCollectionDelayMs + 2_000;

/** A flood: lines of output as fast as `seq` prints them, a short breath between bursts. */
const floodCommand = 'while :; do seq 1 3000; sleep 0.1; done';

interface Terminals {
  floods: string[];
  execs: string[];
  sends: string[];
}

async function openTerminals(socketPath: string, options: LoadOptions): Promise<{ terminals: Terminals; setup: LineClient[] }> {
  // One setup connection per 20 terminals: a client may open 24 (socketMaxTerminalsPerClient).
  const setup: LineClient[] = [];
  const create = async (index: number, fields: Frame): Promise<string> => {
    const connection = Math.floor(index / 20);
    setup[connection] ??= await LineClient.connect(socketPath, `setup${connection}-`);
    for (;;) {
      const answer = await setup[connection]!.request({ cmd: 'create', show: false, ...fields });
      if (answer.ok === true) return String(answer.id);
      // Past the create burst: wait as told, then go on.
      if (answer.code === 'RATE_LIMITED') await new Promise((resolve) => setTimeout(resolve, Number(answer.retryAfterMs)));
      else throw new Error(`create: ${answer.error}`);
    }
  };
  let index = 0;
  const floods: string[] = [];
  // The flood is the terminal's program (nothing typed): it runs until the terminal is closed.
  for (let i = 0; i < options.floods; i++) floods.push(await create(index++, { name: `flood-${i}`, shellPath: '/bin/sh', shellArgs: ['-c', floodCommand], shellIntegration: false }));
  const execs: string[] = [];
  for (let i = 0; i < options.execTerminals; i++) execs.push(await create(index++, { name: `exec-${i}` }));
  const sends: string[] = [];
  for (let i = 0; i < options.sendTerminals; i++) sends.push(await create(index++, { name: `send-${i}`, shellPath: '/bin/sh', shellIntegration: false }));
  // The exec terminals' shells are ready once one exec each went through (a shell's first prompt
  // can take seconds on a loaded machine).
  for (const id of execs) {
    const ready = await setup[0]!.request({ cmd: 'exec', terminalId: id, command: 'true', timeoutMs: 120_000 }, 180_000);
    if (ready.ok !== true) throw new Error(`the exec terminal ${id} did not get ready: ${String(ready.error)}`);
  }
  return { terminals: { floods, execs, sends }, setup };
}

async function closeTerminals(setup: LineClient[], terminals: Terminals): Promise<void> {
  const all = [...terminals.floods, ...terminals.execs, ...terminals.sends];
  await Promise.all(all.map((id) => setup[0]!.request({ cmd: 'close', terminalId: id })));
  await Promise.all(setup.map((client) => client.close()));
}

/** Runs `clients` clients against the terminals until `until` (epoch ms). */
async function runClients(socketPath: string, terminals: Terminals, clients: number, until: number, figures: Pick<LoadFigures, 'requests' | 'pushes' | 'errors' | 'errorSamples'>): Promise<void> {
  const fail = (role: Role, what: string) => {
    figures.errors++;
    if (figures.errorSamples.length < 10) figures.errorSamples.push(`${role}: ${what}`.slice(0, 300));
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms * (0.5 + Math.random())));
  const one = async (index: number) => {
    const role = roles[index % roles.length]!;
    const client = await LineClient.connect(socketPath, `${role}${index}-`);
    const ask = async (fields: Frame): Promise<Frame | null> => {
      figures.requests[role]++;
      try {
        const answer = await client.request(fields, 180_000);
        if (answer.ok !== true) fail(role, `${String(fields.cmd)}: ${String(answer.error)}`);
        return answer;
      } catch (error) {
        fail(role, `${String(fields.cmd)}: ${(error as Error).message}`);
        return null;
      }
    };
    const pick = (ids: string[]) => ids[index % ids.length]!;
    try {
      if (role === 'subscribe') {
        client.onFrame = (frame) => {
          if (frame.push === 'message') figures.pushes++;
        };
        await ask({ cmd: 'hello', protocol: 'claws/2', role: 'observer', peerName: `soak-${index}` });
        await ask({ cmd: 'subscribe', protocol: 'claws/2', topic: `terminal.${pick(terminals.floods)}.output` });
        await ask({ cmd: 'subscribe', protocol: 'claws/2', topic: 'command.**' });
        while (Date.now() < until) {
          await pause(1000);
          await ask({ cmd: 'ping' });
        }
      } else if (role === 'exec') {
        let n = 0;
        while (Date.now() < until) {
          const token = `soak-${index}-${n++}`;
          const answer = await ask({ cmd: 'exec', terminalId: pick(terminals.execs), command: `echo ${token}`, timeoutMs: 120_000 });
          const output = (answer?.event as { output?: string } | undefined)?.output;
          if (answer?.ok === true && !output?.includes(token)) fail(role, `exec output lacks ${token}: ${JSON.stringify(output).slice(0, 100)}`);
          await pause(200);
        }
      } else if (role === 'readLog') {
        let offset = 0;
        while (Date.now() < until) {
          const answer = await ask({ cmd: 'readLog', terminalId: pick(terminals.floods), offset, limit: 65_536, strip: index % 2 === 0 });
          if (answer?.ok === true) offset = Number(answer.nextOffset);
          await pause(100);
        }
      } else {
        let n = 0;
        while (Date.now() < until) {
          // A no-op line for the shell: the pane shows it, nothing runs.
          await ask({ cmd: 'send', terminalId: pick(terminals.sends), text: `: soak ${index} ${n++}`, newline: true });
          await pause(100);
        }
      }
    } finally {
      await client.close();
    }
  };
  // Connect gradually (a few ms apart), as clients of a real fleet do, not in one instant.
  const running: Array<Promise<void>> = [];
  for (let i = 0; i < clients; i++) {
    running.push(one(i).catch((error: unknown) => fail(roles[i % roles.length]!, `client failed: ${String(error)}`)));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(running);
}

/** The bytes the floods wrote so far (they stop when their terminals are closed). */
async function floodOutput(setup: LineClient, floods: string[]): Promise<number> {
  let bytes = 0;
  for (const id of floods) {
    const answer = await setup.request({ cmd: 'readLog', terminalId: id, limit: 1 });
    bytes += Number(answer.totalSize ?? 0);
  }
  return bytes;
}

export async function runLoadPhase(options: LoadOptions): Promise<LoadFigures> {
  const { log } = options;
  const hub = await SoakHub.start({ cpuProf: options.cpuProf });
  const failures: string[] = [];
  const figures = { requests: { subscribe: 0, exec: 0, readLog: 0, send: 0 }, pushes: 0, errors: 0, errorSamples: [] as string[] };
  try {
    // Warm-up: the same shape, briefly, with a few clients; then everything closed.
    log(`warm-up: ${options.floods} floods, ${Math.min(8, options.clients)} clients, 2 s`);
    {
      const { terminals, setup } = await openTerminals(hub.socketPath, options);
      await runClients(hub.socketPath, terminals, Math.min(8, options.clients), Date.now() + 2000, figures);
      await closeTerminals(setup, terminals);
    }
    if (figures.errors > 0) failures.push(`${figures.errors} errors in the warm-up: ${figures.errorSamples.join(' | ')}`);
    figures.requests = { subscribe: 0, exec: 0, readLog: 0, send: 0 };
    figures.pushes = 0;
    figures.errors = 0;
    figures.errorSamples = [];
    // The same settle before each reading: what the Hub gives back in the seconds after terminals
    // close (its thread and the mirror worker collect their garbage then) is given back before all.
    const settled = async (what: string): Promise<HubMeasure> => {
      await hub.connectionsGone();
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      const measure = await hub.measure();
      log(`${what}: rss ${mib(measure.rss)}, heap ${mib(measure.heapUsed)}, fds ${measure.fds}, timers ${measure.resources.Timeout ?? 0}`);
      return measure;
    };
    const cold = await settled('cold');

    log(`first round: ${options.clients} clients and ${options.floods} flooding terminals, ${options.seconds} s at a time until the bounded logs are full`);
    let firstRoundSeconds = 0;
    {
      const { terminals, setup } = await openTerminals(hub.socketPath, options);
      do {
        await runClients(hub.socketPath, terminals, options.clients, Date.now() + options.seconds * 1000, figures);
        firstRoundSeconds += options.seconds;
      } while (!allFull((await hub.count()).logs) && firstRoundSeconds < options.seconds * firstRoundMaxRounds);
      await closeTerminals(setup, terminals);
    }
    if (figures.errors > 0) failures.push(`${figures.errors} errors in the first round: ${figures.errorSamples.join(' | ')}`);
    figures.requests = { subscribe: 0, exec: 0, readLog: 0, send: 0 };
    figures.pushes = 0;
    figures.errors = 0;
    figures.errorSamples = [];
    const before = await settled('before');
    log(`  after ${firstRoundSeconds} s: ${describeLogs(before.logs)}`);

    const { terminals, setup } = await openTerminals(hub.socketPath, options);
    log(`soak: ${options.clients} clients (subscribe, exec, readLog, send) and ${options.floods} flooding terminals for ${options.seconds} s`);
    const pinger = await Pinger.start(hub.socketPath);
    const cpuAtStart = sampleCpu(hub.pid);
    await runClients(hub.socketPath, terminals, options.clients, Date.now() + options.seconds * 1000, figures);
    const cpu = cpuShareBetween(cpuAtStart, sampleCpu(hub.pid));
    const samples = await pinger.stop();
    const floodBytes = await floodOutput(setup[0]!, terminals.floods);
    await closeTerminals(setup, terminals);
    const ping = pingStats(samples);
    log(`soak done: ${Object.values(figures.requests).reduce((a, b) => a + b, 0)} requests, ${figures.pushes} pushes, ${figures.errors} errors; floods wrote ${mib(floodBytes)}`);
    if (cpu) log(`  the Hub's main thread ran ${cpu.threadRan.toFixed(1)} s and waited ${cpu.threadWaited.toFixed(1)} s for a CPU in ${cpu.seconds.toFixed(1)} s; the machine's ${cpu.cores} cores ${(cpu.machineBusy * 100).toFixed(0)} % busy (the Hub's process ${cpu.hubProcess.toFixed(1)} core-s, the soak's clients ${cpu.clients.toFixed(1)}, the rest — the terminals' programs, the kernel — ${cpu.rest.toFixed(1)})`);

    // Settle: the shells end, sockets close, the history writer catches up.
    let after = await settled('after');
    let settleSeconds = settleMs / 1000;
    if (after.rss > before.rss * (1 + memoryTolerance)) {
      // The mirror worker's heap and malloc's free lists give memory back lazily: look again later.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      after = await hub.measure();
      settleSeconds += 10;
      log(`after (${settleSeconds} s settle): rss ${mib(after.rss)}, heap ${mib(after.heapUsed)}, fds ${after.fds}, timers ${after.resources.Timeout ?? 0}`);
    }
    const shellsLeft = (await hub.shutdown()).length;

    if (figures.errors > 0) failures.push(`${figures.errors} errors during the soak: ${figures.errorSamples.join(' | ')}`);
    if (ping.count === 0) failures.push('no pings were sent during the soak');
    if (ping.p99 >= loadPingP99TargetMs) failures.push(`ping p99 during the soak ${ping.p99.toFixed(1)} ms (target < ${loadPingP99TargetMs} ms)`);
    if (ping.errors > 0) failures.push(`${ping.errors} pings answered with an error`);
    // Growth is what a leak looks like; memory given back (a smaller heap after) is reported, not failed.
    for (const [what, b, a] of [
      ['RSS', before.rss, after.rss],
      ['heap', before.heapUsed, after.heapUsed],
    ] as const) {
      if (a > b * (1 + memoryTolerance)) failures.push(`${what} after the soak ${mib(a)} vs ${mib(b)} before (target: at most +${memoryTolerance * 100} %)`);
    }
    if (after.fds > before.fds) failures.push(`file descriptors: ${after.fds} after vs ${before.fds} before`);
    if ((after.resources.Timeout ?? 0) > (before.resources.Timeout ?? 0)) failures.push(`timers: ${after.resources.Timeout ?? 0} after vs ${before.resources.Timeout ?? 0} before`);
    const handles = (m: HubMeasure) => Object.entries(m.resources).filter(([kind]) => kind !== 'Timeout').reduce((sum, [, n]) => sum + n, 0);
    if (handles(after) > handles(before)) failures.push(`active handles: ${JSON.stringify(after.resources)} after vs ${JSON.stringify(before.resources)} before`);
    if (after.terminals > 0 || after.connections > 0) failures.push(`left after the soak: ${after.terminals} terminals, ${after.connections} connections`);
    if (shellsLeft > 0) failures.push(`${shellsLeft} shells still run after the Hub shut down`);
    return { options: { clients: options.clients, floods: options.floods, seconds: options.seconds, execTerminals: options.execTerminals, sendTerminals: options.sendTerminals }, ...figures, floodBytes, ping, cpu, cold, before, firstRoundSeconds, after, shellsLeft, settleSeconds, failures };
  } finally {
    await hub.shutdown();
    hub.dispose();
  }
}

function allFull(logs: BoundedLogs): boolean {
  return Object.values(logs).every((fill: LogFill) => fill.full);
}

export function describeLogs(logs: BoundedLogs): string {
  return Object.entries(logs)
    .map(([name, fill]: [string, LogFill]) => `${name} log ${fill.kept} of ${fill.capacity}${fill.full ? ' (full)' : ''}`)
    .join(', ');
}

export function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}
