/** The claws/2 bus commands on the control socket: hello, subscribe, unsubscribe, publish, broadcast. */
import { z } from 'zod';
import { CursorParam } from './busCursor.ts';
import { absentIfNull } from './fields.ts';

export const PeerRole = z.enum(['orchestrator', 'worker', 'observer']);
export type PeerRole = z.infer<typeof PeerRole>;

export const Topic = z.string().min(1).max(256);

/**
 * `hello`'s own fields, checked after its `protocol` (which must be claws/2): a claws/1 client gets
 * the one error that tells it what to do, so the command's params take any fields.
 */
export const HelloFields = z
  .object({
    role: PeerRole,
    peerName: z.string().min(1).max(200),
    terminalId: absentIfNull(z.union([z.string().min(1).max(256), z.number().finite().transform(String)])),
    capabilities: absentIfNull(z.array(z.string().max(100)).max(100)),
    /** claws v0.8: the worker's correlation id, announced in `system.peer.connected`. */
    correlation_id: absentIfNull(z.string().min(1).max(200)),
    /** claws' `stream-events.js --wait`: the correlation id this peer monitors. */
    monitorCorrelationId: absentIfNull(z.string().min(1).max(200)),
  })
  .transform(({ correlation_id, monitorCorrelationId, ...fields }) => ({ ...fields, correlationId: correlation_id, monitorCorrelationId }));

/** A bus cursor as handed out: a number, or for a client that wrote claws' cursors, `"0000:<sequence>"`. */
const Cursor = z.union([z.number(), z.string()]);

const Delivered = z.looseObject({ deliveredTo: z.number().int(), sequence: z.number().int() });

export const busCommandSchemas = {
  hello: {
    params: z.looseObject({ protocol: z.unknown().optional() }),
    result: z.looseObject({ peerId: z.string(), protocol: z.string(), serverCapabilities: z.array(z.string()) }),
  },
  subscribe: {
    // claws clients send null for an unset cursor, and string cursors ("0000:0"); ours send numbers.
    params: z.object({ topic: Topic, fromCursor: absentIfNull(CursorParam) }),
    result: z.looseObject({ subscriptionId: z.string(), resumeCursor: Cursor }),
  },
  unsubscribe: {
    params: z.object({ subscriptionId: z.string().min(1).max(64) }),
    result: z.looseObject({ unsubscribed: z.literal(true) }),
  },
  publish: {
    params: z.object({ topic: Topic, payload: z.unknown().optional(), echo: z.boolean().optional() }),
    result: Delivered,
  },
  broadcast: {
    params: z.object({ text: z.string().max(64 * 1024), targetRole: PeerRole.optional() }),
    result: Delivered,
  },
} as const;
