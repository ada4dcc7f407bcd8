/**
 * A small real disk for the disk-full tests (test/integration/faults/diskFull.test.ts,
 * test/integration/node/history/historyDiskFull.test.ts): a tmpfs of a given size mounted on a
 * folder, so writes fail with ENOSPC / SQLITE_FULL for real. Mounting needs root; where it is not
 * allowed the caller is told why and skips or takes another path.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { pollUntil } from './poll.ts';

/** Creates `dir` (mode 0700) and mounts a tmpfs of `size` (e.g. `2m`) on it: null once mounted, else why it could not be. */
export function mountTmpfs(dir: string, size: string): string | null {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim() || 'mount failed';
  }
}

/** Unmounts `dir`, retrying: the files a process had open there are closed a moment after it ends (or a worker stops). */
export async function unmountTmpfs(dir: string): Promise<void> {
  await pollUntil(
    () => {
      try {
        execFileSync('umount', [dir], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    },
    { what: `${dir} to unmount` },
  );
}
