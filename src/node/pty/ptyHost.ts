/**
 * Owns every terminal of the Hub: starts PTY processes (checking first that they can start),
 * prepares their environment and shell integration, and forwards each session's changes as
 * host-level events. The Hub validates client input with the contract schemas before calling in.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { basename } from 'node:path';
import { spawn, type IPty } from 'node-pty';
import type { CreateTerminalParams, Creator, RestoredFrom, TerminalInfo } from '../../common/api/contract.ts';
import { ApiError } from '../../common/api/errors.ts';
import { TerminalConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { collectSoon } from '../idleCollector.ts';
import { ServerMonitor } from '../servers/serverMonitor.ts';
import { MirrorHost, type MirrorMode } from './mirrorHost.ts';
import { PtySession } from './ptySession.ts';
import {
  composeEnvironment,
  defaultShellIntegrationDir,
  resolveDefaultShell,
  resolveExecutable,
  shellIntegrationLaunch,
  writeNonceFile,
} from './shellLaunch.ts';

export interface PtyHostOptions {
  logger: ILogger;
  /** Merged into every PTY environment (SWITCHBOARD_SOCKET etc.). */
  baseEnv?: Record<string, string>;
  /** Variables that depend on where a terminal starts (CLAWS_SOCKET: its workspace folder's claws socket). */
  environmentFor?: (cwd: string) => Record<string, string>;
  /** Used when a create call gives no cwd. */
  defaultCwd: string;
  /** Mirror scrollback lines; default TerminalConstants.scrollbackLines. */
  scrollback?: number;
  /** Raw output ring per terminal; default TerminalConstants.ringBytes. */
  ringBytes?: number;
  /** Where the bash/zsh/fish integration scripts are; default: assets/shell-integration of this tree. */
  shellIntegrationDir?: string;
  /**
   * Where the headless mirrors parse output: 'worker' (default; one worker thread shared by all
   * terminals, so floods do not block the Hub's thread) or 'inline'.
   */
  mirrorMode?: MirrorMode;
  /** The mirror worker script, for bundles that emit it somewhere else (default: mirrorWorker.ts beside ptyHost.ts). */
  mirrorWorkerPath?: string;
  /** Look for dev servers in every terminal (info.servers; src/node/servers); default true. */
  detectServers?: boolean;
}

export type CreateParams = CreateTerminalParams & {
  createdBy: Creator;
  id?: string;
  /** A restored pane: its previous session's last screen, shown above the fresh shell. */
  restore?: { preamble: string; from: RestoredFrom };
};

/** Upper bound on waiting for a killed terminal in close(): the whole kill escalation plus slack. */
const closeTimeoutMs = TerminalConstants.killTermDelayMs + 2 * TerminalConstants.killForceDelayMs + 1000;

/**
 * A name another terminal has: refused by `rename` and by the control socket's `create`, since
 * people and agents address terminals by name and a name must point at one terminal.
 */
export function nameTakenError(name: string, holderId: string): ApiError {
  return new ApiError('INVALID_PARAMS', `the name "${name}" is taken by terminal ${holderId}; names point at one terminal — pick another or rename that one first`);
}

export class PtyHost implements IDisposable {
  readonly #options: PtyHostOptions;
  /** `options.baseEnv` plus what `extendBaseEnv` added since (the IDE bridge's port once it listens). */
  #baseEnv: Record<string, string>;
  readonly #logger: ILogger;
  readonly #sessions = new Map<string, { session: PtySession; listeners: IDisposable[] }>();
  readonly #closing = new Map<string, Promise<void>>();
  /** Ids reserved by create() calls still checking their parameters. */
  readonly #reserved = new Set<string>();
  #disposed = false;

  readonly #onDidAddTerminal = new Emitter<TerminalInfo>();
  readonly onDidAddTerminal: Event<TerminalInfo> = this.#onDidAddTerminal.event;
  readonly #onDidChangeTerminal = new Emitter<TerminalInfo>();
  /** Any field of a terminal's info changed. */
  readonly onDidChangeTerminal: Event<TerminalInfo> = this.#onDidChangeTerminal.event;
  readonly #onDidRemoveTerminal = new Emitter<{ id: string }>();
  readonly onDidRemoveTerminal: Event<{ id: string }> = this.#onDidRemoveTerminal.event;
  readonly #onDidNotify = new Emitter<{ id: string; title: string; body: string }>();
  readonly onDidNotify: Event<{ id: string; title: string; body: string }> = this.#onDidNotify.event;

  readonly #mirrors: MirrorHost;
  /** Each terminal's dev servers (info.servers); null when detection is off. */
  readonly #servers: ServerMonitor | null;
  #integrationDir: string | undefined;

  constructor(options: PtyHostOptions) {
    this.#options = options;
    this.#baseEnv = { ...options.baseEnv };
    this.#logger = options.logger;
    // Starts no worker yet: that happens with the first terminal.
    const mirrorOptions: ConstructorParameters<typeof MirrorHost>[0] = { logger: options.logger.child('mirror') };
    if (options.mirrorMode) mirrorOptions.mode = options.mirrorMode;
    if (options.mirrorWorkerPath) mirrorOptions.workerPath = options.mirrorWorkerPath;
    this.#mirrors = new MirrorHost(mirrorOptions);
    // Does no I/O until a terminal is watched.
    this.#servers = options.detectServers === false ? null : new ServerMonitor({ logger: options.logger.child('servers') });
  }

  async create(params: CreateParams): Promise<PtySession> {
    this.#assertNotDisposed();
    const id = params.id ?? this.#newId();
    if (this.#sessions.has(id) || this.#reserved.has(id)) throw new ApiError('INVALID_PARAMS', `terminal id already in use: ${id}`);
    this.#reserved.add(id);
    try {
      return await this.#create(id, params);
    } finally {
      this.#reserved.delete(id);
    }
  }

  /** The dev-server detection of every terminal (null when `detectServers` is false). */
  get serverMonitor(): ServerMonitor | null {
    return this.#servers;
  }

  /** Add variables to the environment of every terminal created from now on (running ones keep theirs). */
  extendBaseEnv(variables: Record<string, string>): void {
    this.#baseEnv = { ...this.#baseEnv, ...variables };
  }

  get(id: string): PtySession | undefined {
    return this.#sessions.get(id)?.session;
  }

  require(id: string): PtySession {
    const session = this.get(id);
    if (!session) throw new ApiError('NOT_FOUND', `no terminal with id ${id}`);
    return session;
  }

  /**
   * Rename a terminal. A name another terminal has is refused: people and agents address
   * terminals by name (`switchboard exec builder …`), and a name must point at one terminal.
   */
  rename(id: string, name: string): PtySession {
    const session = this.require(id);
    const trimmed = name.trim();
    if (trimmed === '') throw new ApiError('INVALID_PARAMS', 'a terminal name cannot be empty');
    for (const entry of this.#sessions.values()) {
      const other = entry.session;
      if (other !== session && other.info.name === trimmed) {
        throw nameTakenError(trimmed, other.id);
      }
    }
    session.rename(trimmed);
    return session;
  }

  list(): TerminalInfo[] {
    return [...this.#sessions.values()].map((entry) => entry.session.info);
  }

  /** End the process if it runs (bounded wait), release the terminal and announce its removal. */
  close(id: string): Promise<void> {
    const closing = this.#closing.get(id);
    if (closing) return closing;
    const session = this.require(id);
    const promise = this.#close(id, session).finally(() => this.#closing.delete(id));
    this.#closing.set(id, promise);
    return promise;
  }

  /** Fault tests only: kill the mirror worker thread as a crash would (see MirrorHost). */
  terminateMirrorWorkerForFaultTest(): Promise<boolean> {
    return this.#mirrors.terminateWorkerForFaultTest();
  }

  /** Close every terminal gracefully (kill escalation per terminal, in parallel). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.close(id)));
  }

  /** Hard stop: every process group gets SIGHUP and SIGKILL; no timers or handles remain. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const [id, entry] of this.#sessions) {
      for (const listener of entry.listeners) listener.dispose();
      try {
        entry.session.dispose();
      } catch (error) {
        this.#logger.error('disposing terminal failed', { id, error });
      }
    }
    this.#sessions.clear();
    this.#servers?.dispose();
    this.#mirrors.dispose();
    this.#onDidAddTerminal.dispose();
    this.#onDidChangeTerminal.dispose();
    this.#onDidRemoveTerminal.dispose();
    this.#onDidNotify.dispose();
  }

  async #create(id: string, params: CreateParams): Promise<PtySession> {
    const cwd = params.cwd ?? this.#options.defaultCwd;
    await assertDirectory(cwd);

    const env = composeEnvironment({
      inherited: process.env,
      terminalId: id,
      baseEnv: { ...this.#baseEnv, ...this.#options.environmentFor?.(cwd) },
      callerEnv: params.env,
    });
    const requested = params.file ?? (await resolveDefaultShell(env, cwd));
    const executable = await resolveExecutable(requested, { cwd, path: env.PATH });
    if (!executable.ok) throw new ApiError('PTY_SPAWN_FAILED', `cannot start ${requested}: ${executable.reason}`);

    const callerArgs = params.args ?? [];
    let spawnArgs = callerArgs;
    let nonce: string | null = null;
    let nonceFile: { path: string; dispose(): Promise<void> } | null = null;
    if (params.shellIntegration !== false) {
      const launch = shellIntegrationLaunch({
        file: executable.path,
        args: callerArgs,
        env,
        home: env.HOME ?? homedir(),
        integrationDir: this.#options.shellIntegrationDir ?? (this.#integrationDir ??= defaultShellIntegrationDir()),
      });
      if (launch && !(await isReadable(launch.script))) {
        // Injecting a missing script would cost the user their own rc files (bash skips
        // ~/.bashrc when --init-file is given): start the shell plainly instead.
        this.#logger.warn('shell integration script not found; starting the shell without integration', { script: launch.script });
      } else if (launch) {
        nonce = randomBytes(16).toString('hex');
        Object.assign(env, launch.env);
        if (launch.argsWithNonceFile) {
          // fish reads the user's config before our script: the nonce must not be in the environment then.
          nonceFile = await writeNonceFile(nonce);
          spawnArgs = launch.argsWithNonceFile(nonceFile.path);
        } else {
          env.SWITCHBOARD_NONCE = nonce;
          spawnArgs = launch.args;
        }
      }
    }

    const cols = params.cols ?? TerminalConstants.defaultCols;
    const rows = params.rows ?? TerminalConstants.defaultRows;
    // The shell deletes its nonce file as it reads it; the directory goes when the shell is gone.
    const dropNonceFile = () => void nonceFile?.dispose();
    if (this.#disposed) dropNonceFile();
    this.#assertNotDisposed();
    let pty: IPty;
    try {
      pty = spawn(executable.path, spawnArgs, { name: env.TERM ?? 'xterm-256color', cols, rows, cwd, env, encoding: null });
    } catch (error) {
      dropNonceFile();
      throw new ApiError('PTY_SPAWN_FAILED', `cannot start ${requested}: ${(error as Error).message}`);
    }

    let session: PtySession;
    try {
      session = new PtySession({
        id,
        pty,
        name: params.name ?? this.#unusedName(basename(executable.path)),
        file: executable.path,
        args: [...callerArgs],
        cwd,
        cols,
        rows,
        createdBy: params.createdBy,
        nonce,
        scrollback: this.#options.scrollback ?? TerminalConstants.scrollbackLines,
        ringBytes: this.#options.ringBytes ?? TerminalConstants.ringBytes,
        logger: this.#logger,
        isLocalHost,
        createMirror: (mirrorOptions) => this.#mirrors.create(mirrorOptions),
        ...(params.restore ? { preamble: params.restore.preamble, restoredFrom: params.restore.from } : {}),
      });
    } catch (error) {
      pty.kill('SIGKILL');
      dropNonceFile();
      throw error;
    }
    if (nonceFile) void session.exited.finally(dropNonceFile);
    const listeners = [
      session.onDidChangeInfo((info) => this.#onDidChangeTerminal.fire(info)),
      session.onDidNotify(({ title, body }) => this.#onDidNotify.fire({ id, title, body })),
    ];
    if (this.#servers) listeners.push(this.#servers.watch(session));
    this.#sessions.set(id, { session, listeners });
    this.#logger.info('terminal started', { id, file: executable.path, args: spawnArgs, cwd, pid: pty.pid, shellIntegration: nonce !== null });
    this.#onDidAddTerminal.fire(session.info);
    collectSoon();
    return session;
  }

  async #close(id: string, session: PtySession): Promise<void> {
    if (!session.exitStatus) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), closeTimeoutMs)));
      const result = await Promise.race([session.kill(), timedOut]);
      clearTimeout(timer);
      if (result === 'timeout') this.#logger.warn('terminal did not exit in time; forcing', { id });
    }
    const entry = this.#sessions.get(id);
    if (!entry || entry.session !== session) return;
    this.#sessions.delete(id);
    for (const listener of entry.listeners) listener.dispose();
    session.dispose();
    this.#onDidRemoveTerminal.fire({ id });
    collectSoon();
  }

  /**
   * A default name no other terminal has: `bash`, then `bash 2`, `bash 3`… Fourteen tabs all called
   * "bash" tell a person nothing, and an agent addressing a terminal by name would hit an ambiguity.
   * (A name given on purpose is kept as it is, even when another terminal has it.)
   */
  #unusedName(base: string): string {
    const taken = new Set([...this.#sessions.values()].map((entry) => entry.session.info.name));
    if (!taken.has(base)) return base;
    for (let ordinal = 2; ; ordinal++) {
      const candidate = `${base} ${ordinal}`;
      if (!taken.has(candidate)) return candidate;
    }
  }

  #newId(): string {
    for (;;) {
      const id = `t-${randomBytes(4).toString('hex')}`;
      if (!this.#sessions.has(id) && !this.#reserved.has(id)) return id;
    }
  }

  #assertNotDisposed(): void {
    if (this.#disposed) throw new Error('PtyHost is disposed');
  }
}

async function isReadable(path: string): Promise<boolean> {
  try {
    await access(path, fsConstants.R_OK);
    return true;
  } catch {
    return false;
  }
}

async function assertDirectory(cwd: string): Promise<void> {
  try {
    const info = await stat(cwd);
    if (!info.isDirectory()) throw new ApiError('INVALID_PARAMS', `cwd is not a directory: ${cwd}`);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('INVALID_PARAMS', `cwd does not exist: ${cwd}`);
  }
}

function isLocalHost(host: string): boolean {
  const normalized = host.toLowerCase();
  return normalized === '' || normalized === 'localhost' || normalized === '127.0.0.1' || normalized === hostname().toLowerCase();
}
