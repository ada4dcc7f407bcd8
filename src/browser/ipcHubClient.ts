/** IHubClient inside the Electron app, over the preload bridge `window.switchboard`. */
import type { CallOutcome } from '../common/api/wire.ts';
import { HubClientBase } from './hubClientBase.ts';
import type { SwitchboardBridge } from './switchboardBridge.ts';

export class IpcHubClient extends HubClientBase {
  readonly #bridge: SwitchboardBridge;
  readonly #unsubscribe: () => void;

  constructor(bridge: SwitchboardBridge) {
    super();
    this.#bridge = bridge;
    this.#unsubscribe = bridge.onEvent((event, payload) => this.dispatchEvent(event, payload));
  }

  protected async send(method: string, params: unknown): Promise<CallOutcome> {
    try {
      return await this.#bridge.call(method, params);
    } catch (error) {
      // The bridge itself failed (main process refused the sender or went away), not the Hub.
      return { ok: false, error: { code: 'CONNECTION_CLOSED', message: `IPC to the main process failed: ${error instanceof Error ? error.message : String(error)}` } };
    }
  }

  override dispose(): void {
    if (this.disposed) return;
    this.#unsubscribe();
    super.dispose();
  }
}
