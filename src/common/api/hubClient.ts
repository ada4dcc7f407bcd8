/**
 * The one interface the renderer talks to. Implemented over Electron IPC (src/browser/ipcHubClient),
 * over WebSocket (src/browser/wsHubClient) and in-process for tests (src/node/api/localHubClient).
 */
import type { Event } from '../event.ts';
import type { IDisposable } from '../lifecycle.ts';
import type { EventPayload, HubEvent, HubMethod, MethodParams, MethodResult } from './contract.ts';

export interface IHubClient extends IDisposable {
  /** Rejects with an ApiError (code + message) when the Hub refuses the call. */
  call<M extends HubMethod>(method: M, params: MethodParams<M>): Promise<MethodResult<M>>;
  on<E extends HubEvent>(event: E, listener: (payload: EventPayload<E>) => void): IDisposable;
  /** Fires when the transport is lost (the Hub went away); pending calls reject with CONNECTION_CLOSED. */
  readonly onDidDisconnect: Event<void>;
}
