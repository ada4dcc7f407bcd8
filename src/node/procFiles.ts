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
 * thread: readProcTextOffThread.
 */
import { closeSync, openSync, read, readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/** The first read's size; a longer file doubles the buffer until it fits. */
const offThreadFirstBytes = 4096;
/** Buffers kept for the next reads: at most this many, none larger than this. */
const maxSpareBuffers = 16;
const maxSpareBufferBytes = 1024 * 1024;
const spareBuffers: Buffer[] = [];

/**
 * A /proc file that must not be read on the Hub's thread (above), read in the thread pool into
 * reused buffers; null when it cannot be read. Opening and closing do not wait, so they are done in
 * place; the reads go on until one comes back empty, or, with `shortReadIsEnd`, shorter than asked
 * (a command line comes whole in one read). fs/promises readFile cost an open, an fstat, the reads
 * and a close, each a thread-pool round trip, and a fresh 64 KiB Buffer per call (procfs says size
 * 0): memory V8 counts against the Hub's heap, which it paid for in full collections several times
 * a second under agent load (docs/reliability.md, the soak).
 */
export function readProcTextOffThread(path: string, options: { shortReadIsEnd?: boolean } = {}): Promise<string | null> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return Promise.resolve(null);
  }
  let buffer = spareBuffers.pop() ?? Buffer.allocUnsafeSlow(offThreadFirstBytes);
  let length = 0;
  return new Promise((resolve) => {
    const finish = (text: string | null) => {
      closeSync(fd);
      if (spareBuffers.length < maxSpareBuffers && buffer.length <= maxSpareBufferBytes) spareBuffers.push(buffer);
      resolve(text);
    };
    const readMore = () => {
      if (length === buffer.length) {
        const larger = Buffer.allocUnsafeSlow(buffer.length * 2);
        buffer.copy(larger, 0, 0, length);
        buffer = larger;
      }
      const wanted = buffer.length - length;
      read(fd, buffer, length, wanted, length, (error, bytes) => {
        if (error) return finish(null);
        length += bytes;
        if (bytes === 0 || (options.shortReadIsEnd && bytes < wanted)) return finish(buffer.toString('utf8', 0, length));
        readMore();
      });
    };
    readMore();
  });
}
