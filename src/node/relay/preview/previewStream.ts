/**
 * What an HTTP stream and a WebSocket stream of the preview tunnel share: the frames they send
 * (through their own PreviewOutput), the sequence rule for what the relay sends them (1, 2, …; a
 * gap, a repeat, a step back or anything after `final` ends the stream), the idle timer, and the
 * one way they end (`cancel` with a frame for the relay, or `finish` without one).
 */
import { encodeFrame } from '../../../common/protocol/relay/frames.ts';
import type { ILogger } from '../../logger.ts';
import type { RefusalLog } from '../refusalLog.ts';
import type { RelayConnection } from '../relayConnection.ts';
import { type BodyItem, PreviewOutput } from './previewOutput.ts';
import type { PreviewLimits } from './previewRules.ts';

/** What a stream needs of the tunnel. */
export interface StreamHost {
  connection: RelayConnection;
  limits: PreviewLimits;
  /** The relay's `welcome.previewStreamWindowBytes`, or undefined (it does not acknowledge). */
  peerWindow: number | undefined;
  /** The relay's `welcome.previewBinaryBodies`: bodies go as binary frames (previewBodyFrames.ts). */
  binaryBodies: boolean;
  refusals: RefusalLog;
  logger: ILogger;
  /** Send a control frame (a cancel, a failed open) — held back while the link's queue is half full, so answers to a flood never drop the link. */
  send(frame: string): void;
  /** The stream ended (whatever the way): forget it. */
  ended(stream: PreviewStream): void;
}

export interface StreamTarget {
  previewId: string;
  host: string;
  port: number;
}

export abstract class PreviewStream {
  readonly streamId: string;
  readonly target: StreamTarget;
  protected readonly host: StreamHost;
  protected readonly output: PreviewOutput;
  #inboundSequence = 0;
  #inboundFinal = false;
  #idleTimer: NodeJS.Timeout | undefined;
  #ended = false;
  #cancelSent = false;

  constructor(host: StreamHost, streamId: string, target: StreamTarget, encode: (sequence: number, item: BodyItem) => string | Buffer) {
    this.host = host;
    this.streamId = streamId;
    this.target = target;
    this.output = new PreviewOutput({
      connection: host.connection,
      streamId,
      encode,
      window: host.peerWindow,
      onDrained: (sent) => {
        if (sent > 0) this.touch();
        this.drained();
      },
      onFinished: () => this.finish(),
    });
    this.touch();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** It ended with our previewStreamCancel (the relay knows; a late frame of its own needs no second one). */
  get cancelSent(): boolean {
    return this.#cancelSent;
  }

  /** The most body bytes this stream ever held for the relay at once. */
  get peakPendingBytes(): number {
    return this.output.peakPendingBytes;
  }

  /** Body bytes held for the relay now. */
  get pendingBytes(): number {
    return this.output.pendingBytes;
  }

  /** The relay acknowledged our frames up to `sequence`. */
  onAck(sequence: number): void {
    if (this.#ended) return;
    if (!this.output.acknowledged(sequence)) {
      this.host.refusals.refuse('preview-ack', `previewStreamAck for ${JSON.stringify(this.streamId)}: sequence ${sequence} was not sent (last ${this.output.lastSequence})`);
      return;
    }
    this.touch();
  }

  /** The relay cancelled the stream: end it here, tell nobody. */
  onCancel(): void {
    this.finish();
  }

  /** End the stream and tell the relay why (`previewStreamCancel`). */
  cancel(reason: string): void {
    if (this.#ended) return;
    this.#cancelSent = true;
    this.host.send(encodeFrame('previewStreamCancel', { streamId: this.streamId, reason }));
    this.finish();
  }

  /** Refuse what the relay sent (logged once per kind) and end the stream with that reason. */
  refuse(kind: string, reason: string): void {
    this.host.refusals.refuse(kind, `preview stream ${JSON.stringify(this.streamId)}: ${reason}`);
    this.cancel(reason);
  }

  /** End after a frame of the stream's own told the relay it is over (a failed open, a close). */
  protected finishTold(): void {
    this.#cancelSent = true;
    this.finish();
  }

  /** End without a frame: done, or ended by the relay or the preview. */
  finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#idleTimer);
    this.output.close();
    this.release();
    this.host.ended(this);
  }

  /**
   * Check the sequence of a frame the relay sent on this stream; on a break the stream is
   * cancelled (reason says which) and false is returned.
   */
  protected acceptSequence(sequence: number, final: boolean, kind: 'previewStreamChunk' | 'previewWebSocketData'): boolean {
    if (this.#inboundFinal) {
      this.refuse('preview-sequence', `${kind} sequence ${sequence} after final`);
      return false;
    }
    if (sequence !== this.#inboundSequence + 1) {
      this.refuse('preview-sequence', `${kind} sequence ${sequence} after ${this.#inboundSequence}`);
      return false;
    }
    this.#inboundSequence = sequence;
    if (final) this.#inboundFinal = true;
    this.touch();
    return true;
  }

  /** A byte moved either way: the idle timer starts over. */
  protected touch(): void {
    if (this.#ended) return;
    // Once per chunk: moving the timer costs less than a new one (a download touches it ~800 times).
    if (this.#idleTimer) this.#idleTimer.refresh();
    else this.#idleTimer = setTimeout(() => this.idle(), this.host.limits.idleTimeoutMs);
  }

  protected idle(): void {
    this.cancel(`idle for ${this.host.limits.idleTimeoutMs} ms`);
  }

  /** A body frame left the output: resume the reader if it was paused. */
  protected abstract drained(): void;
  /** Close the connection to the dev server (the stream is over). */
  protected abstract release(): void;
}
