/**
 * Keeps a live Hub client: connects, notices when the transport is lost, and reconnects with
 * back-off. Each successful connection is a new generation; the UI builds a fresh Workbench for
 * it, which re-attaches every pane (the Hub's snapshots make that lossless).
 */
import type { AppState } from '../../src/common/api/contract.ts';
import type { IHubClient } from '../../src/common/api/hubClient.ts';
import { Disposable, type IDisposable } from '../../src/common/lifecycle.ts';
import { errorCode } from './errorList.ts';
import { ObservableValue } from './observable.ts';

export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'connected'; client: IHubClient; appState: AppState; generation: number }
  | { kind: 'reconnecting'; attempt: number; lastError: string | null; wasConnected: boolean }
  /** The Hub refused our credentials: retrying cannot help, the user must open a fresh URL. */
  | { kind: 'unauthorized'; message: string };

export type HubClientFactory = () => IHubClient | Promise<IHubClient>;

/** Back-off between reconnect attempts: quick at first (a restarting server), then every few seconds. */
const retryDelaysMs = [250, 500, 1000, 2000, 3000, 5000];

export type LiveConnection = Extract<ConnectionState, { kind: 'connected' }>;

export class HubConnection extends Disposable {
  readonly state = this.register(new ObservableValue<ConnectionState>({ kind: 'connecting' }));
  /**
   * The latest successful connection. Unlike `state` it stays set while reconnecting, so the
   * window keeps showing the last screens (under a banner) instead of going blank.
   */
  readonly live = this.register(new ObservableValue<LiveConnection | null>(null));
  readonly #createClient: HubClientFactory;
  #client: IHubClient | undefined;
  #clientSubscription: IDisposable | undefined;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #attempt = 0;
  #generation = 0;
  #everConnected = false;

  constructor(createClient: HubClientFactory) {
    super();
    this.#createClient = createClient;
  }

  start(): void {
    void this.#connect();
  }

  /** Try again now (the "Reconnect" button) instead of waiting for the next attempt. */
  retryNow(): void {
    if (this.state.value.kind !== 'reconnecting') return;
    clearTimeout(this.#retryTimer);
    void this.#connect();
  }

  async #connect(): Promise<void> {
    if (this.store.isDisposed) return;
    let client: IHubClient | undefined;
    try {
      client = await this.#createClient();
      const appState = await client.call('app.getState', {});
      if (this.store.isDisposed) {
        client.dispose();
        return;
      }
      this.#attempt = 0;
      this.#everConnected = true;
      this.#client = client;
      const connected = client;
      this.#clientSubscription = client.onDidDisconnect(() => this.#onLost(connected));
      const live: LiveConnection = { kind: 'connected', client, appState, generation: ++this.#generation };
      this.state.set(live);
      this.live.set(live);
    } catch (error) {
      client?.dispose();
      if (this.store.isDisposed) return;
      const message = error instanceof Error ? error.message : String(error);
      if (errorCode(error) === 'UNAUTHORIZED') {
        this.state.set({ kind: 'unauthorized', message });
        return;
      }
      this.#scheduleRetry(message);
    }
  }

  #onLost(client: IHubClient): void {
    if (client !== this.#client) return;
    this.#dropClient();
    this.#scheduleRetry(null);
  }

  #scheduleRetry(lastError: string | null): void {
    const attempt = ++this.#attempt;
    this.state.set({ kind: 'reconnecting', attempt, lastError, wasConnected: this.#everConnected });
    const delay = retryDelaysMs[Math.min(attempt - 1, retryDelaysMs.length - 1)] ?? 5000;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => void this.#connect(), delay);
  }

  #dropClient(): void {
    this.#clientSubscription?.dispose();
    this.#clientSubscription = undefined;
    const client = this.#client;
    this.#client = undefined;
    client?.dispose();
  }

  override dispose(): void {
    clearTimeout(this.#retryTimer);
    this.#dropClient();
    super.dispose();
  }
}
