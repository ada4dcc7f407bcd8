/**
 * Where the CPU went while the soak's load ran: how long the Hub's main thread ran and how long it
 * was ready to run but waited for a core (Linux schedstat), and how busy the machine's cores were
 * (bench/machineCpu.ts). A ping answered late because the thread waited for a core is the
 * machine's doing, not the Hub's: the report shows the two side by side. Linux only; elsewhere null.
 */
import { readFileSync } from 'node:fs';
import { type CpuReading, machineBusyMsBetween, machineCores, processCpuSeconds, readMachineCpu } from '../bench/machineCpu.ts';

export interface CpuSample {
  at: number;
  /** The thread's time on a CPU and its time runnable on a run queue, in ns. */
  threadRanNs: number;
  threadWaitedNs: number;
  machine: CpuReading;
  /** CPU seconds of the whole process (every thread) and of this one (the soak's clients). */
  process: number;
  self: number;
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

/** A sample of thread `tid` of process `pid` (the main thread: tid = pid) and of the machine. */
export function sampleCpu(pid: number, tid = pid): CpuSample | null {
  let schedstat: string;
  try {
    schedstat = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
  } catch {
    return null;
  }
  const [ran, waited] = schedstat.trim().split(/\s+/).map(Number);
  const machine = readMachineCpu();
  const processSeconds = processCpuSeconds(pid);
  const self = processCpuSeconds('self');
  if (!Number.isFinite(ran) || !Number.isFinite(waited) || !machine || processSeconds === null || self === null) return null;
  return { at: performance.now(), threadRanNs: ran!, threadWaitedNs: waited!, machine, process: processSeconds, self };
}

export function cpuShareBetween(start: CpuSample | null, end: CpuSample | null): CpuShare | null {
  if (!start || !end) return null;
  const seconds = (end.at - start.at) / 1000;
  const busy = (machineBusyMsBetween(start.machine, end.machine) ?? 0) / 1000;
  const hubProcess = end.process - start.process;
  const clients = end.self - start.self;
  return {
    seconds,
    threadRan: (end.threadRanNs - start.threadRanNs) / 1e9,
    threadWaited: (end.threadWaitedNs - start.threadWaitedNs) / 1e9,
    machineBusy: seconds > 0 ? Math.min(1, busy / (seconds * machineCores)) : 0,
    cores: machineCores,
    hubProcess,
    clients,
    rest: Math.max(0, busy - hubProcess - clients),
  };
}
