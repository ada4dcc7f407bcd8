/**
 * The object Electron's preload script exposes as `window.switchboard` (through contextBridge).
 * It is the renderer's only door to the main process: a contract call and an event feed.
 */
import type { CallOutcome } from '../common/api/wire.ts';

export interface SwitchboardBridge {
  /** Run a contract method in the Hub; never rejects for a refused call (that is `{ok:false}`). */
  call(method: string, params: unknown): Promise<CallOutcome>;
  /** Receive the Hub's events for this window; the returned function unsubscribes. */
  onEvent(listener: (event: string, payload: unknown) => void): () => void;
}

declare global {
  interface Window {
    /** Present only inside the Electron app. */
    readonly switchboard?: SwitchboardBridge;
  }
}
