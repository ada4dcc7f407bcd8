/**
 * One client's session with the Hub (a renderer window, a browser tab, a test). It is the trust
 * boundary for the contract: every call is checked against `hubMethods` before any Hub code runs,
 * and every failure comes back as a `CallOutcome` value — client input never makes `call` throw.
 * Per-client resources (terminal attachments) are owned here and die with the connection.
 */
import { ApiError, isApiError } from '../../common/api/errors.ts';
import {
  type Creator,
  type EventPayload,
  type HubEvent,
  type HubMethod,
  hubMethods,
  isHubMethod,
  type MethodResult,
  type ParsedParams,
} from '../../common/api/contract.ts';
import type { CallOutcome } from '../../common/api/wire.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { formatZodIssues, nestsDeeperThan } from '../../common/validation.ts';
import { postponeCollection } from '../idleCollector.ts';

/** No contract type nests anywhere near this deep (a layout of 30 nested splits is unusable). */
const maxParamsDepth = 64;

/** Where a connection's events go (a WebSocket, an IPC channel, an in-process listener). */
export interface HubEventSink {
  sendEvent(event: HubEvent, payload: unknown): void;
}

/** Who is on the other end; terminals created through this connection are attributed to it. */
export type HubPeer = Creator;

export interface CallContext {
  readonly connection: HubConnection;
}

export type HubMethodHandler<M extends HubMethod> = (
  params: ParsedParams<M>,
  context: CallContext,
) => MethodResult<M> | Promise<MethodResult<M>>;

export type HubMethodHandlers = { readonly [M in HubMethod]: HubMethodHandler<M> };

/** A live per-connection subscription to one terminal's output. */
export interface TerminalAttachment extends IDisposable {
  ack(chars: number): void;
}

export class HubConnection implements IDisposable {
  readonly id: number;
  readonly peer: HubPeer;
  readonly #sink: HubEventSink;
  readonly #handlers: HubMethodHandlers;
  readonly #logger: ILogger;
  readonly #attachments = new Map<string, TerminalAttachment>();
  #disposed = false;
  readonly #onDidDispose = new Emitter<void>();
  readonly onDidDispose: Event<void> = this.#onDidDispose.event;

  constructor(options: { id: number; peer: HubPeer; sink: HubEventSink; handlers: HubMethodHandlers; logger: ILogger }) {
    this.id = options.id;
    this.peer = options.peer;
    this.#sink = options.sink;
    this.#handlers = options.handlers;
    this.#logger = options.logger;
  }

  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** Validate and run one method call. Never throws; never rejects. */
  async call(method: string, params: unknown): Promise<CallOutcome> {
    if (this.#disposed) return failure('CONNECTION_CLOSED', 'the connection to the Hub is closed');
    // Someone is using the app: the answer should not wait behind a collection.
    postponeCollection();
    if (typeof method !== 'string' || !isHubMethod(method)) {
      return failure('UNKNOWN_METHOD', `unknown method: ${typeof method === 'string' ? method.slice(0, 100) : typeof method}`);
    }
    if (nestsDeeperThan(params, maxParamsDepth)) {
      return failure('INVALID_PARAMS', `${method}: params nest deeper than ${maxParamsDepth} levels`);
    }
    try {
      // JSON and IPC drop `undefined`; a parameterless call may arrive without params at all.
      const parsed = hubMethods[method].params.safeParse(params === undefined ? {} : params);
      if (!parsed.success) return failure('INVALID_PARAMS', `${method}: ${formatZodIssues(parsed.error)}`);
      const handler = this.#handlers[method] as HubMethodHandler<HubMethod>;
      const result = await handler(parsed.data as ParsedParams<HubMethod>, { connection: this });
      return { ok: true, result };
    } catch (error) {
      if (isApiError(error)) return { ok: false, error: error.toJSON() };
      this.#logger.error('unexpected failure in a hub method', { method, connection: this.id, error: describeError(error) });
      return failure('INTERNAL', `internal error in ${method}`);
    }
  }

  /** Deliver an event to this client; a broken sink is logged and never reaches other clients. */
  sendEvent<E extends HubEvent>(event: E, payload: EventPayload<E>): void {
    if (this.#disposed) return;
    try {
      this.#sink.sendEvent(event, payload);
    } catch (error) {
      this.#logger.warn('failed to deliver an event', { event, connection: this.id, error: describeError(error) });
    }
  }

  getAttachment(terminalId: string): TerminalAttachment | undefined {
    return this.#attachments.get(terminalId);
  }

  /** Take ownership of an attachment; an earlier one for the same terminal is released first. */
  setAttachment(terminalId: string, attachment: TerminalAttachment): void {
    if (this.#disposed) {
      attachment.dispose();
      throw new ApiError('CONNECTION_CLOSED', 'the connection to the Hub is closed');
    }
    this.#attachments.get(terminalId)?.dispose();
    this.#attachments.set(terminalId, attachment);
  }

  /** Release this connection's attachment to a terminal; returns whether there was one. */
  releaseAttachment(terminalId: string): boolean {
    const attachment = this.#attachments.get(terminalId);
    if (!attachment) return false;
    this.#attachments.delete(terminalId);
    attachment.dispose();
    return true;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const [terminalId, attachment] of this.#attachments) {
      try {
        attachment.dispose();
      } catch (error) {
        this.#logger.warn('failed to release an attachment', { terminalId, connection: this.id, error: describeError(error) });
      }
    }
    this.#attachments.clear();
    this.#onDidDispose.fire();
    this.#onDidDispose.dispose();
  }
}

function failure(code: ApiError['code'], message: string): CallOutcome {
  return { ok: false, error: { code, message } };
}

export function describeError(error: unknown): { name: string; message: string; stack?: string } | string {
  if (error instanceof Error) return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  return String(error);
}
