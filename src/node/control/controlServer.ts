/**
 * The control socket: how agents drive terminals. It listens on the Hub's control socket and, for
 * claws clients, on `<workspace>/.claws/claws.sock` of every workspace folder, and answers the
 * claws/1 commands plus our own (docs/protocol.md) over NDJSON.
 *
 * Owned by the Hub. The constructor does no I/O; `listen()` binds the sockets; `dispose()` closes
 * every connection, fails waiting execs/waits, and removes the socket files.
 */
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { defaultSettings } from '../../common/api/contract.ts';
import { isApiError } from '../../common/api/errors.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { formatZodIssues } from '../../common/validation.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import { AuthErrors, ConnectionAccess, filterBodyForToken } from './accessControl.ts';
import { ClientLimits, type TerminalLimits } from './clientLimits.ts';
import { AuditLog, auditLogFileName } from './auditLog.ts';
import { Bus } from './bus/bus.ts';
import { busCommands } from './bus/busCommands.ts';
import { PeerDirectory, trackPeerCommands } from './bus/busPeers.ts';
import { BusLog } from './bus/busLog.ts';
import { CommandRegistry, type ControlCommand } from './commandRegistry.ts';
import { CommandLog } from './commandLog.ts';
import { clawsCommands } from './commands/clawsCommands.ts';
import { clawsUnsupportedCommands } from './commands/clawsUnsupported.ts';
import { ClawsWorkers, clawsWorkerCommands } from './commands/clawsWorkers.ts';
import type { ControlServices } from './commands/services.ts';
import { terminalCommands } from './commands/terminalCommands.ts';
import { tokenCommands } from './commands/tokenCommands.ts';
import { type ReviewCommandDeps, reviewCommands } from './commands/reviewCommands.ts';
import { type HistoryCall, historyCommands } from './commands/historyCommands.ts';
import { taskCommands } from './commands/taskCommands.ts';
import { type WorkspaceCall, workspaceCommands } from './commands/workspaceCommands.ts';
import { TaskRegistry, tasksFileName } from './tasks/taskRegistry.ts';
import { ControlConnection, type ControlRequest, type RequestOutcome } from './controlConnection.ts';
import { ExecRunner } from './execRunner.ts';
import { ControlError, ProtocolErrors } from './protocol.ts';
import { SentInputTracker } from './sentInput.ts';
import { UnixSocketListener } from './socketListener.ts';
import { TerminalInput } from './terminalInput.ts';
import { TerminalStartQueue } from './terminalStartQueue.ts';
import { RequestTurns } from './requestTurns.ts';
import { TerminalWaiter } from './terminalWaiter.ts';
import type { TokenStore } from './tokenStore.ts';
import { TypingGuard } from './typingGuard.ts';

export interface ControlServerOptions {
  ptyHost: PtyHost;
  /** The main control socket (`$SWITCHBOARD_HOME/control.sock` or `SWITCHBOARD_SOCKET`). */
  socketPath: string;
  /** Whether the socket's directory is ours to keep at 0700 (the data dir), rather than a directory the user chose. */
  ownsSocketDirectory: boolean;
  /** Absolute; `create` starts terminals in the first one. */
  workspaceFolders: readonly string[];
  /** Also listen on `<workspace>/.claws/claws.sock` for every workspace folder (default true). */
  /** Also listen on `<workspace>/.claws/claws.sock` (default true); a function is read at `listen()`. */
  clawsCompatSockets?: boolean | (() => boolean);
  version: string;
  logger: ILogger;
  /** The UI should show this terminal (claws `show`). */
  onReveal?: (request: { id: string; preserveFocus: boolean }) => void;
  /** The terminal the person has focused, for `list`'s `active`. */
  focusedTerminalId?: () => string | null;
  /** How long a person must have paused typing into a terminal before an agent's `send` is written (the `agentSendIdleMs` setting). */
  agentSendIdleMs?: () => number;
  /** The settings socketMaxTerminals / socketMaxTerminalsPerClient (clientLimits.ts). */
  terminalLimits?: () => TerminalLimits;
  /**
   * The data dir, where the claws/2 bus keeps its replay log (`bus-log.ndjson`) and the audit log
   * its entries (`audit-log.ndjson`). Absent: the socket's directory when it is ours (the data dir,
   * by default), else both stay in memory.
   */
  dataDir?: string;
  /** The control-socket access tokens (owned by the Hub). */
  tokens: TokenStore;
  /** Whether a connection must authenticate with a token (the `controlTokenAuth` setting; default false). */
  tokenAuthEnabled?: () => boolean;
  /** The review queue, for `review.request`; without it the command is not offered. */
  review?: ReviewCommandDeps;
  /** Runs the Hub's `history.*` methods for the `history.*` commands; without it they are not offered. */
  history?: HistoryCall;
  /** Runs the Hub's `agent.*`/`worktree.*` methods for the agent-workspace commands; without it they are not offered. */
  workspaces?: WorkspaceCall;
}

export interface ListeningSocket {
  /** The workspace folder a claws compatibility socket belongs to; null for the main control socket. */
  workspace: string | null;
  socket: string;
}

export class ControlServer implements IDisposable {
  readonly #options: ControlServerOptions;
  readonly #logger: ILogger;
  readonly #registry = new CommandRegistry();
  readonly audit: AuditLog;
  readonly commandLog: CommandLog;
  /** The Hub tells it when a person types; `send` waits on it. */
  readonly typingGuard: TypingGuard;
  readonly #input: TerminalInput;
  /** `exec`: the socket's command, and a person's `terminal.run` from the app (same turn-taking). */
  readonly exec: ExecRunner;
  readonly #waiter: TerminalWaiter;
  readonly #sentInput = new SentInputTracker();
  /** The claws/2 bus (hello, subscribe, publish, push frames). */
  readonly bus: Bus;
  /** claws' task registry (task.assign…), kept in the data dir like the logs. */
  readonly tasks: TaskRegistry;
  readonly #peers = new PeerDirectory();
  readonly #listeners: Array<{ listener: UnixSocketListener; workspace: string | null }> = [];
  readonly #connections = new Set<ControlConnection>();
  #nextConnectionId = 1;
  #state: 'new' | 'listening' | 'disposed' = 'new';
  readonly #startedAt = Date.now();
  readonly #access: ConnectionAccess;
  readonly #limits: ClientLimits;
  /** `create`s, one at a time (see TerminalStartQueue). */
  readonly #starts = new TerminalStartQueue();
  /** Request lines of every connection, handled in turns (see RequestTurns). */
  readonly #turns = new RequestTurns();
  /** Fires when the next token still good expires, to cut off its connections (see #cutOffLapsedTokens). */
  #expiryTimer: NodeJS.Timeout | undefined;
  readonly #tokensWatch: IDisposable;

  constructor(options: ControlServerOptions) {
    this.#options = options;
    this.#logger = options.logger;
    // Beside the bus log: in the data dir (kept across restarts), else in memory.
    const logDir = options.dataDir ?? (options.ownsSocketDirectory ? dirname(options.socketPath) : null);
    this.audit = new AuditLog({
      filePath: logDir === null ? null : join(logDir, auditLogFileName),
      logger: options.logger.child('audit'),
      terminalName: (id) => options.ptyHost.get(id)?.info.name,
    });
    this.commandLog = new CommandLog({ ptyHost: options.ptyHost });
    this.#input = new TerminalInput({ logger: options.logger, sentInput: this.#sentInput });
    this.typingGuard = new TypingGuard({ idleMs: options.agentSendIdleMs ?? (() => defaultSettings.agentSendIdleMs), logger: options.logger });
    this.exec = new ExecRunner({ commandLog: this.commandLog, input: this.#input, typingGuard: this.typingGuard, sentInput: this.#sentInput, logger: options.logger });
    this.#waiter = new TerminalWaiter({ commandLog: this.commandLog, sentInput: this.#sentInput, logger: options.logger });
    const services: ControlServices = {
      ptyHost: options.ptyHost,
      commandLog: this.commandLog,
      audit: this.audit,
      exec: this.exec,
      input: this.#input,
      waiter: this.#waiter,
      typingGuard: this.typingGuard,
      logger: options.logger,
      version: options.version,
      workspaceFolders: options.workspaceFolders,
      startedAt: this.#startedAt,
      servers: () => this.sockets,
      commandNames: () => this.#registry.names,
      reveal: (id, preserveFocus) => options.onReveal?.({ id, preserveFocus }),
      focusedTerminalId: () => options.focusedTerminalId?.() ?? null,
    };
    // claws' worker bookkeeping (correlation ids, monitors): its commands and the bus's topics share it.
    const workers = new ClawsWorkers();
    this.#registry.registerAll(clawsCommands(services, { workers, publish: (topic, payload) => this.bus.publishFromServer(topic, payload) }));
    this.#registry.registerAll(clawsWorkerCommands(workers, options.ptyHost));
    this.#registry.registerAll(clawsUnsupportedCommands());
    this.#registry.registerAll(terminalCommands(services));
    this.bus = new Bus({
      ptyHost: options.ptyHost,
      commandLog: this.commandLog,
      log: new BusLog({ filePath: logDir === null ? null : join(logDir, busLogFileName), logger: options.logger.child('bus') }),
      logger: options.logger.child('bus'),
      workers,
      isCutOff: (connection) => this.#access.isCutOff(connection),
    });
    this.#registry.registerAll(trackPeerCommands(busCommands(this.bus), this.#peers));
    this.tasks = new TaskRegistry({
      filePath: logDir === null ? null : join(logDir, tasksFileName),
      publish: (topic, payload) => this.bus.publishFromServer(topic, payload),
      logger: options.logger.child('tasks'),
    });
    // claws' rule: a worker that goes fails its open tasks.
    this.#peers.onDidLeave((peerId) => this.tasks.failOpenTasksOf(peerId));
    this.#registry.registerAll(taskCommands({ tasks: this.tasks, bus: this.bus, peers: this.#peers, services }));
    this.#access = new ConnectionAccess({
      tokens: options.tokens,
      enforced: options.tokenAuthEnabled ?? (() => false),
      terminalExists: (id) => options.ptyHost.get(id) !== undefined,
    });
    // Revoking a token cuts off the connections that use it at once: their requests are refused
    // (checked on every request) and their subscriptions end, so no more output reaches them.
    this.#tokensWatch = options.tokens.onDidChange(() => this.#cutOffLapsedTokens());
    this.#limits = new ClientLimits({
      ptyHost: options.ptyHost,
      limits: options.terminalLimits ?? (() => ({ total: defaultSettings.socketMaxTerminals, perClient: defaultSettings.socketMaxTerminalsPerClient })),
    });
    this.#registry.registerAll(tokenCommands({ tokens: options.tokens, access: this.#access }));
    if (options.review) this.#registry.registerAll(reviewCommands(options.review));
    if (options.history) this.#registry.registerAll(historyCommands(options.history, services));
    if (options.workspaces) this.#registry.registerAll(workspaceCommands(options.workspaces));
  }

  /**
   * Bind the main socket (failure is fatal: a live server there, a path we cannot use) and the
   * claws compatibility sockets (failure is logged and that socket skipped: a claws extension
   * may own it, or the workspace may be read-only).
   */
  async listen(): Promise<void> {
    if (this.#state !== 'new') throw new Error(`ControlServer.listen() called in state ${this.#state}`);
    this.commandLog.start();
    await this.audit.load();
    await this.bus.start();
    await this.tasks.load();
    if (this.#isDisposed()) return;
    this.#scheduleExpiry();
    const main = await UnixSocketListener.listen({
      path: this.#options.socketPath,
      ownsDirectory: this.#options.ownsSocketDirectory,
      onConnection: (socket) => this.#accept(socket, this.#options.socketPath),
    });
    if (this.#isDisposed()) {
      main.dispose();
      return;
    }
    this.#listeners.push({ listener: main, workspace: null });
    this.#logger.info('control socket listening', { socket: main.path });

    const compat = this.#options.clawsCompatSockets ?? true;
    if (typeof compat === 'function' ? compat() : compat) {
      for (const workspace of this.#options.workspaceFolders) {
        const path = clawsSocketPath(workspace);
        try {
          // `.claws` comes with the repository: a link there would have us chmod and bind in some other folder.
          const listener = await UnixSocketListener.listen({ path, ownsDirectory: true, refuseLinkedDirectory: true, onConnection: (socket) => this.#accept(socket, path) });
          if (this.#isDisposed()) {
            listener.dispose();
            return;
          }
          this.#listeners.push({ listener, workspace });
          this.#logger.info('claws compatibility socket listening', { socket: path });
        } catch (error) {
          this.#logger.warn('claws compatibility socket not available', { socket: path, error: (error as Error).message });
        }
      }
    }
    this.#state = 'listening';
  }

  /** Every socket this server listens on. */
  get sockets(): ListeningSocket[] {
    return this.#listeners.map(({ listener, workspace }) => ({ workspace, socket: listener.path }));
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Add a command (the claws/2 bus and later features plug in here). */
  registerCommand(command: ControlCommand): void {
    this.#registry.register(command);
  }

  dispose(): void {
    if (this.#state === 'disposed') return;
    this.#state = 'disposed';
    this.#tokensWatch.dispose();
    clearTimeout(this.#expiryTimer);
    for (const { listener } of this.#listeners) listener.dispose();
    this.#listeners.length = 0;
    for (const connection of [...this.#connections]) connection.dispose();
    this.#connections.clear();
    this.tasks.dispose();
    this.#peers.dispose();
    this.bus.dispose();
    this.exec.dispose();
    this.#waiter.dispose();
    this.#sentInput.dispose();
    this.#input.dispose();
    this.typingGuard.dispose();
    this.commandLog.dispose();
    this.audit.dispose();
  }

  /**
   * The access rules changed (token auth switched on by the Hub's settings): connections that may
   * no longer receive anything lose their subscriptions at once.
   */
  accessChanged(): void {
    this.#cutOffLapsedTokens();
  }

  /**
   * End the subscriptions of every connection that is cut off (its token revoked or expired, or
   * auth on and no token); then wait for the next expiry.
   */
  #cutOffLapsedTokens(): void {
    if (this.#isDisposed()) return;
    for (const connection of this.#connections) {
      if (!this.#access.isCutOff(connection)) continue;
      const closed = this.bus.closeSubscriptionsOf(connection);
      if (closed > 0) this.#logger.info('connection no longer authorised: ended its subscriptions', { connection: connection.connectionId, subscriptions: closed });
    }
    this.#scheduleExpiry();
  }

  #scheduleExpiry(): void {
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    const next = this.#options.tokens.nextExpiry();
    if (next === null || this.#isDisposed()) return;
    // A timer longer than 2^31-1 ms fires at once; a far expiry is re-checked when that one fires.
    const delay = Math.min(Math.max(next - Date.now(), 0) + 1, 2 ** 31 - 1);
    this.#expiryTimer = setTimeout(() => this.#cutOffLapsedTokens(), delay);
    this.#expiryTimer.unref();
  }

  #isDisposed(): boolean {
    return this.#state === 'disposed';
  }

  #accept(socket: Socket, socketPath: string): void {
    if (this.#isDisposed()) {
      socket.destroy();
      return;
    }
    const connection = new ControlConnection({
      id: this.#nextConnectionId++,
      socket,
      socketPath,
      dispatch: (request, from) => this.#dispatch(request, from),
      logger: this.#logger,
      turns: this.#turns,
    });
    this.#connections.add(connection);
    const busClient = this.bus.attach(connection, () => socket.writableLength);
    connection.onDidClose(() => {
      this.#connections.delete(connection);
      busClient.dispose();
    });
  }

  async #dispatch(request: ControlRequest, connection: ControlConnection): Promise<RequestOutcome> {
    if (this.#logger.isEnabled('trace')) this.#logger.trace('control request', { connection: connection.connectionId, id: request.id, cmd: request.cmd });
    // claws/2 clients authenticate in `hello`; a bad token there fails before the hello runs.
    if (request.cmd === 'hello' && request.fields.token !== undefined) {
      const token = request.fields.token;
      if (typeof token !== 'string' || !this.#access.authenticate(connection, token).ok) return { ok: false, error: AuthErrors.invalid, code: 'UNAUTHORIZED' };
    }
    const access = this.#access.check(connection, request);
    if (!access.ok) return { ok: false, error: access.error, code: access.code ?? 'UNAUTHORIZED' };
    const command = this.#registry.get(request.cmd);
    if (!command) return { ok: false, error: ProtocolErrors.unknownCommand(request.cmd), code: 'UNKNOWN_METHOD' };
    const parsed = command.params.safeParse(request.fields);
    if (!parsed.success) return { ok: false, error: formatZodIssues(parsed.error), code: 'INVALID_PARAMS' };
    let answered: ((openedTerminalId: string | undefined) => void) | undefined;
    try {
      answered = this.#limits.admit(request.cmd, connection);
      const context = { requestId: request.id, cmd: request.cmd, peer: connection };
      const body = request.cmd === 'create' ? await this.#starts.run(async () => command.run(parsed.data, context)) : await command.run(parsed.data, context);
      const opened = request.cmd === 'create' ? body.id : request.cmd === 'agent.start' ? body.terminalId : undefined;
      answered(typeof opened === 'string' ? opened : undefined);
      return { ok: true, body: filterBodyForToken(this.#access.tokenOf(connection), request.cmd, body) };
    } catch (error) {
      answered?.(undefined);
      if (error instanceof ControlError) return { ok: false, error: error.message, code: error.code, details: error.details };
      if (isApiError(error)) return { ok: false, error: error.message, code: error.code };
      this.#logger.error('control command failed', { cmd: request.cmd, connection: connection.connectionId, error });
      return { ok: false, error: error instanceof Error ? error.message : String(error), code: 'INTERNAL' };
    }
  }
}

/** The claws/2 bus's replay log in the data dir. */
export const busLogFileName = 'bus-log.ndjson';

/** Where claws clients look for a workspace's socket. */
export function clawsSocketPath(workspace: string): string {
  return join(workspace, '.claws', 'claws.sock');
}
