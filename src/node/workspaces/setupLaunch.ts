/**
 * A repository's `.switchboard/setup` runs in the agent's own pane, before the agent: its output
 * (an `npm ci`'s progress, colours and all) is where the person looks, with no second copy to
 * keep, and a script that asks something can be answered there. A fixed `sh` script runs it and
 * then `exec`s the agent (so the agent is the pane's process, as without setup); everything it
 * runs comes as arguments, never pasted into the script text.
 *
 * The Hub learns the outcome from a private OSC sequence carrying a per-start nonce (xterm.js
 * ignores OSCs it does not know): `ok` before the agent starts; a failure ends the pane with the
 * script's exit code. The Hub's own timer stops a script that hangs.
 */
import { randomBytes } from 'node:crypto';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { PtySession } from '../pty/ptySession.ts';

/** Private OSC number for the setup marker (unassigned; terminals ignore unknown OSCs). */
const markerOsc = 7717;

/**
 * $1: the setup script, $2: the nonce, $3…: the agent's program and arguments. A script without
 * the executable bit is run with sh, as `sh .switchboard/setup` would be.
 */
export const setupLauncherScript = [
  'setup="$1"; nonce="$2"; shift 2',
  'printf \'\\033[2m[switchboard] running %s\\033[0m\\r\\n\' "$setup"',
  'if [ -x "$setup" ]; then "$setup"; else sh "$setup"; fi',
  'status=$?',
  'if [ "$status" -ne 0 ]; then',
  `  printf '\\r\\n\\033[31m[switchboard] setup failed (exit %s); the agent was not started\\033[0m\\r\\n' "$status"`,
  '  exit "$status"',
  'fi',
  `printf '\\033]${markerOsc};switchboard-setup;%s;ok\\007' "$nonce"`,
  'exec "$@"',
].join('\n');

export function newSetupNonce(): string {
  return randomBytes(12).toString('hex');
}

export function setupLaunchArgs(setupPath: string, nonce: string, agentPath: string, agentArgs: readonly string[]): string[] {
  return ['-c', setupLauncherScript, 'switchboard-setup', setupPath, nonce, agentPath, ...agentArgs];
}

export type SetupOutcome = { kind: 'ok' } | { kind: 'failed'; exitCode: number | null; signal: string | null } | { kind: 'timeout' };

/** Waits for the launcher's `ok` marker, the pane's end, or the timeout — whichever comes first. */
export function waitForSetup(session: PtySession, nonce: string, timeoutMs: number): Promise<SetupOutcome> {
  const marker = `\x1b]${markerOsc};switchboard-setup;${nonce};ok\x07`;
  return new Promise((resolve) => {
    const subscriptions: IDisposable[] = [];
    // The marker may arrive split across two batches: keep the end of the previous one.
    let tail = '';
    const finish = (outcome: SetupOutcome) => {
      clearTimeout(timer);
      for (const subscription of subscriptions) subscription.dispose();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    timer.unref();
    subscriptions.push(
      session.onDidOutput(({ data }) => {
        const text = tail + data;
        if (text.includes(marker)) finish({ kind: 'ok' });
        else tail = text.slice(-marker.length);
      }),
      session.onDidExit((status) => finish({ kind: 'failed', exitCode: status.exitCode, signal: status.signal })),
    );
    const exited = session.exitStatus;
    if (exited) finish({ kind: 'failed', exitCode: exited.exitCode, signal: exited.signal });
  });
}
