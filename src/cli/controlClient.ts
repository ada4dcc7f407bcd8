/**
 * A small client of Switchboard's control socket (claws/1 NDJSON over a Unix socket), used by the
 * CLI verbs and by `switchboard mcp`. One connection, opened lazily and reopened after it drops;
 * requests carry a unique request id and the terminal in `terminalId`, and answers are matched by
 * `rid`, so several requests may be in flight at once (a long `exec` does not block a `list`).
 * Every answer is checked with zod before anyone reads it.
 */
import { connect, type Socket } from 'node:net';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { IDisposable } from '../common/lifecycle.ts';
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

// ---- response schemas ---------------------------------------------------------------------
// Loose objects: the server may add fields (claws compatibility fields, later extensions), and a
// newer server must not break an older CLI.

const Envelope = z.looseObject({
  rid: z.union([z.string(), z.number()]).optional(),
  ok: z.boolean(),
  error: z.string().optional(),
  /** Our server adds a code to its errors; claws servers do not. */
  code: z.string().optional(),
});

export const ControlTerminal = z.looseObject({
  id: z.string(),
  name: z.string(),
  pid: z.number().int().nullable().optional(),
  hasShellIntegration: z.boolean().optional(),
  active: z.boolean().optional(),
  cwd: z.string().nullable().optional(),
  status: z.string().optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  cols: z.number().int().optional(),
  rows: z.number().int().optional(),
  createdBy: z.unknown().optional(),
  /** The command the shell runs now, when shell integration tells. */
  runningCommand: z.string().nullable().optional(),
});
export type ControlTerminal = z.infer<typeof ControlTerminal>;

const ListResult = z.looseObject({ terminals: z.array(ControlTerminal) });

/** What `auth` answers about the token: the CLI explains a refusal with it (a token limited to terminals that are gone). */
const AuthResult = z.looseObject({ token: z.looseObject({ name: z.string(), terminals: z.array(z.string()).nullable() }) });
export type AuthenticatedToken = z.infer<typeof AuthResult>['token'];
const CreateResult = z.looseObject({ id: z.union([z.string(), z.number()]).transform(String) });

export const ExecEvent = z.looseObject({
  commandLine: z.string().optional(),
  output: z.string(),
  exitCode: z.number().int().nullable(),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  truncated: z.boolean().optional(),
});
export type ExecEvent = z.infer<typeof ExecEvent>;
const ExecResult = z.looseObject({ event: ExecEvent });

export const ReadLogResult = z.looseObject({
  bytes: z.string(),
  offset: z.number(),
  nextOffset: z.number(),
  totalSize: z.number(),
  truncated: z.boolean(),
});
export type ReadLogResult = z.infer<typeof ReadLogResult>;

export const ReadScreenResult = z.looseObject({
  lines: z.array(z.string()),
  cursor: z.looseObject({ x: z.number(), y: z.number() }),
  altScreen: z.boolean(),
  cols: z.number(),
  rows: z.number(),
});
export type ReadScreenResult = z.infer<typeof ReadScreenResult>;

const WaitAnswer = z.looseObject({
  /** Which condition was met: `pattern`, `exit`, `idle` or `prompt` (`false` would mean none). */
  matched: z.union([z.string().min(1), z.boolean()]),
  text: z.string().optional(),
  offset: z.number().optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  commandLine: z.string().optional(),
});
/** A wait's outcome; a timeout is `{matched: false}`, not an error. */
export interface WaitResult {
  matched: boolean;
  /** Which condition ended the wait: `pattern`, `exit`, `idle` or `prompt`. */
  condition?: string;
  text?: string;
  offset?: number;
  exitCode?: number | null;
  signal?: string | null;
  commandLine?: string;
}

const SendResult = z.looseObject({
  /** The terminal's output offset when the text was written: pass it to `wait` as `since`. */
  offset: z.number().optional(),
  pasted: z.boolean().optional(),
});
export type SendResult = z.infer<typeof SendResult>;

/** A claws/2 push frame: `message` (topic, from, payload, sentAt, sequence) or `caught-up`. */
export const PushFrame = z.looseObject({
  push: z.string(),
  topic: z.string().optional(),
  from: z.string().optional(),
  payload: z.unknown().optional(),
  sentAt: z.number().optional(),
  sequence: z.number().optional(),
  replayed: z.boolean().optional(),
  subscriptionId: z.string().optional(),
  replayedCount: z.number().optional(),
  resumeCursor: z.number().optional(),
});
export type PushFrame = z.infer<typeof PushFrame>;

const CloseResult = z.looseObject({ alreadyClosed: z.boolean().optional() });
const AnyResult = z.looseObject({});

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
    if (this.#disposed) throw new ControlClientError('CONNECTION_CLOSED', 'the control client is closed');
    const socket = await this.#connect();
    if (this.#token !== undefined && cmd !== 'auth') {
      let authentication = this.#authentications.get(socket);
      if (!authentication) {
        authentication = this.request('auth', { token: this.#token }).then((body) => {
          const parsed = AuthResult.safeParse(body);
          this.#authenticatedToken = parsed.success ? parsed.data.token : undefined;
        });
        this.#authentications.set(socket, authentication);
      }
      await authentication;
    }
    const id = this.#requestPrefix + String(this.#nextRequest++);
    const timeoutMs = options.timeoutMs ?? this.#requestTimeoutMs;
    // `fields` may name another protocol (the claws/2 bus's `hello` must say claws/2).
    const frame: Record<string, unknown> = { protocol: 'claws/1', ...fields, id, cmd, clientName: this.#clientName };
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

  /** The token this client authenticated with, as the server described it (undefined: no token, or not yet used). */
  get authenticatedToken(): AuthenticatedToken | undefined {
    return this.#authenticatedToken;
  }

  async list(): Promise<ControlTerminal[]> {
    return parseBody('list', ListResult, await this.request('list')).terminals;
  }

  async create(params: CreateRequest = {}): Promise<string> {
    return parseBody('create', CreateResult, await this.request('create', withoutUndefined({ ...params }))).id;
  }

  async send(terminalId: string, params: SendRequest): Promise<SendResult> {
    return parseBody('send', SendResult, await this.request('send', withoutUndefined({ terminalId, ...params })));
  }

  async exec(terminalId: string, command: string, timeoutMs?: number): Promise<ExecEvent> {
    const serverTimeout = timeoutMs ?? ControlClientConstants.serverExecTimeoutMs;
    const body = await this.request('exec', withoutUndefined({ terminalId, command, timeoutMs }), {
      timeoutMs: serverTimeout + ControlClientConstants.serverTimeoutGraceMs,
    });
    return parseBody('exec', ExecResult, body).event;
  }

  async readLog(terminalId: string, params: ReadLogRequest = {}): Promise<ReadLogResult> {
    return parseBody('readLog', ReadLogResult, await this.request('readLog', withoutUndefined({ terminalId, ...params })));
  }

  /**
   * The rendered screen; with `scrollbackLines`, also up to that many lines from above it (the
   * server sends the whole scrollback on request; the client keeps what was asked for).
   */
  async readScreen(terminalId: string, scrollbackLines?: number): Promise<ReadScreenResult> {
    const wantScrollback = scrollbackLines !== undefined && scrollbackLines > 0;
    const body = await this.request('readScreen', withoutUndefined({ terminalId, scrollback: wantScrollback ? true : undefined }));
    const screen = parseBody('readScreen', ReadScreenResult, body);
    if (!wantScrollback) return screen;
    const keep = screen.rows + scrollbackLines;
    return screen.lines.length > keep ? { ...screen, lines: screen.lines.slice(screen.lines.length - keep) } : screen;
  }

  async wait(terminalId: string, params: WaitRequest): Promise<WaitResult> {
    let body: Record<string, unknown>;
    try {
      body = await this.request('wait', withoutUndefined({ terminalId, ...params }), {
        timeoutMs: params.timeoutMs + ControlClientConstants.serverTimeoutGraceMs,
      });
    } catch (error) {
      // The server answers a timeout as an error ("wait timeout after Nms"); for a waiter it is an outcome.
      if (isTimeoutError(error)) return { matched: false };
      throw error;
    }
    const answer = parseBody('wait', WaitAnswer, body);
    const result: WaitResult = { matched: answer.matched !== false };
    if (typeof answer.matched === 'string') result.condition = answer.matched;
    if (answer.text !== undefined) result.text = answer.text;
    if (answer.offset !== undefined) result.offset = answer.offset;
    if (answer.exitCode !== undefined) result.exitCode = answer.exitCode;
    if (answer.signal !== undefined) result.signal = answer.signal;
    if (answer.commandLine !== undefined) result.commandLine = answer.commandLine;
    return result;
  }

  async close(terminalId: string): Promise<{ alreadyClosed: boolean }> {
    const body = parseBody('close', CloseResult, await this.request('close', { terminalId }));
    return { alreadyClosed: body.alreadyClosed === true };
  }

  async rename(terminalId: string, name: string): Promise<void> {
    parseBody('rename', AnyResult, await this.request('rename', { terminalId, name }));
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
    const parsed = Envelope.safeParse(frame);
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
    const { id: _id, rid: _rid, protocol: _protocol, ok: _ok, code: _code, ...body } = envelope;
    // `create` answers the new terminal id in the envelope's `id`; keep it in the body.
    pending.resolve(typeof _id === 'string' || typeof _id === 'number' ? { id: _id, ...body } : body);
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
    case 'ENOTSOCK':
      return new ControlClientError('NOT_RUNNING', notRunningMessage(socketPath));
    case 'EACCES':
    case 'EPERM':
      return new ControlClientError('PERMISSION_DENIED', `permission denied connecting to the control socket at ${socketPath}`);
    default:
      return new ControlClientError('CONNECTION_CLOSED', `cannot connect to the control socket at ${socketPath}: ${error.message}`);
  }
}

function parseBody<T extends z.ZodType>(cmd: string, schema: T, body: Record<string, unknown>): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new ControlClientError('BAD_RESPONSE', `unexpected answer to ${cmd} from the control socket${where}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

function withoutUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
