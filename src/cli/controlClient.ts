/**
 * A small client of Switchboard's control socket (claws/1 NDJSON over a Unix socket), used by the
 * CLI verbs and by `switchboard mcp`. One connection, opened lazily and reopened after it drops;
 * requests carry a unique request id and the terminal in `terminalId`, and answers are matched by
 * `rid`, so several requests may be in flight at once (a long `exec` does not block a `list`).
 * Every answer is checked with zod before anyone reads it.
 */
import { statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { IDisposable } from '../common/lifecycle.ts';
import { controlCommands, type ControlCommandName, type ControlRequestParams, type ControlResult } from '../common/protocol/control/commands.ts';
import { ProtocolV1, PushFrame, ResponseEnvelope } from '../common/protocol/control/wire.ts';
import { controlSocketPath, resolveDataDir } from '../node/paths.ts';

export const ControlClientConstants = {
  /** Quick commands (list, send, close…) answer at once; this only catches a hung server. */
  defaultRequestTimeoutMs: 15_000,
  /** The server's own `exec` timeout when the request does not name one (claws.md). */
  serverExecTimeoutMs: 180_000,
  /**
   * exec and wait carry their own timeout to the server; the client waits this much longer so the
   * server's precise answer ("exec timeout after N ms", `matched:false`) wins the race.
   */
  serverTimeoutGraceMs: 5_000,
  /**
   * Ceiling on one unanswered line from the server. Real answers stay far below it (exec output is
   * capped at 256 KiB, readLog at 512 KiB, before JSON escaping); past it the server is broken.
   */
  maxResponseLineBytes: 64 * 1024 * 1024,
} as const;

export type ControlErrorCode =
  /** No socket file, or nobody listening on it. */
  | 'NOT_RUNNING'
  /** The socket exists but this user may not connect to it. */
  | 'PERMISSION_DENIED'
  /** The server answered `ok:false`; the message is the server's own. */
  | 'SERVER_ERROR'
  /** A terminal reference matched nothing, or more than one terminal. */
  | 'UNKNOWN_TERMINAL'
  | 'AMBIGUOUS_TERMINAL'
  | 'TIMEOUT'
  | 'CONNECTION_CLOSED'
  /** The server answered something this client cannot read (a protocol mismatch). */
  | 'BAD_RESPONSE';

export class ControlClientError extends Error {
  readonly code: ControlErrorCode;
  /** For SERVER_ERROR: the server's own error code when it sent one (`NOT_FOUND`, `TIMEOUT`, …). */
  readonly serverCode: string | undefined;
  /**
   * For SERVER_ERROR: what the server said beside the error (an exec that timed out sends the
   * output so far and the pane's last line; one whose shell exited, its exit code).
   */
  readonly details: Record<string, unknown>;
  constructor(code: ControlErrorCode, message: string, serverCode?: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ControlClientError';
    this.code = code;
    this.serverCode = serverCode;
    this.details = details;
  }
}

export function notRunningMessage(socketPath: string): string {
  return `Switchboard is not running (no control socket at ${socketPath}). Start it with \`npm start\` or \`switchboard serve\`.`;
}

/** `--socket` if given, else `$SWITCHBOARD_SOCKET`, else `<data dir>/control.sock` (DESIGN.md §3). */
export function resolveControlSocketPath(options: { socketFlag?: string; env: NodeJS.ProcessEnv; cwd: string }): string {
  if (options.socketFlag !== undefined && options.socketFlag.length > 0) return resolve(options.cwd, options.socketFlag);
  const dataDir = resolveDataDir({ env: options.env, platform: process.platform, homeDir: homedir() });
  return controlSocketPath(dataDir, options.env);
}

// ---- answers ----------------------------------------------------------------------------
// Every answer is parsed with its command's result schema from the protocol's table
// (src/common/protocol/control/commands.ts). Results are loose objects: the server may add fields
// (claws compatibility fields, later extensions), and a newer server must not break an older CLI.

export type ControlTerminal = ControlResult<'list'>['terminals'][number];
/** The command's event, and `personTyped` when a person typed into the terminal while it ran (their echoed keys are in `output`). */
export type ExecEvent = ControlResult<'exec'>['event'] & { personTyped?: true };
export type ReadLogResult = ControlResult<'readLog'>;
export type ReadScreenResult = ControlResult<'readScreen'>;
export type SendResult = ControlResult<'send'>;
/** What `auth` answers about the token: the CLI explains a refusal with it (a token limited to terminals that are gone). */
export type AuthenticatedToken = ControlResult<'auth'>['token'];
export type { PushFrame };

/** A wait's outcome; a timeout is `{matched: false}`, not an error. */
export interface WaitResult {
  matched: boolean;
  /** Which condition ended the wait: `pattern`, `exit`, `idle`, `prompt`, `agentState` or `port`. */
  condition?: string;
  text?: string;
  offset?: number;
  exitCode?: number | null;
  signal?: string | null;
  commandLine?: string;
  /** agentState: the pane's agent as it is now. */
  agent?: ControlResult<'wait'>['agent'];
  /** port: the dev server listening on it. */
  server?: ControlResult<'wait'>['server'];
}

// ---- request parameter types --------------------------------------------------------------

export interface CreateRequest {
  name?: string;
  cwd?: string;
  shellPath?: string;
  shellArgs?: string[];
  env?: Record<string, string>;
}
export interface SendRequest {
  text: string;
  newline?: boolean;
  paste?: boolean;
}
export interface ReadLogRequest {
  offset?: number;
  limit?: number;
  strip?: boolean;
}
export interface WaitRequest {
  pattern?: string;
  /** Regex flags for `pattern` (the server allows i, m, s and u). */
  flags?: string;
  /** Count output from this offset on (e.g. a `send` answer's offset), closing the act-then-wait race. */
  since?: number;
  exit?: boolean;
  idleMs?: number;
  prompt?: boolean;
  /** The pane's agent is in (or enters) one of these states. */
  agentState?: Array<'working' | 'needs-input' | 'idle' | 'exited'>;
  /** A process of the pane listens on this TCP port. */
  port?: number;
  timeoutMs: number;
}

export interface ControlClientOptions {
  socketPath: string;
  /** Sent as `clientName`; the server logs it and the audit log shows it. */
  clientName: string;
  clientVersion?: string;
  requestTimeoutMs?: number;
  /** A control token (`sbt_…`): sent with `auth` first on every connection, for servers with token auth on. */
  token?: string | undefined;
}

interface PendingRequest {
  resolve(body: Record<string, unknown>): void;
  reject(error: ControlClientError): void;
  timer: NodeJS.Timeout;
}

export class ControlClient implements IDisposable {
  readonly socketPath: string;
  #clientName: string;
  #clientVersion: string | undefined;
  readonly #requestTimeoutMs: number;
  readonly #token: string | undefined;
  /** The `auth` request of each connection, which every other request on it waits for. */
  readonly #authentications = new WeakMap<Socket, Promise<unknown>>();
  #authenticatedToken: AuthenticatedToken | undefined;
  #socket: Socket | undefined;
  #connecting: Promise<Socket> | undefined;
  #buffer = '';
  #nextRequest = 1;
  #pending = new Map<string, PendingRequest>();
  #disposed = false;
  readonly #pushListeners = new Set<(frame: PushFrame) => void>();
  readonly #closeListeners = new Set<(reason: string) => void>();
  /** Request ids unique across processes too, so a server log can tell two CLI runs apart. */
  readonly #requestPrefix = `${process.pid.toString(36)}.${Date.now().toString(36)}.`;

  /**
   * Name later requests after someone else (the MCP client this process serves, once it said who
   * it is), so the app credits the right agent.
   */
  setClient(name: string, version?: string): void {
    this.#clientName = name;
    this.#clientVersion = version;
  }

  constructor(options: ControlClientOptions) {
    this.socketPath = options.socketPath;
    this.#clientName = options.clientName;
    this.#clientVersion = options.clientVersion;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? ControlClientConstants.defaultRequestTimeoutMs;
    this.#token = options.token;
  }

  /**
   * Send one command and resolve with the response body (the envelope minus `id`, `rid`,
   * `protocol`, `ok`). Rejects with a ControlClientError: the server's `error` string as
   * SERVER_ERROR, or NOT_RUNNING / TIMEOUT / CONNECTION_CLOSED / BAD_RESPONSE.
   */
  async request(cmd: string, fields: Record<string, unknown> = {}, options: { timeoutMs?: number } = {}): Promise<Record<string, unknown>> {
    const { id, protocol: _protocol, ...body } = await this.#exchange(cmd, fields, options);
    // `create` answers the new terminal id in the envelope's `id`; keep it in the body.
    return typeof id === 'string' || typeof id === 'number' ? { id, ...body } : body;
  }

  /** One request; resolves with the answer line minus `rid` and `ok` (its `id` and `protocol` may be the body's). */
  async #exchange(cmd: string, fields: Record<string, unknown>, options: { timeoutMs?: number }): Promise<Record<string, unknown>> {
    if (this.#disposed) throw new ControlClientError('CONNECTION_CLOSED', 'the control client is closed');
    const socket = await this.#connect();
    if (this.#token !== undefined && cmd !== 'auth') {
      let authentication = this.#authentications.get(socket);
      if (!authentication) {
        authentication = this.request('auth', { token: this.#token }).then((body) => {
          const parsed = controlCommands.auth.result.safeParse(body);
          this.#authenticatedToken = parsed.success ? parsed.data.token : undefined;
        });
        this.#authentications.set(socket, authentication);
      }
      await authentication;
    }
    const id = this.#requestPrefix + String(this.#nextRequest++);
    const timeoutMs = options.timeoutMs ?? this.#requestTimeoutMs;
    // `fields` may name another protocol (the claws/2 bus's `hello` must say claws/2).
    const frame: Record<string, unknown> = { protocol: ProtocolV1, ...fields, id, cmd, clientName: this.#clientName };
    if (this.#clientVersion) frame.clientVersion = this.#clientVersion;
    return new Promise((resolvePromise, rejectPromise) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        rejectPromise(new ControlClientError('TIMEOUT', `no answer from Switchboard to ${cmd} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve: resolvePromise, reject: rejectPromise, timer });
      socket.write(JSON.stringify(frame) + '\n');
    });
  }

  /**
   * Send one command of the protocol's table and resolve with its answer, parsed with the table's
   * result schema (BAD_RESPONSE when it does not fit). Fields left undefined are not sent.
   */
  async call<C extends ControlCommandName>(cmd: C, params: ControlRequestParams<C>, options: { timeoutMs?: number } = {}): Promise<ControlResult<C>> {
    const fields = typeof params === 'object' && params !== null ? withoutUndefined(params as Record<string, unknown>) : {};
    const { id, protocol, ...body } = await this.#exchange(cmd, fields, options);
    // The envelope's `id` and `protocol` are the body's when it has fields of those names (claws'
    // rule: `create`'s new terminal id, `hello`'s claws/2): keep them for the results that declare them.
    const result = controlCommands[cmd].result;
    const declared = 'shape' in result ? (result.shape as Record<string, unknown>) : {};
    if ('id' in declared) body.id = id;
    if ('protocol' in declared) body.protocol = protocol;
    const parsed = result.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      throw new ControlClientError('BAD_RESPONSE', `unexpected answer to ${cmd} from the control socket${where}: ${issue?.message ?? 'invalid'}`);
    }
    return parsed.data as ControlResult<C>;
  }

  /** The token this client authenticated with, as the server described it (undefined: no token, or not yet used). */
  get authenticatedToken(): AuthenticatedToken | undefined {
    return this.#authenticatedToken;
  }

  async list(): Promise<ControlTerminal[]> {
    return (await this.call('list', {})).terminals;
  }

  async create(params: CreateRequest = {}): Promise<string> {
    return (await this.call('create', params)).id;
  }

  async send(terminalId: string, params: SendRequest): Promise<SendResult> {
    return await this.call('send', { terminalId, ...params });
  }

  async exec(terminalId: string, command: string, timeoutMs?: number): Promise<ExecEvent> {
    const serverTimeout = timeoutMs ?? ControlClientConstants.serverExecTimeoutMs;
    const answer = await this.call('exec', { terminalId, command, timeoutMs }, { timeoutMs: serverTimeout + ControlClientConstants.serverTimeoutGraceMs });
    return answer.personTyped ? { ...answer.event, personTyped: true } : answer.event;
  }

  async readLog(terminalId: string, params: ReadLogRequest = {}): Promise<ReadLogResult> {
    return await this.call('readLog', { terminalId, ...params });
  }

  /**
   * The rendered screen; with `scrollbackLines`, also up to that many lines from above it (the
   * server sends the whole scrollback on request; the client keeps what was asked for).
   */
  async readScreen(terminalId: string, scrollbackLines?: number): Promise<ReadScreenResult> {
    const wantScrollback = scrollbackLines !== undefined && scrollbackLines > 0;
    const screen = await this.call('readScreen', { terminalId, scrollback: wantScrollback ? true : undefined });
    if (!wantScrollback) return screen;
    const keep = screen.rows + scrollbackLines;
    return screen.lines.length > keep ? { ...screen, lines: screen.lines.slice(screen.lines.length - keep) } : screen;
  }

  async wait(terminalId: string, params: WaitRequest): Promise<WaitResult> {
    let answer: ControlResult<'wait'>;
    try {
      answer = await this.call('wait', { terminalId, ...params }, { timeoutMs: params.timeoutMs + ControlClientConstants.serverTimeoutGraceMs });
    } catch (error) {
      // The server answers a timeout as an error ("wait timeout after Nms"); for a waiter it is an outcome.
      if (isTimeoutError(error)) return { matched: false };
      throw error;
    }
    const result: WaitResult = { matched: true, condition: answer.matched };
    if (answer.text !== undefined) result.text = answer.text;
    if (answer.offset !== undefined) result.offset = answer.offset;
    if (answer.exitCode !== undefined) result.exitCode = answer.exitCode;
    if (answer.signal !== undefined) result.signal = answer.signal;
    if (answer.commandLine !== undefined) result.commandLine = answer.commandLine;
    if (answer.agent !== undefined) result.agent = answer.agent;
    if (answer.server !== undefined) result.server = answer.server;
    return result;
  }

  async close(terminalId: string): Promise<{ alreadyClosed: boolean }> {
    const { alreadyClosed } = await this.call('close', { terminalId });
    return { alreadyClosed };
  }

  async rename(terminalId: string, name: string): Promise<void> {
    await this.call('rename', { terminalId, name });
  }

  /**
   * claws/2 push frames (`{push: "message" | "caught-up", ...}`) that arrive on this client's
   * connection, after `hello` and `subscribe` were sent through `request`.
   */
  onPush(listener: (frame: PushFrame) => void): IDisposable {
    this.#pushListeners.add(listener);
    return { dispose: () => this.#pushListeners.delete(listener) };
  }

  /** The connection closed (subscriptions die with it; a later request opens a new one). */
  onConnectionClosed(listener: (reason: string) => void): IDisposable {
    this.#closeListeners.add(listener);
    return { dispose: () => this.#closeListeners.delete(listener) };
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#failPending(new ControlClientError('CONNECTION_CLOSED', 'the control client was closed'));
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  #connect(): Promise<Socket> {
    if (this.#socket) return Promise.resolve(this.#socket);
    this.#connecting ??= new Promise<Socket>((resolvePromise, rejectPromise) => {
      const socket = connect(this.socketPath);
      socket.setEncoding('utf8');
      const onConnectError = (error: NodeJS.ErrnoException) => {
        this.#connecting = undefined;
        socket.destroy();
        rejectPromise(connectError(this.socketPath, error));
      };
      socket.once('error', onConnectError);
      socket.once('connect', () => {
        socket.off('error', onConnectError);
        this.#connecting = undefined;
        if (this.#disposed) {
          socket.destroy();
          rejectPromise(new ControlClientError('CONNECTION_CLOSED', 'the control client was closed'));
          return;
        }
        this.#socket = socket;
        this.#buffer = '';
        socket.on('data', (chunk: string) => this.#onData(chunk));
        // 'close' always follows 'error', so the error only needs to reach the pending requests once.
        let lastError: Error | undefined;
        socket.on('error', (error) => (lastError = error));
        socket.on('close', () => {
          if (this.#socket === socket) this.#socket = undefined;
          const reason = lastError ? `: ${lastError.message}` : '';
          this.#failPending(new ControlClientError('CONNECTION_CLOSED', `Switchboard closed the control connection${reason}`));
          if (!this.#disposed) for (const listener of [...this.#closeListeners]) listener(`Switchboard closed the control connection${reason}`);
        });
        resolvePromise(socket);
      });
    });
    return this.#connecting;
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    if (this.#buffer.length > ControlClientConstants.maxResponseLineBytes) {
      this.#failPending(new ControlClientError('BAD_RESPONSE', 'the control socket sent an oversized line'));
      this.#socket?.destroy();
      return;
    }
    let newline: number;
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, newline).trim();
      this.#buffer = this.#buffer.slice(newline + 1);
      if (line.length > 0) this.#onLine(line);
    }
  }

  #onLine(line: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch {
      this.#failPending(new ControlClientError('BAD_RESPONSE', 'the control socket sent a line that is not JSON'));
      this.#socket?.destroy();
      return;
    }
    // Push frames (claws/2 bus) carry no rid and no ok: they go to onPush listeners.
    const push = PushFrame.safeParse(frame);
    if (push.success) {
      for (const listener of [...this.#pushListeners]) listener(push.data);
      return;
    }
    const parsed = ResponseEnvelope.safeParse(frame);
    if (!parsed.success) return;
    const envelope = parsed.data;
    if (envelope.rid === undefined) {
      // An answer with no rid is a connection-level error (bad json, request too large):
      // it concerns whatever was in flight.
      if (!envelope.ok) this.#failPending(new ControlClientError('SERVER_ERROR', envelope.error ?? 'request refused'));
      return;
    }
    const pending = this.#pending.get(String(envelope.rid));
    if (!pending) return;
    this.#pending.delete(String(envelope.rid));
    clearTimeout(pending.timer);
    if (!envelope.ok) {
      const { id: _eid, rid: _erid, protocol: _eprotocol, ok: _eok, code, error, ...details } = envelope;
      pending.reject(new ControlClientError('SERVER_ERROR', error ?? 'the request failed (no error message)', code, details));
      return;
    }
    const { rid: _rid, ok: _ok, code: _code, ...body } = envelope;
    pending.resolve(body);
  }

  #failPending(error: ControlClientError): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const request of pending) {
      clearTimeout(request.timer);
      request.reject(error);
    }
  }
}

/** A timeout of the client's own, or the server saying the exec or wait timed out. */
export function isTimeoutError(error: unknown): boolean {
  if (!(error instanceof ControlClientError)) return false;
  if (error.code === 'TIMEOUT') return true;
  // claws servers send no code, only their words: "exec timeout after Nms".
  return error.code === 'SERVER_ERROR' && (error.serverCode === 'TIMEOUT' || (error.serverCode === undefined && /\btime(d)? ?out\b/i.test(error.message)));
}

function connectError(socketPath: string, error: NodeJS.ErrnoException): ControlClientError {
  switch (error.code) {
    case 'ENOENT':
    case 'ECONNREFUSED':
    case 'ENOTDIR':
    case 'ENOTSOCK': {
      // A path that is there but is no socket (a typo in --socket naming a file) is not "not running".
      const kind = nonSocketKind(socketPath);
      if (kind) return new ControlClientError('NOT_RUNNING', `${socketPath} is ${kind}, not a control socket: check --socket or $SWITCHBOARD_SOCKET (Switchboard's is control.sock in its data directory)`);
      return new ControlClientError('NOT_RUNNING', notRunningMessage(socketPath));
    }
    case 'EACCES':
    case 'EPERM':
      return new ControlClientError('PERMISSION_DENIED', `permission denied connecting to the control socket at ${socketPath}`);
    default:
      return new ControlClientError('CONNECTION_CLOSED', `cannot connect to the control socket at ${socketPath}: ${error.message}`);
  }
}

/** "a regular file" or "a directory" when the path exists and is not a socket; undefined otherwise. */
function nonSocketKind(path: string): string | undefined {
  try {
    const stats = statSync(path);
    if (stats.isSocket()) return undefined;
    return stats.isDirectory() ? 'a directory' : stats.isFile() ? 'a regular file' : 'a special file (not a socket)';
  } catch {
    return undefined;
  }
}

function withoutUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
