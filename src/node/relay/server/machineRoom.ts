/**
 * Everything the relay holds for one machine: its daemon link (at most one; a newer one replaces
 * an older, which is usually a half-open socket of the same daemon) and its viewers, each bound to
 * one `channelId`. Routing:
 *
 * - daemon → viewers by `channelId`; `"*"` goes to every viewer. The latest `agentTerminalStarted`
 *   / `agentTerminalUpdated` of each shared terminal is remembered (bounded) so a viewer that joins
 *   later sees the list at once; `terminalExit` on `"*"` forgets it. Pending approvals
 *   (`permissionRequest` on `"*"`) and agents' questions (`question` on `"*"`) are remembered the
 *   same way (bounded in count and bytes) until the daemon settles them (`permissionResponse` /
 *   `questionResponse` on `"*"`, a Switchboard extension).
 * - viewer → daemon: only the types a browser may send, only on the viewer's own channel and, for
 *   file requests, only for this machine (binding errors otherwise); `terminalOpen`,
 *   `terminalInput`, `permissionResponse` and `questionResponse` get the viewer's name stamped in (`viewerName`, see
 *   messages.ts). While the daemon is offline, requests are answered at once with `machine is offline`.
 * - A viewer whose socket lags (`relayViewerLagBytes` unsent) stops receiving `terminalOutput` of
 *   the terminals it fell behind on; once it has drained, the relay asks the daemon for a fresh
 *   snapshot on its behalf and resumes from that. A viewer past `relayViewerMaxBufferedBytes` is
 *   closed (1013). So one slow browser costs bounded memory and slows nobody.
 * - Presence: every viewer gets `machineStatus` (online/offline) when it joins and when the daemon
 *   comes or goes.
 */
import { RelayConstants } from '../../../common/constants.ts';
import type { IDisposable } from '../../../common/lifecycle.ts';
import { checkChannelBinding, checkMachineBinding } from '../../../common/protocol/relay/binding.ts';
import { encodeFrame, rfc3339 } from '../../../common/protocol/relay/frames.ts';
import {
  BROADCAST_CHANNEL_ID,
  daemonToRelayPreviewTypes,
  daemonToViewerTypes,
  type HelloCapabilities,
  type RelayFields,
  type RelayMessage,
  viewerToDaemonTypes,
} from '../../../common/protocol/relay/messages.ts';
import type { ILogger } from '../../logger.ts';
import type { RefusalLog } from '../refusalLog.ts';
import type { PeerSocket } from './peerSocket.ts';
import { defaultPreviewLimits, type PreviewLimits } from './preview/previewFlow.ts';
import { PreviewGateway, type PreviewGatewayStats, type PreviewTarget } from './preview/previewGateway.ts';
import type { PreviewRoom } from './preview/previewRoutes.ts';

/** Bounds of what a room remembers of pending approvals for viewers that join later. */
export const MachineRoomConstants = {
  /** Pending approvals remembered per machine (a review queue rarely holds more than a handful). */
  approvalCacheEntries: 256,
  /** …and their frames' total size: each may be close to 1 MiB (a large diff), memory stays bounded. */
  approvalCacheBytes: 16 * 1024 * 1024,
} as const;

export interface MachineRoomOptions {
  machineId: string;
  logger: ILogger;
  refusals: RefusalLog;
  helloTimeoutMs?: number;
  /** Told to daemons in `welcome` (optional). */
  latestDaemonVersion?: string;
  viewerLagBytes?: number;
  viewerMaxBufferedBytes?: number;
  maxViewers?: number;
  /** Dev-server preview limits (default RelayConstants.preview*). */
  previewLimits?: PreviewLimits;
}

/** The servers a shared pane announced (`ports`, else `urls`), for opening previews. */
interface AnnouncedServers {
  sessionId: string;
  ports: Array<{ host: string; port: number }>;
}

interface DaemonPeer {
  socket: PeerSocket;
  state: 'hello' | 'online';
  helloTimer: NodeJS.Timeout | undefined;
  daemonVersion: string;
  lastHeartbeatAt: number;
  capabilities: HelloCapabilities;
}

interface ViewerPeer {
  socket: PeerSocket;
  channelId: string;
  name: string;
  /** Terminals whose output this viewer missed: 'missed' until it drains, then 'requested' until the snapshot comes. */
  lagging: Map<string, 'missed' | 'requested'>;
}

export interface MachineRoomStats {
  daemonOnline: boolean;
  viewers: number;
  framesToViewers: number;
  framesToDaemon: number;
  outputDroppedForLag: number;
  previews: PreviewGatewayStats;
}

export class MachineRoom implements IDisposable, PreviewRoom {
  readonly machineId: string;
  /** The machine's dev-server previews (their frames never reach viewers). */
  readonly preview: PreviewGateway;
  readonly #options: MachineRoomOptions;
  readonly #logger: ILogger;
  #daemon: DaemonPeer | undefined;
  readonly #viewers = new Map<string, ViewerPeer>();
  readonly #announcements = new Map<string, { started?: string; updated?: string }>();
  readonly #servers = new Map<string, AnnouncedServers>();
  /** Pending approvals and questions by requestId: the raw `permissionRequest` / `question` frame. */
  readonly #approvals = new Map<string, string>();
  #approvalBytes = 0;
  #framesToViewers = 0;
  #framesToDaemon = 0;
  #outputDroppedForLag = 0;

  constructor(options: MachineRoomOptions) {
    this.machineId = options.machineId;
    this.#options = options;
    this.#logger = options.logger;
    const limits = options.previewLimits ?? defaultPreviewLimits;
    this.preview = new PreviewGateway({
      machineId: this.machineId,
      logger: options.logger,
      refusals: options.refusals,
      limits,
      sendToDaemon: (frame) => {
        const daemon = this.#daemon;
        if (!daemon || daemon.state !== 'online') return false;
        this.#framesToDaemon++;
        return daemon.socket.send(frame);
      },
      daemonBinaryBodies: () => this.#daemon?.capabilities.previewBinaryBodies === true,
      daemonWindowBytes: () => positive(this.#daemon?.capabilities.previewStreamWindowBytes),
      daemonChunkBytes: () => positive(this.#daemon?.capabilities.previewChunkBytes),
    });
  }

  /** The daemon advertised the preview tunnel. */
  get previewSupported(): boolean {
    return this.#daemon?.state === 'online' && this.#daemon.capabilities.previewTunnel === true;
  }

  /** The server a shared pane announced on `port`, or why there is none. */
  previewTarget(terminalId: string, port: number): PreviewTarget | { error: 'terminal' | 'port' } {
    const servers = this.#servers.get(terminalId);
    if (!servers) return { error: 'terminal' };
    const server = servers.ports.find((entry) => entry.port === port);
    if (!server) return { error: 'port' };
    return { terminalId, port, host: server.host, sessionId: servers.sessionId };
  }

  get daemonOnline(): boolean {
    return this.#daemon?.state === 'online';
  }

  get isEmpty(): boolean {
    return this.#daemon === undefined && this.#viewers.size === 0;
  }

  get stats(): MachineRoomStats {
    return {
      daemonOnline: this.daemonOnline,
      viewers: this.#viewers.size,
      previews: this.preview.stats,
      framesToViewers: this.#framesToViewers,
      framesToDaemon: this.#framesToDaemon,
      outputDroppedForLag: this.#outputDroppedForLag,
    };
  }

  /** Whether one more viewer on `channelId` fits (a reconnect replacing its own channel always does). */
  canAcceptViewer(channelId: string): boolean {
    return this.#viewers.has(channelId) || this.#viewers.size < (this.#options.maxViewers ?? RelayConstants.relayMaxViewersPerMachine);
  }

  // --- daemon ---------------------------------------------------------------------------------

  addDaemon(socket: PeerSocket): void {
    const previous = this.#daemon;
    if (previous) {
      this.#logger.info('a newer daemon connection replaces the current one', { machineId: this.machineId });
      this.#daemon = undefined;
      clearTimeout(previous.helloTimer);
      previous.socket.close(4000, 'replaced by a newer connection of this machine');
      if (previous.state === 'online') this.#daemonWentOffline('replaced');
    }
    const daemon: DaemonPeer = { socket, state: 'hello', helloTimer: undefined, daemonVersion: '', lastHeartbeatAt: Date.now(), capabilities: {} };
    this.#daemon = daemon;
    daemon.helloTimer = setTimeout(() => {
      this.#options.refusals.refuse('daemon:no-hello', `daemon ${this.machineId} sent no hello in time`);
      socket.close(1002, 'no hello in time');
    }, this.#options.helloTimeoutMs ?? RelayConstants.welcomeTimeoutMs);
    socket.onDidFrame(({ message, text }) => this.#onDaemonFrame(daemon, message, text));
    socket.onDidClose(() => {
      clearTimeout(daemon.helloTimer);
      if (this.#daemon !== daemon) return;
      this.#daemon = undefined;
      if (daemon.state === 'online') this.#daemonWentOffline('disconnected');
    });
  }

  #onDaemonFrame(daemon: DaemonPeer, message: RelayMessage, text: string): void {
    if (this.#daemon !== daemon) return;
    if (daemon.state === 'hello') {
      if (message.type !== 'hello') {
        this.#options.refusals.refuse('daemon:first-frame', `unexpected first frame: ${JSON.stringify(message.type)}`);
        daemon.socket.close(1002, `unexpected first frame: ${JSON.stringify(message.type)}`);
        return;
      }
      if (message.machineId !== this.machineId) {
        this.#options.refusals.refuse('daemon:binding', `hello: binding: machineId mismatch: got ${JSON.stringify(message.machineId)}, want ${JSON.stringify(this.machineId)}`);
        daemon.socket.close(1008, 'hello machineId does not match the URL');
        return;
      }
      clearTimeout(daemon.helloTimer);
      daemon.state = 'online';
      daemon.daemonVersion = message.daemonVersion;
      daemon.capabilities = message.capabilities ?? {};
      // previewStreamWindowBytes: the relay acknowledges preview chunks (a Switchboard extension, see messages.ts).
      const previewWindow = (this.#options.previewLimits ?? defaultPreviewLimits).streamBufferBytes;
      // previewBinaryBodies: preview bodies as binary frames, both ways, only with a daemon that offered it (previewBodyFrames.ts).
      const binaryBodies = daemon.capabilities.previewBinaryBodies === true;
      daemon.socket.acceptsBodyFrames = binaryBodies;
      daemon.socket.send(
        encodeFrame('welcome', {
          ...(this.#options.latestDaemonVersion ? { latestDaemonVersion: this.#options.latestDaemonVersion } : {}),
          previewStreamWindowBytes: previewWindow,
          ...(binaryBodies ? { previewBinaryBodies: true } : {}),
        }),
      );
      this.#logger.info('daemon online', { machineId: this.machineId, daemonVersion: message.daemonVersion, os: message.os, arch: message.arch });
      this.#broadcastStatus('online', 'offline', 'daemon connected');
      return;
    }
    if (message.type === 'heartbeat') {
      daemon.lastHeartbeatAt = Date.now();
      return;
    }
    if (daemonToRelayPreviewTypes.has(message.type)) {
      this.preview.onDaemonFrame(message);
      return;
    }
    if (!daemonToViewerTypes.has(message.type)) {
      this.#options.refusals.refuse('daemon:unexpected-type', `${message.type} is not a frame a daemon sends to viewers`);
      return;
    }
    const channelId = (message as { channelId: string }).channelId;
    if (channelId === BROADCAST_CHANNEL_ID) {
      this.#remember(message, text);
      for (const viewer of [...this.#viewers.values()]) this.#deliver(viewer, message, text);
      return;
    }
    const viewer = this.#viewers.get(channelId);
    if (!viewer) {
      // Usually a viewer that just left; the daemon learns nothing of that in protocol v1.
      this.#options.refusals.refuse('daemon:unknown-channel', `${message.type} for channel ${JSON.stringify(channelId)}, which has no viewer`);
      return;
    }
    this.#deliver(viewer, message, text);
  }

  #daemonWentOffline(reason: string): void {
    this.#announcements.clear();
    this.#servers.clear();
    this.preview.daemonOffline();
    // The daemon mirrors its pending approvals again when it comes back.
    this.#approvals.clear();
    this.#approvalBytes = 0;
    for (const viewer of this.#viewers.values()) viewer.lagging.clear();
    this.#logger.info('daemon offline', { machineId: this.machineId, reason });
    this.#broadcastStatus('offline', 'online', reason);
  }

  /** Shared-terminal announcements and pending approvals for viewers that join later (bounded; oldest forgotten first). */
  #remember(message: RelayMessage, text: string): void {
    if (message.type === 'permissionRequest' || message.type === 'permissionResponse' || message.type === 'question' || message.type === 'questionResponse') {
      this.#rememberApproval(message.requestId, message.type === 'permissionRequest' || message.type === 'question' ? text : undefined);
      return;
    }
    if (message.type === 'agentTerminalStarted') {
      this.#announcements.delete(message.terminalId);
      this.#announcements.set(message.terminalId, { started: text });
      this.#servers.set(message.terminalId, { sessionId: message.sessionId, ports: announcedPorts(message) });
    } else if (message.type === 'agentTerminalUpdated') {
      const entry = this.#announcements.get(message.terminalId);
      if (entry) entry.updated = text;
      const servers = this.#servers.get(message.terminalId);
      if (servers && (message.ports !== undefined || message.urls !== undefined)) servers.ports = announcedPorts(message);
    } else if (message.type === 'terminalExit') {
      this.#announcements.delete(message.terminalId);
      this.#servers.delete(message.terminalId);
    }
    while (this.#announcements.size > RelayConstants.relayAnnouncementCacheEntries) {
      const oldest = this.#announcements.keys().next().value!;
      this.#announcements.delete(oldest);
      this.#servers.delete(oldest);
    }
  }

  /** Remember (text) or forget (undefined) one pending approval. */
  #rememberApproval(requestId: string, text: string | undefined): void {
    const previous = this.#approvals.get(requestId);
    if (previous !== undefined) {
      this.#approvals.delete(requestId);
      this.#approvalBytes -= previous.length;
    }
    if (text === undefined) return;
    this.#approvals.set(requestId, text);
    this.#approvalBytes += text.length;
    while (this.#approvals.size > MachineRoomConstants.approvalCacheEntries || this.#approvalBytes > MachineRoomConstants.approvalCacheBytes) {
      const [oldestId, oldest] = this.#approvals.entries().next().value!;
      this.#approvals.delete(oldestId);
      this.#approvalBytes -= oldest.length;
    }
  }

  // --- viewers --------------------------------------------------------------------------------

  addViewer(socket: PeerSocket, channelId: string, name: string): void {
    const previous = this.#viewers.get(channelId);
    if (previous) {
      this.#viewers.delete(channelId);
      previous.socket.close(4000, 'replaced by a newer connection on this channel');
    }
    const viewer: ViewerPeer = { socket, channelId, name, lagging: new Map() };
    this.#viewers.set(channelId, viewer);
    socket.onDidFrame(({ message, text }) => this.#onViewerFrame(viewer, message, text));
    socket.onDidFlush(() => this.#onViewerDrained(viewer));
    socket.onDidClose(() => {
      if (this.#viewers.get(channelId) === viewer) this.#viewers.delete(channelId);
    });
    socket.send(
      encodeFrame('machineStatus', { machineId: this.machineId, state: this.daemonOnline ? 'online' : 'offline', occurredAt: rfc3339(), channelId }),
    );
    if (this.daemonOnline) {
      for (const entry of this.#announcements.values()) {
        if (entry.started) socket.send(entry.started);
        if (entry.updated) socket.send(entry.updated);
      }
      for (const text of this.#approvals.values()) socket.send(text);
    }
  }

  #onViewerFrame(viewer: ViewerPeer, message: RelayMessage, text: string): void {
    if (this.#viewers.get(viewer.channelId) !== viewer) return;
    if (!viewerToDaemonTypes.has(message.type)) {
      this.#options.refusals.refuse('viewer:unexpected-type', `${message.type} is not a frame a viewer may send`);
      return;
    }
    const binding =
      checkChannelBinding({ channelId: viewer.channelId }, message as { channelId?: string }) ??
      (message.type === 'browseDir' || message.type === 'readFile' || message.type === 'mkDir' ? checkMachineBinding(this.machineId, message) : undefined);
    if (binding) {
      this.#options.refusals.refuse('viewer:binding', `${message.type}: ${binding}`);
      return;
    }
    const daemon = this.#daemon;
    if (!daemon || daemon.state !== 'online') {
      this.#answerOffline(viewer, message);
      return;
    }
    let forward = text;
    if (message.type === 'terminalOpen' || message.type === 'terminalInput' || message.type === 'permissionResponse' || message.type === 'questionResponse') {
      // Who typed, opened or decided, as the relay knows it (a viewer cannot claim another's name).
      forward = JSON.stringify({ ...message, viewerName: viewer.name });
    }
    this.#framesToDaemon++;
    daemon.socket.send(forward);
  }

  #answerOffline(viewer: ViewerPeer, message: RelayMessage): void {
    const error = 'machine is offline';
    const { channelId } = viewer;
    switch (message.type) {
      case 'terminalOpen':
        viewer.socket.send(encodeFrame('terminalError', { requestId: message.requestId, sessionId: message.sessionId, channelId, error }));
        return;
      case 'browseDir':
      case 'readFile':
      case 'mkDir':
        viewer.socket.send(encodeFrame(`${message.type}Result`, { requestId: message.requestId, channelId, ok: false, error }));
        return;
      default:
        this.#options.refusals.refuse('viewer:offline', `${message.type} while machine ${this.machineId} is offline`);
    }
  }

  #deliver(viewer: ViewerPeer, message: RelayMessage, text: string): void {
    const socket = viewer.socket;
    if (socket.bufferedAmount > (this.#options.viewerMaxBufferedBytes ?? RelayConstants.relayViewerMaxBufferedBytes)) {
      this.#logger.warn('closing a viewer that stopped reading', { machineId: this.machineId, channelId: viewer.channelId });
      this.#viewers.delete(viewer.channelId);
      socket.terminate();
      return;
    }
    if (message.type === 'terminalOutput') {
      if (viewer.lagging.has(message.terminalId)) {
        this.#outputDroppedForLag++;
        return;
      }
      if (socket.bufferedAmount > (this.#options.viewerLagBytes ?? RelayConstants.relayViewerLagBytes)) {
        viewer.lagging.set(message.terminalId, 'missed');
        this.#outputDroppedForLag++;
        return;
      }
    } else if (message.type === 'terminalSnapshot' || message.type === 'terminalExit') {
      viewer.lagging.delete(message.terminalId);
    }
    this.#framesToViewers++;
    socket.send(text);
  }

  /** A lagging viewer drained: ask the daemon to redraw what it missed. */
  #onViewerDrained(viewer: ViewerPeer): void {
    if (viewer.lagging.size === 0) return;
    if (viewer.socket.bufferedAmount > (this.#options.viewerLagBytes ?? RelayConstants.relayViewerLagBytes) / 4) return;
    const daemon = this.#daemon;
    if (!daemon || daemon.state !== 'online') return;
    for (const [terminalId, state] of viewer.lagging) {
      if (state !== 'missed') continue;
      viewer.lagging.set(terminalId, 'requested');
      this.#framesToDaemon++;
      daemon.socket.send(encodeFrame('agentTerminalSnapshotRequest', { terminalId, channelId: viewer.channelId }));
    }
  }

  #broadcastStatus(state: 'online' | 'offline', previousState: 'online' | 'offline', reason: string): void {
    const frame = encodeFrame('machineStatus', { machineId: this.machineId, state, previousState, reason, occurredAt: rfc3339() });
    for (const viewer of this.#viewers.values()) viewer.socket.send(frame);
  }

  /** Ping every socket; terminate those that did not answer the previous ping. */
  sweep(): void {
    const sockets = [...(this.#daemon ? [this.#daemon.socket] : []), ...[...this.#viewers.values()].map((viewer) => viewer.socket)];
    for (const socket of sockets) {
      if (!socket.alive) socket.terminate();
      else socket.ping();
    }
  }

  dispose(): void {
    this.preview.dispose();
    if (this.#daemon) {
      clearTimeout(this.#daemon.helloTimer);
      this.#daemon.socket.close(1001, 'relay shutting down');
      this.#daemon = undefined;
    }
    for (const viewer of this.#viewers.values()) viewer.socket.close(1001, 'relay shutting down');
    this.#viewers.clear();
    this.#announcements.clear();
    this.#servers.clear();
    this.#approvals.clear();
    this.#approvalBytes = 0;
  }
}

/** A size a daemon advertised, when it is one (0 or less: as if not advertised). */
function positive(value: number | undefined): number | undefined {
  return value !== undefined && value > 0 ? value : undefined;
}

/** The servers of an announcement: its `ports`, else the ports of its `urls` (other daemons may send only those). */
function announcedPorts(message: Pick<RelayFields<'agentTerminalUpdated'>, 'ports' | 'urls'>): Array<{ host: string; port: number }> {
  if (message.ports !== undefined) return message.ports.map(({ host, port }) => ({ host, port }));
  const ports: Array<{ host: string; port: number }> = [];
  for (const text of message.urls ?? []) {
    try {
      const url = new URL(text);
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      if (url.protocol === 'http:' || url.protocol === 'https:') ports.push({ host: url.hostname.replace(/^\[|\]$/g, ''), port });
    } catch {
      // not a URL: nothing to open
    }
  }
  return ports;
}
