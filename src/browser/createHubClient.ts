/**
 * The renderer's way to reach the Hub without knowing its host: the preload bridge inside
 * Electron, else a WebSocket to the server that served the page (browser mode).
 */
import type { IHubClient } from '../common/api/hubClient.ts';
import { IpcHubClient } from './ipcHubClient.ts';
import { WsHubClient } from './wsHubClient.ts';

export async function createHubClient(): Promise<IHubClient> {
  const bridge = typeof window !== 'undefined' ? window.switchboard : undefined;
  if (bridge) return new IpcHubClient(bridge);
  return WsHubClient.connect();
}
