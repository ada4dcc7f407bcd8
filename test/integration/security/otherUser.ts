/**
 * A real second user for the security tests: a client that connects to a Unix socket as another
 * uid (root bypasses file modes, so the client must not run as root). Needs root to switch users;
 * elsewhere `otherUserOrSkip` skips the test and says why.
 */
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import type { TestContext } from 'node:test';

export const otherUserName = 'sbtest-other';

export interface OtherUser {
  uid: number;
  gid: number;
  /** A Node binary the other user can execute (ours lives under root's 0700 home). */
  node: string;
}

function lookUp(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** The second user (created as a system user without a home if missing), or null after telling `t` why the test is skipped. */
export function otherUserOrSkip(t: TestContext): OtherUser | null {
  if (process.platform === 'win32' || process.getuid?.() !== 0) {
    t.skip('needs root: the client must run as a second, real user (setpriv), and only root can switch to one');
    return null;
  }
  let ids = lookUp(otherUserName);
  if (!ids) {
    try {
      execFileSync('useradd', ['-M', '-r', '-s', '/usr/sbin/nologin', otherUserName], { stdio: 'ignore' });
    } catch (error) {
      t.skip(`cannot create the second user ${otherUserName}: ${(error as Error).message}`);
      return null;
    }
    ids = lookUp(otherUserName);
    if (!ids) {
      t.skip(`the second user ${otherUserName} was not found after useradd`);
      return null;
    }
  }
  const node = ['/usr/bin/node', '/usr/local/bin/node', process.execPath].find((candidate) => {
    try {
      accessSync(candidate, fsConstants.X_OK);
      return !candidate.startsWith('/root/');
    } catch {
      return false;
    }
  });
  if (!node) {
    t.skip('no Node binary the second user can run (ours is under /root)');
    return null;
  }
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
  } catch {
    t.skip('setpriv (util-linux) is not installed');
    return null;
  }
  return { ...ids, node };
}

/** The client's script: connect, send a claws ping, print what happened as one word (+ detail). */
const clientScript = `
const socket = require('node:net').createConnection(process.argv[1]);
const done = (text) => { process.stdout.write(text); process.exit(0); };
socket.on('connect', () => socket.write('{"id":1,"cmd":"ping"}\\n'));
socket.on('data', (data) => done('ANSWER ' + data.toString().split('\\n')[0]));
socket.on('error', (error) => done('ERROR ' + error.code));
socket.on('close', () => done('CLOSED'));
setTimeout(() => done('TIMEOUT'), 5000);
`;

/**
 * Connects to `socketPath` as the other user and pings. Resolves with `ERROR EACCES`,
 * `ANSWER {...}`, `CLOSED` or `TIMEOUT`. Async on purpose: the server under test may run in this
 * process and must keep answering while the client waits.
 */
export function connectAsOtherUser(user: OtherUser, socketPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'setpriv',
      [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', user.node, '-e', clientScript, socketPath],
      { cwd: '/', env: { PATH: '/usr/bin:/bin', HOME: '/' }, timeout: 15_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the client as ${otherUserName} failed: ${error.message}; stderr: ${stderr}`));
        else resolve(stdout.trim());
      },
    );
  });
}
