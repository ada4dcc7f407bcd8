/**
 * The soak's figures as text: printed by `npm run soak` and written into docs/reliability.md
 * between `<!-- soak:begin -->` and `<!-- soak:end -->` (only that section; the rest of the page
 * belongs to the fuzz and fault scripts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { machineCores } from '../bench/machineCpu.ts';
import { burstPingTargetMs, formatMs, type HostileFigures } from './hostilePhase.ts';
import { describeLogs, firstRoundMaxRounds, loadPingP99TargetMs, memoryTolerance, mib, type LoadFigures } from './loadPhase.ts';

export interface SoakRun {
  date: string;
  mode: 'full' | 'quick';
  /** Load average (1, 5, 15 min) when the run started and when it ended: the machine is shared. */
  loadBefore: number[];
  loadAfter: number[];
  hostile?: HostileFigures | undefined;
  load?: LoadFigures | undefined;
}

export function currentLoad(): number[] {
  return loadavg().map((value) => Math.round(value * 100) / 100);
}

const ms = (value: number) => formatMs(value);
const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);
const table = (entries: Record<string, number>) =>
  Object.entries(entries)
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ${n}`)
    .join(', ');

export function formatReport(run: SoakRun): string {
  const lines: string[] = [];
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} × ${machineCores}, Node ${process.version}, ${process.platform}/${process.arch}`;
  lines.push(`Measured ${run.date.slice(0, 10)} by \`npm run soak\`${run.mode === 'quick' ? ' --quick' : ''} on ${machine}; load average ${run.loadBefore.join(' / ')} at the start and ${run.loadAfter.join(' / ')} at the end (a shared machine: other work ran at the same time, so the latencies are an upper bound).`);
  lines.push('');
  const hostile = run.hostile;
  if (hostile) {
    const { options, burst } = hostile;
    lines.push(`**Hostile burst**: ${options.connections} connections for ${options.seconds} s sending random and malformed frames (seed ${options.seed}), a well-behaved client pinging every 20 ms throughout and for ${options.afterSeconds} s after; the Hub in its own process.`);
    lines.push('');
    lines.push('| figure | value | target |');
    lines.push('| --- | --- | --- |');
    lines.push(`| frames sent | ${burst.framesSent} (${(burst.bytesSent / 1048576).toFixed(1)} MiB): ${table(burst.byKind)} | |`);
    lines.push(`| answers | ${burst.answers}: ${burst.answersOk} ok, refused ${table(burst.refusedByCode) || 'none'} | every refusal coded |`);
    lines.push(`| refusals without a code | ${sum(burst.uncoded) === 0 ? 'none' : table(burst.uncoded)} | none |`);
    lines.push(`| \`create\`s sent | ${burst.createsSent}; terminals started ${hostile.terminalsStarted}, refused ${table(burst.createRefusals) || 'none'} | |`);
    lines.push(`| most terminals opened over the socket running at once | ${hostile.maxSocketTerminalsRunning} | ≤ ${hostile.limits.total} (socketMaxTerminals; ${hostile.limits.perClient} per client, ${hostile.limits.createBurst} at once then ${hostile.limits.createPerSecond}/s) |`);
    lines.push(`| connections closed by the Hub (a line past 1 MiB) | ${burst.closedByServer} | |`);
    lines.push(`| ping during the burst: p50 / p99 / max | ${ms(hostile.pingDuring.p50)} / ${ms(hostile.pingDuring.p99)} / ${ms(hostile.pingDuring.max)} (${hostile.pingDuring.count} pings) | every one < ${burstPingTargetMs} ms |`);
    lines.push(`| ping after the burst: p50 / p99 / max | ${ms(hostile.pingAfter.p50)} / ${ms(hostile.pingAfter.p99)} / ${ms(hostile.pingAfter.max)} (${hostile.pingAfter.count} pings) | every one < ${burstPingTargetMs} ms |`);
    lines.push(`| the Hub's event-loop delay during / after: p99 / max | ${ms(hostile.loopDuring.p99)} / ${ms(hostile.loopDuring.max)}, ${ms(hostile.loopAfter.p99)} / ${ms(hostile.loopAfter.max)} | |`);
    lines.push(`| afterwards | ${hostile.after.connections} connections held, ${hostile.after.socketTerminalsRunning} socket terminals running; ${hostile.shellsLeft} shells left once they were closed and the Hub shut down | 0 connections, no shells left |`);
    lines.push(`| result | ${hostile.failures.length === 0 ? 'all targets met' : `missed: ${hostile.failures.join('; ')}`} | |`);
    lines.push('');
  }
  const load = run.load;
  if (load) {
    const { options, cold, before, after } = load;
    const timers = (m: typeof before) => m.resources.Timeout ?? 0;
    const handles = (m: typeof before) => table(Object.fromEntries(Object.entries(m.resources).filter(([kind]) => kind !== 'Timeout'))) || 'none';
    lines.push(`**Soak**: ${options.clients} control-socket clients (a quarter each: \`subscribe\` to a flood's output stream and \`command.**\`, \`exec\` \`echo\` checking its output, \`readLog\` following a flood, \`send\` a no-op line) and ${options.floods} terminals flooding output (\`seq 1 3000\` every 0.1 s) for ${options.seconds} s; ${options.execTerminals} terminals for \`exec\`, ${options.sendTerminals} for \`send\`. Memory is read with the clients gone and every terminal closed, after a settle (7 s each time: past the collection the Hub runs 5 s after terminals close) and a full GC of the Hub's thread: "cold" after a 2 s warm-up, "before" after a first round of the whole load, run until the Hub's logs bounded by design are full (at least ${options.seconds} s, at most ${firstRoundMaxRounds * options.seconds} s), "after" after the measured round. A first load fills what is bounded by design (the bus log \`subscribe\` cursors replay from, the audit log, the command events \`poll\` serves, malloc's pools) and keeps it; a leak is what a second round of the same load leaves on top, so the target is judged on before → after.`);
    lines.push('');
    lines.push('| figure | value | target |');
    lines.push('| --- | --- | --- |');
    lines.push(`| requests | ${sum(load.requests)}: ${table(load.requests)}; ${load.pushes} output chunks pushed to subscribers | |`);
    lines.push(`| flood output | ${mib(load.floodBytes)} | |`);
    lines.push(`| errors | ${load.errors}${load.errorSamples.length > 0 ? ` (${load.errorSamples.slice(0, 3).join(' | ')})` : ''} | 0 |`);
    lines.push(`| ping during the load: p50 / p99 / max | ${ms(load.ping.p50)} / ${ms(load.ping.p99)} / ${ms(load.ping.max)} (${load.ping.count} pings) | p99 < ${loadPingP99TargetMs} ms |`);
    if (load.cpu) {
      const { cpu } = load;
      lines.push(`| the Hub's main thread during the load: on a CPU / ready but waiting for one | ${cpu.threadRan.toFixed(1)} s / ${cpu.threadWaited.toFixed(1)} s of ${cpu.seconds.toFixed(1)} s (the machine's ${cpu.cores} cores ${(cpu.machineBusy * 100).toFixed(0)} % busy: the Hub's process ${cpu.hubProcess.toFixed(1)} core-s with its workers, the soak's clients ${cpu.clients.toFixed(1)}, the rest — the terminals' programs, the kernel — ${cpu.rest.toFixed(1)}) | |`);
    }
    lines.push(`| the first round: how long, and the Hub's bounded logs then | ${load.firstRoundSeconds} s; ${describeLogs(before.logs)} | full |`);
    lines.push(`| Hub RSS cold → after the first round | ${mib(cold.rss)} → ${mib(before.rss)} (${pct(cold.rss, before.rss)}) | |`);
    lines.push(`| Hub heap cold → after the first round | ${mib(cold.heapUsed)} → ${mib(before.heapUsed)} (${pct(cold.heapUsed, before.heapUsed)}) | |`);
    lines.push(`| Hub RSS before → after the measured round (${load.settleSeconds} s settle) | ${mib(before.rss)} → ${mib(after.rss)} (${pct(before.rss, after.rss)}) | ≤ +${memoryTolerance * 100} % |`);
    lines.push(`| Hub heap before → after the measured round | ${mib(before.heapUsed)} → ${mib(after.heapUsed)} (${pct(before.heapUsed, after.heapUsed)}) | ≤ +${memoryTolerance * 100} % |`);
    lines.push(`| Buffers outside the heap cold → before → after | ${mib(cold.arrayBuffers)} → ${mib(before.arrayBuffers)} → ${mib(after.arrayBuffers)} | |`);
    lines.push(`| file descriptors before → after | ${before.fds} → ${after.fds} | no more |`);
    lines.push(`| timers before → after | ${timers(before)} → ${timers(after)} | no more |`);
    lines.push(`| other handles before → after | ${handles(before)} → ${handles(after)} | no more |`);
    lines.push(`| result | ${load.failures.length === 0 ? 'all targets met' : `missed: ${load.failures.join('; ')}`} | |`);
    lines.push('');
  }
  return lines.join('\n').trimEnd();
}

function pct(before: number, after: number): string {
  const change = ((after - before) / before) * 100;
  return `${change >= 0 ? '+' : ''}${change.toFixed(1)} %`;
}

const reliabilityPath = fileURLToPath(new URL('../docs/reliability.md', import.meta.url));

/** Replace the soak section of docs/reliability.md (between its markers) with `text`. */
export function writeReliabilitySection(text: string, path = reliabilityPath): void {
  const page = readFileSync(path, 'utf8');
  const begin = '<!-- soak:begin -->';
  const end = '<!-- soak:end -->';
  const from = page.indexOf(begin);
  const to = page.indexOf(end);
  if (from === -1 || to === -1 || to < from) throw new Error(`${path} has no ${begin} … ${end} section`);
  writeFileSync(path, `${page.slice(0, from + begin.length)}\n${text}\n${page.slice(to)}`);
}
