/**
 * The claws/2 bus as MCP tools: publish a message, subscribe to a topic pattern, and poll what
 * arrived since. A model cannot receive pushes, so this MCP server keeps a bounded buffer per
 * subscription and `bus_poll` hands it over (and clears it).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ProtocolV2 } from '../../common/protocol/control/wire.ts';
import { guarded, text } from './toolResults.ts';
import { checkPattern, checkTopic, topicMatches } from '../../node/control/bus/topics.ts';
import type { ControlClient, PushFrame } from '../controlClient.ts';

export const BusToolLimits = {
  /** Messages kept per subscription between polls; older ones are dropped (and counted). */
  bufferedMessages: 1000,
  /** Messages one poll returns at most, so a reply stays readable for a model. */
  maxPollMessages: 200,
  /**
   * And their JSON at most this long (one message always goes): 200 `command.*.end` events, each
   * with its output's tail, would fill a model's context; the rest waits for the next poll.
   */
  maxPollChars: 32 * 1024,
} as const;

interface BufferedSubscription {
  readonly id: string;
  readonly topic: string;
  readonly segments: readonly string[];
  messages: PushFrame[];
  dropped: number;
  caughtUp: boolean;
}

/** Bus state of one MCP server: its peer on the socket and its subscriptions' buffers. */
class BusSession {
  readonly #client: ControlClient;
  readonly #subscriptions = new Map<string, BufferedSubscription>();
  #hello: Promise<void> | undefined;
  #lostReason: string | null = null;

  constructor(client: ControlClient) {
    this.#client = client;
    client.onPush((frame) => this.#onPush(frame));
    client.onConnectionClosed((reason) => {
      // Subscriptions lived on that connection; the next call says hello on a new one.
      this.#hello = undefined;
      if (this.#subscriptions.size > 0) this.#lostReason = reason;
      this.#subscriptions.clear();
    });
  }

  async ensureHello(): Promise<void> {
    this.#hello ??= this.#client
      .call('hello', { protocol: ProtocolV2, role: 'orchestrator', peerName: 'switchboard-mcp' })
      .then(() => undefined)
      .catch((error: unknown) => {
        this.#hello = undefined;
        throw error;
      });
    return this.#hello;
  }

  async publish(topic: string, payload: unknown): Promise<{ deliveredTo: number; sequence: number }> {
    await this.ensureHello();
    const { deliveredTo, sequence } = await this.#client.call('publish', { topic, payload });
    return { deliveredTo, sequence };
  }

  async subscribe(topic: string, fromCursor: number | undefined): Promise<{ subscriptionId: string; resumeCursor: number }> {
    const checked = checkPattern(topic);
    if (!checked.ok) throw new Error(checked.error);
    await this.ensureHello();
    const result = await this.#client.call('subscribe', { topic, fromCursor });
    const subscriptionId = result.subscriptionId;
    this.#lostReason = null;
    this.#subscriptions.set(subscriptionId, { id: subscriptionId, topic, segments: checked.segments, messages: [], dropped: 0, caughtUp: fromCursor === undefined });
    // Numbers in, numbers out: only a client that sent a claws cursor string gets one back.
    return { subscriptionId, resumeCursor: Number(result.resumeCursor) };
  }

  poll(subscriptionId: string | undefined, max: number): { messages: PushFrame[]; dropped: number; more: number; subscriptions: string[] } {
    const targets = subscriptionId === undefined ? [...this.#subscriptions.values()] : [this.#subscriptions.get(subscriptionId)];
    if (targets.some((target) => target === undefined)) {
      const lost = this.#lostReason ? ` (the connection to Switchboard closed: ${this.#lostReason}; subscribe again)` : '';
      throw new Error(`unknown subscription ${subscriptionId}${lost}`);
    }
    if (targets.length === 0 && this.#lostReason) throw new Error(`the connection to Switchboard closed (${this.#lostReason}); subscribe again`);
    // Oldest first across the subscriptions, up to `max` messages and maxPollChars of JSON.
    const waiting = (targets as BufferedSubscription[])
      .flatMap((target) => target.messages.map((message) => ({ target, message })))
      .sort((a, b) => (a.message.sequence ?? 0) - (b.message.sequence ?? 0));
    const messages: PushFrame[] = [];
    let chars = 0;
    for (const { message } of waiting) {
      if (messages.length >= max) break;
      chars += JSON.stringify(message.payload ?? null).length + (message.topic?.length ?? 0);
      if (messages.length > 0 && chars > BusToolLimits.maxPollChars) break;
      messages.push(message);
    }
    const taken = new Set(messages);
    let dropped = 0;
    let more = 0;
    for (const target of targets as BufferedSubscription[]) {
      target.messages = target.messages.filter((message) => !taken.has(message));
      more += target.messages.length;
      dropped += target.dropped;
      target.dropped = 0;
    }
    return { messages, dropped, more, subscriptions: targets.map((target) => target!.id) };
  }

  #onPush(frame: PushFrame): void {
    if (frame.push === 'caught-up') {
      const subscription = frame.subscriptionId ? this.#subscriptions.get(frame.subscriptionId) : undefined;
      if (subscription) subscription.caughtUp = true;
      return;
    }
    if (frame.push !== 'message' || frame.topic === undefined) return;
    const topic = checkTopic(frame.topic);
    if (!topic.ok) return;
    // Push frames do not name their subscription: file the message under every pattern it matches.
    for (const subscription of this.#subscriptions.values()) {
      if (!topicMatches(subscription.segments, topic.segments)) continue;
      subscription.messages.push(frame);
      if (subscription.messages.length > BusToolLimits.bufferedMessages) {
        subscription.messages.shift();
        subscription.dropped++;
      }
    }
  }
}

const topicDescription =
  'Dot-separated lowercase segments (letters, digits, _ and -), e.g. "task.build.done".';

export function registerBusTools(server: McpServer, client: ControlClient): void {
  const session = new BusSession(client);

  server.registerTool(
    'bus_publish',
    {
      title: 'Publish a bus message',
      description:
        'Publish a message on the Switchboard message bus (claws/2), where agents and tools coordinate: every peer subscribed to a matching topic receives it at once, and it is logged so late subscribers can replay it. Use it to hand off work or report progress to other agents (e.g. topic "task.build.done" with a JSON payload). Returns how many peers received it and its sequence number.',
      inputSchema: {
        topic: z.string().min(1).max(256).describe(`${topicDescription} No wildcards.`),
        payload: z.unknown().optional().describe('Any JSON value (default null).'),
      },
      annotations: { destructiveHint: false, openWorldHint: false },
    },
    ({ topic, payload }) =>
      guarded(async () => {
        const checked = checkTopic(topic);
        if (!checked.ok) throw new Error(checked.error);
        const result = await session.publish(topic, payload ?? null);
        return text(`Published ${topic} (sequence ${result.sequence}) to ${result.deliveredTo} subscriber${result.deliveredTo === 1 ? '' : 's'}.`);
      }),
  );

  server.registerTool(
    'bus_subscribe',
    {
      title: 'Subscribe to bus messages',
      description: `Start collecting Switchboard bus messages whose topic matches a pattern; read them later with bus_poll (messages are buffered here between polls, up to ${BusToolLimits.bufferedMessages} per subscription, oldest dropped first). In patterns * matches exactly one segment and ** one or more ("task.**" matches "task.a" and "task.a.b"). Useful server topics: "command.*.end" (a command finished in any terminal: command line, exit code, output tail), "terminal.*.exit", "system.terminal.created", "system.terminal.closed", "system.peer.connected", "system.broadcast". Give fromCursor (a sequence number, e.g. 0 for everything still logged) to also receive logged messages published before this call. Returns the subscription id for bus_poll.`,
      inputSchema: {
        topic: z.string().min(1).max(256).describe(`${topicDescription} May use * and ** as whole segments.`),
        fromCursor: z.number().int().min(0).optional().describe('Replay logged messages with a sequence number greater than this first.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ topic, fromCursor }) =>
      guarded(async () => {
        const result = await session.subscribe(topic, fromCursor);
        return text(`Subscribed to ${topic}: subscription ${result.subscriptionId} (current sequence ${result.resumeCursor}). Call bus_poll to read messages.`);
      }),
  );

  server.registerTool(
    'bus_poll',
    {
      title: 'Read buffered bus messages',
      description: `Return the bus messages collected since the last poll for one subscription (or all, when subscriptionId is omitted), oldest first, and clear them. Each message has topic, from (the publishing peer, or "server"), payload, sentAt (epoch ms) and sequence. Returns at once (it does not wait); an empty list means nothing new arrived. At most ${BusToolLimits.maxPollMessages} per call by default and about ${BusToolLimits.maxPollChars / 1024} KiB of payload; the reply says when more are waiting.`,
      inputSchema: {
        subscriptionId: z.string().min(1).max(64).optional().describe('From bus_subscribe; omit to read every subscription.'),
        max: z.number().int().min(1).max(BusToolLimits.bufferedMessages).optional().describe(`Most messages to return (default ${BusToolLimits.maxPollMessages}).`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ subscriptionId, max }) =>
      guarded(async () => {
        const result = session.poll(subscriptionId, max ?? BusToolLimits.maxPollMessages);
        const messages = result.messages.map(({ topic, from, payload, sentAt, sequence, replayed }) => ({ topic, from, payload, sentAt, sequence, ...(replayed ? { replayed } : {}) }));
        const notes: string[] = [];
        if (result.dropped > 0) notes.push(`${result.dropped} older messages were dropped because the buffer was full`);
        if (result.more > 0) notes.push(`${result.more} more waiting: poll again`);
        return text(JSON.stringify({ messages, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) }, null, 2));
      }),
  );
}
