/**
 * IHubClient for the remote view: the renderer served by `switchboard relay` at `/m/<machineId>/`
 * reaches one machine through relay frames (GSD Cloud wire protocol, src/common/protocol/relay)
 * over one WebSocket to the relay's `/ws/ui`, authenticated by the cookie the viewer link set.
 * What the protocol carries is mapped onto the contract; the rest is refused with UNKNOWN_METHOD
 * and hidden by the UI in remote mode (`app.getState().host === 'remote'`):
 *
 * - `terminal.list` / `terminal.added|changed|removed`: the shared terminals the machine announces
 *   (`agentTerminalStarted|Updated`, `terminalExit` on channel "*") and the terminals this tab
 *   opened (`terminalOpened`), kept per tab so a reload gets them back;
 * - `terminal.attach` → `agentTerminalAttach`, answered by a `terminalSnapshot`; then
 *   `terminalOutput` becomes `terminal.output` (relayTerminalStream.ts: seq checks, re-snapshot on a
 *   gap, streaming UTF-8); `terminal.ack` is a no-op (remote viewers are lossy, never flow-controlled);
 * - `terminal.create|write|resize|close` → `terminalOpen|Input|Resize|Close`;
 * - approvals: `permissionRequest` / `permissionResponse` (relayApprovals.ts), outside the contract;
 * - agents: the `agent` extension of `agentTerminalStarted|Updated` is `TerminalInfo.agent`, and
 *   `agent.answer` answers an agent's prompt (`permissionRequest` / `question`) with
 *   `permissionResponse` / `questionResponse`, resolved by the machine's result (relayAgentPrompts.ts);
 * - `layout.set` is kept in the tab (sessionStorage): the window's tabs are this viewer's own;
 * - dev servers: the `ports` (else `urls`) of the announcements are `TerminalInfo.servers`, each
 *   with the relay's preview link (`<origin>/m/<machine>/preview/open?terminalId=…&port=…`) as its
 *   `url`, so the server chips open the preview through the relay in a new tab.
 *
 * Connecting resolves only once the machine is online and everything it announced before has
 * arrived (a `browseDir` round trip through the daemon serves as the barrier), so the first
 * `terminal.list` is complete. The machine going offline, or the relay socket closing, ends the
 * client (`onDidDisconnect`); the app's HubConnection then reconnects with a fresh one.
 */
import { AgentStatus } from '../common/api/agentContract.ts';
import type { DevServer } from '../common/api/devServerContract.ts';
import { hubMethods, isHubMethod, Layout, type LayoutNode, type MethodResult, type ParsedParams, type TerminalInfo, TerminalId, defaultSettings } from '../common/api/contract.ts';
import { ApiError } from '../common/api/errors.ts';
import type { CallOutcome } from '../common/api/wire.ts';
import { TerminalConstants, RelayConstants } from '../common/constants.ts';
import { parseEnvelope } from '../common/protocol/relay/envelope.ts';
import { encodeFrame } from '../common/protocol/relay/frames.ts';
import { BROADCAST_CHANNEL_ID, type RelayFields, type RelayMessage, type RelayMessageType } from '../common/protocol/relay/messages.ts';
import { HubClientBase } from './hubClientBase.ts';
import { RelayAgentPrompts } from './relayAgentPrompts.ts';
import { RelayApprovals } from './relayApprovals.ts';
import { decodeBase64, encodeInputChunks } from './relayBytes.ts';
import { RelayTerminalStream } from './relayTerminalStream.ts';
import { renewTabChannelId, type RemoteViewTarget, tabChannelId, type TabStorage } from './remoteViewLocation.ts';

/** Timings and sizes of the remote view's client, with the reason for each. */
export const RelayViewerConstants = {
  /** Socket open + machineStatus + the announcement barrier: past this, connecting fails and is retried. */
  connectTimeoutMs: 20_000,
  /** The barrier (a daemon round trip) may take this long before the list is taken as complete anyway. */
  syncTimeoutMs: 5_000,
  /** An attach waits this long for its snapshot; a lost re-snapshot request is repeated at this interval. */
  snapshotTimeoutMs: 15_000,
  /** `terminalOpen` → `terminalOpened` (a shell starting on a loaded machine). */
  openTimeoutMs: 30_000,
  /** Raw bytes per `terminalInput` frame: the protocol's output chunk size, far under the frame limit. */
  inputChunkBytes: RelayConstants.outputChunkBytes,
  /** After the last resize of a pane, redraw it from a fresh snapshot at the new size this much later. */
  resnapshotAfterResizeMs: 250,
} as const;

export type RelayViewerTiming = { [K in keyof typeof RelayViewerConstants]: number };

export interface RelayHubClientOptions {
  target: Pick<RemoteViewTarget, 'machineId' | 'socketUrl'> & Partial<Pick<RemoteViewTarget, 'pageUrl' | 'viewerName'>>;
  /** Where the tab's channel, layout and own terminals live (sessionStorage); none: nothing survives a reload. */
  storage?: TabStorage | undefined;
  /** Default: this tab's channel from `storage`. */
  channelId?: string;
  /** Opens the WebSocket (tests in Node add an Authorization header); default `new WebSocket(url)`. */
  createSocket?: (url: string) => WebSocket;
  timing?: Partial<RelayViewerTiming>;
}

/** The message a connection attempt fails with while the machine is not connected to the relay. */
export function machineOfflineMessage(machineId: string): string {
  return `${machineId} is offline: its Switchboard is not connected to the relay`;
}

interface RemoteTerminal {
  info: TerminalInfo;
  /** Announced on "*" (a shared pane of the machine, or any terminal while it shares all). */
  shared: boolean;
  /** Opened by this tab: reachable through its channel even when not shared. */
  own: boolean;
  /** terminal.close was sent: its exit removes it. */
  closing: boolean;
  stream: RelayTerminalStream | undefined;
  /** Chars of `terminal.output` handed to the pane so far (the contract's offsets; ours are synthetic). */
  offset: number;
  resnapshotTimer: ReturnType<typeof setTimeout> | undefined;
}

interface PendingRequest<T> {
  resolve(value: T): void;
  reject(error: ApiError): void;
  timer: ReturnType<typeof setTimeout>;
}

type ResultFrame = Extract<RelayMessage, { type: 'terminalOpened' | 'terminalError' | 'browseDirResult' | 'readFileResult' | 'mkDirResult' }>;

const emptyLayout: Layout = { tabs: [], activeTabId: null, focusedTerminalId: null };

/** Who started a terminal this tab opened, as its own panes say of terminals started in the window. */
const openedHere: TerminalInfo['createdBy'] = { kind: 'person', name: 'you' };

export class RelayHubClient extends HubClientBase {
  readonly machineId: string;
  readonly approvals: RelayApprovals;
  readonly agentPrompts: RelayAgentPrompts;
  readonly #options: RelayHubClientOptions;
  readonly #timing: RelayViewerTiming;
  readonly #storage: TabStorage | undefined;
  #channelId: string;
  /** The sessionId of the terminals this tab opens. */
  readonly #sessionId: string;
  #socket: WebSocket | undefined;
  #ready = false;
  #closed = false;
  readonly #terminals = new Map<string, RemoteTerminal>();
  readonly #requests = new Map<string, PendingRequest<ResultFrame>>();
  /** Terminals restored from before a reload, waiting for a sign of life (any frame of theirs). */
  readonly #verifying = new Map<string, () => void>();
  /** Workspace folders the machine's shared terminals work in (announcements' projectId). */
  readonly #projects = new Set<string>();
  #nextRequest = 1;
  readonly #warned = new Set<string>();
  /** The relay's origin as this page reaches it (preview links are absolute: the chips open http(s) URLs only). */
  readonly #relayOrigin: string;

  /** Open a client: resolves once the machine is online and its terminal list complete. */
  static async connect(options: RelayHubClientOptions): Promise<RelayHubClient> {
    const client = new RelayHubClient(options);
    try {
      await client.#open();
      return client;
    } catch (error) {
      client.dispose();
      throw error;
    }
  }

  private constructor(options: RelayHubClientOptions) {
    super();
    this.#options = options;
    this.machineId = options.target.machineId;
    this.#timing = { ...RelayViewerConstants, ...options.timing };
    this.#storage = options.storage;
    this.#channelId = options.channelId ?? tabChannelId(this.#storage, this.machineId);
    this.#sessionId = `view:${this.#channelId}`;
    this.#relayOrigin = relayOriginOf(options.target);
    this.approvals = new RelayApprovals({
      respond: ({ requestId, sessionId, approved }) => this.#send('permissionResponse', { channelId: this.#channelId, sessionId, requestId, approved }),
    });
    this.agentPrompts = new RelayAgentPrompts({
      machineId: this.machineId,
      send: (frame) => (frame.type === 'permissionResponse' ? this.#send(frame.type, { ...frame.fields, channelId: this.#channelId }) : this.#send(frame.type, { ...frame.fields, channelId: this.#channelId })),
    });
  }

  /** The viewer channel the relay bound this client to. */
  get channelId(): string {
    return this.#channelId;
  }

  // ---- connecting ---------------------------------------------------------------------------

  async #open(): Promise<void> {
    const { target } = this.#options;
    const query = new URLSearchParams({ machineId: this.machineId, channelId: this.#channelId });
    if (target.viewerName) query.set('name', target.viewerName);
    const url = `${target.socketUrl}?${query}`;
    const socket = this.#options.createSocket ? this.#options.createSocket(url) : new WebSocket(url);
    this.#socket = socket;
    this.#restoreOwnTerminals();

    let settle: { resolve(): void; reject(error: ApiError): void } | undefined;
    const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    const fail = (error: ApiError) => {
      settle?.reject(error);
      settle = undefined;
    };
    const timer = setTimeout(() => fail(new ApiError('CONNECTION_CLOSED', `the relay did not connect this view to ${this.machineId} in time`)), this.#timing.connectTimeoutMs);
    let opened = false;
    socket.addEventListener('open', () => (opened = true));
    socket.addEventListener('message', (event) => {
      const message = this.#parse(event);
      if (!message) return;
      if (!this.#ready && message.type === 'machineStatus') {
        if (message.state !== 'online') {
          fail(new ApiError('CONNECTION_CLOSED', machineOfflineMessage(this.machineId)));
          return;
        }
        void this.#sync().then(async () => {
          await this.#verifyRestored();
          this.#ready = true;
          settle?.resolve();
          settle = undefined;
        });
        return;
      }
      this.#onFrame(message);
    });
    socket.addEventListener('close', (event) => {
      if (settle) {
        void this.#whyRefused(opened).then(fail);
        return;
      }
      this.#lost(event.code === 4000 ? 'replaced' : 'closed', `the connection to the relay closed (${event.code}${event.reason ? `: ${event.reason}` : ''})`);
    });
    try {
      await ready;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Barrier: a request the daemon answers comes back after everything it sent before it (one
   * socket each way, in order), so the announcements cached by the relay and those in flight from
   * a daemon that just came online are all here once it returns. `browseDir ~` is cheap and
   * answered even when home is not shared (with an error, which is as good).
   */
  async #sync(): Promise<void> {
    try {
      await this.#request('browseDir', { machineId: this.machineId, path: '~', limit: 1 }, this.#timing.syncTimeoutMs);
    } catch {
      this.#warnOnce('sync', `[switchboard] ${this.machineId} did not answer in time; its terminal list may still be filling in`);
    }
  }

  /**
   * Terminals this tab opened before a reload that the machine does not share are known only from
   * the tab's storage: ask each for a snapshot, and forget those that do not answer (they ended
   * while the tab was away, or the machine restarted), so the window does not restore dead panes.
   */
  async #verifyRestored(): Promise<void> {
    const unconfirmed = [...this.#terminals.values()].filter((terminal) => terminal.own && !terminal.shared).map((terminal) => terminal.info.id);
    if (unconfirmed.length === 0) return;
    await Promise.all(
      unconfirmed.map(
        (id) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              this.#verifying.delete(id);
              this.#terminals.delete(id);
              resolve();
            }, this.#timing.syncTimeoutMs);
            this.#verifying.set(id, () => {
              clearTimeout(timer);
              this.#verifying.delete(id);
              resolve();
            });
            if (!this.#send('agentTerminalSnapshotRequest', { terminalId: id, channelId: this.#channelId })) this.#verifying.get(id)?.();
          }),
      ),
    );
    this.#saveOwnTerminals();
  }

  /** Why the socket closed before the view was ready: a signed-out browser, or an unreachable relay. */
  async #whyRefused(opened: boolean): Promise<ApiError> {
    const pageUrl = this.#options.target.pageUrl;
    if (!opened && pageUrl && typeof fetch === 'function') {
      try {
        const response = await fetch(pageUrl, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' });
        if (response.status === 401) {
          return new ApiError('UNAUTHORIZED', `the relay no longer lets this browser view ${this.machineId} (the viewer token was rotated, or the sign-in expired)`);
        }
      } catch {
        // The relay is unreachable: said below.
      }
    }
    return new ApiError('CONNECTION_CLOSED', opened ? `the relay closed the connection to ${this.machineId}` : 'cannot reach the relay');
  }

  /** The relay socket closed or the machine went offline: this client is done. */
  #lost(why: 'closed' | 'replaced' | 'offline', message: string): void {
    if (this.#closed) return;
    this.#closed = true;
    // Another tab took this channel over (a duplicated tab): start a new channel next time.
    if (why === 'replaced') this.#channelId = renewTabChannelId(this.#storage, this.machineId);
    this.#failAll(new ApiError('CONNECTION_CLOSED', message));
    if (why === 'offline') this.#socket?.close(1000, 'machine offline');
    if (!this.disposed) this.disconnectEmitter.fire();
  }

  #failAll(error: ApiError): void {
    this.agentPrompts.dispose();
    for (const request of this.#requests.values()) {
      clearTimeout(request.timer);
      request.reject(error);
    }
    this.#requests.clear();
    for (const terminal of this.#terminals.values()) {
      terminal.stream?.fail(error);
      clearTimeout(terminal.resnapshotTimer);
    }
  }

  // ---- calls --------------------------------------------------------------------------------

  protected async send(method: string, params: unknown): Promise<CallOutcome> {
    if (this.#closed) return { ok: false, error: { code: 'CONNECTION_CLOSED', message: `the connection to ${this.machineId} through the relay is closed` } };
    if (!isHubMethod(method)) return { ok: false, error: { code: 'UNKNOWN_METHOD', message: `unknown method ${method}` } };
    const parsed = hubMethods[method].params.safeParse(params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, error: { code: 'INVALID_PARAMS', message: `${method}: ${issue ? `${issue.path.join('.') || 'params'}: ${issue.message}` : 'invalid params'}` } };
    }
    try {
      return { ok: true, result: await this.#call(method, parsed.data) };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, error: error.toJSON() };
      throw error;
    }
  }

  async #call(method: string, params: unknown): Promise<unknown> {
    switch (method) {
      case 'app.getState':
        return this.#appState();
      case 'layout.set':
        return this.#saveLayout(params as ParsedParams<'layout.set'>);
      case 'terminal.list':
        return [...this.#terminals.values()].map((terminal) => terminal.info);
      case 'terminal.create':
        return this.#create(params as ParsedParams<'terminal.create'>);
      case 'terminal.attach':
        return this.#attach((params as ParsedParams<'terminal.attach'>).id);
      case 'terminal.detach':
        this.#terminals.get((params as ParsedParams<'terminal.detach'>).id)?.stream?.detach();
        return { ok: true };
      case 'terminal.write':
        return this.#write(params as ParsedParams<'terminal.write'>);
      case 'terminal.resize':
        return this.#resize(params as ParsedParams<'terminal.resize'>);
      case 'terminal.close':
        return this.#close((params as ParsedParams<'terminal.close'>).id);
      case 'agent.answer':
        await this.agentPrompts.answer(params as ParsedParams<'agent.answer'>);
        return { ok: true };
      // Remote viewers are lossy (never flow-controlled), raise no attention badges, and have no
      // Claude Code on their side to tell about selections: these have nothing to do.
      case 'terminal.ack':
      case 'terminal.markSeen':
      case 'editor.setSelection':
        return { ok: true };
      default:
        throw new ApiError('UNKNOWN_METHOD', `${method} is not available in the remote view (the relay carries terminals and review decisions only)`);
    }
  }

  #appState(): MethodResult<'app.getState'> {
    return {
      version: '',
      host: 'remote',
      // Keyboard shortcuts follow the viewer's own platform, not the machine's.
      platform: typeof navigator === 'undefined' ? '' : navigator.platform,
      workspaceFolders: [...this.#projects],
      dataDir: '',
      settings: defaultSettings,
      layout: this.#restoreLayout(),
    };
  }

  async #create(params: ParsedParams<'terminal.create'>): Promise<TerminalInfo> {
    if (params.file !== undefined || params.args !== undefined || params.env !== undefined) {
      throw new ApiError('INVALID_PARAMS', 'the remote view can only start the machine\'s default shell (no program, arguments or environment)');
    }
    // The protocol starts an empty cwd in the machine's home; this view does not know where that is to expand `~/…`.
    const cwd = params.cwd === '~' ? undefined : params.cwd;
    if (cwd?.startsWith('~')) throw new ApiError('INVALID_PARAMS', `type the folder as an absolute path: the remote view cannot expand ${cwd} on ${this.machineId}`);
    const cols = clamp(params.cols ?? TerminalConstants.defaultCols, RelayConstants.remoteMinCols, RelayConstants.remoteMaxCols);
    const rows = clamp(params.rows ?? TerminalConstants.defaultRows, RelayConstants.remoteMinRows, RelayConstants.remoteMaxRows);
    const answer = await this.#request('terminalOpen', { sessionId: this.#sessionId, cols, rows, ...(cwd ? { cwd } : {}) }, this.#timing.openTimeoutMs);
    if (answer.type === 'terminalError') {
      const code = answer.error === 'machine is offline' ? 'CONNECTION_CLOSED' : /^cwd /.test(answer.error) ? 'INVALID_PARAMS' : 'PTY_SPAWN_FAILED';
      throw new ApiError(code, answer.error);
    }
    if (answer.type !== 'terminalOpened' || !TerminalId.safeParse(answer.terminalId).success) {
      throw new ApiError('INTERNAL', `${this.machineId} answered terminalOpen with an unusable ${answer.type}`);
    }
    // The machine's own name for it (`bash 2`) when it says it, so the app and this view agree; else the shell's.
    const name = answer.title || answer.shell.split(/[\\/]/).pop() || 'shell';
    const existing = this.#terminals.get(answer.terminalId);
    const info: TerminalInfo = existing?.info ?? {
      ...blankInfo(answer.terminalId),
      name,
      file: answer.shell,
      cwd: answer.cwd,
      cols,
      rows,
      createdBy: openedHere,
      createdAt: parseTime(answer.startedAt),
    };
    const terminal = existing ?? this.#newTerminal(info);
    // Announced already (the machine shares all): same terminal, now known to be this tab's, at its size.
    terminal.info = { ...terminal.info, cols, rows, createdBy: openedHere };
    terminal.own = true;
    this.#terminals.set(info.id, terminal);
    this.#saveOwnTerminals();
    // The caller (the workbench) adds it from this result; `terminal.added` is for other listeners.
    if (!existing) this.dispatchEvent('terminal.added', terminal.info);
    return terminal.info;
  }

  async #attach(id: string): Promise<MethodResult<'terminal.attach'>> {
    const terminal = this.#require(id);
    terminal.stream ??= new RelayTerminalStream({
      terminalId: id,
      snapshotTimeoutMs: this.#timing.snapshotTimeoutMs,
      requestSnapshot: () => this.#send('agentTerminalSnapshotRequest', { terminalId: id, channelId: this.#channelId }),
      onOutput: (text, reset) => this.#emitOutput(terminal, reset ? `\x1bc${text}` : text),
    });
    const snapshot = terminal.stream.attach();
    this.#send('agentTerminalAttach', { terminalId: id, channelId: this.#channelId });
    let text: string;
    try {
      text = await snapshot;
    } catch (error) {
      // A terminal this tab opened before a reload that did not answer is gone (ended meanwhile).
      if (error instanceof ApiError && error.code === 'TIMEOUT' && terminal.own && !terminal.shared) {
        this.#remove(id);
        throw new ApiError('NOT_FOUND', `terminal ${id} no longer runs on ${this.machineId}`);
      }
      throw error;
    }
    terminal.offset += text.length;
    const { info } = terminal;
    return { info, snapshot: text, offset: terminal.offset, cols: info.cols, rows: info.rows };
  }

  #write({ id, data }: ParsedParams<'terminal.write'>): { ok: true } {
    const terminal = this.#require(id);
    if (terminal.info.state === 'exited') throw new ApiError('TERMINAL_EXITED', `terminal ${id} has exited`);
    for (const dataBase64 of encodeInputChunks(data, this.#timing.inputChunkBytes)) {
      if (!this.#send('terminalInput', { terminalId: id, channelId: this.#channelId, dataBase64 })) {
        throw new ApiError('CONNECTION_CLOSED', 'the connection to the relay is closed');
      }
    }
    return { ok: true };
  }

  #resize({ id, cols, rows }: ParsedParams<'terminal.resize'>): { ok: true } {
    const terminal = this.#require(id);
    if (terminal.info.state === 'exited') throw new ApiError('TERMINAL_EXITED', `terminal ${id} has exited`);
    this.#send('terminalResize', { terminalId: id, channelId: this.#channelId, cols, rows });
    terminal.info = { ...terminal.info, cols, rows };
    // The pane reflowed the old screen on its own; the machine's mirror redraws it exactly at the new size.
    clearTimeout(terminal.resnapshotTimer);
    terminal.resnapshotTimer = setTimeout(() => {
      if (terminal.stream?.phase === 'live') this.#send('agentTerminalSnapshotRequest', { terminalId: id, channelId: this.#channelId });
    }, this.#timing.resnapshotAfterResizeMs);
    return { ok: true };
  }

  #close(id: string): { ok: true } {
    const terminal = this.#require(id);
    if (terminal.info.state === 'exited') {
      this.#remove(id);
      return { ok: true };
    }
    terminal.closing = true;
    if (!this.#send('terminalClose', { terminalId: id, channelId: this.#channelId })) throw new ApiError('CONNECTION_CLOSED', 'the connection to the relay is closed');
    return { ok: true };
  }

  #require(id: string): RemoteTerminal {
    const terminal = this.#terminals.get(id);
    if (!terminal) throw new ApiError('NOT_FOUND', `no terminal ${id} on ${this.machineId} is shared with this view`);
    return terminal;
  }

  // ---- frames in ----------------------------------------------------------------------------

  #parse(event: MessageEvent): RelayMessage | undefined {
    if (typeof event.data !== 'string') {
      this.#warnOnce('binary', '[switchboard] dropped a binary frame from the relay');
      return undefined;
    }
    const parsed = parseEnvelope(event.data);
    if (!parsed.ok) {
      this.#warnOnce(`refused:${parsed.kind}`, `[switchboard] dropped a relay frame: ${parsed.error}`);
      return undefined;
    }
    const channelId = (parsed.message as { channelId?: string }).channelId;
    if (channelId !== undefined && channelId !== this.#channelId && channelId !== BROADCAST_CHANNEL_ID) {
      this.#warnOnce('channel', `[switchboard] dropped a ${parsed.message.type} frame for another channel`);
      return undefined;
    }
    return parsed.message;
  }

  #onFrame(message: RelayMessage): void {
    const broadcast = (message as { channelId?: string }).channelId === BROADCAST_CHANNEL_ID;
    switch (message.type) {
      case 'machineStatus':
        if (message.state !== 'online') this.#lost('offline', machineOfflineMessage(this.machineId));
        return;
      case 'agentTerminalStarted':
        if (broadcast) this.#announced(message);
        return;
      case 'agentTerminalUpdated':
        if (broadcast) this.#statusChanged(message);
        return;
      case 'terminalExit':
        if (broadcast) this.#withdrawn(message.terminalId);
        else this.#exited(message);
        return;
      case 'terminalSnapshot':
      case 'terminalOutput': {
        this.#verifying.get(message.terminalId)?.();
        const stream = this.#terminals.get(message.terminalId)?.stream;
        if (!stream) return;
        const bytes = decodeBase64(message.dataBase64);
        if (!bytes) this.#warnOnce('base64', `[switchboard] ${message.type} for ${message.terminalId} is not standard base64`);
        if (message.type === 'terminalSnapshot') stream.onSnapshot(message.seq, bytes);
        else stream.onOutput(message.seq, bytes);
        return;
      }
      case 'permissionRequest':
        if (!this.agentPrompts.addPermission(message)) this.approvals.add(message);
        return;
      case 'permissionResponse':
        // Switchboard extension: the machine settled a request for every viewer, or tells this one how its answer went.
        if (broadcast) {
          if (!this.agentPrompts.settle(message.requestId)) this.approvals.settle(message.requestId, message);
        } else {
          this.agentPrompts.result(message);
        }
        return;
      case 'question':
        if (!this.agentPrompts.addQuestion(message)) this.#warnOnce('question', `[switchboard] ignored a question that names no pane: ${message.question.slice(0, 80)}`);
        return;
      case 'questionResponse':
        if (broadcast) this.agentPrompts.settle(message.requestId);
        else this.agentPrompts.result(message);
        return;
      case 'localServerDetected':
        // The pane's announcement (sent before it) lists the server in its ports already; nothing to add.
        return;
      case 'terminalOpened':
      case 'terminalError':
      case 'browseDirResult':
      case 'readFileResult':
      case 'mkDirResult':
        return this.#answered(message);
      default:
        this.#warnOnce(`unexpected:${message.type}`, `[switchboard] ignored a ${message.type} frame (the remote view does not use it)`);
    }
  }

  /** An answer to one of this tab's requests: requestIds are this channel's own, so the lookup is the binding check. */
  #answered(message: ResultFrame): void {
    const requestId = message.requestId ?? '';
    const pending = this.#requests.get(requestId);
    if (!pending) {
      if (message.type === 'terminalError') this.#warnOnce('terminal-error', `[switchboard] ${this.machineId} reported a terminal error: ${message.error}`);
      return;
    }
    this.#requests.delete(requestId);
    clearTimeout(pending.timer);
    pending.resolve(message);
  }

  #announced(message: RelayFields<'agentTerminalStarted'>): void {
    if (!TerminalId.safeParse(message.terminalId).success) {
      this.#warnOnce('terminal-id', `[switchboard] ignored a shared terminal with an unusable id ${JSON.stringify(message.terminalId)}`);
      return;
    }
    if (message.projectId) this.#projects.add(message.projectId);
    const existing = this.#terminals.get(message.terminalId);
    const previous = existing?.info ?? blankInfo(message.terminalId);
    const info: TerminalInfo = {
      ...previous,
      name: message.title || previous.name || message.terminalId,
      cwd: message.cwd,
      createdBy: existing ? previous.createdBy : { kind: 'person', name: this.machineId },
      createdAt: existing ? previous.createdAt : parseTime(message.startedAt),
      ...stateOf(message.status, previous),
      ...this.#agentOf(message.agent, previous),
      ...this.#serversOf(message, previous),
    };
    const terminal = existing ?? this.#newTerminal(info);
    terminal.info = info;
    terminal.shared = true;
    this.#terminals.set(info.id, terminal);
    this.dispatchEvent(existing ? 'terminal.changed' : 'terminal.added', info);
  }

  #statusChanged(message: RelayFields<'agentTerminalUpdated'>): void {
    const terminal = this.#terminals.get(message.terminalId);
    if (!terminal) return;
    const previous = terminal.info;
    const next = { ...previous, ...stateOf(message.status, previous), ...this.#agentOf(message.agent, previous), ...this.#serversOf(message, previous) };
    if (
      next.state === previous.state &&
      next.exitCode === previous.exitCode &&
      JSON.stringify(next.agent) === JSON.stringify(previous.agent) &&
      JSON.stringify(next.servers) === JSON.stringify(previous.servers)
    ) {
      return;
    }
    terminal.info = next;
    this.dispatchEvent('terminal.changed', next);
  }

  /** The agent a Switchboard machine says runs in the pane (the `agent` extension field); other daemons say nothing, which keeps what was known. */
  #agentOf(agent: unknown, previous: TerminalInfo): Pick<TerminalInfo, 'agent'> {
    if (agent === undefined) return previous.agent === undefined ? {} : { agent: previous.agent };
    if (agent === null) return { agent: null };
    const parsed = AgentStatus.safeParse(agent);
    if (parsed.success) return { agent: parsed.data };
    this.#warnOnce('agent', `[switchboard] ignored an agent state the app does not know: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return { agent: null };
  }

  /**
   * The dev servers an announcement names (`ports`, else the ports of `urls`; neither: unchanged),
   * each opened through the relay's preview of that pane and port. `since` stays what it was for a
   * port seen before; `pid` is the machine's business (null).
   */
  #serversOf(message: Pick<RelayFields<'agentTerminalUpdated'>, 'terminalId' | 'ports' | 'urls' | 'readiness'>, previous: TerminalInfo): Pick<TerminalInfo, 'servers'> {
    const announced = message.ports ?? (message.urls ? portsOfUrls(message.urls) : undefined);
    if (announced === undefined) return previous.servers === undefined ? {} : { servers: previous.servers };
    const readyAt = message.readiness?.readyAt ? Date.parse(message.readiness.readyAt) : NaN;
    const servers: DevServer[] = [];
    for (const { host, port } of announced) {
      if (!Number.isInteger(port) || port < 1 || port > 65_535 || servers.some((server) => server.port === port)) continue;
      const query = new URLSearchParams({ terminalId: message.terminalId, port: String(port) });
      servers.push({
        host,
        port,
        url: `${this.#relayOrigin}/m/${encodeURIComponent(this.machineId)}/preview/open?${query}`,
        pid: null,
        since: previous.servers?.find((server) => server.port === port)?.since ?? (Number.isFinite(readyAt) ? readyAt : Date.now()),
      });
    }
    return { servers };
  }

  /** The machine stopped sharing a terminal (unshared, or its pane closed). */
  #withdrawn(id: string): void {
    const terminal = this.#terminals.get(id);
    if (!terminal) return;
    terminal.shared = false;
    // A terminal this tab opened stays reachable through its channel; its own exit says when it ends.
    if (terminal.own && !terminal.closing && terminal.info.state === 'running') return;
    this.#remove(id);
  }

  /** A terminal this view had a stream of (or opened) ended: the pane shows how. */
  #exited(message: RelayFields<'terminalExit'>): void {
    const terminal = this.#terminals.get(message.terminalId);
    if (!terminal) return;
    if (terminal.closing) {
      this.#remove(message.terminalId);
      return;
    }
    terminal.stream?.detach();
    terminal.info = {
      ...terminal.info,
      state: 'exited',
      exitCode: message.exitCode ?? null,
      signal: message.signal ?? null,
      endedAt: parseTime(message.endedAt),
    };
    this.dispatchEvent('terminal.changed', terminal.info);
  }

  #newTerminal(info: TerminalInfo): RemoteTerminal {
    return { info, shared: false, own: false, closing: false, stream: undefined, offset: 0, resnapshotTimer: undefined };
  }

  #remove(id: string): void {
    const terminal = this.#terminals.get(id);
    if (!terminal) return;
    this.#terminals.delete(id);
    clearTimeout(terminal.resnapshotTimer);
    terminal.stream?.fail(new ApiError('NOT_FOUND', `terminal ${id} ended`));
    if (terminal.own) this.#saveOwnTerminals();
    this.dispatchEvent('terminal.removed', { id });
  }

  #emitOutput(terminal: RemoteTerminal, data: string): void {
    terminal.offset += data.length;
    this.dispatchEvent('terminal.output', { id: terminal.info.id, data, offset: terminal.offset });
  }

  // ---- frames out ---------------------------------------------------------------------------

  /** Send one frame; false when the socket is not open. */
  #send<T extends RelayMessageType>(type: T, fields: RelayFields<T>): boolean {
    const socket = this.#socket;
    if (!socket || this.#closed || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(encodeFrame(type, fields));
    return true;
  }

  /** Send a request that carries a requestId and this channel, and wait for its answer. */
  #request<T extends 'terminalOpen' | 'browseDir'>(type: T, fields: Omit<RelayFields<T>, 'requestId' | 'channelId'>, timeoutMs: number): Promise<ResultFrame> {
    const requestId = `${this.#channelId}-${this.#nextRequest++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#requests.delete(requestId);
        reject(new ApiError('TIMEOUT', `${this.machineId} did not answer ${type} within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      this.#requests.set(requestId, { resolve, reject, timer });
      if (!this.#send(type, { ...fields, requestId, channelId: this.#channelId } as unknown as RelayFields<T>)) {
        clearTimeout(timer);
        this.#requests.delete(requestId);
        reject(new ApiError('CONNECTION_CLOSED', 'the connection to the relay is closed'));
      }
    });
  }

  // ---- what a tab keeps across reloads -------------------------------------------------------

  #storageKey(what: 'layout' | 'own'): string {
    return `switchboard.remote.${this.machineId}.${what}`;
  }

  #saveLayout(layout: Layout): { ok: true } {
    this.#storage?.setItem(this.#storageKey('layout'), JSON.stringify(layout));
    return { ok: true };
  }

  /** The tab's saved layout, or an empty one when none of its terminals is still here (never null: that would start a terminal). */
  #restoreLayout(): Layout {
    const parsed = Layout.safeParse(readJson(this.#storage?.getItem(this.#storageKey('layout'))));
    if (!parsed.success) return emptyLayout;
    const ids = parsed.data.tabs.flatMap((tab) => paneIds(tab.root));
    return ids.some((id) => this.#terminals.has(id)) ? parsed.data : emptyLayout;
  }

  #saveOwnTerminals(): void {
    const own = [...this.#terminals.values()].filter((terminal) => terminal.own).map((terminal) => terminal.info);
    this.#storage?.setItem(this.#storageKey('own'), JSON.stringify({ channelId: this.#channelId, terminals: own }));
  }

  /** Terminals this tab opened before a reload (same channel): listed again; an attach tells whether they still run. */
  #restoreOwnTerminals(): void {
    const saved = readJson(this.#storage?.getItem(this.#storageKey('own'))) as { channelId?: unknown; terminals?: unknown } | undefined;
    if (!saved || saved.channelId !== this.#channelId || !Array.isArray(saved.terminals)) return;
    for (const candidate of saved.terminals) {
      const parsed = hubMethods['terminal.create'].result.safeParse(candidate);
      if (!parsed.success || parsed.data.state !== 'running') continue;
      const terminal = this.#newTerminal(parsed.data);
      terminal.own = true;
      this.#terminals.set(parsed.data.id, terminal);
    }
  }

  #warnOnce(kind: string, message: string): void {
    if (this.#warned.has(kind)) return;
    this.#warned.add(kind);
    console.warn(message);
  }

  override dispose(): void {
    if (this.disposed) return;
    super.dispose();
    this.#closed = true;
    this.#failAll(new ApiError('CONNECTION_CLOSED', 'the Hub client was disposed'));
    this.approvals.dispose();
    this.agentPrompts.dispose();
    const socket = this.#socket;
    if (socket && (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)) socket.close(1000, 'client disposed');
  }
}

function blankInfo(id: string): TerminalInfo {
  return {
    id,
    name: id,
    file: '',
    args: [],
    pid: null,
    cwd: '',
    cols: TerminalConstants.defaultCols,
    rows: TerminalConstants.defaultRows,
    state: 'running',
    exitCode: null,
    signal: null,
    runningCommand: null,
    lastCommand: null,
    needsAttention: false,
    // Restarting an exited pane starts the default shell again, never a program from here.
    shellIntegration: true,
    createdBy: { kind: 'person', name: '' },
    createdAt: Date.now(),
    endedAt: null,
  };
}

/** An announced status as TerminalInfo fields; an exact exit already known (from `terminalExit`) is kept. */
function stateOf(status: string, previous: TerminalInfo): Pick<TerminalInfo, 'state' | 'exitCode' | 'signal' | 'endedAt'> {
  if (status === 'exited' || status === 'failed' || status === 'killed') {
    if (previous.state === 'exited') return { state: 'exited', exitCode: previous.exitCode, signal: previous.signal, endedAt: previous.endedAt };
    // The announcement says how it ended only coarsely: exited is status 0; the rest is unknown.
    return { state: 'exited', exitCode: status === 'exited' ? 0 : null, signal: null, endedAt: Date.now() };
  }
  return { state: 'running', exitCode: null, signal: null, endedAt: null };
}

/** `http(s)://<relay>` from the page's address, else from the socket's (`ws` → `http`, `wss` → `https`). */
function relayOriginOf(target: RelayHubClientOptions['target']): string {
  try {
    if (target.pageUrl) return new URL(target.pageUrl).origin;
    const socket = new URL(target.socketUrl);
    return `${socket.protocol === 'wss:' ? 'https:' : 'http:'}//${socket.host}`;
  } catch {
    return '';
  }
}

/** Host and port of announced URLs (a daemon that sends `urls` but no `ports`). */
function portsOfUrls(urls: readonly string[]): Array<{ host: string; port: number }> {
  const ports: Array<{ host: string; port: number }> = [];
  for (const text of urls) {
    try {
      const url = new URL(text);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      ports.push({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) });
    } catch {
      // not a URL: nothing to open
    }
  }
  return ports;
}

function paneIds(node: LayoutNode): string[] {
  return node.type === 'pane' ? [node.terminalId] : node.children.flatMap(paneIds);
}

function parseTime(text: string): number {
  const time = Date.parse(text);
  return Number.isFinite(time) ? time : Date.now();
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function readJson(text: string | null | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
