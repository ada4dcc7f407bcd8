/**
 * The window's view of remote access (the Hub's relay client): its status, kept live from
 * `relay.statusChanged`, for the sidebar indicator, the tab bar's "Share to relay" toggle and the
 * Settings section; and the actions those offer. Owned by the Workbench.
 *
 * A Hub without remote access (the remote view's own client, an older Hub) answers `relay.*` with
 * an error: the status then stays null and every relay control stays hidden.
 */
import type { RelayStatus } from '../../../src/common/api/relayContract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import { Disposable } from '../../../src/common/lifecycle.ts';
import { errorCode } from '../../app/errorList.ts';
import { ObservableValue } from '../../app/observable.ts';

export interface RelayView {
  status: RelayStatus;
  /** reconnecting / refused: when the next attempt is due, on this window's clock (epoch ms). */
  retryAt: number | null;
}

export class RelayState extends Disposable {
  readonly #client: IHubClient;
  readonly #reportError: (title: string, error: unknown) => void;
  /** null until loaded, or when this Hub has no remote access. */
  readonly view = this.register(new ObservableValue<RelayView | null>(null));

  constructor(client: IHubClient, reportError: (title: string, error: unknown) => void) {
    super();
    this.#client = client;
    this.#reportError = reportError;
  }

  async start(): Promise<void> {
    this.register(this.#client.on('relay.statusChanged', (status) => this.#set(status)));
    try {
      const status = await this.#client.call('relay.getStatus', {});
      if (!this.store.isDisposed && this.view.value === null) this.#set(status);
    } catch (error) {
      // No remote access here (see the file comment): nothing to show, nothing to report.
      if (errorCode(error) !== 'CONNECTION_CLOSED') console.info('[switchboard] remote access is not available here:', error);
    }
  }

  isShared(terminalId: string): boolean {
    return this.view.value?.status.shared.includes(terminalId) ?? false;
  }

  async setShared(terminalId: string, shared: boolean): Promise<void> {
    try {
      this.#set(await this.#client.call('relay.setShared', { terminalId, shared }));
    } catch (error) {
      this.#reportError(shared ? 'Could not share the terminal' : 'Could not stop sharing the terminal', error);
    }
  }

  /** Store the token ("" removes it). Resolves true once the Hub has it. */
  async setToken(token: string): Promise<boolean> {
    try {
      this.#set(await this.#client.call('relay.setToken', { token }));
      return true;
    } catch (error) {
      this.#reportError(token ? 'Could not save the relay token' : 'Could not remove the relay token', error);
      return false;
    }
  }

  #set(status: RelayStatus): void {
    this.view.set({ status, retryAt: status.retryInMs !== undefined ? Date.now() + status.retryInMs : null });
  }
}

/** Whether the user has set remote access up at all (the relay controls stay out of the way otherwise). */
export function isRelayConfigured(status: RelayStatus): boolean {
  return status.configuredBy === 'command-line' || status.state !== 'off' || status.url !== '';
}
