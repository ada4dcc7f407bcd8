/**
 * Every viewer stream of one relay link, keyed by terminal × channel, and one output listener per
 * terminal that feeds them all (the batch is encoded to bytes once, whatever the number of
 * viewers). Bounded: past `maxStreams`, the stream attached longest ago is dropped (a relay has no
 * "viewer left" message, so streams of vanished viewers are reclaimed this way and when the link
 * ends).
 */
import { RelayConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { PtySession } from '../pty/ptySession.ts';
import { type StreamSink, ViewerStream } from './viewerStream.ts';

interface TerminalFeed {
  session: PtySession;
  listener: IDisposable;
  streams: Map<string, ViewerStream>;
}

export interface ViewerStreamsOptions {
  sink: StreamSink;
  logger: ILogger;
  maxStreams?: number;
  bufferBytes?: number;
}

export class ViewerStreams implements IDisposable {
  readonly #options: ViewerStreamsOptions;
  readonly #feeds = new Map<string, TerminalFeed>();
  /** Streams in attach order (oldest first), for eviction. */
  readonly #order = new Set<ViewerStream>();
  readonly #maxStreams: number;
  #disposed = false;

  constructor(options: ViewerStreamsOptions) {
    this.#options = options;
    this.#maxStreams = options.maxStreams ?? RelayConstants.maxViewerStreams;
  }

  get size(): number {
    return this.#order.size;
  }

  get(terminalId: string, channelId: string): ViewerStream | undefined {
    return this.#feeds.get(terminalId)?.streams.get(channelId);
  }

  streamsOf(terminalId: string): ViewerStream[] {
    return [...(this.#feeds.get(terminalId)?.streams.values() ?? [])];
  }

  all(): ViewerStream[] {
    return [...this.#order];
  }

  /**
   * The stream of this viewer for this terminal, created if needed. `from: 'snapshot'` starts a
   * new stream with a snapshot (attach); `'beginning'` starts it with everything the terminal has
   * produced so far (a terminal the viewer just opened).
   */
  open(session: PtySession, options: { terminalId: string; sessionId: string; channelId: string; from: 'snapshot' | 'beginning' }): ViewerStream {
    if (this.#disposed) throw new Error('ViewerStreams is disposed');
    const existing = this.get(options.terminalId, options.channelId);
    if (existing && !existing.finished) return existing;
    if (existing) this.close(options.terminalId, options.channelId);
    while (this.#order.size >= this.#maxStreams) {
      const oldest = this.#order.values().next().value!;
      this.#options.logger.info('too many relay viewer streams; dropping the oldest', { terminalId: oldest.terminalId, channelId: oldest.channelId });
      this.close(oldest.terminalId, oldest.channelId);
    }
    const feed = this.#feed(options.terminalId, session);
    const stream = new ViewerStream({
      session,
      terminalId: options.terminalId,
      sessionId: options.sessionId,
      channelId: options.channelId,
      sink: this.#options.sink,
      logger: this.#options.logger,
      ...(this.#options.bufferBytes !== undefined ? { bufferBytes: this.#options.bufferBytes } : {}),
    });
    feed.streams.set(options.channelId, stream);
    this.#order.add(stream);
    if (options.from === 'snapshot') {
      stream.requestSnapshot();
    } else if (session.offset > 0) {
      // Output produced before we listened: it is all still in the ring of a terminal this young.
      const ring = session.readRing(0);
      if (ring.data.length > 0) stream.push(ring.data, ring.endOffset);
    }
    return stream;
  }

  close(terminalId: string, channelId: string): void {
    const feed = this.#feeds.get(terminalId);
    const stream = feed?.streams.get(channelId);
    if (!feed || !stream) return;
    feed.streams.delete(channelId);
    this.#order.delete(stream);
    stream.dispose();
    if (feed.streams.size === 0) {
      feed.listener.dispose();
      this.#feeds.delete(terminalId);
    }
  }

  /** Every stream of the terminal ends after its queued output with the exit frame made for its channel. */
  endTerminal(terminalId: string, exitFrameFor: (channelId: string) => string): void {
    const feed = this.#feeds.get(terminalId);
    if (!feed) return;
    feed.listener.dispose();
    this.#feeds.delete(terminalId);
    for (const stream of feed.streams.values()) {
      this.#order.delete(stream);
      stream.end(exitFrameFor(stream.channelId));
    }
  }

  /** Drop every stream of the terminal without an exit frame (it is no longer shared). */
  closeTerminal(terminalId: string): void {
    for (const stream of this.streamsOf(terminalId)) this.close(terminalId, stream.channelId);
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const feed of this.#feeds.values()) {
      feed.listener.dispose();
      for (const stream of feed.streams.values()) stream.dispose();
    }
    this.#feeds.clear();
    this.#order.clear();
  }

  #feed(terminalId: string, session: PtySession): TerminalFeed {
    const existing = this.#feeds.get(terminalId);
    if (existing && existing.session === session) return existing;
    if (existing) {
      existing.listener.dispose();
      for (const stream of existing.streams.values()) {
        this.#order.delete(stream);
        stream.dispose();
      }
    }
    const streams = new Map<string, ViewerStream>();
    const listener = session.onDidOutput(({ bytes, endOffset }) => {
      // The batch's exact bytes, copied once for every viewer of this terminal (the view is reused after this call).
      const copy = Buffer.from(bytes);
      for (const stream of streams.values()) stream.push(copy, endOffset);
    });
    const feed: TerminalFeed = { session, listener, streams };
    this.#feeds.set(terminalId, feed);
    return feed;
  }
}
