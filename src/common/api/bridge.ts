/**
 * The object Electron's preload script exposes as `window.switchboard` (through contextBridge),
 * and the IPC channels behind it. It is the renderer's only door to the main process: a contract
 * call and an event feed. Kept here so preload (Electron), main and the browser client share one
 * definition without importing each other's layers.
 */
import type { CallOutcome } from './wire.ts';

export interface SwitchboardBridge {
  /** Run a contract method in the Hub; never rejects for a refused call (that is `{ok:false}`). */
  call(method: string, params: unknown): Promise<CallOutcome>;
  /** Receive the Hub's events for this window; the returned function unsubscribes. */
  onEvent(listener: (event: string, payload: unknown) => void): () => void;
}

export const BridgeChannels = {
  call: 'switchboard:call',
  event: 'switchboard:event',
} as const;
