/**
 * Attach a hand-driven relay client to a running Hub, for tests and embedders that want a client
 * of their own. Hosts do not use it: the Hub owns its relay client (relayService.ts), configured
 * by the settings or `HubOptions.relay.commandLine`; never run both against one relay machine id.
 * The caller owns the returned client and stops it before shutting the Hub down:
 *
 *   const relay = startRelayClient(hub, { url, machineId, token, shareAll });
 *   …
 *   await relay.stop(); relay.dispose(); await hub.shutdown();
 *
 * Remote viewers see the Hub's terminals (shared ones, and those they open), and browse the Hub's
 * workspace folders. Typing from a viewer counts as a person typing (agents' sends wait for a pause).
 */
import type { Hub } from '../hub.ts';
import type { ILogger } from '../logger.ts';
import { RelayClient, type RelayClientOptions } from './relayClient.ts';

export interface StartRelayClientOptions extends Partial<Omit<RelayClientOptions, 'url' | 'machineId' | 'token'>> {
  url: string;
  machineId: string;
  token: string;
  /** The relay subsystem's logger (a child of the host's). */
  logger: ILogger;
}

/** Throws (before dialling) when the URL, machine id or token is unusable. */
export function startRelayClient(hub: Hub, options: StartRelayClientOptions): RelayClient {
  const { logger, onRemoteInput, ...rest } = options;
  const client = new RelayClient({
    ptyHost: hub.ptyHost,
    sharedFolders: hub.workspaceFolders,
    version: hub.version,
    logger,
    onRemoteInput: (event) => {
      hub.controlServer.typingGuard.notePersonInput(event.terminalId, event.data);
      onRemoteInput?.(event);
    },
    ...rest,
  });
  client.start();
  return client;
}
