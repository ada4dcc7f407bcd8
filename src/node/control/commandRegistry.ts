/**
 * The commands the control socket understands, by name. claws/1 commands, our own terminal
 * commands and (later) the claws/2 bus all register here the same way: a zod schema for the
 * request's fields and a handler that returns the response body or throws a ControlError.
 */
import type { z } from 'zod';
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

/** Keeps each command's schema and handler paired with the right types. */
export function defineCommand<S extends z.ZodType>(command: ControlCommand<S>): ControlCommand<S> {
  return command;
}

export class CommandRegistry {
  readonly #commands = new Map<string, ControlCommand>();

  register(command: ControlCommand<z.ZodType>): void {
    if (this.#commands.has(command.name)) throw new Error(`control command registered twice: ${command.name}`);
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
