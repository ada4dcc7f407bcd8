/**
 * Files, listings and links of Linux's /proc, read synchronously, on purpose. The kernel makes
 * them from memory as they are read, so a read takes ~10 µs; through fs/promises the same read
 * cost the Hub's thread 100–190 µs of CPU (open, fstat, two reads into a fresh 64 KiB buffer,
 * close: each a promise and a thread-pool round trip). The agent and dev-server detection read
 * hundreds a second with many terminals: ~4 s of the Hub's thread in a 20 s soak of 35 terminals.
 *
 * Not for /proc/<pid>/cmdline or environ: those wait on the process's memory lock (mmap_lock),
 * which a process deep in a page fault can hold for long; nor for /proc/net/tcp and tcp6, which
 * the kernel writes by walking its whole socket hash table (~4 ms each). Read those off the
 * thread: a thread-pool read (agents/agentProcess.ts readArgv, servers/listeningSockets.ts).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The text of a /proc file; null when it cannot be read (the process is gone, not ours). */
export function readProcText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The entries of a /proc directory; null when it cannot be read. */
export function listProcDir(path: string): string[] | null {
  try {
    return readdirSync(path);
  } catch {
    return null;
  }
}

/** Where a /proc link points (`socket:[123]`, a path); null when it cannot be read. */
export function readProcLink(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}
