/**
 * The daemon's side of the dev-server preview tunnel (docs/relay.md "Dev-server previews"): the
 * previews the relay opened on this machine and their streams, for as long as one link lasts.
 *
 * - `previewOpen` is answered ok only for a loopback target whose port a shared pane's process
 *   tree listens on now (ServerMonitor's `servers` with a pid: a listener outside the pane's
 *   processes does not count), with an `expiresAt` in the future, a new `previewId`, and fewer than
 *   `maxOpenPreviews` open. Every refusal has its code and a message, and goes through the
 *   RefusalLog.
 * - An open preview belongs to the pane whose server it is: it closes (`previewClose` with the
 *   reason) when that pane exits, stops being shared or stops listening on the port, when
 *   `expiresAt` passes, and when the daemon stops. Every request re-checks the same.
 * - Streams (previewHttpStream.ts, previewWebSocket.ts) are found by streamId; a frame for a
 *   stream that does not exist, a stream id reused within the preview's life, a request for an
 *   unknown preview end that stream id with `previewStreamCancel` and the reason — never another
 *   stream's bytes. Answers to bad input are held back while the link's control queue is half
 *   full, so a relay flooding garbage can never make us fill it (a full queue drops the link).
 * - The link closing ends everything here without a frame (there is nobody to tell); the relay
 *   ends its side when the daemon goes offline.
 */
import type { DevServer } from '../../../common/api/devServerContract.ts';
import type { IDisposable } from '../../../common/lifecycle.ts';
import { RelayConstants } from '../../../common/constants.ts';
import { encodeFrame } from '../../../common/protocol/relay/frames.ts';
import type { RelayFields, RelayMessage } from '../../../common/protocol/relay/messages.ts';
import type { ILogger } from '../../logger.ts';
import type { PtyHost } from '../../pty/ptyHost.ts';
import type { RefusalLog } from '../refusalLog.ts';
import type { RelayConnection, RelayWelcome } from '../relayConnection.ts';
import { PreviewHttpStream } from './previewHttpStream.ts';
import {
  defaultPreviewLimits,
  EndedIds,
  isForwardableMethod,
  isLoopbackTarget,
  isOriginFormPath,
  parseRfc3339,
  type PreviewCloseReason,
  type PreviewLimits,
  type PreviewOpenErrorCode,
  type PreviewWebSocketErrorCode,
} from './previewRules.ts';
import type { PreviewStream, StreamHost } from './previewStream.ts';
import { PreviewWebSocket } from './previewWebSocket.ts';

export interface PreviewTunnelOptions {
  ptyHost: PtyHost;
  isShared: (terminalId: string) => boolean;
  refusals: RefusalLog;
  logger: ILogger;
  limits?: Partial<PreviewLimits>;
  /** The link's control queue (RelayClientOptions.sendQueueFrames); answers to bad input stop at half of it. */
  sendQueueFrames?: number;
}

export interface PreviewTunnelStats {
  previews: number;
  streams: number;
  /** Body bytes held for the relay now, over every stream. */
  pendingBytes: number;
  /** The most one stream ever held at once (bounded by bufferBytes plus one read of the dev server). */
  peakStreamPendingBytes: number;
  /** Answers to bad input not sent because the link's queue was half full. */
  answersHeldBack: number;
}

interface OpenPreview {
  previewId: string;
  host: string;
  port: number;
  /** The pane whose server this is. */
  terminalId: string;
  expiresAt: number;
  timer: NodeJS.Timeout | undefined;
  /** The port stopped listening: the preview closes when this fires, unless the server is back first (limits.portGraceMs). */
  portGone: NodeJS.Timeout | undefined;
  streams: Set<PreviewStream>;
  /** Stream ids that ended within this preview's life (a reuse is refused). */
  ended: EndedIds;
}

function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** Longest setTimeout delay; a later expiry is re-armed when it fires. */
const maxTimerMs = 2 ** 31 - 1;

export class PreviewTunnel implements IDisposable {
  readonly limits: PreviewLimits;
  readonly #options: PreviewTunnelOptions;
  readonly #previews = new Map<string, OpenPreview>();
  readonly #streams = new Map<string, PreviewStream>();
  /** Every stream id that ended lately (any preview), so a late frame for one gets one cancel at most. */
  readonly #recent = new EndedIds(4096);
  readonly #listeners: IDisposable[];
  #host: StreamHost | undefined;
  #peakPending = 0;
  #heldBack = 0;

  constructor(options: PreviewTunnelOptions) {
    this.#options = options;
    this.limits = { ...defaultPreviewLimits, ...options.limits };
    this.#listeners = [
      options.ptyHost.onDidChangeTerminal((info) => this.#checkPane(info.id)),
      options.ptyHost.onDidRemoveTerminal(({ id }) => this.#checkPane(id)),
    ];
  }

  get stats(): PreviewTunnelStats {
    let pendingBytes = 0;
    let peak = this.#peakPending;
    for (const stream of this.#streams.values()) {
      pendingBytes += stream.pendingBytes;
      peak = Math.max(peak, stream.peakPendingBytes);
    }
    return { previews: this.#previews.size, streams: this.#streams.size, pendingBytes, peakStreamPendingBytes: peak, answersHeldBack: this.#heldBack };
  }

  /** A link is up: previews open on it from now on, as the relay's welcome allows (its window, binary bodies). */
  linkOpened(connection: RelayConnection, welcome: Pick<RelayWelcome, 'previewStreamWindowBytes' | 'previewBinaryBodies'>): void {
    const peerWindow = welcome.previewStreamWindowBytes;
    this.#endAll(undefined);
    const queueLimit = this.#options.sendQueueFrames ?? RelayConstants.sendQueueFrames;
    this.#host = {
      connection,
      limits: this.limits,
      peerWindow: peerWindow !== undefined && peerWindow > 0 ? peerWindow : undefined,
      binaryBodies: welcome.previewBinaryBodies,
      refusals: this.#options.refusals,
      logger: this.#options.logger,
      send: (frame) => {
        if (connection.stats.queuedFrames >= queueLimit / 2) {
          this.#heldBack++;
          return;
        }
        connection.send(frame);
      },
      ended: (stream) => this.#streamEnded(stream),
    };
  }

  /** The link is gone: everything ends here, without a frame. */
  linkClosed(): void {
    this.#endAll(undefined);
    this.#host = undefined;
  }

  /** The daemon stops: every preview closes with `daemon_shutdown`. */
  shutdown(): void {
    this.#endAll('daemon_shutdown');
  }

  /** Sharing changed: previews of panes no longer shared close. */
  refresh(): void {
    for (const preview of [...this.#previews.values()]) this.#check(preview);
  }

  dispose(): void {
    for (const listener of this.#listeners) listener.dispose();
    this.linkClosed();
  }

  /** One preview frame from the relay. */
  handle(message: RelayMessage): void {
    const host = this.#host;
    if (!host) return;
    switch (message.type) {
      case 'previewOpen':
        return this.#open(host, message);
      case 'previewClose': {
        const preview = this.#previews.get(message.previewId);
        if (!preview) {
          this.#options.refusals.refuse('preview-unknown', `previewClose for unknown preview ${JSON.stringify(message.previewId)}`);
          return;
        }
        this.#close(preview, undefined);
        return;
      }
      case 'previewHttpRequest':
        return this.#httpRequest(host, message);
      case 'previewWebSocketOpen':
        return this.#webSocketOpen(host, message);
      case 'previewStreamChunk': {
        const stream = this.#streams.get(message.streamId);
        if (stream instanceof PreviewHttpStream) return stream.onChunk(message);
        if (stream) return stream.refuse('preview-stream', 'previewStreamChunk on a WebSocket stream');
        return this.#noStream(host, message.streamId, 'previewStreamChunk');
      }
      case 'previewWebSocketData': {
        const stream = this.#streams.get(message.streamId);
        if (stream instanceof PreviewWebSocket) return stream.onData(message);
        if (stream) return stream.refuse('preview-stream', 'previewWebSocketData on an HTTP stream');
        return this.#noStream(host, message.streamId, 'previewWebSocketData');
      }
      case 'previewWebSocketClose': {
        const stream = this.#streams.get(message.streamId);
        if (stream instanceof PreviewWebSocket) return stream.onClose(message);
        if (stream) return stream.refuse('preview-stream', 'previewWebSocketClose on an HTTP stream');
        if (!this.#recent.has(message.streamId)) this.#options.refusals.refuse('preview-stream', `previewWebSocketClose for unknown stream ${JSON.stringify(message.streamId)}`);
        return;
      }
      case 'previewStreamCancel': {
        const stream = this.#streams.get(message.streamId);
        if (stream) return stream.onCancel();
        // A cancel crossing our own end of the stream is normal; for an id never seen it is not.
        if (!this.#recent.has(message.streamId)) this.#options.refusals.refuse('preview-stream', `previewStreamCancel for unknown stream ${JSON.stringify(message.streamId)}`);
        return;
      }
      case 'previewStreamAck': {
        const stream = this.#streams.get(message.streamId);
        if (stream) return stream.onAck(message.sequence);
        if (!this.#recent.has(message.streamId)) this.#options.refusals.refuse('preview-stream', `previewStreamAck for unknown stream ${JSON.stringify(message.streamId)}`);
        return;
      }
      default:
        this.#options.refusals.refuse('unexpected-type', `${message.type} is not a preview frame a daemon receives`);
    }
  }

  // --- previews -------------------------------------------------------------------------------

  #open(host: StreamHost, message: RelayFields<'previewOpen'>): void {
    const refuse = (errorCode: PreviewOpenErrorCode | 'bad_request', text: string) => {
      this.#options.refusals.refuse('preview-open', `previewOpen ${JSON.stringify(message.previewId)}: ${errorCode}: ${text}`);
      host.send(encodeFrame('previewOpenResult', { requestId: message.requestId, previewId: message.previewId, ok: false, errorCode, message: text }));
    };
    if (message.previewId.length === 0 || message.previewId.length > 256) return refuse('bad_request', 'previewId must be 1 to 256 characters');
    if (this.#previews.has(message.previewId)) return refuse('preview_exists', `preview ${message.previewId} is already open`);
    if (!isLoopbackTarget(message.targetHost)) return refuse('target_not_loopback', `target ${JSON.stringify(message.targetHost)} is not a loopback address (127.0.0.0/8, ::1 or localhost)`);
    if (message.targetPort < 1 || message.targetPort > 65_535) return refuse('port_not_shared', `port ${message.targetPort} is not a TCP port`);
    const expiresAt = parseRfc3339(message.expiresAt);
    if (expiresAt === undefined) return refuse('expired', `expiresAt ${JSON.stringify(message.expiresAt)} is not an RFC 3339 time`);
    if (expiresAt <= Date.now()) return refuse('expired', `expiresAt ${message.expiresAt} has passed`);
    if (this.#previews.size >= this.limits.maxOpenPreviews) return refuse('too_many_previews', `${this.limits.maxOpenPreviews} previews are open on this machine`);
    const serving = this.#paneServing(message.targetPort);
    if (serving === undefined) return refuse('port_not_shared', `no shared terminal listens on port ${message.targetPort}`);
    const { terminalId, server } = serving;
    const preview: OpenPreview = {
      previewId: message.previewId,
      // A server bound to one loopback address is dialled there, whatever loopback name the relay
      // used: another process holding the same port on another loopback address is never reached.
      host: isWildcardHost(server.host) ? message.targetHost : server.host,
      port: message.targetPort,
      terminalId,
      expiresAt,
      timer: undefined,
      portGone: undefined,
      streams: new Set(),
      ended: new EndedIds(1024),
    };
    this.#previews.set(preview.previewId, preview);
    this.#arm(preview);
    host.connection.send(encodeFrame('previewOpenResult', { requestId: message.requestId, previewId: message.previewId, ok: true }));
    this.#options.logger.info('preview opened', { previewId: preview.previewId, port: preview.port, terminalId });
  }

  /** The shared, running pane whose own processes listen on `port` now. */
  #paneServing(port: number): { terminalId: string; server: DevServer } | undefined {
    for (const info of this.#options.ptyHost.list()) {
      if (info.state !== 'running' || !this.#options.isShared(info.id)) continue;
      const server = info.servers?.find((candidate) => candidate.port === port && candidate.pid !== null);
      if (server) return { terminalId: info.id, server };
    }
    return undefined;
  }

  #arm(preview: OpenPreview): void {
    const wait = preview.expiresAt - Date.now();
    if (wait <= 0) {
      this.#close(preview, 'expired');
      return;
    }
    preview.timer = setTimeout(() => this.#arm(preview), Math.min(wait, maxTimerMs));
  }

  #checkPane(terminalId: string): void {
    for (const preview of [...this.#previews.values()]) if (preview.terminalId === terminalId) this.#check(preview);
  }

  /** Still the server of a shared, running pane? Else closed with why. Returns whether it is open. */
  #check(preview: OpenPreview): boolean {
    const info = this.#options.ptyHost.get(preview.terminalId)?.info;
    if (!info || info.state !== 'running') return this.#close(preview, 'pane_exited');
    if (!this.#options.isShared(info.id)) return this.#close(preview, 'unshared');
    if (this.#listening(preview)) {
      clearTimeout(preview.portGone);
      preview.portGone = undefined;
    } else if (!preview.portGone) {
      // A restart, perhaps: wait before closing (PreviewLimits.portGraceMs); #check runs again whenever the pane's servers change.
      preview.portGone = setTimeout(() => {
        preview.portGone = undefined;
        if (this.#listening(preview)) this.#check(preview);
        else this.#close(preview, 'port_closed');
      }, this.limits.portGraceMs);
      preview.portGone.unref();
    }
    return true;
  }

  /** The preview's port is one its pane's processes listen on. */
  #listening(preview: OpenPreview): boolean {
    const servers = this.#options.ptyHost.get(preview.terminalId)?.info.servers;
    return servers?.some((server) => server.port === preview.port && server.pid !== null) ?? false;
  }

  /** Close a preview and end its streams; tell the relay unless it asked (`reason` undefined). Returns false. */
  #close(preview: OpenPreview, reason: PreviewCloseReason | undefined): false {
    if (this.#previews.get(preview.previewId) !== preview) return false;
    this.#previews.delete(preview.previewId);
    clearTimeout(preview.timer);
    clearTimeout(preview.portGone);
    if (reason) {
      this.#host?.connection.send(encodeFrame('previewClose', { previewId: preview.previewId, reason }));
      this.#options.logger.info('preview closed', { previewId: preview.previewId, reason });
    }
    // The previewClose (or the relay's own) tells the relay every stream of it is over.
    for (const stream of [...preview.streams]) stream.finish();
    return false;
  }

  #endAll(reason: PreviewCloseReason | undefined): void {
    for (const preview of [...this.#previews.values()]) this.#close(preview, reason);
  }

  // --- streams --------------------------------------------------------------------------------

  /** A stream the relay asked for, if it may be opened; else undefined and `refuse` was called with why. */
  #admit(message: { streamId: string; previewId: string; path: string }, refuse: (reason: string, code: PreviewWebSocketErrorCode | 'stream_id_reused') => void): OpenPreview | undefined {
    const existing = this.#streams.get(message.streamId);
    if (existing) {
      // Two streams under one id cannot be told apart: that id ends (the other streams carry on).
      existing.refuse('preview-stream', 'stream id reused');
      return undefined;
    }
    const preview = this.#previews.get(message.previewId);
    if (!preview) {
      refuse(`unknown preview ${JSON.stringify(message.previewId)}`, 'unknown_preview');
      return undefined;
    }
    if (preview.ended.has(message.streamId)) {
      refuse('stream id reused', 'stream_id_reused');
      return undefined;
    }
    if (preview.streams.size >= this.limits.maxStreamsPerPreview || this.#streams.size >= this.limits.maxStreamsPerMachine) {
      refuse(`too many streams (${preview.streams.size} on this preview, ${this.#streams.size} on this machine)`, 'too_many_streams');
      return undefined;
    }
    if (!isOriginFormPath(message.path)) {
      refuse(`bad path ${JSON.stringify(message.path.slice(0, 100))}: origin-form only`, 'bad_request');
      return undefined;
    }
    if (!this.#check(preview)) {
      refuse(`unknown preview ${JSON.stringify(message.previewId)} (it just closed)`, 'unknown_preview');
      return undefined;
    }
    if (preview.portGone) {
      // Not dialled while the pane's server is away: whatever else took the port meanwhile is not the pane's.
      refuse(`the dev server on port ${preview.port} is not listening (restarting?); the preview stays open ${Math.round(this.limits.portGraceMs / 1000)} s for it`, 'upstream_unreachable');
      return undefined;
    }
    return preview;
  }

  #httpRequest(host: StreamHost, message: RelayFields<'previewHttpRequest'>): void {
    const refuse = (reason: string) => {
      this.#options.refusals.refuse('preview-request', `previewHttpRequest ${JSON.stringify(message.streamId)}: ${reason}`);
      this.#recent.add(message.streamId, true);
      this.#previews.get(message.previewId)?.ended.add(message.streamId, true);
      host.send(encodeFrame('previewStreamCancel', { streamId: message.streamId, reason }));
    };
    if (!isForwardableMethod(message.method)) return refuse(`method ${JSON.stringify(message.method.slice(0, 40))} is not forwarded`);
    const declared = Object.entries(message.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-length')?.[1];
    if (declared !== undefined) {
      if (declared.length !== 1 || !/^\d{1,16}$/.test(declared[0]!)) return refuse(`bad content-length ${JSON.stringify(declared)}`);
      if (Number(declared[0]) > this.limits.maxRequestBodyBytes) return refuse(`request body over ${this.limits.maxRequestBodyBytes} bytes (content-length ${declared[0]})`);
    }
    const preview = this.#admit(message, refuse);
    if (!preview) return;
    this.#register(preview, new PreviewHttpStream(host, { previewId: preview.previewId, host: preview.host, port: preview.port }, message));
  }

  #webSocketOpen(host: StreamHost, message: RelayFields<'previewWebSocketOpen'>): void {
    const refuse = (reason: string, code: PreviewWebSocketErrorCode | 'stream_id_reused') => {
      this.#options.refusals.refuse('preview-websocket', `previewWebSocketOpen ${JSON.stringify(message.streamId)}: ${reason}`);
      this.#recent.add(message.streamId, true);
      if (code === 'stream_id_reused') {
        host.send(encodeFrame('previewStreamCancel', { streamId: message.streamId, reason }));
        return;
      }
      host.send(encodeFrame('previewWebSocketOpenResult', { streamId: message.streamId, previewId: message.previewId, ok: false, errorCode: code, message: reason }));
    };
    const preview = this.#admit(message, refuse);
    if (!preview) return;
    this.#register(preview, new PreviewWebSocket(host, { previewId: preview.previewId, host: preview.host, port: preview.port }, message));
  }

  #register(preview: OpenPreview, stream: PreviewStream): void {
    if (stream.ended) return;
    this.#streams.set(stream.streamId, stream);
    preview.streams.add(stream);
  }

  #streamEnded(stream: PreviewStream): void {
    if (this.#streams.get(stream.streamId) === stream) this.#streams.delete(stream.streamId);
    this.#peakPending = Math.max(this.#peakPending, stream.peakPendingBytes);
    this.#recent.add(stream.streamId, stream.cancelSent);
    const preview = this.#previews.get(stream.target.previewId);
    if (preview?.streams.delete(stream)) preview.ended.add(stream.streamId);
  }

  /** A frame for a stream id with no stream: one cancel per id (ended ones: only if we did not end it with one). */
  #noStream(host: StreamHost, streamId: string, what: string): void {
    if (this.#recent.has(streamId)) {
      if (this.#recent.answerOnce(streamId)) host.send(encodeFrame('previewStreamCancel', { streamId, reason: `${what} for an ended stream` }));
      return;
    }
    this.#options.refusals.refuse('preview-stream', `${what} for unknown stream ${JSON.stringify(streamId)}`);
    this.#recent.add(streamId, true);
    host.send(encodeFrame('previewStreamCancel', { streamId, reason: 'unknown stream' }));
  }
}
