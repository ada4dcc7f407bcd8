/** Whether a process runs, asked without touching it. */

/**
 * Whether a process with this pid exists: signal 0 checks without sending anything. EPERM means
 * it exists but belongs to someone else, which still counts as alive (a lock file's owner, a
 * session's child after a setuid). A zombie counts as alive until its parent reaps it; node-pty
 * reaps its children at once, so for a PTY's process this is "has not exited".
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
