/**
 * CPU time the whole machine spent busy (all processes, the kernel's included) between two
 * readings of /proc/stat. A PTY flood's cost is spread over `cat`, the kernel's tty work, the
 * reader's threads and V8's helpers; on a machine with few cores, their sum per MB — not any one
 * thread — decides how fast a flood can go. Null where /proc/stat does not exist (macOS).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export interface CpuReading {
  busyTicks: number;
}

/** Jiffies per second of /proc/stat (USER_HZ): 100 on every Linux build that matters here. */
const ticksPerSecond = 100;

export function readMachineCpu(): CpuReading | null {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return null;
  }
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const fields = text.slice(0, text.indexOf('\n')).trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields;
  return { busyTicks: user + nice + system + irq + softirq };
}

/** Busy CPU milliseconds (summed over cores) since `before`. */
export function machineBusyMsSince(before: CpuReading | null): number | null {
  return machineBusyMsBetween(before, readMachineCpu());
}

/** Busy CPU milliseconds (summed over cores) between two readings. */
export function machineBusyMsBetween(before: CpuReading | null, after: CpuReading | null): number | null {
  if (!before || !after) return null;
  return ((after.busyTicks - before.busyTicks) * 1000) / ticksPerSecond;
}

export const machineCores = availableParallelism();

/**
 * CPU seconds (user + system, every thread) a process has used; null where it cannot be read.
 * utime and stime are fields 14 and 15 of /proc/<pid>/stat, counted after the command's closing
 * parenthesis (the command may hold spaces and parentheses).
 */
export function processCpuSeconds(pid: number | 'self'): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks / ticksPerSecond : null;
}
