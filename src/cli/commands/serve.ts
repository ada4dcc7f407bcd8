/**
 * `switchboard serve`: browser mode. Runs a Hub and serves the UI on 127.0.0.1 until SIGINT or
 * SIGTERM, then stops cleanly (server closed, PTYs ended, serve.json removed, exit 0).
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { ServeInfo } from '../../node/server/serveInfo.ts';
import { type CliCommand, type CliIo, CliUsageError, ExitCode, type ParsedCommandArgs } from '../command.ts';
import { switchboardVersion } from '../version.ts';
import { relayClientSettings } from './relay.ts';

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Run Switchboard in browser mode: serve the UI and the API on 127.0.0.1.',
  usage: 'serve [--host 127.0.0.1] [--port N] [--allow-remote] [--relay URL [--machine-id ID] [--share-all]] [--json] [DIR...]',
  details: [
    'DIR... are the workspace folders (default: the current directory); new terminals start in the first.',
    'Prints "Switchboard ready: URL"; open that URL once (it carries the access token, which is then kept',
    'in a cookie). The same information is written to serve.json in the data directory ($SWITCHBOARD_HOME).',
    'The UI comes from dist/renderer (npm run build), or from $SWITCHBOARD_RENDERER_DIR when set.',
    'With --relay URL it also dials that relay (switchboard relay, docs/relay.md) so browsers elsewhere can reach',
    'its terminals; the machine\'s daemon token comes from $SWITCHBOARD_RELAY_TOKEN.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    host: { type: 'string', valueName: 'HOST', description: 'address to listen on (default 127.0.0.1; loopback only unless --allow-remote)' },
    port: { type: 'string', short: 'p', valueName: 'N', description: 'port to listen on (default 0: any free port)' },
    'allow-remote': { type: 'boolean', description: 'permit a non-loopback --host (anyone who can reach it and has the token controls your shell)' },
    relay: { type: 'string', valueName: 'URL', description: 'dial this relay for remote access (wss://…; ws:// only to loopback); token in $SWITCHBOARD_RELAY_TOKEN' },
    'machine-id': { type: 'string', valueName: 'ID', description: 'with --relay: this machine\'s id on the relay (default: the host name)' },
    'share-all': { type: 'boolean', description: 'with --relay: share every terminal with the relay\'s viewers (default: only terminals they open)' },
  },
  run: runServe,
};

async function runServe(args: ParsedCommandArgs, io: CliIo): Promise<number> {
  // Loaded here, not at the top: `switchboard --help` and other verbs should not pay for the Hub.
  const [{ Hub }, { createLogger, parseLogLevel }, { resolveDataDir }, { isLoopbackHost }, { BrowserServer }, { removeServeInfo, writeServeInfo }, { defaultRendererDir }] =
    await Promise.all([
      import('../../node/hub.ts'),
      import('../../node/logger.ts'),
      import('../../node/paths.ts'),
      import('../../node/server/auth.ts'),
      import('../../node/server/browserServer.ts'),
      import('../../node/server/serveInfo.ts'),
      import('../../node/server/staticFiles.ts'),
    ]);
  const host = (args.values.host as string | undefined) ?? '127.0.0.1';
  const port = parsePort(args.values.port as string | undefined);
  const allowRemote = args.values['allow-remote'] === true;
  if (!isLoopbackHost(host)) {
    if (!allowRemote) {
      throw new CliUsageError(`refusing to listen on non-loopback host ${host}; add --allow-remote if you really want that`);
    }
    io.stderr(`switchboard serve: WARNING: listening on ${host}: anyone who can reach it and has the token controls your shell\n`);
  }
  const workspaceFolders = await resolveWorkspaceFolders(args.positionals, io.cwd);
  const relaySettings = await relayClientSettings(args, io);
  const dataDir = resolveDataDir({ env: io.env, platform: process.platform, homeDir: homedir() });
  const logger = createLogger({ level: parseLogLevel(io.env.SWITCHBOARD_LOG_LEVEL, 'info') });

  // The Hub owns the relay client; --relay configures it for this run instead of the settings.
  const hub = new Hub({ dataDir, workspaceFolders, host: 'browser', logger, version: switchboardVersion, env: io.env, ...(relaySettings ? { relay: { commandLine: relaySettings } } : {}) });
  const server = new BrowserServer({ hub, logger: logger.child('server'), rendererDir: io.env.SWITCHBOARD_RENDERER_DIR || defaultRendererDir(), host, port });
  const shutdownRequested = waitForShutdownSignal();
  let servingInfo: ServeInfo | undefined;
  try {
    await hub.start();
    const relay = relaySettings ? hub.relay.client : undefined;
    if (relaySettings && !relay) throw new CliUsageError(`--relay: ${hub.relay.status.reason ?? 'the relay client could not start'}`);
    const address = await server.listen().catch((error: NodeJS.ErrnoException) => {
      throw new Error(error.code === 'EADDRINUSE' ? `port ${port} on ${host} is already in use` : `cannot listen on ${host}:${port}: ${error.message}`);
    });
    if (!server.rendererBuilt) {
      io.stderr('switchboard serve: the UI is not built (dist/renderer is missing): run npm run build first. The API is up.\n');
    }
    servingInfo = { url: address.url, port: address.port, token: address.token, pid: process.pid, controlSocket: hub.controlSocketPath };
    await writeServeInfo(dataDir, servingInfo);
    const relayInfo = relay ? { relay: { url: relay.url, machineId: relay.machineId } } : {};
    io.stdout(args.json ? JSON.stringify({ ...servingInfo, dataDir, workspaceFolders, ...relayInfo }) + '\n' : `Switchboard ready: ${address.url}\n`);
    if (relay && !args.json) io.stderr(`switchboard serve: relay ${relay.url} as machine ${relay.machineId}\n`);

    const signal = await shutdownRequested.promise;
    logger.info('shutting down', { signal });
    return ExitCode.ok;
  } finally {
    shutdownRequested.dispose();
    await server.close();
    await hub.shutdown();
    if (servingInfo) await removeServeInfo(dataDir, process.pid);
  }
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new CliUsageError(`--port must be a number from 0 to 65535, got ${JSON.stringify(value)}`);
  return Number(value);
}

async function resolveWorkspaceFolders(dirs: string[], cwd: string): Promise<string[]> {
  if (dirs.length === 0) return [cwd];
  const folders: string[] = [];
  for (const dir of dirs) {
    const absolute = resolve(cwd, dir);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) throw new CliUsageError(`no such directory: ${dir}`);
    if (!info.isDirectory()) throw new CliUsageError(`not a directory: ${dir}`);
    folders.push(absolute);
  }
  return folders;
}

function waitForShutdownSignal(): { promise: Promise<NodeJS.Signals>; dispose(): void } {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const promise = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (signal) => resolve(signal);
  });
  for (const signal of signals) process.on(signal, onSignal);
  return {
    promise,
    dispose: () => {
      for (const signal of signals) process.off(signal, onSignal);
    },
  };
}
