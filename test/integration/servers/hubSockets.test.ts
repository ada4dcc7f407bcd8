/**
 * The app's own listening sockets are never a pane's dev server. Between fork and exec a new pane's
 * process holds every fd of the Hub (they close on exec); a look at that moment once listed the
 * app's HTTP and IDE-bridge ports as a fresh pane's servers, and the chips stayed (CI, on a loaded
 * machine). Here a real child process really holds one of this process's listening sockets (passed
 * as an inherited fd, as a child before exec does), beside a socket of its own.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { describe, it } from 'node:test';
import type { DevServer } from '../../../src/common/api/devServerContract.ts';
import { Emitter } from '../../../src/common/event.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import type { PtySession } from '../../../src/node/pty/ptySession.ts';
import { ServerMonitor } from '../../../src/node/servers/serverMonitor.ts';
import { socketTablesSupported } from '../../../src/node/servers/listeningSockets.ts';
import { pollUntil } from '../../helpers/poll.ts';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

/** The part of a PtySession the monitor uses, for process `pid`: no output, no commands; servers land in `info.servers`. */
function paneOf(id: string, pid: number, file: string, onServers?: (servers: DevServer[]) => void) {
  const session = {
    id,
    info: { pid, file, shellIntegration: false, servers: [] as DevServer[] },
    exitStatus: undefined,
    atPrompt: false,
    onDidOutput: new Emitter<{ data: string }>().event,
    onDidWrite: new Emitter<void>().event,
    onDidStartCommand: new Emitter<void>().event,
    onDidCommand: new Emitter<void>().event,
    onDidExit: new Emitter<void>().event,
    setServers(next: DevServer[]) {
      session.info.servers = next;
      onServers?.(next);
    },
  };
  return session;
}

describe('dev-server detection and the app’s own sockets', { skip: !socketTablesSupported && 'reads /proc (Linux)' }, () => {
  it('never lists a socket the Hub itself listens on, even when the pane’s process holds it', async (t) => {
    const hubServer = createServer();
    const hubPort = await listen(hubServer);
    t.after(() => hubServer.close());
    const hubFd = (hubServer as unknown as { _handle: { fd: number } })._handle.fd;
    assert.ok(hubFd > 2, 'the Hub socket has an fd to pass on');
    // The "pane": holds the Hub's socket as fd 3 (as a child before exec does) and listens on a port of its own.
    const child = spawn(
      process.execPath,
      ['-e', "const s = require('node:net').createServer(); s.listen(0, '127.0.0.1', () => console.log(s.address().port)); setTimeout(() => {}, 60000);"],
      { stdio: ['ignore', 'pipe', 'inherit', hubFd] },
    );
    t.after(() => child.kill());
    const [line] = (await once(child.stdout!.setEncoding('utf8'), 'data')) as [string];
    const childPort = Number(line.trim());

    const servers: DevServer[][] = [];
    const session = paneOf('t-hubsock1', child.pid!, 'node', (next) => servers.push(next));
    const monitor = new ServerMonitor({ logger: nullLogger });
    t.after(() => monitor.dispose());
    monitor.watch(session as unknown as PtySession);

    await pollUntil(() => session.info.servers.some((server) => server.port === childPort), { what: 'the pane’s own server to be found' });
    const ports = session.info.servers.map((server) => server.port);
    assert.deepEqual(ports, [childPort], `the Hub's port ${hubPort} is not the pane's server`);
    assert.ok(servers.every((list) => !list.some((server) => server.port === hubPort)), 'never listed, not even once');
  });

  it('reads the Hub’s own fds again only when a listening socket appeared, however many processes a pane starts', async (t) => {
    const first = createServer();
    await listen(first);
    t.after(() => first.close());
    // A pane running commands one after another: a new process to look at on nearly every look.
    // (A child that stays, so no look finds the shell alone, which stops the looks until output.)
    const child = spawn('bash', ['--norc', '--noprofile', '-c', 'sleep 600 & while :; do /bin/true; sleep 0.05; done'], { stdio: 'ignore', detached: true });
    t.after(() => process.kill(-child.pid!));
    const session = paneOf('t-hubsock2', child.pid!, 'bash');
    const monitor = new ServerMonitor({ logger: nullLogger });
    t.after(() => monitor.dispose());
    monitor.watch(session as unknown as PtySession);
    await pollUntil(() => (monitor.scans >= 12 ? true : undefined), { timeoutMs: 20_000, what: 'twelve looks at the pane' });
    const reads = monitor.hubFdReads;
    // Once, and again only for a listening socket that appeared on the machine meanwhile (another
    // program's server, say); each look at a new process read them before (12 in 12 looks).
    assert.ok(reads >= 1 && reads * 2 <= monitor.scans, `the Hub's fds were read ${reads} times in ${monitor.scans} looks`);

    // A socket the Hub starts listening on now: read again, and still never the pane's.
    const second = createServer();
    const secondPort = await listen(second);
    t.after(() => second.close());
    await pollUntil(() => (monitor.hubFdReads > reads ? true : undefined), { timeoutMs: 15_000, what: 'the Hub’s fds read again after a new listening socket' });
    const scansThen = monitor.scans;
    await pollUntil(() => (monitor.scans >= scansThen + 3 ? true : undefined), { timeoutMs: 15_000, what: 'three more looks' });
    assert.ok(!session.info.servers.some((server) => server.port === secondPort));
  });
});
