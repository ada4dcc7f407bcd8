/**
 * The remote-access part of the API contract: the Hub's relay client (docs/relay.md, "In the app")
 * — its status, the token (write-only: no method ever returns it), and which panes are shared with
 * the relay's viewers. The relay URL, machine id, "connect on start" and "share all" are ordinary
 * settings (`relayUrl`, `relayMachineId`, `relayEnabled`, `relayShareAll`). Spread into
 * `hubMethods`/`hubEvents` by contract.ts.
 */
import { z } from 'zod';
import { TerminalId } from './contractTypes.ts';

/** Longest relay token accepted (the relay's own are ~50 characters). */
const maxRelayTokenChars = 4096;

export const RelayConnectionState = z.enum([
  /** Not connecting: remote access is off, or its configuration is incomplete or invalid (`reason` says what). */
  'off',
  'connecting',
  'connected',
  /** The link dropped or could not be made; the next attempt is in `retryInMs`. */
  'reconnecting',
  /** The relay refused this machine (wrong machine id or token): `reason`; retried at the longest backoff. */
  'refused',
]);
export type RelayConnectionState = z.infer<typeof RelayConnectionState>;

export const RelayStatus = z.object({
  state: RelayConnectionState,
  /** reconnecting / refused: milliseconds until the next attempt, as of when this status was sent. */
  retryInMs: z.number().int().min(0).optional(),
  /** Why it is off, reconnecting or refused, for people ("no token saved", "HTTP 401"…). */
  reason: z.string().optional(),
  /** The relay as configured (never with a token); "" when none is set. */
  url: z.string(),
  /** This machine's id on the relay (the setting, else the host name). */
  machineId: z.string(),
  /** The terminals remote viewers can see now (shared one by one, or by "share all"). */
  shared: z.array(TerminalId),
  /** Every pane is shared unless it was unshared one by one. */
  shareAll: z.boolean(),
  /** A token is stored (its value is never sent to clients). */
  tokenSaved: z.boolean(),
  /** Where `relay.setToken` keeps the token on this host: the OS keychain (Electron safeStorage) or a 0600 file in the data dir. */
  tokenStorage: z.enum(['keychain', 'file']),
  /**
   * `command-line`: this Hub was started with `switchboard serve --relay …` (token from the
   * environment), which wins over the settings for this run.
   */
  configuredBy: z.enum(['settings', 'command-line']),
  /** connected: since when (epoch ms). */
  connectedSince: z.number().optional(),
});
export type RelayStatus = z.infer<typeof RelayStatus>;

/** A relay token: visible ASCII, no spaces (it travels in an HTTP header). "" removes the stored token. */
export const RelayToken = z
  .string()
  .max(maxRelayTokenChars)
  .regex(/^[\x21-\x7e]*$/, 'a relay token is printable ASCII without spaces');

export const relayMethods = {
  'relay.getStatus': { params: z.object({}).strict(), result: RelayStatus },
  /**
   * Store the machine's relay token (write-only: no method returns it; "" removes it) and, when
   * remote access is on, reconnect with it.
   */
  'relay.setToken': { params: z.object({ token: RelayToken }).strict(), result: RelayStatus },
  /** Share one pane with the relay's viewers, or stop; overrides "share all" for that pane. NOT_FOUND for an unknown terminal. */
  'relay.setShared': { params: z.object({ terminalId: TerminalId, shared: z.boolean() }).strict(), result: RelayStatus },
} as const;

export const relayEvents = {
  /** The connection state, the configuration or the shared panes changed. */
  'relay.statusChanged': RelayStatus,
} as const;
