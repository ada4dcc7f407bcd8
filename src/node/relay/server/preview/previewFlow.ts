/**
 * What the relay's preview streams share: the limits (RelayConstants.preview*, injectable through
 * RelayServerOptions.preview), the gateway's side of a stream, the send window of
 * `previewStreamAck` (docs/relay.md "Flow control") and the sequence rule.
 */
import { RelayConstants } from '../../../../common/constants.ts';
import type { RelayFields, RelayMessageType } from '../../../../common/protocol/relay/messages.ts';
import type { BodyFrameType } from '../../preview/previewBodyFrames.ts';

export interface PreviewLimits {
  /** Body bytes per chunk / WebSocket message (before base64); larger from the daemon is refused. */
  chunkBytes: number;
  lifetimeMs: number;
  maxOpenPerMachine: number;
  maxStreamsPerPreview: number;
  maxStreamsPerMachine: number;
  maxRequestBodyBytes: number;
  maxResponseBodyBytes: number;
  streamIdleTimeoutMs: number;
  streamTotalTimeoutMs: number;
  /** previewOpen / previewWebSocketOpen / a response head not answered within this → 504. */
  openTimeoutMs: number;
  /** Our window (told in welcome) and, to a daemon without one, what one stream may hold for a slow viewer. */
  streamBufferBytes: number;
}

export const defaultPreviewLimits: PreviewLimits = {
  chunkBytes: RelayConstants.previewChunkBytes,
  lifetimeMs: RelayConstants.previewLifetimeMs,
  maxOpenPerMachine: RelayConstants.previewMaxOpenPerMachine,
  maxStreamsPerPreview: RelayConstants.previewMaxStreamsPerPreview,
  maxStreamsPerMachine: RelayConstants.previewMaxStreamsPerMachine,
  maxRequestBodyBytes: RelayConstants.previewMaxRequestBodyBytes,
  maxResponseBodyBytes: RelayConstants.previewMaxResponseBodyBytes,
  streamIdleTimeoutMs: RelayConstants.previewStreamIdleTimeoutMs,
  streamTotalTimeoutMs: RelayConstants.previewStreamTotalTimeoutMs,
  openTimeoutMs: RelayConstants.previewOpenTimeoutMs,
  streamBufferBytes: RelayConstants.previewStreamBufferBytes,
};

/** A preview the daemon opened: one port of one shared pane. */
export interface OpenPreview {
  readonly id: string;
  readonly port: number;
  readonly targetHost: string;
  readonly terminalId: string;
  /** The label of its own origin: `<label>.<preview domain>` (previewOrigins.ts). */
  readonly label: string;
  readonly streams: Set<PreviewStream>;
}

/** What a stream needs of its gateway. */
export interface StreamHost {
  readonly machineId: string;
  readonly limits: PreviewLimits;
  /** The daemon's `previewStreamWindowBytes`, undefined when it advertised none (then: no acks, no waiting). */
  readonly daemonWindowBytes: number | undefined;
  /**
   * The daemon's `previewChunkBytes` (else ours): the largest body piece it sends, and the largest
   * the relay sends it (never more than ours either).
   */
  readonly daemonChunkBytes: number;
  send<T extends RelayMessageType>(type: T, fields: RelayFields<T>): void;
  /** Send body bytes: a binary frame to a daemon that takes them (`previewBinaryBodies`), else base64 in JSON. */
  sendBody<T extends BodyFrameType>(type: T, fields: Omit<RelayFields<T>, 'bodyBase64'>, body: Buffer): void;
  refuse(kind: string, error: string): void;
  /** The stream is over: forget it (its id is remembered as ended). */
  ended(stream: PreviewStream): void;
  /** Bytes one stream holds for its viewer right now (for the high-water mark). */
  noteBuffered(bytes: number): void;
}

/** A stream as the gateway routes frames to it. */
export interface PreviewStream {
  readonly id: string;
  readonly kind: 'http' | 'webSocket';
  readonly preview: OpenPreview;
  /** Bytes held for the viewer (unsent response / WebSocket data). */
  readonly bufferedBytes: number;
  onFrame(message: DaemonStreamFrame): void;
  /** The preview ended (closed, daemon offline, relay closing): end without telling the daemon. */
  previewEnded(reason: string, webSocketCode: number): void;
}

export type DaemonStreamFrame =
  | ({ type: 'previewHttpResponseHead' } & RelayFields<'previewHttpResponseHead'>)
  | ({ type: 'previewStreamChunk' } & RelayFields<'previewStreamChunk'>)
  | ({ type: 'previewStreamCancel' } & RelayFields<'previewStreamCancel'>)
  | ({ type: 'previewStreamAck' } & RelayFields<'previewStreamAck'>)
  | ({ type: 'previewWebSocketOpenResult' } & RelayFields<'previewWebSocketOpenResult'>)
  | ({ type: 'previewWebSocketData' } & RelayFields<'previewWebSocketData'>)
  | ({ type: 'previewWebSocketClose' } & RelayFields<'previewWebSocketClose'>);

/**
 * Body bytes the relay sent the daemon on one stream and the daemon has not acknowledged yet. With
 * a window (the daemon advertised one) the viewer's side is paused while `full`; without, it never is.
 */
export class SendWindow {
  readonly #window: number | undefined;
  readonly #inFlight: Array<{ sequence: number; bytes: number }> = [];
  #unacked = 0;
  #lastSent = 0;

  constructor(windowBytes: number | undefined) {
    this.#window = windowBytes;
  }

  get unacked(): number {
    return this.#unacked;
  }

  get full(): boolean {
    return this.#window !== undefined && this.#unacked >= this.#window;
  }

  sent(sequence: number, bytes: number): void {
    this.#lastSent = sequence;
    if (this.#window === undefined) return;
    this.#inFlight.push({ sequence, bytes });
    this.#unacked += bytes;
  }

  /** An ack up to `sequence`; an error text when it acknowledges what was never sent. */
  ack(sequence: number): string | undefined {
    if (sequence > this.#lastSent) return `ack of sequence ${sequence}, only ${this.#lastSent} sent`;
    while (this.#inFlight.length > 0 && this.#inFlight[0]!.sequence <= sequence) this.#unacked -= this.#inFlight.shift()!.bytes;
    return undefined;
  }
}

/** The sequence rule of chunks and WebSocket data: 1, 2, 3… ; the reason to cancel otherwise. */
export function sequenceError(expected: number, got: number): string | undefined {
  return got === expected ? undefined : `sequence ${got} after ${expected - 1}`;
}

/** A WebSocket close code the relay may send a viewer (1005/1006/1015 and out-of-range codes may not be sent). */
export function sendableCloseCode(code: number | undefined, fallback = 1000): number {
  if (code === undefined) return fallback;
  if ((code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999)) return code;
  return fallback;
}

/** A close reason within the protocol's 123 bytes, cut between characters. */
export function closeReason(reason: string | undefined): string {
  let text = reason ?? '';
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  return text;
}
