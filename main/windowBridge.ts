/**
 * Connects one BrowserWindow to the Hub. The window gets its own Hub connection; the connection
 * is replaced whenever the page is reloaded or its renderer dies, so a reloaded page never
 * inherits (and never has to acknowledge) the old page's terminal attachments.
 */
import type { BrowserWindow } from 'electron';
import { BridgeChannels } from '../src/common/api/bridge.ts';
import type { CallOutcome } from '../src/common/api/wire.ts';
import type { IDisposable } from '../src/common/lifecycle.ts';
import type { HubConnection } from '../src/node/api/hubConnection.ts';
import type { Hub } from '../src/node/hub.ts';
import type { ILogger } from '../src/node/logger.ts';
import { isTrustedSender, type IpcBridge, type IpcSender } from './windowPolicy.ts';


/** At most this many automatic reloads after renderer crashes within `crashWindowMs`. */
const maxReloadsPerWindow = 3;
const crashWindowMs = 60_000;

export class WindowBridge implements IDisposable, IpcBridge {
  readonly #window: BrowserWindow;
  readonly #hub: Hub;
  readonly #rendererUrl: string;
  readonly #logger: ILogger;
  #connection: HubConnection | undefined;
  #disposed = false;
  /** When the renderer crashed recently (see #reloadAfterCrash). */
  #crashes: number[] = [];

  constructor(options: { window: BrowserWindow; hub: Hub; rendererUrl: string; logger: ILogger }) {
    this.#window = options.window;
    this.#hub = options.hub;
    this.#rendererUrl = options.rendererUrl;
    this.#logger = options.logger;
    const contents = this.#window.webContents;
    // Renew when a new page has committed (a reload), not when a navigation starts: security.ts
    // cancels every other navigation (a dropped file, a link), and the page that stays must keep
    // its attachments.
    contents.on('did-navigate', () => this.#renewConnection('page loaded'));
    contents.on('render-process-gone', (_event, details) => {
      this.#renewConnection(`renderer gone: ${details.reason}`);
      this.#reloadAfterCrash(details.reason);
    });
    this.#window.on('closed', () => this.dispose());
  }

  /**
   * A crashed renderer comes back by itself: the new page reattaches every pane to its running
   * PTY from the Hub's mirrors. Bounded, so a renderer that crashes on load does not spin.
   */
  #reloadAfterCrash(reason: string): void {
    const now = Date.now();
    this.#crashes = this.#crashes.filter((at) => now - at < crashWindowMs);
    this.#crashes.push(now);
    if (reason === 'clean-exit' || this.#disposed || this.#window.isDestroyed()) return;
    if (this.#crashes.length > maxReloadsPerWindow) {
      this.#logger.error('the window keeps crashing; not reloading it again', { reason, crashes: this.#crashes.length });
      return;
    }
    this.#logger.warn('the window crashed; reloading it', { reason });
    this.#window.webContents.reload();
  }

  /** Whether an IPC message comes from our page in our window (not an iframe, not another window). */
  isTrustedSender(event: IpcSender): boolean {
    return !this.#disposed && isTrustedSender(event, this.#window, this.#rendererUrl);
  }

  async handleCall(method: unknown, params: unknown): Promise<CallOutcome> {
    if (typeof method !== 'string') return { ok: false, error: { code: 'UNKNOWN_METHOD', message: 'method must be a string' } };
    return this.#ensureConnection().call(method, params);
  }

  #ensureConnection(): HubConnection {
    if (!this.#connection || this.#connection.isDisposed) {
      const contents = this.#window.webContents;
      this.#connection = this.#hub.connect(
        {
          sendEvent: (event, payload) => {
            if (!contents.isDestroyed()) contents.send(BridgeChannels.event, event, payload);
          },
        },
        { kind: 'person', name: 'you' },
      );
    }
    return this.#connection;
  }

  #renewConnection(reason: string): void {
    if (!this.#connection) return;
    this.#logger.debug('dropping the window connection', { reason });
    this.#connection.dispose();
    this.#connection = undefined;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#connection?.dispose();
    this.#connection = undefined;
  }
}
