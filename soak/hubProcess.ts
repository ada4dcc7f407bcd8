/**
 * The Hub under test, in a process of its own (run with --expose-gc): the load generator must not
 * share its event loop, or a ping's latency would be the generator's as much as the Hub's.
 *
 * It builds the Hub the way `switchboard serve` does (same logger at info level, to stderr, which
 * the parent sends to a file) on the temp HOME the parent made, and answers the parent over the IPC
 * channel: `ready` once listening, then `measure` (after a full GC: memory, active handles by kind,
 * open fds, terminals, connections) and `shutdown`. The figures come from inside the Hub because
 * only it can count its own timers and heap.
 */
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Hub } from '../src/node/hub.ts';
import { createLogger } from '../src/node/logger.ts';
import type { ChildMessage, HubCounts, HubMeasure, ParentMessage } from './hubHandle.ts';

const dataDir = process.env.SOAK_DATA_DIR;
const workspace = process.env.SOAK_WORKSPACE;
if (!dataDir || !workspace || !process.send) throw new Error('soak/hubProcess.ts is started by soak/hubHandle.ts');

const send = (message: ChildMessage) => process.send!(message);
const logger = createLogger({ level: 'info' });
const hub = new Hub({ dataDir, workspaceFolders: [workspace], host: 'test', logger, version: 'soak', env: process.env, clawsCompatSockets: false, ideLockDir: null });
await hub.start();
// Terminals opened over the control socket since the start, exited or closed ones included.
let socketTerminalsStarted = 0;
hub.ptyHost.onDidAddTerminal((info) => {
  if (info.createdBy.kind === 'agent') socketTerminalsStarted++;
});
// How late the Hub's own event loop runs (10 ms resolution): tells a blocked loop from a starved machine.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

function count(): HubCounts {
  const running = hub.ptyHost.list().filter((info) => info.state === 'running');
  return {
    terminalsRunning: running.length,
    socketTerminalsRunning: running.filter((info) => info.createdBy.kind === 'agent').length,
    connections: hub.controlServer.connectionCount,
    socketTerminalsStarted,
    shellPids: running.flatMap((info) => (info.pid !== null ? [info.pid] : [])),
    logs: { bus: hub.controlServer.bus.logFill, audit: hub.controlServer.audit.fill, commands: hub.controlServer.commandLog.fill },
  };
}

async function measure(): Promise<HubMeasure> {
  // Settle: let closing sockets and exiting shells finish their callbacks, then collect garbage twice
  // (a second pass frees what the first one's finalizers released).
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((resolve) => setImmediate(resolve));
  gc?.();
  const memory = process.memoryUsage();
  const resources: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
  const terminals = hub.ptyHost.list();
  return {
    ...count(),
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    arrayBuffers: memory.arrayBuffers,
    gc: gc !== undefined,
    fds: readdirSync('/proc/self/fd').length,
    resources,
    terminals: terminals.length,
  };
}

process.on('message', (message: ParentMessage) => {
  void (async () => {
    try {
      if (message.type === 'loopDelay') {
        send({ type: 'loopDelay', seq: message.seq, delay: { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 } });
        loopDelay.reset();
      } else if (message.type === 'count') send({ type: 'count', seq: message.seq, counts: count() });
      else if (message.type === 'measure') send({ type: 'measure', seq: message.seq, measure: await measure() });
      else if (message.type === 'closeTerminals') {
        await Promise.all(hub.ptyHost.list().map((info) => hub.ptyHost.close(info.id)));
        send({ type: 'done', seq: message.seq });
      } else if (message.type === 'shutdown') {
        await hub.shutdown();
        send({ type: 'done', seq: message.seq });
        process.disconnect();
      }
    } catch (error) {
      send({ type: 'error', seq: message.seq, error: (error as Error).stack ?? String(error) });
    }
  })();
});
// The parent went away without a shutdown: do not outlive it with shells running.
process.on('disconnect', () => {
  void hub.shutdown().finally(() => process.exit(0));
});
send({ type: 'ready', socketPath: hub.controlSocketPath, pid: process.pid });
