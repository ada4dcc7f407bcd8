/**
 * Where the CPU went while the soak's load ran: how long the Hub's main thread ran and how long it
 * was ready to run but waited for a core (Linux schedstat), and how busy the machine's cores were
 * (/proc/stat). A ping answered late because the thread waited for a core is the machine's doing,
 * not the Hub's: the report shows the two side by side. Linux only; elsewhere null.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export interface CpuSample {
  at: number;
  /** The thread's time on a CPU and its time runnable on a run queue, in ns. */
  threadRanNs: number;
  threadWaitedNs: number;
  /** The machine's CPU time in all states and in non-idle ones, in clock ticks. */
  machineTotal: number;
  machineBusy: number;
  /** CPU time of the whole process (every thread) and of this one (the soak's clients), in clock ticks. */
  processTicks: number;
  selfTicks: number;
}

export interface CpuShare {
  seconds: number;
  /** The thread's run and wait time over the interval, in seconds. */
  threadRan: number;
  threadWaited: number;
  /** The machine's cores busy over the interval, 0–1, and how many cores it has. */
  machineBusy: number;
  cores: number;
  /** Core-seconds used by the Hub's process (every thread), by the soak's clients, and by everything else (the terminals' programs, the kernel). */
  hubProcess: number;
  clients: number;
  rest: number;
}

/** utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/<pid>/stat, after the command's closing parenthesis). */
function processTicks(pid: number | 'self'): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** A sample of thread `tid` of process `pid` (the main thread: tid = pid) and of the machine. */
export function sampleCpu(pid: number, tid = pid): CpuSample | null {
  try {
    const [ran, waited] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    // First line of /proc/stat: "cpu user nice system idle iowait irq softirq steal guest guest_nice".
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const idle = fields[3]! + fields[4]!;
    const total = fields.reduce((sum, value) => sum + value, 0);
    if (!Number.isFinite(ran) || !Number.isFinite(waited) || !Number.isFinite(total)) return null;
    return { at: performance.now(), threadRanNs: ran!, threadWaitedNs: waited!, machineTotal: total, machineBusy: total - idle, processTicks: processTicks(pid), selfTicks: processTicks('self') };
  } catch {
    return null;
  }
}

export function cpuShareBetween(start: CpuSample | null, end: CpuSample | null): CpuShare | null {
  if (!start || !end) return null;
  const ticks = end.machineTotal - start.machineTotal;
  // /proc/stat counts every core: its ticks over the interval are cores × seconds × the tick rate.
  const seconds = (end.at - start.at) / 1000;
  const tickSeconds = ticks > 0 ? (seconds * cpus().length) / ticks : 0;
  const hubProcess = (end.processTicks - start.processTicks) * tickSeconds;
  const clients = (end.selfTicks - start.selfTicks) * tickSeconds;
  const busy = (end.machineBusy - start.machineBusy) * tickSeconds;
  return {
    seconds,
    threadRan: (end.threadRanNs - start.threadRanNs) / 1e9,
    threadWaited: (end.threadWaitedNs - start.threadWaitedNs) / 1e9,
    machineBusy: ticks > 0 ? (end.machineBusy - start.machineBusy) / ticks : 0,
    cores: cpus().length,
    hubProcess,
    clients,
    rest: Math.max(0, busy - hubProcess - clients),
  };
}
