/** Shared setup for the PTY integration tests: a PtyHost in a temp HOME, and output helpers. */
import { execFileSync } from 'node:child_process';
import xtermHeadless from '@xterm/headless';
import type { Creator } from '../../../../src/common/api/contract.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import type { MirrorMode } from '../../../../src/node/pty/mirrorHost.ts';
import { PtyHost } from '../../../../src/node/pty/ptyHost.ts';
import type { PtySession } from '../../../../src/node/pty/ptySession.ts';
import { readFileSync } from 'node:fs';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../../helpers/tempHome.ts';

export const person: Creator = { kind: 'person', name: 'you' };

export function createTestHost(options: { scrollback?: number; ringBytes?: number; mirrorMode?: MirrorMode; mirrorWorkerPath?: string } = {}) {
  const temp = createTempHome('sb-pty-');
  const host = new PtyHost({ logger: nullLogger, defaultCwd: temp.workspace, ...options });
  return {
    host,
    temp,
    env: testEnv(temp.home),
    dispose() {
      host.dispose();
      temp.dispose();
    },
  };
}

/** Everything the terminal produced so far, decoded. */
export function ringText(session: PtySession): string {
  return session.readRing(0).data.toString('utf8');
}

export function waitForOutput(session: PtySession, pattern: string | RegExp, options: { timeoutMs?: number; from?: number } = {}): Promise<string> {
  return pollUntil(
    () => {
      const text = session.readRing(options.from ?? 0).data.toString('utf8');
      return (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) ? text : undefined;
    },
    { timeoutMs: options.timeoutMs ?? 10_000, what: `output matching ${String(pattern)}` },
  );
}

/** Whether a process still runs (a zombie waiting to be reaped does not count). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export function which(program: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Text of every line of a headless terminal's active buffer, right-trimmed. */
export function bufferLines(terminal: InstanceType<typeof xtermHeadless.Terminal>): string[] {
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
  return lines;
}

/** Write `data` into a fresh headless terminal and wait until it is parsed. */
export async function replay(data: string[], cols: number, rows: number, scrollback: number) {
  const terminal = new xtermHeadless.Terminal({ cols, rows, scrollback, allowProposedApi: true });
  for (const chunk of data) terminal.write(chunk);
  await new Promise<void>((resolve) => terminal.write('', resolve));
  return terminal;
}
