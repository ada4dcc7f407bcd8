/**
 * Which pane a process runs in: its parent chain, followed up to a PTY's shell. Claude Code sends
 * its own pid in `ide_connected`; the pane whose shell is that pid or one of its ancestors is the
 * pane it runs in. Linux reads /proc; elsewhere `ps` answers.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { IdeConstants } from '../../common/constants.ts';

/** The parent of a process, or null when it is gone (or unknowable). */
export async function parentPid(pid: number): Promise<number | null> {
  if (process.platform === 'linux') {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
    } catch {
      return null;
    }
  }
  if (process.platform === 'win32') return null;
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'ppid=', '-p', String(pid)], (error, stdout) => {
      const ppid = Number(stdout.trim());
      resolve(error || !Number.isInteger(ppid) || ppid <= 0 ? null : ppid);
    });
  });
}

/**
 * The first of `candidates` (shell pid → value) found walking up from `pid` (itself included),
 * or null when the chain reaches init, ends, or is deeper than IdeConstants.maxProcessTreeDepth.
 */
export async function findAncestor<T>(pid: number, candidates: ReadonlyMap<number, T>): Promise<T | null> {
  let current: number | null = pid;
  for (let depth = 0; current !== null && current > 1 && depth < IdeConstants.maxProcessTreeDepth; depth++) {
    const match = candidates.get(current);
    if (match !== undefined) return match;
    current = await parentPid(current);
  }
  return null;
}
