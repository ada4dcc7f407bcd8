/**
 * The lock-file IDE bridge: Switchboard plays the IDE for Claude Code (claude-ide.md). A WebSocket
 * MCP server on 127.0.0.1 (an ephemeral port, kept for the app's lifetime: the CLI never
 * reconnects), a lock file that tells CLIs where it is, and one IdeConnection per connected CLI.
 * The Hub exports the port to every PTY (CLAUDE_CODE_SSE_PORT), so a CLI started in a pane
 * connects here whatever its working directory.
 *
 * Owned by the Hub. The constructor does no I/O; `listen()` removes stale lock files of ours,
 * binds the port and writes the lock file; `dispose()` disconnects every client (withdrawing their
 * pending reviews), closes the port and removes the lock file.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { IdeState, OpenFileRequest } from '../../common/api/reviewContract.ts';
import { IdeConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { ReviewQueue } from '../review/reviewQueue.ts';
import { closeHttpServer, listenOn, refuseUpgrade } from '../server/httpKit.ts';
import type { EditorState } from './editorState.ts';
import { IdeConnection } from './ideConnection.ts';
import { lockFileExists, lockFilePath, prepareLockDir, removeOwnLockFile, removeStaleLockFiles, writeLockFile } from './lockFile.ts';
import { findAncestor } from './processTree.ts';
import { checkUpgrade, ideSubprotocol } from './upgradeGuard.ts';

export interface IdeBridgeOptions {
  queue: ReviewQueue;
  editors: EditorState;
  ptyHost: PtyHost;
  workspaceFolders: readonly string[];
  /** Where lock files go (`<config dir>/ide`); null: listen, but write no lock file. */
  lockDir: string | null;
  version: string;
  logger: ILogger;
  /** Ask the UI to open a file tab (`openFile`). */
  openFile(request: OpenFileRequest): void;
  /** Write a file tab's text (`saveDocument`) unless the file's mtime is no longer `expectedMtimeMs`, and tell the UI. */
  saveEditorText(path: string, text: string, expectedMtimeMs: number | undefined): Promise<void>;
  /** Keepalive timing; default IdeConstants.pingIntervalMs / pongTimeoutMs (tests shorten them). */
  keepalive?: { pingIntervalMs: number; pongTimeoutMs: number };
  /** The port to bind on each attempt (1, 2, …); default 0, the OS picks. Tests aim it at a port that has a lock file. */
  choosePort?: (attempt: number) => number;
}

/** Clients connected at once; more is not a CLI population but a runaway loop. */
const maxClients = 64;
/** How long a graceful shutdown waits for withdrawn openDiff calls to be answered. */
const shutdownAnswerMs = 1_000;
/** Ports tried before giving up on a lock file (each one passed over had someone else's lock file). */
const maxPortAttempts = 8;

export class IdeBridge implements IDisposable {
  readonly #options: IdeBridgeOptions;
  readonly #logger: ILogger;
  readonly #authToken = randomBytes(16).toString('hex');
  readonly #connections = new Set<IdeConnection>();
  readonly #listeners: IDisposable[] = [];
  #http: HttpServer | null = null;
  #webSockets: WebSocketServer | null = null;
  #port: number | null = null;
  #lockFile: string | null = null;
  #keepalive: NodeJS.Timeout | undefined;
  #nextClientId = 1;
  #state: 'new' | 'listening' | 'disposed' = 'new';

  readonly #onDidChangeState = new Emitter<IdeState>();
  /** Clients came, went, were matched to a pane, or their pending reviews changed. */
  readonly onDidChangeState: Event<IdeState> = this.#onDidChangeState.event;

  constructor(options: IdeBridgeOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  async listen(): Promise<void> {
    if (this.#state !== 'new') throw new Error(`IdeBridge.listen() called in state ${this.#state}`);
    const lockDir = await this.#usableLockDir();
    if (lockDir) {
      const removed = await removeStaleLockFiles(lockDir);
      if (removed.length > 0) this.#logger.info('removed stale IDE lock files', { removed });
    }
    const webSockets = new WebSocketServer({
      noServer: true,
      maxPayload: IdeConstants.maxFrameBytes,
      handleProtocols: (protocols) => (protocols.has(ideSubprotocol) ? ideSubprotocol : false),
    });
    const { http, port, lockFree } = await this.#bind(lockDir);
    this.#http = http;
    this.#webSockets = webSockets;
    this.#port = port;
    if (this.#state !== 'new') return this.#closeServer(); // disposed while binding
    this.#state = 'listening';
    this.#keepalive = setInterval(() => this.#checkAlive(), this.#options.keepalive?.pingIntervalMs ?? IdeConstants.pingIntervalMs);
    this.#keepalive.unref();
    this.#listeners.push(
      this.#options.editors.onDidChangeSelection((selection) => {
        for (const connection of this.#connections) void connection.notify('selection_changed', { ...selection });
      }),
      this.#options.ptyHost.onDidChangeTerminal((info) => {
        for (const connection of this.#connections) {
          if (connection.terminalId === info.id && connection.info.terminalName !== info.name) connection.updatePane({ terminalId: info.id, terminalName: info.name });
        }
      }),
    );
    if (lockDir && lockFree) {
      try {
        this.#lockFile = await writeLockFile(lockDir, this.#port, {
          pid: process.pid,
          workspaceFolders: [...this.#options.workspaceFolders],
          ideName: IdeConstants.ideName,
          transport: 'ws',
          runningInWindows: process.platform === 'win32',
          authToken: this.#authToken,
        });
        if (this.#state !== 'listening') this.#removeLockFile(); // disposed while writing
      } catch (error) {
        // The bridge still works for CLIs started in our panes (CLAUDE_CODE_SSE_PORT), but /ide elsewhere will not find the app.
        const why = (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'a lock file that is not ours appeared at our port (not replaced)' : String(error);
        this.#logger.warn('cannot write the IDE lock file; Claude Code outside Switchboard panes will not find the app', { lockFile: lockFilePath(lockDir, this.#port), error: why });
      }
    }
    this.#logger.info('IDE bridge listening', { port: this.#port, lockFile: this.#lockFile });
  }

  /** The lock directory once it is safe to use (see prepareLockDir), or null: then the bridge runs without a lock file. */
  async #usableLockDir(): Promise<string | null> {
    const { lockDir } = this.#options;
    if (!lockDir) return null;
    try {
      const { tightenedFrom } = await prepareLockDir(lockDir);
      if (tightenedFrom !== null) {
        this.#logger.warn('the IDE lock directory was writable by other users; removed their write permission', { lockDir, mode: tightenedFrom.toString(8) });
      }
      return lockDir;
    } catch (error) {
      this.#logger.warn('cannot use the IDE lock directory; listening without a lock file; Claude Code outside Switchboard panes will not find the app', { lockDir, error: (error as Error).message });
      return null;
    }
  }

  /**
   * Bind 127.0.0.1 on a port that has no lock file yet. Stale lock files of ours are gone by now, so
   * one at the port the OS gave us is another app's (an IDE that exited without cleaning up, or
   * one written by someone who wants our clients): writing ours over it would silently take its
   * place. Such a port is kept bound until we have another, so the OS does not hand it back.
   */
  async #bind(lockDir: string | null): Promise<{ http: HttpServer; port: number; lockFree: boolean }> {
    const passedOver: HttpServer[] = [];
    try {
      for (let attempt = 1; ; attempt++) {
        const http = createServer((_request, response) => {
          response.writeHead(426, { 'Content-Type': 'text/plain', Connection: 'close' }).end('Switchboard IDE bridge: WebSocket (subprotocol mcp) only\n');
        });
        http.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => this.#upgrade(request, socket, head));
        http.on('clientError', (_error, socket) => socket.destroy());
        const { port } = await listenOn(http, this.#options.choosePort?.(attempt) ?? 0, '127.0.0.1');
        if (!lockDir || !(await lockFileExists(lockDir, port))) return { http, port, lockFree: true };
        if (attempt >= maxPortAttempts) {
          this.#logger.warn('every port tried has a lock file that is not ours; listening without a lock file; Claude Code outside Switchboard panes will not find the app', { lockFile: lockFilePath(lockDir, port), attempts: attempt });
          return { http, port, lockFree: false };
        }
        this.#logger.warn('a lock file that is not ours is at the port we were given; leaving it alone and taking another port', { lockFile: lockFilePath(lockDir, port) });
        passedOver.push(http);
      }
    } finally {
      for (const http of passedOver) void closeHttpServer(http);
    }
  }

  /** The port CLIs connect to (CLAUDE_CODE_SSE_PORT); null before `listen()`. */
  get port(): number | null {
    return this.#port;
  }

  get lockFile(): string | null {
    return this.#lockFile;
  }

  get state(): IdeState {
    return { port: this.#port, lockFile: this.#lockFile, clients: [...this.#connections].map((connection) => connection.info) };
  }

  /** The connected Claude Code running in this pane, if any (the most recent one). */
  clientInTerminal(terminalId: string): IdeConnection | undefined {
    return [...this.#connections].reverse().find((connection) => connection.terminalId === terminalId);
  }

  /**
   * "Send to Claude" for a file: `at_mentioned` to the Claude Code running in that pane (lines
   * 0-based). false when no connected client runs there (the caller pastes instead).
   */
  async atMention(terminalId: string, mention: { filePath: string; lineStart?: number | undefined; lineEnd?: number | undefined }): Promise<boolean> {
    const client = this.clientInTerminal(terminalId);
    if (!client) return false;
    const params: Record<string, unknown> = { filePath: mention.filePath };
    if (mention.lineStart !== undefined) params.lineStart = mention.lineStart;
    if (mention.lineEnd !== undefined) params.lineEnd = mention.lineEnd;
    return client.notify('at_mentioned', params);
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  /**
   * Before the app quits: every connected CLI's pending reviews are withdrawn and their openDiff
   * calls answered (DIFF_REJECTED), instead of the connection just dropping under them.
   */
  async shutdown(): Promise<void> {
    if (this.#state !== 'listening') return;
    await Promise.all([...this.#connections].map((connection) => connection.withdrawAll('shutdown', shutdownAnswerMs)));
  }

  dispose(): void {
    if (this.#state === 'disposed') return;
    this.#state = 'disposed';
    clearInterval(this.#keepalive);
    for (const listener of this.#listeners) listener.dispose();
    for (const connection of [...this.#connections]) connection.dispose();
    this.#connections.clear();
    this.#closeServer();
    this.#removeLockFile();
    this.#onDidChangeState.dispose();
  }

  #upgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    const decision = this.#state !== 'listening' ? { ok: false as const, status: 503, reason: 'shutting down' } : checkUpgrade(request.headers, this.#authToken);
    if (!decision.ok) {
      this.#logger.warn('refused an IDE bridge connection', { status: decision.status, reason: decision.reason, userAgent: request.headers['user-agent'] ?? null });
      return refuseUpgrade(socket, decision.status, decision.reason);
    }
    if (this.#connections.size >= maxClients) return refuseUpgrade(socket, 503, 'too many IDE clients');
    this.#webSockets!.handleUpgrade(request, socket, head, (webSocket) => this.#accept(webSocket));
  }

  #accept(socket: WebSocket): void {
    if (this.#state !== 'listening') {
      socket.terminate();
      return;
    }
    const { queue, editors, workspaceFolders, version, openFile, saveEditorText } = this.#options;
    const connection = new IdeConnection({
      id: `ide-${this.#nextClientId++}`,
      socket,
      services: {
        queue,
        editors,
        workspaceFolders,
        serverVersion: version,
        logger: this.#logger,
        findPane: (pid) => this.#findPane(pid),
        openFile,
        saveEditorText,
      },
    });
    this.#connections.add(connection);
    connection.onDidChange(() => this.#fireState());
    connection.onDidClose(() => {
      this.#connections.delete(connection);
      this.#fireState();
    });
    connection.start().catch((error: unknown) => {
      this.#logger.warn('IDE connection failed to start', { error: String(error) });
      connection.dispose();
    });
    this.#logger.info('IDE client connected', { client: connection.id });
    this.#fireState();
  }

  async #findPane(pid: number): Promise<{ terminalId: string; terminalName: string } | null> {
    const shells = new Map<number, { terminalId: string; terminalName: string }>();
    for (const info of this.#options.ptyHost.list()) {
      if (info.pid !== null && info.state === 'running') shells.set(info.pid, { terminalId: info.id, terminalName: info.name });
    }
    return shells.size === 0 ? null : findAncestor(pid, shells);
  }

  /** Ping every client; one that has not been heard from for pongTimeoutMs is gone (killed without a close frame). */
  #checkAlive(): void {
    const now = Date.now();
    for (const connection of [...this.#connections]) {
      if (now - connection.lastSeenAt > (this.#options.keepalive?.pongTimeoutMs ?? IdeConstants.pongTimeoutMs)) {
        this.#logger.info('IDE client stopped answering pings; closing it', { client: connection.id });
        connection.dispose();
        continue;
      }
      try {
        connection.socket.ping();
      } catch {
        connection.dispose();
      }
    }
  }

  #fireState(): void {
    if (this.#state === 'disposed') return;
    this.#onDidChangeState.fire(this.state);
  }

  #closeServer(): void {
    if (this.#http) void closeHttpServer(this.#http, this.#webSockets ?? undefined);
  }

  #removeLockFile(): void {
    if (this.#lockFile === null) return;
    try {
      // Only while it still holds our pid and token: another app may have put its own at our port since.
      if (removeOwnLockFile(this.#lockFile, { pid: process.pid, authToken: this.#authToken }) === 'not ours') {
        this.#logger.warn('the IDE lock file at our port is no longer ours; leaving it', { lockFile: this.#lockFile });
      }
    } catch (error) {
      this.#logger.warn('cannot remove the IDE lock file', { lockFile: this.#lockFile, error: String(error) });
    }
    this.#lockFile = null;
  }
}
