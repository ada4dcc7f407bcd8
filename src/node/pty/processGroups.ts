/**
 * Finding and signalling every process group of a terminal's session. node-pty starts the
 * program as a session leader (setsid), and an interactive shell puts each job in a process
 * group of its own, so "kill the terminal" means every group whose session is the shell's pid —
 * including jobs still alive after the shell itself is gone.
 *
 * On Linux the groups come from /proc; elsewhere we fall back to the leader's own group.
 */
import { isProcessAlive } from '../processAlive.ts';
import { listProcDir, readProcText } from '../procFiles.ts';

interface ProcStat {
  pid: number;
  state: string;
  processGroup: number;
  session: number;
  /** The foreground process group of the process's controlling terminal (tpgid; -1 without one). */
  terminalGroup: number;
  /** When it started, in clock ticks since boot (field 22): with the pid, which process this is — pids are reused. */
  startTime?: string;
}

/** Parse /proc/<pid>/stat; the command name may hold spaces and parentheses, so split after the last ')'. */
export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close === -1) return null;
  const pid = Number.parseInt(text, 10);
  const fields = text.substring(close + 2).split(' ');
  const processGroup = Number(fields[2]);
  const session = Number(fields[3]);
  const terminalGroup = Number(fields[5]);
  if (!Number.isInteger(pid) || !Number.isInteger(processGroup) || !Number.isInteger(session) || !Number.isInteger(terminalGroup)) return null;
  return { pid, state: fields[0] ?? '?', processGroup, session, terminalGroup, ...(fields[19] !== undefined ? { startTime: fields[19] } : {}) };
}

const hasProc = process.platform === 'linux';

/**
 * One look at every process serves every caller within this long. Terminals closing together
 * (a tab of eight agents, the app quitting) each poll their session every 20 ms until it is
 * empty: without sharing, each poll read every /proc/<pid>/stat of the machine again.
 */
const sharedScanMs = 15;
let lastScan: { at: number; stats: ProcStat[] } | null = null;

/** Every process's stat, read synchronously (procFiles.ts says why), or the one read moments ago. */
function processStats(): ProcStat[] | null {
  const now = performance.now();
  if (lastScan && now - lastScan.at < sharedScanMs) return lastScan.stats;
  const entries = listProcDir('/proc');
  if (!entries) return null;
  const stats: ProcStat[] = [];
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 0x30 || entry.charCodeAt(0) > 0x39) continue;
    // Null when the process ended while we looked.
    const text = readProcText(`/proc/${entry}/stat`);
    const stat = text === null ? null : parseProcStat(text);
    if (stat) stats.push(stat);
  }
  lastScan = { at: now, stats };
  return stats;
}

/** Process groups with a live member in the session led by `sessionId`. */
export function sessionProcessGroups(sessionId: number): number[] {
  const stats = hasProc ? processStats() : null;
  if (!stats) return isProcessAlive(sessionId) ? [sessionId] : [];
  const groups = new Set<number>();
  for (const stat of stats) {
    // Zombies are already dead; they only wait for their parent to reap them.
    if (stat.session === sessionId && stat.state !== 'Z' && stat.processGroup > 0) groups.add(stat.processGroup);
  }
  return [...groups];
}

/**
 * Send `signal` to each group; a group that is already gone is not an error. Returns the groups
 * we may not signal (EPERM: e.g. `su -` or `sudo` made them root's) so the caller can say so; one
 * such group never stops the others from being signalled.
 */
export function signalProcessGroups(groups: readonly number[], signal: NodeJS.Signals): number[] {
  const refused: number[] = [];
  for (const group of groups) {
    try {
      process.kill(-group, signal);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPERM') refused.push(group);
      else if (code !== 'ESRCH') throw error;
    }
  }
  return refused;
}
