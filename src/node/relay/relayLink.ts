/**
 * What the relay features (remote terminals, shared terminals, files) need of the link that is up
 * right now: a way to send control frames and the viewer streams that live as long as the link.
 * RelayClient makes one per established connection and drops it when the connection ends.
 */
import type { IDisposable } from '../../common/lifecycle.ts';
import type { RelayConnection } from './relayConnection.ts';
import { ViewerStreams } from './viewerStreams.ts';
import type { ILogger } from '../logger.ts';

export class RelayLink implements IDisposable {
  readonly connection: RelayConnection;
  readonly streams: ViewerStreams;
  /** File requests being answered now (bounded by RelayConstants.maxFileRequestsInFlight). */
  fileRequestsInFlight = 0;

  constructor(connection: RelayConnection, options: { logger: ILogger; viewerBufferBytes?: number; maxViewerStreams?: number }) {
    this.connection = connection;
    this.streams = new ViewerStreams({
      sink: connection,
      logger: options.logger,
      ...(options.viewerBufferBytes !== undefined ? { bufferBytes: options.viewerBufferBytes } : {}),
      ...(options.maxViewerStreams !== undefined ? { maxStreams: options.maxViewerStreams } : {}),
    });
  }

  get isOpen(): boolean {
    return this.connection.isOpen;
  }

  /** Queue a control frame; false when the link is gone. */
  send(frame: string): boolean {
    return this.connection.send(frame);
  }

  dispose(): void {
    this.streams.dispose();
    this.connection.dispose();
  }
}
