/**
 * Switchboard as the daemon of the GSD Cloud wire protocol: dials the relay, keeps the link up
 * (reconnect with backoff), and serves remote viewers on the Hub's own PtyHost:
 * - terminals a viewer opens (remoteTerminals.ts), shown locally as panes marked remote;
 * - the app's own panes the user shares (sharedTerminals.ts), attachable with a snapshot from the
 *   mirror, then live output; input, resize and close apply to them;
 * - `browseDir` / `readFile` / `mkDir` inside the shared workspace folders (fileAccess.ts);
 * - the prompts of agents in shared panes as `permissionRequest` / `question`, answered through
 *   the app's own answer path (agentPrompts.ts);
 * - previews of the dev servers of shared panes through the relay (preview/previewTunnel.ts).
 * Every frame it cannot use is refused (logged once per kind) and the link and the app carry on.
 * See docs/relay.md for the protocol pieces and the decisions.
 */
import { arch as osArch, homedir, platform } from 'node:os';
import { RelayConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { checkChannelBinding, checkSessionBinding } from '../../common/protocol/relay/binding.ts';
import type { EnvelopeLimits } from '../../common/protocol/relay/frameLimits.ts';
import { encodeFrame, isStdBase64, rfc3339 } from '../../common/protocol/relay/frames.ts';
import { BROADCAST_CHANNEL_ID, type HelloCapabilities, type RelayFields, type RelayMessage, relayToDaemonPreviewTypes } from '../../common/protocol/relay/messages.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { PtySession } from '../pty/ptySession.ts';
import { FileAccess } from './fileAccess.ts';
import { AgentPrompts, type RelayAgentAnswers } from './agentPrompts.ts';
import { answerFileRequest, type FileRequest } from './fileRequests.ts';
import { type BackoffOptions, ReconnectBackoff } from './reconnectBackoff.ts';
import { RelayConnectError, RelayConnection, type RelayConnectionStats, type RelayConnectionTiming, type RelayWelcome } from './relayConnection.ts';
import { RelayLink } from './relayLink.ts';
import { daemonUrl } from './relayUrl.ts';
import { RefusalLog } from './refusalLog.ts';
import { type RemoteShell, RemoteTerminals } from './remoteTerminals.ts';
import { SharedTerminals } from './sharedTerminals.ts';
import type { PreviewLimits } from './preview/previewRules.ts';
import { PreviewTunnel, type PreviewTunnelStats } from './preview/previewTunnel.ts';

export type RelayStatus =
  | { state: 'stopped' }
  | { state: 'connecting'; attempt: number }
  | { state: 'connected'; since: number; latestDaemonVersion: string | undefined }
  /** Waiting `delayMs` (until `retryAt`) before attempt number `attempt`. */
  | { state: 'reconnecting'; attempt: number; delayMs: number; retryAt: number; reason: string }
  /** The relay refused us (bad token or machine id): retried at the longest backoff. */
  | { state: 'refused'; attempt: number; delayMs: number; retryAt: number; reason: string };

/** Input a remote viewer typed into a terminal (the Hub shows it like agent input, and pauses agents' sends). */
export interface RemoteInputEvent {
  terminalId: string;
  viewerName: string;
  data: string;
}

/**
 * Approvals: the review queue is mirrored as `permissionRequest` (toolName `openDiff`) with
 * `RelayClient.mirrorPermissionRequest`, settled with `settlePermissionRequest`, and a remote
 * reviewer's `permissionResponse` arrives here (see reviewMirror.ts, which implements it).
 */
export interface RelayApprovals {
  /** A viewer answered a mirrored request; returns false when the request is unknown or already decided. */
  decide(requestId: string, approved: boolean, from: { channelId: string; sessionId: string; viewerName: string | undefined }): boolean;
}

/** How a mirrored request ended, told to every viewer (`permissionResponse` on channel "*", a Switchboard extension). */
export interface PermissionSettlement {
  approved: boolean;
  outcome: 'accepted' | 'rejected' | 'withdrawn';
  /** Who decided ("you" for the person at the app, or a viewer's name); absent when withdrawn. */
  decidedBy?: string | undefined;
}

export interface RelayTiming extends RelayConnectionTiming, BackoffOptions {}

export interface RelayClientOptions {
  /** The relay, e.g. wss://relay.example.com (the client appends /ws/daemon?machineId=…). */
  url: string;
  machineId: string;
  /** Bearer token of this machine on the relay. Never logged. */
  token: string;
  ptyHost: PtyHost;
  /** Folders remote viewers may browse, read and create directories in (the shared workspace folders). */
  sharedFolders: readonly string[];
  logger: ILogger;
  version: string;
  /** Share every pane unless a pane says otherwise (default false: only terminals viewers open). */
  shareAll?: boolean;
  homeDir?: string;
  /** The program remote terminals run (default: the user's shell, as for local panes). */
  remoteShell?: RemoteShell;
  onRemoteInput?: (event: RemoteInputEvent) => void;
  approvals?: RelayApprovals;
  /** Types a viewer's answer to an agent's prompt (the Hub's AgentMonitor); without it such answers are refused. */
  agentAnswers?: RelayAgentAnswers;
  /** A viewer's answer to an agent's prompt was typed (`Approve`, `Deny`, an option's label). */
  onAgentAnswered?: (event: { terminalId: string; viewerName: string; text: string }) => void;
  /** Tests inject small values. */
  timing?: Partial<RelayTiming>;
  sendQueueFrames?: number;
  socketHighWaterBytes?: number;
  viewerBufferBytes?: number;
  maxViewerStreams?: number;
  maxRemoteTerminals?: number;
  limits?: Partial<EnvelopeLimits>;
  /**
   * Dev-server previews through the relay (docs/relay.md "Dev-server previews"): on by default
   * with RelayConstants' limits; tests pass smaller ones; `false` builds a client without them
   * (not advertised, `previewOpen` answered `not_supported`).
   */
  preview?: Partial<PreviewLimits> | false;
}

export interface RelayClientStats {
  connectAttempts: number;
  connections: number;
  refusals: Record<string, number>;
  viewerStreams: number;
  /** Largest backlog of any viewer stream now (bounded by viewerBufferBytes). */
  maxViewerBacklogBytes: number;
  viewerSkips: number;
  link: RelayConnectionStats | undefined;
  remoteTerminals: number;
  /** Undefined when the client was built without previews. */
  preview: PreviewTunnelStats | undefined;
}

export class RelayClient implements IDisposable {
  readonly machineId: string;
  /** The protocol sessionId of this daemon's own announcements. */
  readonly sessionId: string;
  readonly #options: RelayClientOptions;
  readonly #url: URL;
  readonly #logger: ILogger;
  readonly #refusals: RefusalLog;
  readonly #backoff: ReconnectBackoff;
  readonly #files: FileAccess;
  readonly #remote: RemoteTerminals;
  readonly #shared: SharedTerminals;
  readonly #prompts: AgentPrompts;
  readonly #preview: PreviewTunnel | undefined;
  readonly #hostListeners: IDisposable[];
  /** Exit listeners of every terminal, so viewers of a shared pane hear that it ended. */
  readonly #exitWatches = new Map<string, IDisposable>();
  #link: RelayLink | undefined;
  #dialing: RelayConnection | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #status: RelayStatus = { state: 'stopped' };
  #running = false;
  #disposed = false;
  #connectAttempts = 0;
  #connections = 0;
  #viewerSkips = 0;

  readonly #onDidChangeStatus = new Emitter<RelayStatus>();
  readonly onDidChangeStatus: Event<RelayStatus> = this.#onDidChangeStatus.event;

  /** Throws when the URL or machine id is unusable (a configuration error, not a network one). */
  constructor(options: RelayClientOptions) {
    if (!options.token) throw new Error('a relay token is required (SWITCHBOARD_RELAY_TOKEN)');
    this.#url = daemonUrl(options.url, options.machineId);
    this.#options = options;
    this.machineId = options.machineId;
    this.sessionId = `switchboard:${options.machineId}`;
    this.#logger = options.logger;
    this.#refusals = new RefusalLog({ logger: options.logger });
    this.#backoff = new ReconnectBackoff(options.timing ?? {});
    const homeDir = options.homeDir ?? homedir();
    this.#files = new FileAccess({ roots: options.sharedFolders, homeDir });
    this.#remote = new RemoteTerminals({
      ptyHost: options.ptyHost,
      link: () => this.#openLink(),
      homeDir,
      logger: options.logger,
      ...(options.remoteShell ? { shell: options.remoteShell } : {}),
      ...(options.maxRemoteTerminals !== undefined ? { maxTerminals: options.maxRemoteTerminals } : {}),
      onExit: (terminal, exitFrameFor) => this.#endStreams(terminal.id, exitFrameFor, terminal.channelId),
    });
    this.#shared = new SharedTerminals({
      ptyHost: options.ptyHost,
      link: () => this.#openLink(),
      sessionId: this.sessionId,
      workspaceFolders: options.sharedFolders,
      shareAll: options.shareAll ?? false,
    });
    // After #shared, so a viewer hears of a pane before its agent's prompt.
    this.#prompts = new AgentPrompts({
      ptyHost: options.ptyHost,
      link: () => this.#openLink(),
      sessionId: this.sessionId,
      isShared: (id) => this.#shared.isShared(id),
      answers: options.agentAnswers,
      onAnswered: options.onAgentAnswered,
      logger: options.logger,
    });
    this.#preview =
      options.preview === false
        ? undefined
        : new PreviewTunnel({
            ptyHost: options.ptyHost,
            isShared: (id) => this.#shared.isShared(id),
            refusals: this.#refusals,
            logger: options.logger,
            ...(options.preview ? { limits: options.preview } : {}),
            ...(options.sendQueueFrames !== undefined ? { sendQueueFrames: options.sendQueueFrames } : {}),
          });
    // A shared local pane ends: its viewers get their exit after its last output.
    this.#hostListeners = [
      options.ptyHost.onDidAddTerminal((info) => this.#watchExit(info.id)),
      options.ptyHost.onDidRemoveTerminal(({ id }) => {
        this.#exitWatches.get(id)?.dispose();
        this.#exitWatches.delete(id);
      }),
    ];
    for (const info of options.ptyHost.list()) this.#watchExit(info.id);
  }

  get status(): RelayStatus {
    return this.#status;
  }

  /** The URL dialled (token-free, safe to show). */
  get url(): string {
    return this.#url.toString();
  }

  get stats(): RelayClientStats {
    const streams = this.#link?.streams.all() ?? [];
    return {
      connectAttempts: this.#connectAttempts,
      connections: this.#connections,
      refusals: Object.fromEntries(this.#refusals.totals),
      viewerStreams: streams.length,
      maxViewerBacklogBytes: streams.reduce((max, stream) => Math.max(max, stream.pendingBytes), 0),
      viewerSkips: this.#viewerSkips + streams.reduce((sum, stream) => sum + stream.skips, 0),
      link: this.#link?.connection.stats,
      remoteTerminals: this.#remote.count,
      preview: this.#preview?.stats,
    };
  }

  /** Begin connecting (and reconnecting for as long as the client runs). */
  start(): void {
    if (this.#disposed) throw new Error('RelayClient is disposed');
    if (this.#running) return;
    this.#running = true;
    this.#logger.info('relay client starting', { url: this.url, machineId: this.machineId });
    void this.#connect();
  }

  // --- sharing --------------------------------------------------------------------------------

  isShared(terminalId: string): boolean {
    return this.#shared.isShared(terminalId);
  }

  /** Share one pane with the relay's viewers (or stop); overrides share-all for that pane. */
  setShared(terminalId: string, shared: boolean): void {
    this.#shared.setShared(terminalId, shared);
    this.#prompts.refresh(terminalId);
    if (!shared) this.#closeForeignStreams(terminalId);
    this.#preview?.refresh();
  }

  get shareAll(): boolean {
    return this.#shared.shareAll;
  }

  setShareAll(shareAll: boolean): void {
    this.#shared.setShareAll(shareAll);
    for (const info of this.#options.ptyHost.list()) this.#prompts.refresh(info.id);
    if (!shareAll) for (const info of this.#options.ptyHost.list()) if (!this.isShared(info.id)) this.#closeForeignStreams(info.id);
    this.#preview?.refresh();
  }

  /** Announce a pending approval to every viewer of the machine; false when no link is up (send it again once connected). */
  mirrorPermissionRequest(request: { requestId: string; toolName: string; toolInput: unknown }): boolean {
    return (
      this.#openLink()?.send(
        encodeFrame('permissionRequest', { sessionId: this.sessionId, channelId: BROADCAST_CHANNEL_ID, requestId: request.requestId, toolName: request.toolName, toolInput: request.toolInput }),
      ) ?? false
    );
  }

  /** Tell every viewer that a mirrored request is settled (decided here or by a viewer, or withdrawn), so it leaves their lists. */
  settlePermissionRequest(requestId: string, settlement: PermissionSettlement): boolean {
    return (
      this.#openLink()?.send(
        encodeFrame('permissionResponse', {
          sessionId: this.sessionId,
          channelId: BROADCAST_CHANNEL_ID,
          requestId,
          approved: settlement.approved,
          outcome: settlement.outcome,
          ...(settlement.decidedBy !== undefined ? { decidedBy: settlement.decidedBy } : {}),
        }),
      ) ?? false
    );
  }

  // --- lifecycle ------------------------------------------------------------------------------

  /**
   * Stop politely: remote terminals end with `daemon_shutdown` (their exit frames go out), then
   * the link closes. Resolves when done; `dispose()` afterwards releases the rest.
   */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    clearTimeout(this.#retryTimer);
    this.#dialing?.dispose();
    await this.#remote.endAll('daemon_shutdown');
    this.#preview?.shutdown();
    const link = this.#link;
    if (link) {
      // Let the exit frames leave (bounded).
      const deadline = Date.now() + 1000;
      const busy = () => {
        const stats = link.connection.stats;
        return stats.queuedFrames > 0 || stats.readySources > 0 || stats.unflushedWrites > 0;
      };
      while (link.isOpen && Date.now() < deadline && busy()) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      link.connection.close(1001, 'daemon shutting down');
    }
    this.#setStatus({ state: 'stopped' });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#running = false;
    clearTimeout(this.#retryTimer);
    this.#dialing?.dispose();
    this.#link?.dispose();
    this.#link = undefined;
    this.#remote.dispose();
    this.#shared.dispose();
    this.#prompts.dispose();
    this.#preview?.dispose();
    for (const listener of this.#hostListeners) listener.dispose();
    for (const watch of this.#exitWatches.values()) watch.dispose();
    this.#exitWatches.clear();
    this.#refusals.dispose();
    this.#setStatus({ state: 'stopped' });
    this.#onDidChangeStatus.dispose();
  }

  // --- connecting -----------------------------------------------------------------------------

  async #connect(): Promise<void> {
    if (!this.#running) return;
    this.#connectAttempts++;
    this.#setStatus({ state: 'connecting', attempt: this.#backoff.failures + 1 });
    const connection = new RelayConnection({
      url: this.#url,
      token: this.#options.token,
      hello: encodeFrame('hello', {
        machineId: this.machineId,
        daemonVersion: this.#options.version,
        os: platform(),
        arch: osArch(),
        activeTasks: [],
        capabilities: this.#capabilities(),
      }),
      heartbeat: () => encodeFrame('heartbeat', { machineId: this.machineId, daemonVersion: this.#options.version, status: 'online', timestamp: rfc3339() }),
      onMessage: (message) => this.#onMessage(message),
      logger: this.#logger,
      refusals: this.#refusals,
      ...(this.#options.timing ? { timing: this.#options.timing } : {}),
      ...(this.#options.sendQueueFrames !== undefined ? { sendQueueFrames: this.#options.sendQueueFrames } : {}),
      ...(this.#options.socketHighWaterBytes !== undefined ? { socketHighWaterBytes: this.#options.socketHighWaterBytes } : {}),
      ...(this.#options.limits ? { limits: this.#options.limits } : {}),
    });
    this.#dialing = connection;
    let welcome: RelayWelcome;
    try {
      welcome = await connection.open();
    } catch (error) {
      this.#dialing = undefined;
      if (!this.#running) return;
      const failure = error instanceof RelayConnectError ? error : new RelayConnectError('network', String(error));
      this.#scheduleReconnect(failure.message, failure.kind === 'refused');
      return;
    }
    this.#dialing = undefined;
    if (!this.#running || !connection.isOpen) {
      connection.dispose();
      if (this.#running) this.#scheduleReconnect('the relay closed the connection right after welcome', false);
      return;
    }
    const link = new RelayLink(connection, {
      logger: this.#logger,
      ...(this.#options.viewerBufferBytes !== undefined ? { viewerBufferBytes: this.#options.viewerBufferBytes } : {}),
      ...(this.#options.maxViewerStreams !== undefined ? { maxViewerStreams: this.#options.maxViewerStreams } : {}),
    });
    this.#link = link;
    this.#connections++;
    const establishedAt = Date.now();
    connection.onDidClose(({ reason }) => {
      if (this.#link !== link) return;
      this.#viewerSkips += link.streams.all().reduce((sum, stream) => sum + stream.skips, 0);
      this.#link = undefined;
      link.dispose();
      this.#shared.linkClosed();
      this.#prompts.linkClosed();
      this.#preview?.linkClosed();
      this.#backoff.connectionEnded(Date.now() - establishedAt);
      if (this.#running) {
        this.#logger.warn('relay connection lost', { reason, livedMs: Date.now() - establishedAt });
        this.#scheduleReconnect(reason, false);
      }
    });
    this.#logger.info('relay connected', { url: this.url, machineId: this.machineId, ...(welcome.latestDaemonVersion ? { latestDaemonVersion: welcome.latestDaemonVersion } : {}) });
    this.#setStatus({ state: 'connected', since: establishedAt, latestDaemonVersion: welcome.latestDaemonVersion });
    this.#preview?.linkOpened(connection, welcome);
    this.#shared.announceAll();
    this.#prompts.announceAll();
  }

  /** What hello says this daemon does (gsd-relay.md; `previewStreamWindowBytes` and `previewBinaryBodies` are our extensions). */
  #capabilities(): HelloCapabilities {
    const preview = this.#preview;
    if (!preview) return { terminal: true, agentTerminalJobs: true };
    return {
      terminal: true,
      agentTerminalJobs: true,
      previewTunnel: true,
      previewMaxFrameBytes: this.#options.limits?.maxFrameBytes || RelayConstants.previewMaxFrameBytes,
      previewChunkBytes: preview.limits.chunkBytes,
      previewWebSocketProtocols: true,
      localServerDetection: true,
      previewStreamWindowBytes: preview.limits.bufferBytes,
      previewBinaryBodies: true,
    };
  }

  #scheduleReconnect(reason: string, refused: boolean): void {
    const attempt = this.#backoff.failures + 1;
    const delayMs = refused ? this.#backoff.nextAfterRefusal() : this.#backoff.next();
    const retryAt = Date.now() + delayMs;
    this.#setStatus(refused ? { state: 'refused', attempt, delayMs, retryAt, reason } : { state: 'reconnecting', attempt, delayMs, retryAt, reason });
    if (refused) this.#logger.warn('the relay refused this machine; retrying later', { reason, retryInMs: delayMs });
    else this.#logger.info('relay unreachable; retrying', { reason, retryInMs: delayMs });
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => void this.#connect(), delayMs);
  }

  #setStatus(status: RelayStatus): void {
    this.#status = status;
    this.#onDidChangeStatus.fire(status);
  }

  #openLink(): RelayLink | undefined {
    return this.#link?.isOpen ? this.#link : undefined;
  }

  // --- inbound frames -------------------------------------------------------------------------

  #onMessage(message: RelayMessage): void {
    if (relayToDaemonPreviewTypes.has(message.type)) return this.#onPreviewFrame(message);
    switch (message.type) {
      case 'terminalOpen':
        void this.#remote.open(message).catch((error: unknown) => this.#logger.error('terminalOpen failed', { error }));
        return;
      case 'terminalInput':
        return this.#onInput(message);
      case 'terminalResize': {
        const target = this.#access(message.terminalId, message.channelId, 'terminalResize');
        if (!target) return;
        const cols = Math.min(RelayConstants.remoteMaxCols, Math.max(RelayConstants.remoteMinCols, message.cols));
        const rows = Math.min(RelayConstants.remoteMaxRows, Math.max(RelayConstants.remoteMinRows, message.rows));
        try {
          target.resize(cols, rows);
        } catch (error) {
          this.#refusals.refuse('terminal-state', `terminalResize: ${(error as Error).message}`);
        }
        return;
      }
      case 'terminalClose': {
        const target = this.#access(message.terminalId, message.channelId, 'terminalClose');
        if (!target) return;
        if (this.#remote.get(message.terminalId)) this.#remote.end(message.terminalId, 'closed_by_user');
        else this.#options.ptyHost.close(message.terminalId).catch((error: unknown) => this.#logger.warn('closing a shared terminal failed', { error }));
        return;
      }
      case 'agentTerminalAttach':
      case 'agentTerminalSnapshotRequest':
        return this.#onAttach(message.terminalId, message.channelId, message.type);
      case 'browseDir':
      case 'readFile':
      case 'mkDir':
        return this.#onFileRequest(message);
      case 'permissionResponse': {
        const agentPrompt = this.#prompts.owns(message.requestId);
        const approvals = this.#options.approvals;
        if (!agentPrompt && !approvals) {
          this.#refusals.refuse('unsupported', 'permissionResponse: no review queue is connected to the relay client');
          return;
        }
        // Our requests carry this daemon's sessionId; an answer to anything else is not ours.
        const binding = checkSessionBinding({ sessionId: this.sessionId }, { sessionId: message.sessionId });
        if (binding) {
          this.#refusals.refuse('binding', `permissionResponse ${JSON.stringify(message.requestId)}: ${binding}`);
          return;
        }
        if (agentPrompt || !approvals) {
          this.#prompts.onPermissionResponse(message).catch((error: unknown) => this.#logger.error('answering an agent prompt failed', { error: String(error) }));
          return;
        }
        const decided = approvals.decide(message.requestId, message.approved, { channelId: message.channelId, sessionId: message.sessionId, viewerName: message.viewerName });
        if (!decided) this.#refusals.refuse('unknown-request', `permissionResponse for unknown or already settled request ${JSON.stringify(message.requestId)}`);
        return;
      }
      case 'task':
        this.#openLink()?.send(
          encodeFrame('taskError', {
            taskId: message.taskId,
            sessionId: message.sessionId,
            channelId: message.channelId,
            error: 'tasks are not supported by this daemon',
            retryable: false,
            ...(message.requestId ? { requestId: message.requestId } : {}),
          }),
        );
        return;
      case 'questionResponse': {
        const binding = checkSessionBinding({ sessionId: this.sessionId }, { sessionId: message.sessionId });
        if (binding) {
          this.#refusals.refuse('binding', `questionResponse ${JSON.stringify(message.requestId)}: ${binding}`);
          return;
        }
        this.#prompts.onQuestionResponse(message).catch((error: unknown) => this.#logger.error('answering an agent question failed', { error: String(error) }));
        return;
      }
      case 'stop':
        this.#refusals.refuse('unsupported', `${message.type}: Switchboard runs no hosted tasks`);
        return;
      default:
        // Frames a relay or daemon sends (welcome twice, terminalOutput…) mean nothing to a daemon.
        this.#refusals.refuse('unexpected-type', `${message.type} is not a frame a daemon receives`);
    }
  }

  /**
   * The terminal a viewer on `channelId` may act on, or undefined (refused and logged once per
   * kind): a terminal it opened, or a shared one. Unknown and unshared terminals look the same.
   */
  #access(terminalId: string, channelId: string, what: string): PtySession | undefined {
    const remote = this.#remote.get(terminalId);
    const shared = this.#options.ptyHost.get(terminalId) !== undefined && this.#shared.isShared(terminalId);
    if (remote && !shared) {
      const binding = checkChannelBinding({ channelId: remote.channelId }, { channelId });
      if (binding) {
        this.#refusals.refuse('binding', `${what} for ${terminalId}: ${binding}`);
        return undefined;
      }
    }
    const session = remote?.session ?? (shared ? this.#options.ptyHost.get(terminalId) : undefined);
    if (!session) {
      this.#refusals.refuse('unknown-terminal', `${what} for unknown terminal ${JSON.stringify(terminalId)}`);
      return undefined;
    }
    return session;
  }

  #onPreviewFrame(message: RelayMessage): void {
    if (this.#preview) return this.#preview.handle(message);
    if (message.type === 'previewOpen') {
      this.#refusals.refuse('unsupported', 'previewOpen: this client was built without previews');
      this.#openLink()?.send(
        encodeFrame('previewOpenResult', { requestId: message.requestId, previewId: message.previewId, ok: false, errorCode: 'not_supported', message: 'this machine does not serve previews' }),
      );
      return;
    }
    this.#refusals.refuse('unsupported', `${message.type}: this client was built without previews`);
  }

  #onInput(message: RelayFields<'terminalInput'>): void {
    if (!isStdBase64(message.dataBase64)) {
      this.#refusals.refuse('bad-base64', `terminalInput for ${JSON.stringify(message.terminalId)}: dataBase64 is not standard base64`);
      return;
    }
    const data = Buffer.from(message.dataBase64, 'base64').toString('utf8');
    if (data.length === 0) return;
    const held = this.#remote.holdInput(message.terminalId, message.channelId, data);
    if (held === 'refused') {
      this.#refusals.refuse('terminal-state', `terminalInput for ${JSON.stringify(message.terminalId)}: more input than is held for a terminal still starting`);
      return;
    }
    if (held === 'held') {
      this.#options.onRemoteInput?.({ terminalId: message.terminalId, viewerName: message.viewerName ?? 'remote viewer', data });
      return;
    }
    const target = this.#access(message.terminalId, message.channelId, 'terminalInput');
    if (!target) return;
    try {
      target.write(data);
    } catch (error) {
      this.#refusals.refuse('terminal-state', `terminalInput: ${(error as Error).message}`);
      return;
    }
    this.#remote.noteInput(message.terminalId);
    this.#options.onRemoteInput?.({ terminalId: message.terminalId, viewerName: message.viewerName ?? 'remote viewer', data });
  }

  #onAttach(terminalId: string, channelId: string, what: string): void {
    const link = this.#openLink();
    const session = this.#access(terminalId, channelId, what);
    if (!link || !session) return;
    const remote = this.#remote.get(terminalId);
    const sessionId = remote?.sessionId ?? this.sessionId;
    const existing = link.streams.get(terminalId, channelId);
    if (existing && !existing.finished) existing.requestSnapshot();
    else link.streams.open(session, { terminalId, sessionId, channelId, from: 'snapshot' });
  }

  #onFileRequest(message: FileRequest): void {
    const link = this.#openLink();
    if (link) answerFileRequest(message, { link, files: this.#files, machineId: this.machineId, refusals: this.#refusals, logger: this.#logger });
  }

  // --- terminal ends --------------------------------------------------------------------------

  #watchExit(id: string): void {
    const session = this.#options.ptyHost.get(id);
    if (!session || this.#exitWatches.has(id)) return;
    const watch = session.onDidExit((status) => {
      this.#exitWatches.get(id)?.dispose();
      this.#exitWatches.delete(id);
      if (this.#remote.get(id)) return; // RemoteTerminals sends its own exit, with its reason
      this.#endStreams(id, (channelId) =>
        encodeFrame('terminalExit', {
          terminalId: id,
          sessionId: this.sessionId,
          channelId,
          ...(status.exitCode !== null ? { exitCode: status.exitCode } : {}),
          ...(status.signal !== null ? { signal: status.signal } : {}),
          reason: 'process_exit',
          endedAt: rfc3339(session.info.endedAt ?? Date.now()),
        }),
      );
    });
    this.#exitWatches.set(id, watch);
  }

  /** Every viewer stream of the terminal ends after its output; an owner without a stream still gets its exit frame. */
  #endStreams(terminalId: string, exitFrameFor: (channelId: string) => string, ownerChannelId?: string): void {
    const link = this.#openLink();
    if (!link) return;
    const hadOwnerStream = ownerChannelId !== undefined && link.streams.get(terminalId, ownerChannelId) !== undefined;
    link.streams.endTerminal(terminalId, exitFrameFor);
    if (ownerChannelId !== undefined && !hadOwnerStream) link.send(exitFrameFor(ownerChannelId));
  }

  /** The terminal stopped being shared: viewers other than its opener lose their streams. */
  #closeForeignStreams(terminalId: string): void {
    const link = this.#openLink();
    if (!link) return;
    const owner = this.#remote.get(terminalId)?.channelId;
    for (const stream of link.streams.streamsOf(terminalId)) {
      if (stream.channelId !== owner) link.streams.close(terminalId, stream.channelId);
    }
  }
}
