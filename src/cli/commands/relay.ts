/**
 * `switchboard relay`: run a relay for remote access (GSD Cloud wire protocol), and manage the
 * machines it accepts. See docs/relay.md.
 *
 *   switchboard relay [serve] [--host 127.0.0.1] [--port 7600] [--tokens FILE] [--allow-remote] [--public-url URL] [--preview-domain DOMAIN]
 *   switchboard relay add-machine ID [--rotate] [--public-url URL]   prints the daemon and viewer tokens once
 *   switchboard relay remove-machine ID
 *   switchboard relay machines
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { type CliCommand, type CliIo, CliUsageError, ExitCode, type ParsedCommandArgs } from '../command.ts';
import { intOption, printJson, requirePositionals } from '../controlCommand.ts';

/** Default port of `switchboard relay` (fixed, so a reverse proxy can point at it). */
export const defaultRelayPort = 7600;

export const relayCommand: CliCommand = {
  name: 'relay',
  summary: 'Run a relay for remote access to Switchboard apps, or manage the machines it accepts.',
  usage: 'relay [serve] [--host 127.0.0.1] [--port N] [--tokens FILE] [--allow-remote] [--public-url URL] [--preview-domain DOMAIN] | add-machine ID [--rotate] | remove-machine ID | machines',
  details: [
    'serve (the default) runs the relay until SIGINT/SIGTERM: daemons (switchboard serve --relay URL) connect to',
    '/ws/daemon, browsers to /ws/ui. It binds to 127.0.0.1; put a TLS reverse proxy in front of it (docs/relay.md).',
    'add-machine ID creates a machine and prints its two tokens once: the daemon token (give it to that',
    'Switchboard as SWITCHBOARD_RELAY_TOKEN) and the viewer token (for browsers). Only their SHA-256 is kept,',
    `in the tokens file (default $SWITCHBOARD_HOME/relay-tokens.json, mode 0600; or --tokens / $SWITCHBOARD_RELAY_TOKENS).`,
    'A running relay picks up added, rotated and removed machines without a restart.',
    'Browsers open the remote view at <relay>/m/ID/?token=<viewer token>; behind a TLS proxy give --public-url',
    'https://relay.example.com (the address browsers use). The UI comes from dist/renderer or $SWITCHBOARD_RENDERER_DIR.',
    'Dev-server previews are served from an origin of their own, never the relay\'s: http://<label>.localhost:<port> by',
    'default; behind a proxy give --preview-domain preview.example.com (wildcard DNS and certificate for *.preview.example.com',
    'pointing at the relay) — with --public-url and no --preview-domain, previews are refused.',
  ].join('\n'),
  allowPositionals: true,
  options: {
    host: { type: 'string', valueName: 'HOST', description: 'serve: address to listen on (default 127.0.0.1; loopback only unless --allow-remote)' },
    port: { type: 'string', short: 'p', valueName: 'N', description: `serve: port to listen on (default ${defaultRelayPort}; 0 picks a free one)` },
    tokens: { type: 'string', valueName: 'FILE', description: 'the machines-and-token-hashes file' },
    'allow-remote': { type: 'boolean', description: 'serve: permit a non-loopback --host (then use TLS in front of it anyway)' },
    rotate: { type: 'boolean', description: 'add-machine: replace the tokens of an existing machine' },
    'public-url': {
      type: 'string',
      valueName: 'URL',
      description: 'the address browsers reach the relay at (https://relay.example.com behind a TLS proxy): allowed Host, expected Origin, Secure cookies',
    },
    'preview-domain': {
      type: 'string',
      valueName: 'DOMAIN',
      description: 'serve: previews at <label>.DOMAIN, each its own origin (wildcard DNS + certificate for *.DOMAIN; scheme and port of --public-url)',
    },
  },
  run: runRelay,
};

async function runRelay(args: ParsedCommandArgs, io: CliIo): Promise<number> {
  const [{ RelayTokenStore }, { resolveDataDir }] = await Promise.all([import('../../node/relay/server/relayTokens.ts'), import('../../node/paths.ts')]);
  const tokensFile = resolveTokensFile(args, io, resolveDataDir({ env: io.env, platform: process.platform, homeDir: homedir() }));
  const store = new RelayTokenStore({ filePath: tokensFile });
  const action = args.positionals[0] ?? 'serve';
  switch (action) {
    case 'serve':
      requirePositionals(args, [], { rest: args.positionals.length === 1 });
      if (args.positionals.length > 1) throw new CliUsageError(`unexpected argument ${JSON.stringify(args.positionals[1])}`);
      return serveRelay(args, io, tokensFile);
    case 'add-machine': {
      const [, machineId] = requirePositionals(args, ['add-machine', 'ID']);
      const { MachineId } = await import('../../node/relay/relayUrl.ts');
      const valid = MachineId.safeParse(machineId);
      if (!valid.success) throw new CliUsageError(`invalid machine id ${JSON.stringify(machineId)}: ${valid.error.issues[0]!.message}`);
      const publicUrl = await publicUrlOption(args);
      const tokens = await store.addMachine(valid.data, { rotate: args.values.rotate === true }).catch((error: Error) => {
        throw /already exists/.test(error.message) ? new CliUsageError(error.message) : error;
      });
      const viewerLink = `${publicUrl?.origin ?? `http://127.0.0.1:${defaultRelayPort}`}/m/${tokens.machineId}/?token=${tokens.viewerToken}`;
      if (args.json) {
        printJson(io, { ...tokens, tokensFile, viewerLink });
      } else {
        io.stdout(
          [
            `Machine ${tokens.machineId} ${args.values.rotate === true ? 'has new tokens' : 'added'} (${tokensFile}). Shown once; keep them secret:`,
            `  daemon token (SWITCHBOARD_RELAY_TOKEN for switchboard serve --relay URL --machine-id ${tokens.machineId}):`,
            `    ${tokens.daemonToken}`,
            `  viewer token (browsers viewing ${tokens.machineId}):`,
            `    ${tokens.viewerToken}`,
            `  remote view for a browser${publicUrl ? '' : ' (on this machine; behind a proxy use its https:// address, or pass --public-url)'}:`,
            `    ${viewerLink}`,
            '',
          ].join('\n'),
        );
      }
      return ExitCode.ok;
    }
    case 'remove-machine': {
      const [, machineId] = requirePositionals(args, ['remove-machine', 'ID']);
      const removed = await store.removeMachine(machineId!);
      if (!removed) {
        io.stderr(`switchboard relay: no machine ${JSON.stringify(machineId)} in ${tokensFile}\n`);
        return ExitCode.failure;
      }
      if (args.json) printJson(io, { removed: machineId });
      else io.stdout(`Machine ${machineId} removed; its daemon and viewers can no longer connect.\n`);
      return ExitCode.ok;
    }
    case 'machines': {
      requirePositionals(args, ['machines']);
      await store.load();
      if (args.json) printJson(io, { tokensFile, machines: store.machineIds });
      else io.stdout(store.machineIds.length > 0 ? store.machineIds.join('\n') + '\n' : `No machines yet (switchboard relay add-machine ID). File: ${tokensFile}\n`);
      return ExitCode.ok;
    }
    default:
      throw new CliUsageError(`unknown relay action ${JSON.stringify(action)} (serve, add-machine, remove-machine, machines)`);
  }
}

async function serveRelay(args: ParsedCommandArgs, io: CliIo, tokensFile: string): Promise<number> {
  const [{ RelayServer }, { RelayTokenStore }, { createLogger, parseLogLevel }, { isLoopbackHost }] = await Promise.all([
    import('../../node/relay/server/relayServer.ts'),
    import('../../node/relay/server/relayTokens.ts'),
    import('../../node/logger.ts'),
    import('../../node/server/auth.ts'),
  ]);
  const host = (args.values.host as string | undefined) ?? '127.0.0.1';
  const port = intOption(args, 'port', { min: 0, max: 65535 }) ?? defaultRelayPort;
  const publicUrl = await publicUrlOption(args);
  const previewDomain = await previewDomainOption(args, publicUrl);
  if (publicUrl?.protocol === 'http:' && !isLoopbackHost(publicUrl.hostname)) {
    io.stderr(`switchboard relay: WARNING: --public-url ${publicUrl.origin} is not https; viewer cookies and keystrokes travel in clear\n`);
  }
  if (!isLoopbackHost(host)) {
    if (args.values['allow-remote'] !== true) throw new CliUsageError(`refusing to listen on non-loopback host ${host}; add --allow-remote if you really want that`);
    io.stderr(`switchboard relay: WARNING: listening on ${host}; make sure a TLS proxy is in front (tokens and keystrokes travel over this socket)\n`);
  }
  const logger = createLogger({ level: parseLogLevel(io.env.SWITCHBOARD_LOG_LEVEL, 'info'), subsystem: 'relay' });
  const tokens = new RelayTokenStore({ filePath: tokensFile, logger });
  const { defaultRendererDir } = await import('../../node/server/staticFiles.ts');
  const rendererDir = io.env.SWITCHBOARD_RENDERER_DIR || defaultRendererDir();
  const server = new RelayServer({ host, port, tokens, logger, rendererDir, ...(publicUrl ? { publicUrl } : {}), ...(previewDomain ? { previewDomain } : {}) });
  const shutdown = waitForShutdownSignal();
  try {
    const address = await server.listen().catch((error: NodeJS.ErrnoException) => {
      throw new Error(error.code === 'EADDRINUSE' ? `port ${port} on ${host} is already in use` : error.code ? `cannot listen on ${host}:${port}: ${error.message}` : error.message);
    });
    if (tokens.machineIds.length === 0) io.stderr(`switchboard relay: no machines yet; add one with: switchboard relay add-machine ID\n`);
    if (address.previewOrigins === null) io.stderr(`switchboard relay: dev-server previews are off: with --public-url they need --preview-domain DOMAIN (an origin of their own; docs/relay.md)\n`);
    if (!server.rendererBuilt) io.stderr(`switchboard relay: the remote view is not built (${rendererDir} has no index.html); run npm run build\n`);
    io.stdout(
      args.json
        ? JSON.stringify({ url: address.url, host: address.host, port: address.port, viewOrigin: address.viewOrigin, previewOrigins: address.previewOrigins, pid: process.pid, tokensFile, machines: tokens.machineIds }) + '\n'
        : `Switchboard relay ready: ${address.url} (daemons: /ws/daemon, viewers: /ws/ui)\nRemote view: ${address.viewOrigin}/m/<machine id>/?token=<viewer token>\n` +
            (address.previewOrigins ? `Dev-server previews: ${address.previewOrigins} (each preview an origin of its own)\n` : ''),
    );
    const signal = await shutdown.promise;
    logger.info('shutting down', { signal });
    return ExitCode.ok;
  } finally {
    shutdown.dispose();
    await server.close();
  }
}

/** `--public-url`, validated (an origin, http or https), or undefined when not given. */
async function publicUrlOption(args: ParsedCommandArgs): Promise<URL | undefined> {
  const text = args.values['public-url'] as string | undefined;
  if (text === undefined) return undefined;
  const { parsePublicUrl } = await import('../../node/relay/server/viewerAccess.ts');
  try {
    return parsePublicUrl(text);
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
}

/** `--preview-domain`, validated (a host name not holding the relay's own), or undefined when not given. */
async function previewDomainOption(args: ParsedCommandArgs, publicUrl: URL | undefined): Promise<string | undefined> {
  const text = args.values['preview-domain'] as string | undefined;
  if (text === undefined) return undefined;
  const { checkPreviewDomain, parsePreviewDomain } = await import('../../node/relay/server/preview/previewOrigins.ts');
  try {
    const domain = parsePreviewDomain(text);
    checkPreviewDomain(domain, publicUrl);
    return domain;
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
}

/**
 * `switchboard serve --relay URL [--machine-id ID] [--share-all]` with the token in
 * SWITCHBOARD_RELAY_TOKEN: the relay client's settings, checked before anything starts.
 * Returns undefined when --relay was not given.
 */
export async function relayClientSettings(args: ParsedCommandArgs, io: CliIo): Promise<{ url: string; machineId: string; token: string; shareAll: boolean } | undefined> {
  const url = args.values.relay as string | undefined;
  const machineFlag = args.values['machine-id'] as string | undefined;
  if (url === undefined) {
    if (machineFlag !== undefined || args.values['share-all'] === true) throw new CliUsageError('--machine-id and --share-all need --relay URL');
    return undefined;
  }
  const token = io.env.SWITCHBOARD_RELAY_TOKEN;
  if (!token) throw new CliUsageError('--relay needs the machine\'s daemon token in SWITCHBOARD_RELAY_TOKEN (switchboard relay add-machine ID prints it)');
  const { MachineId, daemonUrl } = await import('../../node/relay/relayUrl.ts');
  const { hostname } = await import('node:os');
  const machineId = machineFlag ?? defaultMachineId(hostname());
  const valid = MachineId.safeParse(machineId);
  if (!valid.success) throw new CliUsageError(`invalid --machine-id ${JSON.stringify(machineId)}: ${valid.error.issues[0]!.message}`);
  try {
    daemonUrl(url, machineId);
  } catch (error) {
    throw new CliUsageError(`--relay: ${(error as Error).message}`);
  }
  return { url, machineId, token, shareAll: args.values['share-all'] === true };
}

/** This host's name as a machine id (invalid characters become "-"). */
export function defaultMachineId(host: string): string {
  const cleaned = host.replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 128);
  return cleaned || 'switchboard';
}

function waitForShutdownSignal(): { promise: Promise<NodeJS.Signals>; dispose(): void } {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const promise = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
  for (const signal of signals) process.on(signal, onSignal);
  return { promise, dispose: () => signals.forEach((signal) => process.off(signal, onSignal)) };
}

function resolveTokensFile(args: ParsedCommandArgs, io: CliIo, dataDir: string): string {
  const flag = args.values.tokens as string | undefined;
  const env = io.env.SWITCHBOARD_RELAY_TOKENS;
  if (flag !== undefined) return resolve(io.cwd, flag);
  if (env) return resolve(io.cwd, env);
  return resolve(dataDir, 'relay-tokens.json');
}
