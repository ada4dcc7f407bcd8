/**
 * CPU priority of one thread of the Hub, for threads whose work may wait for the others.
 *
 * Why: the terminal mirror's worker parses output in bursts of several milliseconds. On a machine
 * with few cores, a burst that takes the core the PTY reader (the Hub's thread) or the program
 * writing the output wanted slows the whole flood down, although the mirror is only bookkeeping
 * that may lag (flow control bounds how far).
 *
 * How much: the same worker answers screen reads (an agent's state is read from its screen) and
 * the snapshot every new or reloaded pane waits for, so a low priority is paid in latency whenever
 * the machine is busy — and a machine running agents is busy (builds, tests). Measured on a 2-vCPU
 * VM with both cores held by two busy loops: a screen read took p50 42 ms / p90 101 ms at nice 19,
 * 5.2 / 9.6 ms at nice 10, 2.2 / 6.2 ms at nice 5, 1.7 / 5.9 ms at nice 0; a new pane was drawn in
 * 220–250 ms at nice 19 and 75–105 ms at nice 0. Since floods are mostly skipped rather than parsed
 * (floodSkip.ts), nice 19 no longer bought a flood anything measurable (pty-flood 0.80–0.83× at 19,
 * 0.79–0.80× at 0; twenty floods' Hub thread delay p99 8.5–11.3 ms at 19, 6.1–9.6 ms at 5).
 * docs/benchmarks.md, "The mirror worker's priority".
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { basename } from 'node:path';

/**
 * The mirror worker's: a third of a normal thread's share of a contended core (CFS weight 335
 * against 1024), so a flood's parsing still gives way to the PTY reader and the programs, without
 * screen reads waiting behind every other process. An unprivileged thread can never raise it again.
 */
export const mirrorWorkerNice = 5;

/**
 * Lower the calling thread's CPU priority to `nice`. Only on Linux, where a nice value belongs to
 * a thread (setpriority with the thread's id); on macOS and Windows the same call lowers the whole
 * process — the Hub and its PTY readers — so there it does nothing. Returns whether it did.
 */
export function lowerThreadPriority(nice: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // /proc/thread-self links to /proc/<pid>/task/<thread id>.
    const threadId = Number(basename(readlinkSync('/proc/thread-self')));
    if (!Number.isSafeInteger(threadId) || threadId <= 0) return false;
    setPriority(threadId, nice);
    return true;
  } catch {
    // A sandbox without /proc or a policy that forbids it: the thread keeps its priority.
    return false;
  }
}
