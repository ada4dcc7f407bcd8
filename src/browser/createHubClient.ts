/**
 * The renderer's way to reach the Hub without knowing its host: the preload bridge inside
 * Electron, relay frames when `switchboard relay` served the page as a machine's remote view
 * (`/m/<machineId>/`), else a WebSocket to the server that served the page (browser mode).
 */
import type { IHubClient } from '../common/api/hubClient.ts';
import { IpcHubClient } from './ipcHubClient.ts';
import { RelayHubClient } from './relayHubClient.ts';
import { remoteViewTarget, tabStorage } from './remoteViewLocation.ts';
import { WsHubClient } from './wsHubClient.ts';

export async function createHubClient(): Promise<IHubClient> {
  const bridge = typeof window !== 'undefined' ? window.switchboard : undefined;
  if (bridge) return new IpcHubClient(bridge);
  const remote = remoteViewTarget();
  if (remote) return RelayHubClient.connect({ target: remote, storage: tabStorage() });
  return WsHubClient.connect();
}
