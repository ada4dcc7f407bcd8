/**
 * What every transport client of the Hub shares: typed listeners per event, the disconnect event,
 * and turning a `CallOutcome` into a resolved value or a rejected ApiError.
 */
import type { EventPayload, HubEvent, HubMethod, MethodParams, MethodResult } from '../common/api/contract.ts';
import { ApiError } from '../common/api/errors.ts';
import type { IHubClient } from '../common/api/hubClient.ts';
import type { CallOutcome } from '../common/api/wire.ts';
import { Emitter, type Event } from '../common/event.ts';
import { type IDisposable, toDisposable } from '../common/lifecycle.ts';

export abstract class HubClientBase implements IHubClient {
  readonly #listeners = new Map<string, Set<(payload: unknown) => void>>();
  protected readonly disconnectEmitter = new Emitter<void>();
  readonly onDidDisconnect: Event<void> = this.disconnectEmitter.event;
  protected disposed = false;

  /** Send one call over the transport and resolve with its outcome. */
  protected abstract send(method: string, params: unknown): Promise<CallOutcome>;

  async call<M extends HubMethod>(method: M, params: MethodParams<M>): Promise<MethodResult<M>> {
    if (this.disposed) throw new ApiError('CONNECTION_CLOSED', 'the Hub client is disposed');
    const outcome = await this.send(method, params);
    if (!outcome.ok) throw new ApiError(outcome.error.code, outcome.error.message);
    return outcome.result as MethodResult<M>;
  }

  on<E extends HubEvent>(event: E, listener: (payload: EventPayload<E>) => void): IDisposable {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    // Wrap so the same function subscribed twice gets two independent subscriptions.
    const entry = (payload: unknown) => listener(payload as EventPayload<E>);
    set.add(entry);
    return toDisposable(() => set.delete(entry));
  }

  /** Hand an event from the transport to its listeners; one throwing listener does not stop the others. */
  protected dispatchEvent(event: string, payload: unknown): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(payload);
      } catch (error) {
        console.error(`listener for ${event} threw`, error);
      }
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.#listeners.clear();
    this.disconnectEmitter.dispose();
  }
}
