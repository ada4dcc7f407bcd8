/**
 * CPU priority of one thread of the Hub, for threads whose work may wait for the others.
 *
 * Why: the terminal mirror's worker parses output in bursts of several milliseconds. On a machine
 * with few cores, a burst that takes the core the PTY reader (the Hub's thread) or the program
 * writing the output wanted slows the whole flood down, although the mirror is only bookkeeping
 * that may lag (flow control bounds how far). Measured on a 2-vCPU VM (50 MB `cat`, alternating
 * rounds): the Hub pipeline ran 30–40 % faster with the mirror worker at nice 19 than at nice 0,
 * nice 10 in between.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { basename } from 'node:path';

/** The lowest priority an unprivileged thread can take (nice 19): it can never raise it again. */
export const backgroundNice = 19;

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
