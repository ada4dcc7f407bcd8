/** The claws/2 bus commands on the control socket: hello, subscribe, unsubscribe, publish, broadcast. */
import { z } from 'zod';
import { formatZodIssues } from '../../../common/validation.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { ControlError, ProtocolV2 } from '../protocol.ts';
import { type Bus, BusErrors } from './bus.ts';
import { CursorParam } from './busCursor.ts';
import type { BusConnection } from './busPeers.ts';
import { PeerRole } from './busPeers.ts';

/** The command context's peer is the connection itself (ControlConnection implements both). */
function connectionOf(peer: unknown): BusConnection {
  return peer as BusConnection;
}

const Topic = z.string().min(1).max(256);

/** claws clients send null for what they leave unset. */
const absentIfNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);

const HelloFields = z
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

export function busCommands(bus: Bus): ControlCommand[] {
  return [
    defineCommand({
      name: 'hello',
      // The protocol is checked before the other fields: a claws/1 client gets the one error that tells it what to do.
      params: z.looseObject({ protocol: z.unknown().optional() }),
      run(params, context) {
        if (params.protocol !== ProtocolV2) throw new ControlError(BusErrors.helloRequiresProtocol, 'INVALID_PARAMS');
        const parsed = HelloFields.safeParse(params);
        if (!parsed.success) throw new ControlError(formatZodIssues(parsed.error), 'INVALID_PARAMS');
        return bus.hello(connectionOf(context.peer), parsed.data);
      },
    }),
    defineCommand({
      name: 'subscribe',
      // claws clients send null for an unset cursor, and string cursors ("0000:0"); ours send numbers.
      params: z.object({ topic: Topic, fromCursor: absentIfNull(CursorParam) }),
      run: (params, context) => bus.subscribe(connectionOf(context.peer), params.topic, params.fromCursor),
    }),
    defineCommand({
      name: 'unsubscribe',
      params: z.object({ subscriptionId: z.string().min(1).max(64) }),
      run: (params, context) => bus.unsubscribe(connectionOf(context.peer), params.subscriptionId),
    }),
    defineCommand({
      name: 'publish',
      params: z.object({ topic: Topic, payload: z.unknown().optional(), echo: z.boolean().optional() }),
      run: (params, context) => bus.publish(connectionOf(context.peer), params.topic, params.payload ?? null, params.echo ?? false),
    }),
    defineCommand({
      name: 'broadcast',
      params: z.object({ text: z.string().max(64 * 1024), targetRole: PeerRole.optional() }),
      run: (params, context) => bus.broadcast(connectionOf(context.peer), params.text, params.targetRole),
    }),
  ] as ControlCommand[];
}
