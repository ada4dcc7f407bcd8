/**
 * The dev-server previews of one machine, on the relay (docs/relay.md "Dev-server previews — On the
 * relay"): the previews the daemon opened (at most one per port, reused), the opens waiting for the
 * daemon's answer, and every HTTP request and WebSocket in flight. The daemon's preview frames come
 * here (MachineRoom routes them; viewers never see them), each checked against what the relay
 * asked for: a frame for an unknown stream or preview, a request that was never made, a sequence
 * out of order — refused through the RefusalLog, that stream ended with `previewStreamCancel`, the
 * others untouched. The daemon going offline ends every preview.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocketServer } from 'ws';
import type { IDisposable } from '../../../../common/lifecycle.ts';
import { encodeFrame, rfc3339 } from '../../../../common/protocol/relay/frames.ts';
import type { RelayFields, RelayMessage, RelayMessageType } from '../../../../common/protocol/relay/messages.ts';
import type { ILogger } from '../../../logger.ts';
import { refuseUpgrade } from '../../../server/httpKit.ts';
import type { RefusalLog } from '../../refusalLog.ts';
import { encodeBodyFrame } from '../../preview/previewBodyFrames.ts';
import { type DaemonStreamFrame, type OpenPreview, type PreviewLimits, type PreviewStream, type StreamHost } from './previewFlow.ts';
import { HttpStream } from './previewHttp.ts';
import { offeredProtocols, type PreviewHeaders } from './previewHeaders.ts';
import { newPreviewLabel, newSecret } from './previewOrigins.ts';
import { type PreviewPage, sendPreviewPage } from './previewPages.ts';
import { WebSocketStream } from './previewWebSocket.ts';

export const PreviewGatewayConstants = {
  /** Stream ids remembered after they ended, so a late frame reads "after end", not "unknown". */
  endedStreamIds: 4096,
  /** Closed previews remembered (by id and by label), so their address answers 410 with the reason instead of 404. */
  closedPreviews: 256,
} as const;

export interface PreviewGatewayOptions {
  machineId: string;
  logger: ILogger;
  refusals: RefusalLog;
  limits: PreviewLimits;
  /** Send a frame to the machine's daemon (bytes: a binary body frame); false while it is offline. */
  sendToDaemon(frame: string | Buffer): boolean;
  /** The daemon takes preview bodies as binary frames (it said `previewBinaryBodies`, and we agreed in welcome). */
  daemonBinaryBodies(): boolean;
  /** The daemon's `previewStreamWindowBytes` (hello.capabilities), undefined when it advertised none. */
  daemonWindowBytes(): number | undefined;
  /** The daemon's `previewChunkBytes` (hello.capabilities), undefined when it advertised none. */
  daemonChunkBytes(): number | undefined;
}

export interface PreviewTarget {
  terminalId: string;
  port: number;
  /** The announcement's host of that port (`::1` makes the target `::1`, anything else `127.0.0.1`). */
  host: string;
  /** The announcement's sessionId. */
  sessionId: string;
}

/** A preview opened (or reused): its id, and the label of its own origin (`<label>.<preview domain>`). */
export type OpenOutcome = { ok: true; previewId: string; label: string } | { ok: false; page: PreviewPage };

/** What the HTTP side resolved of one request to a preview. */
export interface ServeContext {
  previewId: string;
  /** The preview's own origin (`http://pv….localhost:7600`). */
  origin: string;
  /** Origin-form path for the dev server. */
  path: string;
  headers: (preview: OpenPreview) => PreviewHeaders;
}

interface PendingOpen {
  requestId: string;
  previewId: string;
  target: PreviewTarget;
  waiters: Array<(outcome: OpenOutcome) => void>;
  timer: NodeJS.Timeout;
}

interface Preview extends OpenPreview {
  /** The session secret its origin's cookie must carry. */
  readonly secret: string;
  expiryTimer: NodeJS.Timeout;
}

/** The daemon's open error codes → the status of the page the person sees. */
const openErrorStatus: Record<string, number> = { target_not_loopback: 403, port_not_shared: 404, too_many_previews: 503, not_supported: 501 };

export interface PreviewGatewayStats {
  open: number;
  streams: number;
  /** Bytes held for viewers right now, and the most one stream ever held. */
  bufferedBytes: number;
  maxStreamBufferedBytes: number;
}

export class PreviewGateway implements IDisposable {
  readonly #options: PreviewGatewayOptions;
  readonly #previews = new Map<string, Preview>();
  readonly #byPort = new Map<number, Preview>();
  readonly #opening = new Map<string, PendingOpen>();
  readonly #byLabel = new Map<string, Preview>();
  readonly #closed = new Map<string, string>();
  readonly #closedLabels = new Map<string, string>();
  readonly #streams = new Map<string, PreviewStream>();
  readonly #endedStreams = new Set<string>();
  #nextStream = 1;
  #maxBuffered = 0;
  readonly #host: StreamHost;

  constructor(options: PreviewGatewayOptions) {
    this.#options = options;
    const gateway = this;
    this.#host = {
      machineId: options.machineId,
      limits: options.limits,
      get daemonWindowBytes() {
        return options.daemonWindowBytes();
      },
      get daemonChunkBytes() {
        const advertised = options.daemonChunkBytes();
        return advertised !== undefined && advertised > 0 ? advertised : options.limits.chunkBytes;
      },
      send: (type, fields) => this.#send(type, fields),
      sendBody: (type, fields, body) => {
        if (options.daemonBinaryBodies()) options.sendToDaemon(encodeBodyFrame(type, fields, body));
        else this.#send(type, { ...fields, bodyBase64: body.toString('base64') } as RelayFields<typeof type>);
      },
      refuse: (kind, error) => options.refusals.refuse(kind, `machine ${options.machineId}: ${error}`),
      ended: (stream) => gateway.#streamEnded(stream),
      noteBuffered: (bytes) => {
        if (bytes > this.#maxBuffered) this.#maxBuffered = bytes;
      },
    };
  }

  get stats(): PreviewGatewayStats {
    let bufferedBytes = 0;
    for (const stream of this.#streams.values()) bufferedBytes += stream.bufferedBytes;
    return { open: this.#previews.size, streams: this.#streams.size, bufferedBytes, maxStreamBufferedBytes: this.#maxBuffered };
  }

  // --- opening ---------------------------------------------------------------------------------

  /** An open preview of that port (reused), else previewOpen and the daemon's answer. */
  open(target: PreviewTarget): Promise<OpenOutcome> {
    const existing = this.#byPort.get(target.port);
    if (existing) return Promise.resolve({ ok: true, previewId: existing.id, label: existing.label });
    return new Promise((resolve) => {
      const pending = [...this.#opening.values()].find((open) => open.target.port === target.port);
      if (pending) {
        pending.waiters.push(resolve);
        return;
      }
      const { limits } = this.#options;
      if (this.#previews.size + this.#opening.size >= limits.maxOpenPerMachine) {
        resolve({ ok: false, page: { status: 503, title: 'Too many previews', message: `At most ${limits.maxOpenPerMachine} previews of one machine are open at once. Close one (they end when their pane's server stops) and try again.` } });
        return;
      }
      const requestId = `po-${randomBytes(9).toString('base64url')}`;
      const previewId = `pv-${randomBytes(18).toString('base64url')}`;
      const open: PendingOpen = {
        requestId,
        previewId,
        target,
        waiters: [resolve],
        timer: setTimeout(() => {
          this.#opening.delete(requestId);
          // The daemon may still open it late: tell it the relay gave up, so neither side keeps a half.
          this.#send('previewClose', { previewId, reason: 'open timed out' });
          this.#settle(open, { ok: false, page: { status: 504, title: 'The machine did not answer', message: `The machine did not open the preview within ${Math.round(limits.openTimeoutMs / 1000)} s.` } });
        }, limits.openTimeoutMs),
      };
      this.#opening.set(requestId, open);
      const sent = this.#send('previewOpen', {
        requestId,
        previewId,
        sessionId: target.sessionId,
        channelId: `preview:${previewId}`,
        machineId: this.#options.machineId,
        targetHost: target.host === '::1' ? '::1' : '127.0.0.1',
        targetPort: target.port,
        expiresAt: rfc3339(Date.now() + limits.lifetimeMs),
      });
      if (!sent) this.#failOpen(open, offlinePage(this.#options.machineId));
    });
  }

  #onOpenResult(message: RelayFields<'previewOpenResult'>): void {
    const open = this.#opening.get(message.requestId);
    if (!open) return this.#refuse('preview:unknown-request', `previewOpenResult for request ${JSON.stringify(message.requestId)}, which the relay did not send (or gave up on)`);
    if (open.previewId !== message.previewId) {
      this.#refuse('preview:binding', `previewOpenResult for request ${open.requestId} names preview ${JSON.stringify(message.previewId)}, not ${open.previewId}`);
      this.#send('previewClose', { previewId: open.previewId, reason: 'broken open result' });
      return this.#failOpen(open, { status: 502, title: 'The machine sent a broken answer', message: 'Its answer named another preview.' });
    }
    if (!message.ok) {
      const code = message.errorCode ?? 'error';
      return this.#failOpen(open, {
        status: openErrorStatus[code] ?? 502,
        title: 'The machine did not open the preview',
        message: `Port ${open.target.port}: ${code}.`,
        detail: message.message,
      });
    }
    this.#opening.delete(open.requestId);
    clearTimeout(open.timer);
    const preview: Preview = {
      id: open.previewId,
      port: open.target.port,
      targetHost: open.target.host,
      terminalId: open.target.terminalId,
      label: newPreviewLabel(),
      secret: newSecret(),
      streams: new Set(),
      expiryTimer: setTimeout(() => this.#endPreview(preview, 'expired', true), this.#options.limits.lifetimeMs),
    };
    preview.expiryTimer.unref();
    this.#previews.set(preview.id, preview);
    this.#byPort.set(preview.port, preview);
    this.#byLabel.set(preview.label, preview);
    this.#options.logger.info('preview open', { machineId: this.#options.machineId, previewId: preview.id, port: preview.port, terminalId: preview.terminalId });
    this.#settle(open, { ok: true, previewId: preview.id, label: preview.label });
  }

  #failOpen(open: PendingOpen, page: PreviewPage): void {
    this.#opening.delete(open.requestId);
    clearTimeout(open.timer);
    this.#settle(open, { ok: false, page });
  }

  #settle(open: PendingOpen, outcome: OpenOutcome): void {
    for (const waiter of open.waiters.splice(0)) waiter(outcome);
  }

  // --- serving ---------------------------------------------------------------------------------

  /** The open preview whose origin has this label, else the page that says what became of it. */
  findLabel(label: string): { previewId: string; secret: string } | { page: PreviewPage } {
    const preview = this.#byLabel.get(label);
    if (preview) return { previewId: preview.id, secret: preview.secret };
    const reason = this.#closedLabels.get(label);
    return { page: reason !== undefined ? closedPage(reason) : unknownPage };
  }

  /** Whether the preview is open; else the page that says what became of it. */
  missingPage(previewId: string): PreviewPage | undefined {
    if (this.#previews.has(previewId)) return undefined;
    const reason = this.#closed.get(previewId);
    return reason !== undefined ? closedPage(reason) : unknownPage;
  }

  serveHttp(req: IncomingMessage, res: ServerResponse, context: ServeContext): void {
    const preview = this.#previews.get(context.previewId);
    if (!preview) return sendPreviewPage(res, this.missingPage(context.previewId)!);
    const { limits } = this.#options;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (Number.isFinite(declared) && declared > limits.maxRequestBodyBytes) {
      return sendPreviewPage(res, { status: 413, title: 'Request body too large', message: `A preview request body may be at most ${limits.maxRequestBodyBytes} bytes.` }, { closeConnection: true });
    }
    const busy = this.#busyPage(preview);
    if (busy) return sendPreviewPage(res, busy, { closeConnection: req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined });
    const id = this.#newStreamId();
    const stream = new HttpStream({ host: this.#host, id, requestId: `pr-${id}`, preview, req, res, path: context.path, headers: context.headers(preview), origin: context.origin });
    this.#register(stream);
  }

  serveUpgrade(req: IncomingMessage, socket: Socket, head: Buffer, context: ServeContext, server: WebSocketServer, chosenProtocols: WeakMap<IncomingMessage, string | false>): void {
    const preview = this.#previews.get(context.previewId);
    if (!preview) {
      const page = this.missingPage(context.previewId)!;
      return refuseUpgrade(socket, page.status, page.title);
    }
    const busy = this.#busyPage(preview);
    if (busy) return refuseUpgrade(socket, busy.status, busy.message);
    const stream = new WebSocketStream({
      host: this.#host,
      id: this.#newStreamId(),
      preview,
      req,
      socket,
      head,
      path: context.path,
      headers: context.headers(preview),
      protocols: offeredProtocols(req.headers['sec-websocket-protocol']),
      server,
      chosenProtocols,
    });
    this.#register(stream);
  }

  #busyPage(preview: Preview): PreviewPage | undefined {
    const { limits } = this.#options;
    if (preview.streams.size >= limits.maxStreamsPerPreview) return { status: 503, title: 'Too many requests', message: `This preview has ${limits.maxStreamsPerPreview} requests in flight already; try again in a moment.` };
    if (this.#streams.size >= limits.maxStreamsPerMachine) return { status: 503, title: 'Too many requests', message: `This machine's previews have ${limits.maxStreamsPerMachine} requests in flight already; try again in a moment.` };
    return undefined;
  }

  #newStreamId(): string {
    return `st-${this.#nextStream++}`;
  }

  #register(stream: PreviewStream): void {
    // A stream may have ended in its constructor (nothing to send to: the daemon went away).
    if (this.#endedStreams.has(stream.id)) return;
    this.#streams.set(stream.id, stream);
    stream.preview.streams.add(stream);
  }

  #streamEnded(stream: PreviewStream): void {
    this.#streams.delete(stream.id);
    stream.preview.streams.delete(stream);
    this.#endedStreams.add(stream.id);
    if (this.#endedStreams.size > PreviewGatewayConstants.endedStreamIds) this.#endedStreams.delete(this.#endedStreams.values().next().value!);
  }

  // --- the daemon's frames -----------------------------------------------------------------------

  onDaemonFrame(message: RelayMessage): void {
    switch (message.type) {
      case 'previewOpenResult':
        return this.#onOpenResult(message);
      case 'previewClose': {
        const preview = this.#previews.get(message.previewId);
        if (preview) return this.#endPreview(preview, message.reason, false);
        const open = [...this.#opening.values()].find((pending) => pending.previewId === message.previewId);
        if (open) return this.#failOpen(open, { status: 502, title: 'The machine closed the preview', message: 'It closed the preview while opening it.', detail: reasonText(message.reason) });
        if (this.#closed.has(message.previewId)) return; // both sides closed it at once
        return this.#refuse('preview:unknown-preview', `previewClose for preview ${JSON.stringify(message.previewId)}, which is not open on this machine`);
      }
      case 'previewHttpResponseHead':
      case 'previewStreamChunk':
      case 'previewStreamCancel':
      case 'previewStreamAck':
      case 'previewWebSocketOpenResult':
      case 'previewWebSocketData':
      case 'previewWebSocketClose':
        return this.#onStreamFrame(message);
      default:
        return this.#refuse('preview:unexpected-type', `${message.type} is not a preview frame a daemon sends`);
    }
  }

  #onStreamFrame(message: DaemonStreamFrame): void {
    const stream = this.#streams.get(message.streamId);
    if (stream) {
      // The stream checks the frame's previewId / requestId against its own (a frame of another preview is refused there).
      stream.onFrame(message);
      return;
    }
    // Quiet answers to a stream that just ended (a cancel or close crossing ours) need no reply.
    const ended = this.#endedStreams.has(message.streamId);
    if (ended && (message.type === 'previewStreamCancel' || message.type === 'previewStreamAck' || message.type === 'previewWebSocketClose')) return;
    const reason = ended ? (message.type === 'previewStreamChunk' ? 'chunk after the stream ended' : 'stream already ended') : 'unknown stream';
    this.#refuse(ended ? 'preview:after-end' : 'preview:unknown-stream', `${message.type} for stream ${JSON.stringify(message.streamId)}: ${reason}`);
    if (message.type !== 'previewStreamCancel' && message.type !== 'previewStreamAck' && message.type !== 'previewWebSocketClose') {
      this.#send('previewStreamCancel', { streamId: message.streamId, reason });
    }
  }

  // --- ending ----------------------------------------------------------------------------------

  #endPreview(preview: Preview, reason: string, tellDaemon: boolean): void {
    if (this.#previews.get(preview.id) !== preview) return;
    this.#previews.delete(preview.id);
    if (this.#byPort.get(preview.port) === preview) this.#byPort.delete(preview.port);
    this.#byLabel.delete(preview.label);
    clearTimeout(preview.expiryTimer);
    this.#closed.set(preview.id, reason);
    if (this.#closed.size > PreviewGatewayConstants.closedPreviews) this.#closed.delete(this.#closed.keys().next().value!);
    this.#closedLabels.set(preview.label, reason);
    if (this.#closedLabels.size > PreviewGatewayConstants.closedPreviews) this.#closedLabels.delete(this.#closedLabels.keys().next().value!);
    if (tellDaemon) this.#send('previewClose', { previewId: preview.id, reason });
    for (const stream of [...preview.streams]) stream.previewEnded(reason, 1001);
    this.#options.logger.info('preview closed', { machineId: this.#options.machineId, previewId: preview.id, reason });
  }

  /** The daemon went offline (or was replaced): every preview and open ends. */
  daemonOffline(): void {
    for (const open of [...this.#opening.values()]) this.#failOpen(open, offlinePage(this.#options.machineId));
    for (const preview of [...this.#previews.values()]) this.#endPreview(preview, 'machine went offline', false);
  }

  dispose(): void {
    for (const open of [...this.#opening.values()]) this.#failOpen(open, { status: 503, title: 'The relay is shutting down', message: 'Try again when it is back.' });
    for (const preview of [...this.#previews.values()]) this.#endPreview(preview, 'relay shutting down', false);
  }

  #send<T extends RelayMessageType>(type: T, fields: RelayFields<T>): boolean {
    return this.#options.sendToDaemon(encodeFrame(type, fields));
  }

  #refuse(kind: string, error: string): void {
    this.#options.refusals.refuse(kind, `machine ${this.#options.machineId}: ${error}`);
  }
}

const unknownPage: PreviewPage = { status: 404, title: 'No such preview', message: 'This preview is not open on the relay (it ended, or the relay restarted). Open the server again from the remote view.' };

function closedPage(reason: string): PreviewPage {
  return { status: 410, title: 'This preview was closed', message: 'Open the server again from the remote view to get a new preview.', detail: reasonText(reason) };
}

function offlinePage(machineId: string): PreviewPage {
  return { status: 502, title: `${machineId} is offline`, message: `${machineId}'s Switchboard is not connected to the relay, so its dev servers cannot be reached.` };
}

/** The daemon's close reasons in words. */
function reasonText(reason: string): string {
  const words: Record<string, string> = {
    pane_exited: 'the pane whose server it was exited',
    port_closed: 'the server stopped listening',
    unshared: 'the pane is no longer shared',
    expired: 'the preview reached the end of its lifetime',
    daemon_shutdown: 'the machine’s Switchboard shut down',
  };
  return words[reason] ? `${words[reason]} (${reason})` : reason;
}
