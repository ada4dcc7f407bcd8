/**
 * The commands the control socket understands, by name. Each one is an entry of the protocol's
 * table (src/common/protocol/control/commands.ts: its params schema and result shape) with a
 * handler here that gets the parsed params and returns the declared result, or throws a
 * ControlError.
 */
import type { z } from 'zod';
import {
  controlCommands,
  type ControlCommandName,
  type ControlParsedParams,
  type ControlResultBody,
  isControlCommandName,
} from '../../common/protocol/control/commands.ts';
import type { RequestId, ResponseBody } from './protocol.ts';

/** What a handler may know about the connection a request came in on. */
export interface ControlPeer {
  /** Per-server connection number, for logs. */
  readonly connectionId: number;
  /** The name the client gave (`clientName`, later the claws/2 `peerName`), or "socket client". */
  readonly name: string;
  /** The socket the client connected to. */
  readonly socketPath: string;
  /** Whether the client is still connected (a long handler may stop early when it is not). */
  readonly connected: boolean;
  /** Aborted once the connection closed: pass it to work that should stop when its client is gone. */
  readonly closedSignal: AbortSignal;
}

export interface CommandContext {
  readonly requestId: RequestId;
  readonly cmd: string;
  readonly peer: ControlPeer;
}

export interface ControlCommand<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** Validates the request's own fields (the envelope — id, cmd, protocol — is checked before). */
  readonly params: S;
  run(params: z.output<S>, context: CommandContext): ResponseBody | Promise<ResponseBody>;
}

/**
 * A handler for the table's command `name`: its params are the entry's, parsed, and it must return
 * the entry's result (a renamed result field fails the typecheck).
 */
export function defineCommand<C extends ControlCommandName>(
  name: C,
  run: (params: ControlParsedParams<C>, context: CommandContext) => ControlResultBody<C> | Promise<ControlResultBody<C>>,
): ControlCommand {
  // The registry only sees the erased form; the types were checked above, at the call.
  return { name, params: controlCommands[name].params, run: run as unknown as ControlCommand['run'] };
}

export class CommandRegistry {
  readonly #commands = new Map<string, ControlCommand>();

  register(command: ControlCommand<z.ZodType>): void {
    if (this.#commands.has(command.name)) throw new Error(`control command registered twice: ${command.name}`);
    // The table is the protocol: a command missing there would be missing for every client too.
    if (!isControlCommandName(command.name)) throw new Error(`control command ${command.name} has no entry in src/common/protocol/control/commands.ts`);
    this.#commands.set(command.name, command);
  }

  registerAll(commands: ReadonlyArray<ControlCommand<z.ZodType>>): void {
    for (const command of commands) this.register(command);
  }

  get(name: string): ControlCommand | undefined {
    return this.#commands.get(name);
  }

  get names(): string[] {
    return [...this.#commands.keys()];
  }
}
