/**
 * Run by .ci/run after its last step (Linux only): a process that the tests or the benchmarks left
 * running, and that still holds a write end of this CI run's output, keeps the CI runner waiting
 * for an end of file that never comes — the run is then cut at the runner's time limit, long after
 * every step passed, with nothing in the log to say why. This names each such process and stops
 * it (SIGTERM, then SIGKILL), so a leak shows in the log and never hangs CI.
 *
 * A leftover is a process that
 *   - started no earlier than `.ci/run` (the runner's own processes, which read the output, started before),
 *   - is neither this script nor one of its ancestors (`.ci/run`, the runner), and
 *   - holds open for writing a pipe or socket that this script inherited from `.ci/run`.
 *
 * Usage: node scripts/stopLeftovers.ts <pid of .ci/run>
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

interface ProcessEntry {
  pid: number;
  ppid: number;
  /** Clock ticks after boot (/proc/<pid>/stat field 22). */
  startTicks: number;
  command: string;
}

function readEntry(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name sits in parentheses and may itself contain spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim() || stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    return { pid, ppid: Number(fields[1]), startTicks: Number(fields[19]), command };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Pipe and socket ids (`pipe:[123]`) that `pid` holds open for writing. */
function writtenChannels(pid: number): Set<string> {
  const channels = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return channels;
  }
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (!target.startsWith('pipe:') && !target.startsWith('socket:')) continue;
      // fdinfo's flags are octal; the access mode is the low two bits (1 write-only, 2 read-write).
      const flags = /^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & 3) !== 0) channels.add(target);
    } catch {
      // closed meanwhile
    }
  }
  return channels;
}

function main(args: string[]): number {
  if (process.platform !== 'linux') return 0;
  const ciPid = Number(args[0]);
  const ci = Number.isInteger(ciPid) ? readEntry(ciPid) : undefined;
  if (!ci) {
    console.error('usage: node scripts/stopLeftovers.ts <pid of .ci/run (a running process)>');
    return 2;
  }
  const ours = writtenChannels(process.pid);
  const entries = new Map<number, ProcessEntry>();
  for (const name of readdirSync('/proc')) {
    const entry = /^\d+$/.test(name) ? readEntry(Number(name)) : undefined;
    if (entry) entries.set(entry.pid, entry);
  }
  const spared = new Set<number>();
  for (let pid: number | undefined = process.pid; pid !== undefined && pid > 0 && !spared.has(pid); pid = entries.get(pid)?.ppid) spared.add(pid);
  const leftovers = [...entries.values()].filter(
    (entry) => entry.startTicks >= ci.startTicks && !spared.has(entry.pid) && [...writtenChannels(entry.pid)].some((channel) => ours.has(channel)),
  );
  if (leftovers.length === 0) return 0;
  console.log(`\n== ${leftovers.length} process(es) left running by the tests or benchmarks still hold this run's output; stopping them:`);
  for (const entry of leftovers) console.log(`   pid ${entry.pid} (parent ${entry.ppid}): ${entry.command.slice(0, 300)}`);
  for (const entry of leftovers) signal(entry.pid, 'SIGTERM');
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline && leftovers.some((entry) => alive(entry.pid))) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  for (const entry of leftovers) if (alive(entry.pid)) signal(entry.pid, 'SIGKILL');
  return 0;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie has let go of its files; only a process that still runs holds the output.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

process.exitCode = main(process.argv.slice(2));
