/**
 * CPU time the whole machine spent busy (all processes, the kernel's included) between two
 * readings of /proc/stat. A PTY flood's cost is spread over `cat`, the kernel's tty work, the
 * reader's threads and V8's helpers; on a machine with few cores, their sum per MB — not any one
 * thread — decides how fast a flood can go. Null where /proc/stat does not exist (macOS).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

interface CpuReading {
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
  const after = readMachineCpu();
  if (!before || !after) return null;
  return ((after.busyTicks - before.busyTicks) * 1000) / ticksPerSecond;
}

export const machineCores = availableParallelism();
