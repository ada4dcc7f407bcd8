/** The claws/2 bus commands on the control socket: hello, subscribe, unsubscribe, publish, broadcast. */
import { HelloFields } from '../../../common/protocol/control/busCommands.ts';
import { formatZodIssues } from '../../../common/validation.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { ControlError, ProtocolV2 } from '../protocol.ts';
import { type Bus, BusErrors } from './bus.ts';
import type { BusConnection } from './busPeers.ts';

/** The command context's peer is the connection itself (ControlConnection implements both). */
function connectionOf(peer: unknown): BusConnection {
  return peer as BusConnection;
}

export function busCommands(bus: Bus): ControlCommand[] {
  return [
    defineCommand('hello', (params, context) => {
      if (params.protocol !== ProtocolV2) throw new ControlError(BusErrors.helloRequiresProtocol, 'INVALID_PARAMS');
      const parsed = HelloFields.safeParse(params);
      if (!parsed.success) throw new ControlError(formatZodIssues(parsed.error), 'INVALID_PARAMS');
      return bus.hello(connectionOf(context.peer), parsed.data);
    }),
    defineCommand('subscribe', (params, context) => bus.subscribe(connectionOf(context.peer), params.topic, params.fromCursor)),
    defineCommand('unsubscribe', (params, context) => bus.unsubscribe(connectionOf(context.peer), params.subscriptionId)),
    defineCommand('publish', (params, context) => bus.publish(connectionOf(context.peer), params.topic, params.payload ?? null, params.echo ?? false)),
    defineCommand('broadcast', (params, context) => bus.broadcast(connectionOf(context.peer), params.text, params.targetRole)),
  ];
}
