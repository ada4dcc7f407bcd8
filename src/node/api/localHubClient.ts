/**
 * An in-process IHubClient over a Hub connection, for tests and in-process callers. It behaves
 * like the transport clients: refusals reject with ApiError, events reach the listeners registered
 * with `on`, and calls after dispose reject with CONNECTION_CLOSED. No serialisation happens, so
 * results are the Hub's own objects.
 */
import type { EventPayload, HubEvent, HubMethod, MethodParams, MethodResult } from '../../common/api/contract.ts';
import { ApiError } from '../../common/api/errors.ts';
import type { IHubClient } from '../../common/api/hubClient.ts';
import { Emitter, type Event } from '../../common/event.ts';
import { type IDisposable, toDisposable } from '../../common/lifecycle.ts';
import type { Hub } from '../hub.ts';
import type { HubPeer } from './hubConnection.ts';

export interface LocalHubClient extends IHubClient {
  /** Raw call without client-side typing, to exercise the Hub's validation in tests. */
  callRaw(method: string, params: unknown): Promise<unknown>;
}

export function createLocalHubClient(hub: Hub, peer: HubPeer = { kind: 'person', name: 'test' }): LocalHubClient {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const onDidDisconnect = new Emitter<void>();
  let disposed = false;

  const connection = hub.connect(
    {
      sendEvent(event, payload) {
        for (const listener of [...(listeners.get(event) ?? [])]) listener(payload);
      },
    },
    peer,
  );
  const connectionGone = connection.onDidDispose(() => {
    disposed = true;
    onDidDisconnect.fire();
  });

  async function callRaw(method: string, params: unknown): Promise<unknown> {
    if (disposed) throw new ApiError('CONNECTION_CLOSED', 'the client is disposed');
    const outcome = await connection.call(method, params);
    if (!outcome.ok) throw new ApiError(outcome.error.code, outcome.error.message);
    return outcome.result;
  }

  return {
    callRaw,
    call<M extends HubMethod>(method: M, params: MethodParams<M>): Promise<MethodResult<M>> {
      return callRaw(method, params) as Promise<MethodResult<M>>;
    },
    on<E extends HubEvent>(event: E, listener: (payload: EventPayload<E>) => void): IDisposable {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const entry = listener as (payload: unknown) => void;
      set.add(entry);
      return toDisposable(() => set.delete(entry));
    },
    onDidDisconnect: onDidDisconnect.event as Event<void>,
    dispose() {
      if (disposed) return;
      disposed = true;
      connectionGone.dispose();
      connection.dispose();
      listeners.clear();
      onDidDisconnect.dispose();
    },
  };
}
