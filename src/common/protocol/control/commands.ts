/**
 * THE table of the control socket's commands: for each command, the schema of its params and the
 * shape of its result. It is the one place the protocol is written down in code:
 * - the server (src/node/control) registers a handler per entry with `defineCommand(name, run)`:
 *   `run` gets the parsed params and must return the declared result, so a renamed or missing
 *   result field fails the typecheck (test/unit/common/protocol/control/commandTypes.check.ts);
 * - the clients (src/cli/controlClient.ts, the CLI verbs, src/cli/mcp) call `client.call(name,
 *   params)`, typed from the same entry, and read answers parsed with its result schema.
 *
 * Results are `z.looseObject`: a field a newer server adds passes through an older client, and a
 * client ignores what it does not know. Params are plain `z.object` (unknown fields, the
 * envelope's `id`/`cmd`/`clientName` among them, are dropped), with claws' null-as-absent rule for
 * claws' own commands (fields.ts `clawsParams`).
 *
 * To add a command: add its entry to the area's file here (or a new file spread in below), register
 * its handler with `defineCommand` in src/node/control/commands/, document it in docs/protocol.md,
 * and call it from a client with `client.call`. test/integration/control/commandTable.test.ts fails
 * while an entry has no handler or a handler no entry.
 */
import type { z } from 'zod';
import { busCommandSchemas } from './busCommands.ts';
import { clawsCommandSchemas } from './clawsCommands.ts';
import { clawsUnsupportedCommandSchemas, clawsWorkerCommandSchemas } from './clawsWorkerCommands.ts';
import { historyCommandSchemas } from './historyCommands.ts';
import { reviewCommandSchemas } from './reviewCommands.ts';
import { taskCommandSchemas } from './taskCommands.ts';
import { terminalCommandSchemas } from './terminalCommands.ts';
import { tokenCommandSchemas } from './tokenCommands.ts';
import { workspaceCommandSchemas } from './workspaceCommands.ts';

/** One command of the table. */
export interface ControlCommandSchema {
  /** Validates the request's own fields (the envelope — id, cmd, protocol — is checked before). */
  readonly params: z.ZodType;
  /** What an `ok:true` answer carries beside the envelope. */
  readonly result: z.ZodType;
}

export const controlCommands = {
  ...clawsCommandSchemas,
  ...clawsWorkerCommandSchemas,
  ...clawsUnsupportedCommandSchemas,
  ...terminalCommandSchemas,
  ...busCommandSchemas,
  ...taskCommandSchemas,
  ...tokenCommandSchemas,
  ...reviewCommandSchemas,
  ...historyCommandSchemas,
  ...workspaceCommandSchemas,
} as const satisfies Record<string, ControlCommandSchema>;

export type ControlCommandName = keyof typeof controlCommands;

/** What a client may send as a command's fields. */
export type ControlRequestParams<C extends ControlCommandName> = z.input<(typeof controlCommands)[C]['params']>;
/** The params a server handler receives, validated (and transformed) by the schema. */
export type ControlParsedParams<C extends ControlCommandName> = z.output<(typeof controlCommands)[C]['params']>;
/** What a server handler must return. */
export type ControlResultBody<C extends ControlCommandName> = z.input<(typeof controlCommands)[C]['result']>;
/** An answer as a client reads it, after the result schema parsed it. */
export type ControlResult<C extends ControlCommandName> = z.output<(typeof controlCommands)[C]['result']>;

export const controlCommandNames = Object.keys(controlCommands) as ControlCommandName[];

export function isControlCommandName(name: string): name is ControlCommandName {
  return Object.hasOwn(controlCommands, name);
}
