/**
 * The claws/2 bus (docs/protocol.md "claws/2 bus"): peers say `hello`, subscribe to topic patterns,
 * publish messages, and receive push frames. Logged messages get a sequence number from the
 * BusLog, so a subscriber can replay what it missed (`fromCursor`) and then goes live.
 *
 * `terminal.<id>.output` is special: subscribing attaches a lossy output subscriber to that
 * terminal and streams its output as base64 chunks, skipping chunks (with a marker) while the
 * connection is not reading, rather than buffering them.
 *
 * Owned by the ControlServer. The constructor does no I/O; `start()` loads the log and begins
 * emitting server topics; `dispose()` stops everything and writes the log's tail.
 */
import { randomBytes } from 'node:crypto';
import { TerminalConstants } from '../../../common/constants.ts';
import type { IDisposable } from '../../../common/lifecycle.ts';
import type { ILogger } from '../../logger.ts';
import type { PtyHost } from '../../pty/ptyHost.ts';
import type { OutputFollow } from '../../pty/ptySession.ts';
import type { CommandLog } from '../commandLog.ts';
import type { ClawsWorkers } from '../commands/clawsWorkers.ts';
import { ControlError, ProtocolErrors, ProtocolV2 } from '../protocol.ts';
import { BusConstants } from './busConstants.ts';
import { type CursorDialect, formatCursor, type ParsedCursor } from './busCursor.ts';
import type { BusEvent, BusLog } from './busLog.ts';
import { type BusConnection, describePeer, type PeerInfo, type PeerRole } from './busPeers.ts';
import { ServerTopics } from './serverTopics.ts';
import { checkPattern, checkTopic, topicMatches } from './topics.ts';
import type { LogFill } from '../logFill.ts';

export const BusErrors = {
  helloRequiresProtocol: 'hello requires protocol: claws/2',
  callHelloFirst: 'call hello first',
  broadcastNeedsOrchestrator: (role: string) => `broadcast is for peers with role orchestrator (this peer is ${role})`,
  unknownSubscription: (id: string) => `unknown subscription id ${id}`,
  tooManySubscriptions: `too many subscriptions on this connection (limit ${BusConstants.maxSubscriptionsPerPeer})`,
} as const;

/** `from` of messages the server itself publishes. */
export const serverPeerId = 'server';

const outputTopicPattern = /^terminal\.([^.]+)\.output$/;

interface Subscription {
  readonly id: string;
  readonly pattern: string;
  readonly segments: readonly string[];
  /** While a fromCursor replay is being sent: live messages that arrived meanwhile, sent after it. */
  pendingLive: BusEvent[] | null;
  /** For `terminal.<id>.output`: the attached output stream. */
  output: OutputStream | null;
  closed: boolean;
}

interface OutputStream {
  readonly terminalId: string;
  attachment: OutputFollow | null;
  /** Where the next chunk starts (absolute byte offset in the terminal's output). */
  nextOffset: number;
  skipping: boolean;
}

interface BusClient {
  readonly connection: BusConnection;
  readonly queuedBytes: () => number;
  peer: PeerInfo | null;
  /** The correlation id the peer said hello with, or its terminal's (claws' `system.peer.connected`). */
  correlationId: string | null;
  readonly subscriptions: Map<string, Subscription>;
}

export interface HelloParams {
  role: PeerRole;
  peerName: string;
  terminalId?: string | undefined;
  capabilities?: string[] | undefined;
  /** claws v0.8: the correlation id of the worker this peer runs in (its CLAWS_TERMINAL_CORR_ID). */
  correlationId?: string | undefined;
  /** claws' `stream-events.js --wait <uuid>`: this peer is the monitor of that correlation id. */
  monitorCorrelationId?: string | undefined;
}

export interface BusOptions {
  ptyHost: PtyHost;
  commandLog: CommandLog;
  log: BusLog;
  logger: ILogger;
  heartbeatIntervalMs?: number;
  /** claws' worker bookkeeping: correlation ids for server topics, monitor claims from hello. */
  workers?: ClawsWorkers;
  /**
   * Whether a connection may no longer receive anything (its token revoked or expired). Asked
   * before every push: the ControlServer also ends such subscriptions when a token lapses, but
   * that is a timer, and output must not slip through between the expiry and the timer.
   */
  isCutOff?: (connection: BusConnection) => boolean;
}

export class Bus implements IDisposable {
  readonly #ptyHost: PtyHost;
  readonly #log: BusLog;
  readonly #logger: ILogger;
  readonly #workers: ClawsWorkers | undefined;
  readonly #isCutOff: (connection: BusConnection) => boolean;
  readonly #clients = new Map<BusConnection, BusClient>();
  readonly #serverTopics: ServerTopics;
  readonly #heartbeatIntervalMs: number;
  #heartbeat: NodeJS.Timeout | undefined;
  #nextSubscription = 1;
  #state: 'new' | 'started' | 'disposed' = 'new';

  constructor(options: BusOptions) {
    this.#ptyHost = options.ptyHost;
    this.#log = options.log;
    this.#logger = options.logger;
    this.#workers = options.workers;
    this.#isCutOff = options.isCutOff ?? (() => false);
    this.#heartbeatIntervalMs = options.heartbeatIntervalMs ?? BusConstants.heartbeatIntervalMs;
    this.#serverTopics = new ServerTopics({
      ptyHost: options.ptyHost,
      commandLog: options.commandLog,
      publish: (topic, payload) => this.publishFromServer(topic, payload),
      correlationOf: (terminalId) => options.workers?.correlationOf(terminalId) ?? null,
      onTerminalClosed: (terminalId) => options.workers?.terminalClosed(terminalId),
    });
  }

  async start(): Promise<void> {
    if (this.#state !== 'new') return;
    await this.#log.load();
    if (this.#state !== 'new') return; // disposed while loading
    this.#state = 'started';
    this.#serverTopics.start();
    this.#heartbeat = setInterval(() => this.#beat(), this.#heartbeatIntervalMs);
    // A heartbeat must never keep a process alive on its own.
    this.#heartbeat.unref();
  }

  /** Start tracking a control connection; dispose the result when it closes. */
  attach(connection: BusConnection, queuedBytes: () => number): IDisposable {
    const client: BusClient = { connection, queuedBytes, peer: null, correlationId: null, subscriptions: new Map() };
    this.#clients.set(connection, client);
    return { dispose: () => this.#detach(client) };
  }

  get peers(): PeerInfo[] {
    return [...this.#clients.values()].flatMap((client) => (client.peer ? [{ ...client.peer }] : []));
  }

  /** How full the replay log is (`npm run soak`). */
  get logFill(): LogFill {
    return this.#log.fill;
  }

  /** The sequence of the newest logged message (what `resumeCursor` reports). */
  get cursor(): number {
    return this.#log.lastSequence;
  }

  hello(connection: BusConnection, params: HelloParams): { peerId: string; protocol: string; serverCapabilities: string[] } {
    const client = this.#client(connection);
    const first = client.peer === null;
    const peer: PeerInfo = {
      peerId: client.peer?.peerId ?? `p-${randomBytes(4).toString('hex')}`,
      role: params.role,
      peerName: params.peerName,
      terminalId: params.terminalId ?? null,
      capabilities: params.capabilities ?? [],
      connectedAt: client.peer?.connectedAt ?? Date.now(),
    };
    client.peer = peer;
    client.correlationId = params.correlationId ?? client.correlationId ?? (peer.terminalId ? (this.#workers?.correlationOf(peer.terminalId) ?? null) : null);
    if (params.monitorCorrelationId !== undefined) this.#workers?.claim(params.monitorCorrelationId, peer.peerId);
    this.#logger.info(first ? 'bus peer connected' : 'bus peer updated', { connection: connection.connectionId, ...describePeer(peer) });
    if (first) this.publishFromServer('system.peer.connected', { ...describePeer(peer), correlationId: client.correlationId });
    return { peerId: peer.peerId, protocol: ProtocolV2, serverCapabilities: ['push', 'broadcast', 'tasks'] };
  }

  /**
   * `resumeCursor` (and the `caught-up` frame's) is written in the dialect of `fromCursor`: a
   * claws client that sent `"0000:0"` gets `"0000:<sequence>"` back, ours a number.
   */
  subscribe(
    connection: BusConnection,
    topic: string,
    fromCursor: ParsedCursor | undefined,
  ): { subscriptionId: string; resumeCursor: number | string } {
    const client = this.#peerClient(connection);
    const checked = checkPattern(topic);
    if (!checked.ok) throw new ControlError(checked.error, 'INVALID_PARAMS');
    if (client.subscriptions.size >= BusConstants.maxSubscriptionsPerPeer) throw new ControlError(BusErrors.tooManySubscriptions, 'INVALID_PARAMS');
    const subscription: Subscription = {
      id: `s-${this.#nextSubscription++}`,
      pattern: topic,
      segments: checked.segments,
      pendingLive: null,
      output: null,
      closed: false,
    };
    const outputMatch = outputTopicPattern.exec(topic);
    if (outputMatch && !topic.includes('*')) this.#attachOutput(client, subscription, outputMatch[1]!);
    client.subscriptions.set(subscription.id, subscription);
    const resumeCursor = this.#log.lastSequence;
    const dialect: CursorDialect = fromCursor?.dialect ?? 'number';
    if (fromCursor !== undefined) {
      const replay = subscription.output
        ? []
        : this.#log.since(fromCursor.sequence).filter((event) => topicMatches(subscription.segments, event.topic.split('.')));
      subscription.pendingLive = [];
      // After the subscribe answer has been written (it is written once this handler's promise settles).
      setImmediate(() => this.#replay(client, subscription, replay, formatCursor(resumeCursor, dialect)));
    }
    return { subscriptionId: subscription.id, resumeCursor: formatCursor(resumeCursor, dialect) };
  }

  unsubscribe(connection: BusConnection, subscriptionId: string): { unsubscribed: true } {
    const client = this.#peerClient(connection);
    const subscription = client.subscriptions.get(subscriptionId);
    if (!subscription) throw new ControlError(BusErrors.unknownSubscription(subscriptionId), 'NOT_FOUND');
    this.#closeSubscription(client, subscription);
    return { unsubscribed: true };
  }

  publish(connection: BusConnection, topic: string, payload: unknown, echo: boolean): { deliveredTo: number; sequence: number } {
    const client = this.#peerClient(connection);
    const checked = checkTopic(topic);
    if (!checked.ok) throw new ControlError(checked.error, 'INVALID_PARAMS');
    const event = this.#log.append({ topic, from: client.peer!.peerId, payload, sentAt: Date.now() });
    const deliveredTo = this.#deliver(event, checked.segments, echo ? null : client);
    return { deliveredTo, sequence: event.sequence };
  }

  broadcast(connection: BusConnection, text: string, targetRole: PeerRole | undefined): { deliveredTo: number; sequence: number } {
    const client = this.#peerClient(connection);
    const sender = client.peer!;
    if (sender.role !== 'orchestrator') throw new ControlError(BusErrors.broadcastNeedsOrchestrator(sender.role), 'UNAUTHORIZED');
    const event = this.#log.append({
      topic: 'system.broadcast',
      from: sender.peerId,
      payload: { text, targetRole: targetRole ?? null, peerName: sender.peerName },
      sentAt: Date.now(),
    });
    // A broadcast reaches every peer (of the target role), subscribed or not; never the sender.
    let deliveredTo = 0;
    for (const other of this.#clients.values()) {
      if (other === client || other.peer === null || !other.connection.connected) continue;
      if (targetRole !== undefined && other.peer.role !== targetRole) continue;
      this.#sendMessage(other, event, false);
      deliveredTo++;
    }
    return { deliveredTo, sequence: event.sequence };
  }

  /** A message from the server itself; logged (replayable) unless `logged` is false. */
  publishFromServer(topic: string, payload: unknown, options: { logged?: boolean } = {}): void {
    if (this.#state === 'disposed') return;
    const segments = topic.split('.');
    const event: BusEvent =
      options.logged === false
        ? { sequence: this.#log.lastSequence, topic, from: serverPeerId, payload, sentAt: Date.now() }
        : this.#log.append({ topic, from: serverPeerId, payload, sentAt: Date.now() });
    this.#deliver(event, segments, null);
  }

  /** Write the log's queued events (tests; shutdown does it synchronously). */
  flushLog(): Promise<void> {
    return this.#log.flush();
  }

  dispose(): void {
    if (this.#state === 'disposed') return;
    this.#state = 'disposed';
    clearInterval(this.#heartbeat);
    this.#serverTopics.dispose();
    for (const client of this.#clients.values()) {
      for (const subscription of client.subscriptions.values()) this.#closeSubscription(client, subscription);
    }
    this.#clients.clear();
    this.#log.dispose();
  }

  // ---- internals ----------------------------------------------------------------------

  #client(connection: BusConnection): BusClient {
    const client = this.#clients.get(connection);
    // Every connection is attached when accepted; a missing one is a wiring bug.
    if (!client) throw new Error(`bus: connection ${connection.connectionId} is not attached`);
    return client;
  }

  #peerClient(connection: BusConnection): BusClient {
    const client = this.#client(connection);
    if (client.peer === null) throw new ControlError(BusErrors.callHelloFirst, 'INVALID_PARAMS');
    return client;
  }

  /** Deliver to every client with a matching subscription, once per client. Returns how many got it. */
  #deliver(event: BusEvent, segments: readonly string[], except: BusClient | null): number {
    let deliveredTo = 0;
    for (const client of this.#clients.values()) {
      if (client === except || !this.#mayReceive(client)) continue;
      let replaying: Subscription | null = null;
      let live = false;
      for (const subscription of client.subscriptions.values()) {
        if (subscription.output || !topicMatches(subscription.segments, segments)) continue;
        if (subscription.pendingLive) replaying ??= subscription;
        else live = true;
        if (live) break;
      }
      if (live) this.#sendMessage(client, event, false);
      else if (replaying) replaying.pendingLive!.push(event);
      else continue;
      deliveredTo++;
    }
    return deliveredTo;
  }

  #sendMessage(client: BusClient, event: BusEvent, replayed: boolean): void {
    const frame: Record<string, unknown> = {
      push: 'message',
      protocol: ProtocolV2,
      topic: event.topic,
      from: event.from,
      payload: event.payload,
      sentAt: event.sentAt,
      sequence: event.sequence,
    };
    if (replayed) frame.replayed = true;
    client.connection.sendFrame(frame);
  }

  #replay(client: BusClient, subscription: Subscription, events: BusEvent[], resumeCursor: number | string): void {
    if (subscription.closed || !this.#mayReceive(client)) return;
    for (const event of events) {
      if (!client.connection.connected) return;
      this.#sendMessage(client, event, true);
    }
    client.connection.sendFrame({
      push: 'caught-up',
      protocol: ProtocolV2,
      subscriptionId: subscription.id,
      replayedCount: events.length,
      resumeCursor,
    });
    const live = subscription.pendingLive ?? [];
    subscription.pendingLive = null;
    for (const event of live) if (client.connection.connected) this.#sendMessage(client, event, false);
  }

  #attachOutput(client: BusClient, subscription: Subscription, topicTerminalId: string): void {
    const session = this.#ptyHost.get(topicTerminalId);
    if (!session) throw new ControlError(ProtocolErrors.unknownTerminal(topicTerminalId), 'NOT_FOUND');
    const stream: OutputStream = { terminalId: session.id, attachment: null, nextOffset: 0, skipping: false };
    subscription.output = stream;
    const topic = subscription.pattern;
    // Output from now on only: a claws stream never draws the screen before it (no snapshot).
    const attachment = session.follow({
      lossless: false,
      onOutput: (data, endOffset) => {
        const offset = stream.nextOffset;
        stream.nextOffset = endOffset;
        stream.attachment?.ack(data.length);
        if (subscription.closed || !this.#mayReceive(client)) return;
        // A client that is not reading: skip output (say so once) rather than queue it.
        if (client.queuedBytes() > BusConstants.outputSkipQueuedBytes) {
          if (!stream.skipping) {
            stream.skipping = true;
            client.connection.sendFrame(this.#outputFrame(topic, { skipped: true, offset }));
          }
          return;
        }
        stream.skipping = false;
        client.connection.sendFrame(this.#outputFrame(topic, { data: utf8Base64(data), offset, endOffset }));
      },
    });
    stream.attachment = attachment;
    stream.nextOffset = attachment.offset;
  }

  #outputFrame(topic: string, payload: Record<string, unknown>): Record<string, unknown> {
    // Output is not logged: it carries the latest logged sequence, so it never moves a cursor.
    return { push: 'message', protocol: ProtocolV2, topic, from: serverPeerId, payload, sentAt: Date.now(), sequence: this.#log.lastSequence };
  }

  /**
   * Whether anything may be pushed to this client now: connected, subscribed, and not cut off.
   * A client found cut off loses its subscriptions here, whether or not the timer has run yet.
   */
  #mayReceive(client: BusClient): boolean {
    if (!client.connection.connected || client.subscriptions.size === 0) return false;
    if (!this.#isCutOff(client.connection)) return true;
    this.closeSubscriptionsOf(client.connection);
    return false;
  }

  /**
   * End every subscription of a connection, without a frame: its token was revoked or expired
   * (ControlServer), so nothing more may reach it. Its next request is refused with `auth:invalid`.
   */
  closeSubscriptionsOf(connection: BusConnection): number {
    const client = this.#clients.get(connection);
    if (!client) return 0;
    const subscriptions = [...client.subscriptions.values()];
    for (const subscription of subscriptions) this.#closeSubscription(client, subscription);
    return subscriptions.length;
  }

  #closeSubscription(client: BusClient, subscription: Subscription): void {
    subscription.closed = true;
    subscription.pendingLive = null;
    subscription.output?.attachment?.dispose();
    client.subscriptions.delete(subscription.id);
  }

  #detach(client: BusClient): void {
    if (!this.#clients.has(client.connection)) return;
    for (const subscription of [...client.subscriptions.values()]) this.#closeSubscription(client, subscription);
    this.#clients.delete(client.connection);
    if (client.peer) {
      this.#logger.info('bus peer disconnected', { connection: client.connection.connectionId, peerId: client.peer.peerId });
      this.#workers?.release(client.peer.peerId);
      this.publishFromServer('system.peer.disconnected', describePeer(client.peer));
    }
  }

  #beat(): void {
    this.publishFromServer('system.heartbeat', { serverTime: Date.now(), peers: this.peers.length }, { logged: false });
  }
}

/** Enough for any output batch's text as UTF-8 (a byte the decoder replaced comes back as 3). */
const base64ScratchBytes = 3 * TerminalConstants.batchMaxBytes;
let base64Scratch: Buffer | undefined;

/**
 * Output is pushed as the base64 of its UTF-8 bytes, encoded through one kept buffer: a fresh
 * Buffer per push, for every subscriber of a flooding terminal, is memory V8 counts against the
 * Hub's heap and pays for in full collections of it (docs/reliability.md).
 */
function utf8Base64(text: string): string {
  if (text.length * 3 > base64ScratchBytes) return Buffer.from(text, 'utf8').toString('base64');
  base64Scratch ??= Buffer.allocUnsafeSlow(base64ScratchBytes);
  return base64Scratch.toString('base64', 0, base64Scratch.write(text, 'utf8'));
}
