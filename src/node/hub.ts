/**
 * The Hub does all of Switchboard's work and runs unchanged in Electron main, in browser mode and
 * in tests. Hosts only construct it, `start()` it, `connect()` their clients and `shutdown()` or
 * `dispose()` it. It never imports electron.
 */
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import type { AppState, EventPayload, HubEvent, Layout } from '../common/api/contract.ts';
import { DisposableStore, type IDisposable, toDisposable } from '../common/lifecycle.ts';
import type { ILogger } from './logger.ts';
import { type CallContext, HubConnection, type HubEventSink, type HubMethodHandlers, type HubPeer } from './api/hubConnection.ts';
import { controlSocketPath, ensurePrivateDir, settingsFilePath } from './paths.ts';
import { SettingsStore } from './settings/settingsStore.ts';
import { createTerminalMethods } from './api/terminalMethods.ts';
import { PtyHost } from './pty/ptyHost.ts';
import { ControlServer } from './control/controlServer.ts';
import { AuditFeed } from './api/auditMethods.ts';
import { TaskFeed } from './api/taskMethods.ts';
import { createTokenMethods } from './api/tokenMethods.ts';
import { controlTokensFilePath, TokenStore } from './control/tokenStore.ts';
import { HistoryService } from './history/historyService.ts';
import { createHistoryMethods } from './api/historyMethods.ts';
import { loadWindowState, WindowStateRecorder, windowStateFilePath } from './layout/windowState.ts';
import { type RestoreHistorySource, restoreWindow } from './layout/sessionRestore.ts';
import { ReviewArchive, reviewArchivePath } from './review/reviewArchive.ts';
import { ReviewQueue } from './review/reviewQueue.ts';
import { EditorState } from './ide/editorState.ts';
import { IdeBridge } from './ide/ideBridge.ts';
import { resolveIdeLockDir } from './ide/lockFile.ts';
import { createReviewMethods } from './api/reviewMethods.ts';
import { writeFileAtomically } from './review/fileWriter.ts';
import { type HubRelayOptions, RelayService } from './relay/relayService.ts';
import { createRelayMethods } from './api/relayMethods.ts';
import { AgentMonitor } from './agents/agentMonitor.ts';
import { AgentHookInbox } from './agents/claudeHooks.ts';
import { WorkspaceService } from './workspaces/workspaceService.ts';
import { createWorkspaceMethods } from './api/workspaceMethods.ts';
import { collectWhenIdle } from './idleCollector.ts';

export type HubHost = AppState['host'];

export interface HubOptions {
  /** `$SWITCHBOARD_HOME`, absolute. Created 0700 by `start()`. */
  dataDir: string;
  /** The window's workspace folders, absolute; new terminals start in the first one. */
  workspaceFolders: string[];
  host: HubHost;
  logger: ILogger;
  version?: string;
  /** Environment to read overrides from (`SWITCHBOARD_SOCKET`); default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** Where the shell integration scripts are (a packaged app has them outside app.asar). */
  shellIntegrationDir?: string;
  /** The mirror worker script, for bundles (Electron main) that emit it apart from the sources. */
  mirrorWorkerPath?: string;
  /**
   * The review diff worker script (scripts/buildElectron.ts emits `reviewDiffWorker.cjs`), for
   * bundles. Default: `reviewDiffWorker.cjs` beside `mirrorWorkerPath` when that is given (a bundle
   * emits its workers together), else the source file beside src/node/review/reviewDiffer.ts.
   */
  reviewDiffWorkerPath?: string;
  /** Also serve the control socket at `<workspace>/.claws/claws.sock` for claws clients (default true). */
  clawsCompatSockets?: boolean;
  /**
   * Where the IDE bridge writes its lock file for Claude Code (`<dir>/<port>.lock`); null: none.
   * Default: `$CLAUDE_CONFIG_DIR/ide`, else `$HOME/.claude/ide`, from `env` — except for host
   * 'test', which writes one only under a CLAUDE_CONFIG_DIR its env names, so no test ever
   * touches the real ~/.claude.
   */
  ideLockDir?: string | null;
  /**
   * Remote access (docs/relay.md): `commandLine` for `switchboard serve --relay …` (wins over the
   * settings for this run), `tokenCipher` from a host with an OS keychain (Electron safeStorage).
   */
  relay?: HubRelayOptions;
  /** The clock control tokens expire by (default Date.now); tests move it past an expiry. */
  tokenClock?: () => number;
}

/**
 * The Hub's thread collects its garbage this long after terminals last opened or closed
 * (idleCollector.ts): long enough that a burst (a restored window, an agent starting ten) is one
 * collection, after it.
 */
export const idleCollectionDelayMs = 5_000;

/** How long `shutdown()` lets terminals end gracefully (SIGHUP, so shells save history) before killing them. */
const gracefulShutdownMs = 3_000;

export class Hub implements IDisposable {
  readonly dataDir: string;
  readonly workspaceFolders: readonly string[];
  readonly host: HubHost;
  readonly version: string;
  readonly controlSocketPath: string;
  readonly #logger: ILogger;
  readonly #store = new DisposableStore();
  readonly #settings: SettingsStore;
  readonly #ptyHost: PtyHost;
  readonly #controlServer: ControlServer;
  readonly #auditFeed: AuditFeed;
  readonly #taskFeed: TaskFeed;
  readonly #tokens: TokenStore;
  readonly #history: HistoryService;
  readonly #windowState: WindowStateRecorder;
  readonly #reviewArchive: ReviewArchive;
  readonly #reviews: ReviewQueue;
  readonly #editors: EditorState;
  readonly #ideBridge: IdeBridge;
  readonly #relay: RelayService;
  readonly #agents: AgentMonitor;
  /** The hook folders of Claude Code panes Switchboard starts (their hooks feed #agents). */
  readonly #agentHooks: AgentHookInbox;
  readonly #workspaces: WorkspaceService;
  readonly #connections = new Set<HubConnection>();
  readonly #handlers: HubMethodHandlers;
  #layout: Layout | null = null;
  #nextConnectionId = 1;
  #state: 'new' | 'starting' | 'started' | 'disposed' = 'new';

  constructor(options: HubOptions) {
    if (options.workspaceFolders.length === 0) throw new Error('Hub needs at least one workspace folder');
    this.dataDir = options.dataDir;
    this.workspaceFolders = [...options.workspaceFolders];
    this.host = options.host;
    this.version = options.version ?? '0.0.0-dev';
    this.#logger = options.logger;
    this.controlSocketPath = controlSocketPath(this.dataDir, options.env ?? process.env);
    this.#settings = this.#store.add(new SettingsStore({ filePath: settingsFilePath(this.dataDir), logger: this.#logger.child('settings') }));
    // Disposed after the PtyHost (the store disposes last-added first): terminals end first, so History records their last output and exit.
    this.#store.add(toDisposable(() => this.#history.dispose()));
    this.#ptyHost = this.#store.add(
      new PtyHost({
        logger: this.#logger.child('pty'),
        defaultCwd: this.workspaceFolders[0]!,
        baseEnv: { SWITCHBOARD_SOCKET: this.controlSocketPath },
        environmentFor: (cwd) => this.#clawsEnvironment(cwd),
        ...(options.shellIntegrationDir ? { shellIntegrationDir: options.shellIntegrationDir } : {}),
        ...(options.mirrorWorkerPath ? { mirrorWorkerPath: options.mirrorWorkerPath } : {}),
      }),
    );
    this.#store.add(this.#ptyHost.onDidAddTerminal((info) => this.#broadcast('terminal.added', info)));
    this.#store.add(this.#ptyHost.onDidChangeTerminal((info) => this.#broadcast('terminal.changed', info)));
    this.#store.add(this.#ptyHost.onDidNotify((notification) => this.#broadcast('terminal.notification', notification)));
    this.#store.add(
      this.#ptyHost.onDidRemoveTerminal(({ id }) => {
        // The terminal is gone: its attachments have nothing more to deliver.
        for (const connection of this.#connections) connection.releaseAttachment(id);
        this.#broadcast('terminal.removed', { id });
      }),
    );
    // Hook folders of the Claude Code panes the workspaces start; they feed the agent monitor below.
    this.#agentHooks = this.#store.add(new AgentHookInbox({ dataDir: this.dataDir, logger: this.#logger.child('agent-hooks') }));
    // Agent workspaces (issue 20): disposed before the PtyHost (its watchers stop; the agents' panes are the PtyHost's).
    this.#workspaces = this.#store.add(
      new WorkspaceService({
        ptyHost: this.#ptyHost,
        dataDir: this.dataDir,
        settings: () => this.#settings.current,
        logger: this.#logger.child('workspaces'),
        emit: (event, payload) => this.#broadcast(event, payload),
        // Read when an agent starts: the bridge is made below.
        ide: {
          available: () => this.#ideBridge.port !== null,
          connected: (terminalId) => this.#ideBridge.clientInTerminal(terminalId) !== undefined,
          onDidChange: (listener) => this.#ideBridge.onDidChangeState(listener),
        },
        agentHooks: this.#agentHooks,
      }),
    );
    const workspaceHandlers = createWorkspaceMethods(this.#workspaces);
    this.#windowState = this.#store.add(
      new WindowStateRecorder({
        filePath: windowStateFilePath(this.dataDir),
        logger: this.#logger.child('window'),
        terminalInfo: (id) => this.#ptyHost.get(id)?.info,
        notRecorded: (id) => this.#history.isExcluded(id),
        agentOf: (id) => this.#workspaces.restoreDataOf(id),
      }),
    );
    this.#store.add(this.#ptyHost.onDidChangeTerminal((info) => this.#windowState.noteTerminalChanged(info)));
    this.#history = new HistoryService({
      dataDir: this.dataDir,
      ptyHost: this.#ptyHost,
      settings: () => this.#settings.current,
      logger: this.#logger.child('history'),
      ...(options.mirrorWorkerPath
        ? {
            checkpointWorkerPath: bundledWorkerBesideMirror(options.mirrorWorkerPath, 'walCheckpointWorker.cjs'),
            recordingWorkerPath: bundledWorkerBesideMirror(options.mirrorWorkerPath, 'recordingWorker.cjs'),
          }
        : {}),
    });
    const historyHandlers = createHistoryMethods(this.#history);
    this.#store.add(this.#history.onDidChange((change) => this.#broadcast('history.changed', change)));
    this.#store.add(this.#history.onDidChangeStatus((status) => this.#broadcast('history.statusChanged', status)));
    this.#store.add(this.#history.onDidChangeRecording((change) => this.#broadcast('history.recordingChanged', change)));
    // "Don't record" is a privacy choice: it is saved with the pane and holds after a restart.
    this.#store.add(this.#history.onDidChangeRecording(({ terminalId }) => this.#windowState.notePaneChanged(terminalId)));
    this.#tokens = this.#store.add(new TokenStore({ filePath: controlTokensFilePath(this.dataDir), logger: this.#logger.child('tokens'), terminals: () => this.#ptyHost.list(), now: options.tokenClock }));
    this.#store.add(this.#tokens.onDidChange((tokens) => this.#broadcast('tokens.changed', tokens)));
    // The review queue and the IDE bridge: disposed before the PtyHost, the bridge first, so the
    // reviews of connected CLIs are withdrawn while the queue still runs.
    this.#reviewArchive = this.#store.add(new ReviewArchive({ path: reviewArchivePath(this.dataDir), logger: this.#logger.child('review') }));
    this.#reviews = this.#store.add(
      new ReviewQueue({
        archive: this.#reviewArchive,
        workspaceFolders: this.workspaceFolders,
        logger: this.#logger.child('review'),
        diff: { workerPath: reviewDiffWorkerPathFor(options) },
      }),
    );
    this.#store.add(this.#reviews.onDidAdd((summary) => this.#broadcast('review.added', summary)));
    this.#store.add(this.#reviews.onDidDecide((summary) => this.#broadcast('review.decided', summary)));
    this.#store.add(this.#reviews.onDidRemove(({ id, reason }) => this.#broadcast('review.removed', { id, reason })));
    this.#editors = this.#store.add(new EditorState({ terminalName: (id) => this.#ptyHost.get(id)?.info.name }));
    this.#ideBridge = this.#store.add(
      new IdeBridge({
        queue: this.#reviews,
        editors: this.#editors,
        ptyHost: this.#ptyHost,
        workspaceFolders: this.workspaceFolders,
        lockDir: ideLockDirFor(options),
        version: this.version,
        logger: this.#logger.child('ide'),
        openFile: (request) => this.#broadcast('editor.openFile', request),
        saveEditorText: (path, text, expectedMtimeMs) => this.#saveEditorText(path, text, expectedMtimeMs),
      }),
    );
    this.#store.add(this.#ideBridge.onDidChangeState((state) => this.#broadcast('ide.changed', state)));
    // Added after the PtyHost, so it is disposed before it: pending execs and waits fail cleanly first.
    this.#controlServer = this.#store.add(
      new ControlServer({
        ptyHost: this.#ptyHost,
        socketPath: this.controlSocketPath,
        ownsSocketDirectory: resolve(dirname(this.controlSocketPath)) === resolve(this.dataDir),
        dataDir: this.dataDir,
        workspaceFolders: this.workspaceFolders,
        // The option (tests, embedders) wins over the user's setting, which is read at start.
        clawsCompatSockets: options.clawsCompatSockets ?? (() => this.#settings.current.clawsCompatSockets),
        version: this.version,
        logger: this.#logger.child('control'),
        onReveal: ({ id, preserveFocus }) => this.#broadcast('terminal.reveal', { id, preserveFocus }),
        focusedTerminalId: () => this.#layout?.focusedTerminalId ?? null,
        agentSendIdleMs: () => this.#settings.current.agentSendIdleMs,
        terminalLimits: () => ({ total: this.#settings.current.socketMaxTerminals, perClient: this.#settings.current.socketMaxTerminalsPerClient }),
        tokens: this.#tokens,
        tokenAuthEnabled: () => this.#settings.current.controlTokenAuth,
        // The socket's history.* commands run the same handlers as the UI's (none of them depends on the caller).
        history: async (method, params) => await (historyHandlers[method] as (params: unknown) => unknown)(params) as never,
        review: { queue: this.#reviews, ptyHost: this.#ptyHost },
        workspaces: async (method, params, creator) => await (workspaceHandlers[method] as (params: unknown, context: undefined, creator: unknown) => unknown)(params, undefined, creator) as never,
      }),
    );
    this.#store.add(this.#ptyHost.onDidRemoveTerminal(({ id }) => this.#controlServer.typingGuard.forget(id)));
    // What a person typed before a command started went with it (the guard's half-typed line rule).
    // The listener lives as long as the session's emitter.
    this.#store.add(
      this.#ptyHost.onDidAddTerminal(({ id }) => this.#ptyHost.get(id)?.onDidStartCommand(() => this.#controlServer.typingGuard.noteCommandStarted(id))),
    );
    // The one relay client of this Hub (remote access): disposed before the PtyHost and the review queue.
    this.#relay = this.#store.add(
      new RelayService({
        ...options.relay,
        dataDir: this.dataDir,
        ptyHost: this.#ptyHost,
        reviews: this.#reviews,
        workspaceFolders: this.workspaceFolders,
        version: this.version,
        settings: () => this.#settings.current,
        logger: this.#logger.child('relay'),
        onPersonInput: (id, data) => this.#controlServer.typingGuard.notePersonInput(id, data),
        // A remote viewer's typing shows in the pane like an agent's.
        onRemoteInputShown: ({ terminalId, viewerName, text }) => this.#broadcast('terminal.agentInput', { id: terminalId, peer: viewerName, text }),
        // A viewer's answer to an agent's prompt goes the way the app's Approve / Deny go (agent.answer).
        agentAnswers: { answer: (params) => this.#agents.answer(params) },
      }),
    );
    this.#store.add(this.#relay.onDidChangeStatus((status) => this.#broadcast('relay.statusChanged', status)));
    // People see what agents do: the audit log reaches every client as it is recorded.
    this.#auditFeed = this.#store.add(
      new AuditFeed({ audit: this.#controlServer.audit, ptyHost: this.#ptyHost, broadcast: (event, payload) => this.#broadcast(event, payload) }),
    );
    // And the tasks orchestrators hand to workers (claws' task registry).
    this.#taskFeed = this.#store.add(new TaskFeed({ tasks: this.#controlServer.tasks, broadcast: (event, payload) => this.#broadcast(event, payload) }));
    // Which panes run an agent CLI and its state (info.agent); disposed before the PtyHost.
    this.#agents = this.#store.add(
      new AgentMonitor({
        ptyHost: this.#ptyHost,
        logger: this.#logger.child('agents'),
        extraAgents: () => this.#settings.current.extraAgents,
        pendingReview: (terminalId) => {
          const review = this.#reviews.pending((summary) => summary.source.kind === 'ide' && summary.source.terminalId === terminalId)[0];
          return review ? { title: review.title } : null;
        },
        // An answer from the app is a person's input: the typing guard holds agents' sends back as for typing.
        write: (terminalId, data) => {
          this.#controlServer.typingGuard.notePersonInput(terminalId, data);
          this.#ptyHost.require(terminalId).write(data);
        },
      }),
    );
    this.#store.add(this.#agentHooks.onDidReceive(({ terminalId, hook }) => this.#agents.noteHook(terminalId, hook)));
    this.#store.add(this.#ptyHost.onDidRemoveTerminal(({ id }) => this.#agentHooks.releaseTerminal(id)));
    this.#store.add(this.#reviews.onDidAdd((summary) => this.#agents.reviewsChanged(summary.source.terminalId)));
    this.#store.add(this.#reviews.onDidRemove(({ summary }) => this.#agents.reviewsChanged(summary.source.terminalId)));
    this.#store.add(this.#reviews.onDidDecide((summary) => this.#agents.reviewsChanged(summary.source.terminalId)));
    this.#handlers = this.#createHandlers();
  }

  /** Hook folders for the Claude Code panes the Hub starts (see src/node/agents/claudeHooks.ts). */
  get agentHooks(): AgentHookInbox {
    return this.#agentHooks;
  }

  /** The PTYs, for in-process hosts and subsystems (control socket, history) built on the Hub. */
  get ptyHost(): PtyHost {
    return this.#ptyHost;
  }

  /** Recorded sessions (see src/node/history/historyService.ts for its API). Open once `start()` resolved. */
  get history(): HistoryService {
    return this.#history;
  }

  /** The diff review queue every source feeds (IDE openDiff, control review.request, MCP review_request). */
  get reviews(): ReviewQueue {
    return this.#reviews;
  }

  /**
   * The Claude Code IDE bridge: its port and lock file, connected CLIs, and `atMention()` to hand a
   * file reference to the Claude Code running in a pane. Listening once `start()` resolved.
   */
  get ideBridge(): IdeBridge {
    return this.#ideBridge;
  }

  /** Remote access: the relay client this Hub owns (status, share flags, token). Connected by `start()` when configured. */
  get relay(): RelayService {
    return this.#relay;
  }

  /** Agent workspaces: profiles, agents started from them, their worktrees (see src/node/workspaces/workspaceService.ts). */
  get workspaces(): WorkspaceService {
    return this.#workspaces;
  }

  /** The control socket server (claws-compatible; see docs/protocol.md). Listening once `start()` resolved. */
  get controlServer(): ControlServer {
    return this.#controlServer;
  }

  async start(): Promise<void> {
    if (this.#state !== 'new') throw new Error(`Hub.start() called twice (state: ${this.#state})`);
    this.#state = 'starting';
    collectWhenIdle(idleCollectionDelayMs);
    await ensurePrivateDir(this.dataDir);
    await this.#settings.load();
    await this.#tokens.load();
    await this.#workspaces.start();
    this.#store.add(this.#settings.onDidChange((settings) => this.#broadcast('settings.changed', settings)));
    // Opens (or creates, migrates, replaces a corrupt) switchboard.db; a failure is History's status, not the Hub's.
    this.#history.start();
    this.#store.add(this.#settings.onDidChange((settings) => this.#history.applySettings(settings)));
    // Token auth switched on: socket clients that never authenticated stop receiving at once.
    this.#store.add(this.#settings.onDidChange(() => this.#controlServer.accessChanged()));
    // Before any terminal exists (restored panes included): every PTY gets the bridge's port.
    await this.#startIdeBridge();
    if (this.#state !== 'starting') return; // disposed while starting
    await this.#agentHooks.start();
    this.#agents.start();
    await this.#controlServer.listen();
    if (this.#state !== 'starting') return;
    if (this.#settings.current.restoreLayoutOnStart) await this.#restoreWindow();
    if (this.#state !== 'starting') return;
    // After the restored panes exist, so a viewer's first list has them. Dialling never blocks start.
    this.#store.add(this.#settings.onDidChange(() => this.#relay.applySettings()));
    await this.#relay.start();
    if (this.#state !== 'starting') return;
    this.#state = 'started';
    this.#logger.info('hub started', { host: this.host, dataDir: this.dataDir, workspaceFolders: this.workspaceFolders });
  }

  /** Open a client session. Events for this client go to `sink`; dispose the connection when the client leaves. */
  connect(sink: HubEventSink, peer: HubPeer): HubConnection {
    if (this.#state === 'disposed') throw new Error('Hub is disposed');
    const connection = new HubConnection({
      id: this.#nextConnectionId++,
      peer,
      sink,
      handlers: this.#handlers,
      logger: this.#logger.child('api'),
    });
    this.#connections.add(connection);
    connection.onDidDispose(() => this.#connections.delete(connection));
    return connection;
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  /**
   * Stop for good, politely: end every terminal with the kill escalation (bounded), then dispose.
   * Hosts call this on quit; `dispose()` alone hard-kills at once.
   */
  async shutdown(): Promise<void> {
    if (this.#state === 'disposed') return;
    // Ending the terminals empties the layout: the window to restore next time is the one before that.
    await this.#windowState.freeze();
    // Claude Code CLIs waiting on a review hear DIFF_REJECTED rather than a dropped connection.
    await this.#ideBridge.shutdown();
    // Remote viewers hear that their terminals end (daemon_shutdown) before the terminals go.
    await this.#relay.stop();
    // The bus and audit logs on disk before the control server goes: a write still in flight would be lost
    // (dispose() writes only what is still queued, synchronously).
    await this.#controlServer.bus.flushLog().catch((error: unknown) => this.#logger.warn('writing the bus log failed', { error }));
    await this.#controlServer.audit.flush();
    // Agents waiting on review.request hear `withdrawn (shutdown)` while their connection is still
    // open: the answers are written within the turn (promise callbacks), before it closes.
    this.#reviews.withdrawAll('shutdown');
    await new Promise((resolve) => setImmediate(resolve));
    // No new agent requests while the terminals end; waiting execs fail now rather than on a dead terminal.
    this.#controlServer.dispose();
    for (const connection of [...this.#connections]) connection.dispose();
    let timer: NodeJS.Timeout | undefined;
    const closed = this.#ptyHost.closeAll().catch((error: unknown) => this.#logger.warn('closing terminals failed; killing them', { error }));
    // Decisions whose diff is still being computed get it in the same grace period (else an approximate one).
    const reviewsStored = this.#reviews.flush();
    await Promise.race([Promise.all([closed, reviewsStored]), new Promise((resolve) => (timer = setTimeout(resolve, gracefulShutdownMs)))]);
    clearTimeout(timer);
    this.dispose();
  }

  /** Hard stop: kills every PTY process group at once, closes every connection, releases every resource. */
  dispose(): void {
    if (this.#state === 'disposed') return;
    this.#state = 'disposed';
    for (const connection of [...this.#connections]) connection.dispose();
    this.#store.dispose();
    this.#logger.info('hub disposed');
  }

  /**
   * CLAWS_SOCKET for a terminal starting in `cwd`: the claws socket of the workspace folder it is
   * in (else the first one's), as claws' clients and hooks look for it. None while claws sockets
   * are off.
   */
  #clawsEnvironment(cwd: string): Record<string, string> {
    const sockets = this.#controlServer?.sockets.filter((entry) => entry.workspace !== null) ?? [];
    const inside = sockets.filter((entry) => cwd === entry.workspace || cwd.startsWith(entry.workspace! + sep));
    // The deepest folder wins when folders nest.
    const match = inside.sort((a, b) => b.workspace!.length - a.workspace!.length)[0] ?? sockets[0];
    return match ? { CLAWS_SOCKET: match.socket } : {};
  }

  #broadcast<E extends HubEvent>(event: E, payload: EventPayload<E>, except?: HubConnection): void {
    for (const connection of [...this.#connections]) {
      if (connection !== except) connection.sendEvent(event, payload);
    }
  }

  /** The previous window's panes, as fresh shells under their old last screens (see sessionRestore.ts). */
  async #restoreWindow(): Promise<void> {
    const logger = this.#logger.child('window');
    const state = await loadWindowState(windowStateFilePath(this.dataDir), logger);
    if (!state || state.layout.tabs.length === 0) return;
    const restored = await restoreWindow({
      state,
      ptyHost: this.#ptyHost,
      history: this.#restoreHistorySource(),
      fallbackCwd: this.workspaceFolders[0]!,
      excludeFromHistory: (terminalId) => this.#history.setRecording(terminalId, false),
      restoreAgent: (request) => this.#workspaces.restoreAgentPane(request),
      logger,
    });
    if (!restored) return;
    this.#layout = restored.layout;
    this.#windowState.noteLayout(restored.layout);
    // The new ids on disk before the tokens name them: a crash in between must not leave tokens
    // pointing at panes the next start cannot find.
    await this.#windowState.saveNow();
    // A token limited to a pane follows it to its restored terminal, and so do the agents' past actions on it.
    await this.#tokens.followRestoredTerminals(restored.newIds).catch((error: unknown) => logger.warn('cannot update the tokens of restored panes', { error }));
    this.#controlServer.audit.followRestoredTerminals(restored.newIds);
    this.#controlServer.tasks.followRestoredTerminals(restored.newIds);
    logger.info('window restored', { panes: restored.newIds.size });
  }

  #restoreHistorySource(): RestoreHistorySource | null {
    return this.#history.status().state === 'disabled' ? null : this.#history;
  }

  #createHandlers(): HubMethodHandlers {
    return {
      'app.getState': () => this.#appState(),
      'settings.update': (patch) => this.#settings.update(patch),
      'layout.set': (layout, context) => this.#setLayout(layout, context),
      ...createTerminalMethods(this.#ptyHost, { onPersonInput: (id, data) => this.#controlServer.typingGuard.notePersonInput(id, data), exec: this.#controlServer.exec }),
      ...this.#auditFeed.methods,
      ...this.#taskFeed.methods,
      ...createTokenMethods(this.#tokens),
      ...createHistoryMethods(this.#history),
      ...createRelayMethods(this.#relay),
      ...createWorkspaceMethods(this.#workspaces),
      'agent.answer': async (params) => {
        await this.#agents.answer(params);
        return { ok: true as const };
      },
      ...createReviewMethods({
        queue: this.#reviews,
        bridge: this.#ideBridge,
        editors: this.#editors,
        ptyHost: this.#ptyHost,
        workspaceFolders: this.workspaceFolders,
        logger: this.#logger.child('review'),
        onFileSaved: (payload) => this.#broadcast('editor.saved', payload),
      }),
    };
  }

  /** Open the decided-reviews database and start the IDE bridge; a bridge that cannot listen costs only the bridge. */
  async #startIdeBridge(): Promise<void> {
    this.#reviewArchive.open();
    try {
      await this.#ideBridge.listen();
    } catch (error) {
      this.#logger.error('the Claude Code IDE bridge could not start; reviews from Claude Code are unavailable', { error: String(error) });
      return;
    }
    const port = this.#ideBridge.port;
    if (port !== null) this.#ptyHost.extendBaseEnv({ CLAUDE_CODE_SSE_PORT: String(port), ENABLE_IDE_INTEGRATION: 'true' });
  }

  /**
   * Claude Code's `saveDocument`: write a file tab's text, and every client's tab of it is clean.
   * Refused (nothing written) when the file's mtime is no longer the one the tab's text is based on.
   */
  async #saveEditorText(path: string, text: string, expectedMtimeMs: number | undefined): Promise<void> {
    const written = await writeFileAtomically(path, text, { expectedMtimeMs });
    this.#editors.markSaved(path, written.mtimeMs);
    this.#broadcast('editor.saved', { path, contents: text, mtimeMs: written.mtimeMs });
  }

  #appState(): AppState {
    return {
      version: this.version,
      host: this.host,
      platform: process.platform,
      workspaceFolders: [...this.workspaceFolders],
      dataDir: this.dataDir,
      homeDir: homedir(),
      settings: this.#settings.current,
      layout: this.#layout,
    };
  }

  #setLayout(layout: Layout, context: CallContext): { ok: true } {
    this.#layout = layout;
    this.#windowState.noteLayout(layout);
    // The sender already has this layout; echoing it back would make its UI fight its own edits.
    this.#broadcast('layout.changed', layout, context.connection);
    return { ok: true };
  }
}

/** The review diff worker script for a bundle (see HubOptions.reviewDiffWorkerPath); undefined: the default. */
function reviewDiffWorkerPathFor(options: HubOptions): string | undefined {
  if (options.reviewDiffWorkerPath) return options.reviewDiffWorkerPath;
  return options.mirrorWorkerPath ? bundledWorkerBesideMirror(options.mirrorWorkerPath, 'reviewDiffWorker.cjs') : undefined;
}

/** A bundle emits its workers together (scripts/buildElectron.ts): `fileName` beside the mirror worker. */
function bundledWorkerBesideMirror(mirrorWorkerPath: string, fileName: string): string {
  return join(dirname(mirrorWorkerPath), fileName);
}

/** Where the IDE bridge's lock file goes (see HubOptions.ideLockDir). */
function ideLockDirFor(options: HubOptions): string | null {
  if (options.ideLockDir !== undefined) return options.ideLockDir;
  const env = options.env ?? process.env;
  if (options.host === 'test' && !env.CLAUDE_CONFIG_DIR) return null;
  return resolveIdeLockDir(env);
}
