/**
 * The Hub's remote access: the one owner of the Hub's relay client. It reads the configuration
 * (the settings `relayEnabled` / `relayUrl` / `relayMachineId` / `relayShareAll` and the token
 * from RelayTokenStore — or, for `switchboard serve --relay …`, the command line, which wins for
 * that run), starts, restarts or stops the client when it changes, and keeps what outlives one
 * client: the per-pane share flags, the approvals mirror (reviewMirror.ts) and remote typing shown
 * like agent input (remoteInputEcho.ts). The API (`relay.*`) is relayMethods.ts; the status shape
 * is `RelayStatus` in src/common/api/relayContract.ts.
 *
 * Changing the URL, machine id or token replaces the client: terminals that viewers opened end
 * (`daemon_shutdown`) and viewers reconnect to the new link. Share flags survive.
 */
import { hostname } from 'node:os';
import type { Settings } from '../../common/api/contract.ts';
import { ApiError } from '../../common/api/errors.ts';
import type { RelayStatus } from '../../common/api/relayContract.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import type { ReviewQueue } from '../review/reviewQueue.ts';
import type { RelayAgentAnswers } from './agentPrompts.ts';
import { RelayClient, type RelayClientOptions, type RelayStatus as ClientStatus } from './relayClient.ts';
import { RelayTokenStore, type TokenCipher } from './relayTokenStore.ts';
import { defaultMachineId } from './relayUrl.ts';
import { RemoteInputEcho, type RemoteInputShown } from './remoteInputEcho.ts';
import { ReviewMirror } from './reviewMirror.ts';

/** `switchboard serve --relay URL [--machine-id ID] [--share-all]`, token from SWITCHBOARD_RELAY_TOKEN: never stored. */
export interface RelayCommandLine {
  url: string;
  machineId: string;
  token: string;
  shareAll: boolean;
}

/** Client knobs for tests (small backoff, a plain bash for remote terminals…). */
export type RelayClientTuning = Partial<
  Pick<
    RelayClientOptions,
    'timing' | 'remoteShell' | 'homeDir' | 'maxRemoteTerminals' | 'sendQueueFrames' | 'socketHighWaterBytes' | 'viewerBufferBytes' | 'maxViewerStreams' | 'limits'
  >
>;

/** What a Hub host may pass about remote access (`HubOptions.relay`). */
export interface HubRelayOptions {
  /** From the command line: used instead of the settings for this run. */
  commandLine?: RelayCommandLine | undefined;
  /** The OS keychain (Electron main passes one built on `safeStorage`); without it the token goes to a 0600 file. */
  tokenCipher?: TokenCipher | undefined;
  tuning?: RelayClientTuning | undefined;
}

export interface RelayServiceOptions extends HubRelayOptions {
  dataDir: string;
  ptyHost: PtyHost;
  reviews: ReviewQueue;
  workspaceFolders: readonly string[];
  version: string;
  settings: () => Settings;
  logger: ILogger;
  /** A viewer typed into a pane: it counts as a person typing (agents' sends wait for a pause). */
  onPersonInput: (terminalId: string, data: string) => void;
  /** Show a viewer's typing in the pane like agent input (`terminal.agentInput`). */
  onRemoteInputShown: (input: RemoteInputShown) => void;
  /** Answers a viewer gives to agents' prompts in shared panes go through the app's own path (`agent.answer`). */
  agentAnswers?: RelayAgentAnswers;
}

interface DesiredClient {
  url: string;
  machineId: string;
  token: string;
  shareAll: boolean;
}

export class RelayService implements IDisposable {
  readonly #options: RelayServiceOptions;
  readonly #logger: ILogger;
  readonly #tokens: RelayTokenStore;
  readonly #mirror: ReviewMirror;
  readonly #echo: RemoteInputEcho;
  readonly #listeners: IDisposable[];
  /** Per-pane share flags set by the user; they override share-all and outlive client restarts. */
  readonly #overrides = new Map<string, boolean>();
  #client: RelayClient | undefined;
  /** What the running client was built from (URL, machine id, token), to tell a real change from a no-op. */
  #clientKey: string | undefined;
  #offReason: string | undefined;
  /** Configuration changes apply one after another. */
  #applying: Promise<void> = Promise.resolve();
  #state: 'new' | 'started' | 'stopped' | 'disposed' = 'new';
  #lastStatusKey = '';

  readonly #onDidChangeStatus = new Emitter<RelayStatus>();
  readonly onDidChangeStatus: Event<RelayStatus> = this.#onDidChangeStatus.event;

  constructor(options: RelayServiceOptions) {
    this.#options = options;
    this.#logger = options.logger;
    this.#tokens = new RelayTokenStore({ dataDir: options.dataDir, cipher: options.tokenCipher, logger: options.logger });
    this.#mirror = new ReviewMirror({ queue: options.reviews, client: () => this.#connectedClient(), logger: options.logger });
    this.#echo = new RemoteInputEcho({ show: (input) => options.onRemoteInputShown(input) });
    this.#listeners = [
      options.ptyHost.onDidAddTerminal(() => this.#fireStatus()),
      options.ptyHost.onDidRemoveTerminal(({ id }) => {
        this.#overrides.delete(id);
        this.#echo.forget(id);
        this.#fireStatus();
      }),
    ];
  }

  /** Read the stored token and connect when configured. */
  async start(): Promise<void> {
    if (this.#state !== 'new') return;
    this.#state = 'started';
    await this.#tokens.load();
    await this.#queueApply();
  }

  /** The settings changed: connect, reconnect, stop or re-share as they now say. */
  applySettings(): void {
    if (this.#state !== 'started') return;
    void this.#queueApply();
  }

  /** The running client, for hosts and tests (undefined while remote access is off). */
  get client(): RelayClient | undefined {
    return this.#client;
  }

  get status(): RelayStatus {
    const settings = this.#options.settings();
    const commandLine = this.#options.commandLine;
    const shareAll = this.#shareAll();
    const shared = this.#options.ptyHost
      .list()
      .map((info) => info.id)
      .filter((id) => this.#overrides.get(id) ?? shareAll);
    return {
      ...statusOfClient(this.#client?.status, this.#offReason),
      url: commandLine?.url ?? settings.relayUrl,
      machineId: commandLine?.machineId ?? this.#machineId(settings),
      shared,
      shareAll,
      tokenSaved: this.#tokens.token !== undefined,
      tokenStorage: this.#tokens.storage,
      configuredBy: commandLine ? 'command-line' : 'settings',
    };
  }

  /** Store (or with "" remove) the token, then reconnect with it when remote access is on. Never logged. */
  async setToken(token: string): Promise<RelayStatus> {
    if (this.#state !== 'started') throw new ApiError('CONNECTION_CLOSED', 'remote access is shut down');
    try {
      await this.#tokens.save(token || undefined);
    } catch (error) {
      throw new ApiError('INTERNAL', `could not store the relay token: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    this.#logger.info(token ? 'relay token saved' : 'relay token removed', { storage: this.#tokens.storage });
    await this.#queueApply();
    this.#fireStatus(true);
    return this.status;
  }

  /** Share one pane with the relay's viewers, or stop (overrides share-all for it). */
  setShared(terminalId: string, shared: boolean): RelayStatus {
    this.#options.ptyHost.require(terminalId);
    this.#overrides.set(terminalId, shared);
    this.#client?.setShared(terminalId, shared);
    this.#logger.info(shared ? 'terminal shared with the relay' : 'terminal no longer shared with the relay', { terminalId });
    this.#fireStatus();
    return this.status;
  }

  /**
   * Disconnect politely (terminals viewers opened end with `daemon_shutdown`, their exit frames go
   * out). Hosts call it before the Hub closes its terminals.
   */
  async stop(): Promise<void> {
    if (this.#state !== 'started') return;
    this.#state = 'stopped';
    await this.#applying;
    await this.#stopClient();
  }

  dispose(): void {
    if (this.#state === 'disposed') return;
    this.#state = 'disposed';
    for (const listener of this.#listeners) listener.dispose();
    this.#client?.dispose();
    this.#client = undefined;
    this.#mirror.dispose();
    this.#echo.dispose();
    this.#onDidChangeStatus.dispose();
  }

  // --- configuration ----------------------------------------------------------------------------

  #queueApply(): Promise<void> {
    const next = this.#applying.then(() => this.#apply());
    this.#applying = next.catch((error: unknown) => this.#logger.error('applying the relay configuration failed', { error: String(error) }));
    return this.#applying;
  }

  async #apply(): Promise<void> {
    if (this.#state !== 'started') return;
    const desired = this.#desired();
    if (typeof desired === 'string' || desired === undefined) {
      if (this.#client) this.#logger.info('remote access off', desired ? { reason: desired } : {});
      await this.#stopClient();
      this.#offReason = desired;
      this.#fireStatus(true);
      return;
    }
    const key = JSON.stringify([desired.url, desired.machineId, desired.token]);
    if (this.#client && this.#clientKey === key) {
      if (this.#client.shareAll !== desired.shareAll) this.#client.setShareAll(desired.shareAll);
      this.#fireStatus();
      return;
    }
    await this.#stopClient();
    if (this.#state !== 'started') return;
    let client: RelayClient;
    try {
      client = new RelayClient({
        url: desired.url,
        machineId: desired.machineId,
        token: desired.token,
        shareAll: desired.shareAll,
        ptyHost: this.#options.ptyHost,
        sharedFolders: this.#options.workspaceFolders,
        version: this.#options.version,
        logger: this.#logger,
        approvals: this.#mirror,
        ...(this.#options.agentAnswers ? { agentAnswers: this.#options.agentAnswers } : {}),
        // The person at the machine sees who answered its agent, and how, as for a viewer's typing.
        onAgentAnswered: ({ terminalId, viewerName, text }) => this.#options.onRemoteInputShown({ terminalId, viewerName, text }),
        onRemoteInput: ({ terminalId, viewerName, data }) => {
          this.#options.onPersonInput(terminalId, data);
          this.#echo.note(terminalId, viewerName, data);
        },
        ...this.#options.tuning,
      });
    } catch (error) {
      // A configuration the client cannot use (a ws:// URL to another machine…): say why, do not dial.
      this.#offReason = (error as Error).message;
      this.#logger.warn('remote access is misconfigured', { reason: this.#offReason });
      this.#fireStatus(true);
      return;
    }
    for (const [terminalId, shared] of this.#overrides) if (this.#options.ptyHost.get(terminalId)) client.setShared(terminalId, shared);
    client.onDidChangeStatus((status) => {
      if (this.#client !== client) return;
      if (status.state === 'connected') this.#mirror.mirrorAll();
      this.#fireStatus();
    });
    this.#client = client;
    this.#clientKey = key;
    this.#offReason = undefined;
    client.start();
    this.#fireStatus(true);
  }

  /** What the client should be now: a configuration, or why there is none (undefined: remote access is simply off). */
  #desired(): DesiredClient | string | undefined {
    const commandLine = this.#options.commandLine;
    if (commandLine) return commandLine;
    const settings = this.#options.settings();
    if (!settings.relayEnabled) return undefined;
    if (!settings.relayUrl) return 'no relay URL is set';
    const token = this.#tokens.token;
    if (!token) return this.#tokens.unreadableReason ?? 'no token is saved';
    return { url: settings.relayUrl, machineId: this.#machineId(settings), token, shareAll: settings.relayShareAll };
  }

  async #stopClient(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    this.#client = undefined;
    this.#clientKey = undefined;
    try {
      await client.stop();
    } finally {
      client.dispose();
    }
  }

  #connectedClient(): RelayClient | undefined {
    return this.#client?.status.state === 'connected' ? this.#client : undefined;
  }

  #shareAll(): boolean {
    return this.#options.commandLine?.shareAll ?? this.#options.settings().relayShareAll;
  }

  #machineId(settings: Settings): string {
    return settings.relayMachineId || defaultMachineId(hostname());
  }

  /** Tell clients, unless nothing they can see changed (`force`: always, e.g. after a reconfiguration). */
  #fireStatus(force = false): void {
    if (this.#state === 'disposed') return;
    const status = this.status;
    const { retryInMs: _retryInMs, ...stable } = status;
    const key = JSON.stringify([stable, this.#client?.status]);
    if (!force && key === this.#lastStatusKey) return;
    this.#lastStatusKey = key;
    this.#onDidChangeStatus.fire(status);
  }
}

function statusOfClient(status: ClientStatus | undefined, offReason: string | undefined): Pick<RelayStatus, 'state' | 'retryInMs' | 'reason' | 'connectedSince'> {
  switch (status?.state) {
    case undefined:
    case 'stopped':
      return { state: 'off', ...(offReason ? { reason: offReason } : {}) };
    case 'connecting':
      return { state: 'connecting' };
    case 'connected':
      return { state: 'connected', connectedSince: status.since };
    case 'reconnecting':
    case 'refused':
      return { state: status.state, retryInMs: Math.max(0, status.retryAt - Date.now()), reason: status.reason };
  }
}
