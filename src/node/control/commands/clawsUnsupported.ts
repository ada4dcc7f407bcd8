/**
 * claws commands Switchboard knows and does not carry out. Each gets a refusal that names the
 * command, says Switchboard does not support it and why, and what to use instead — never
 * `unknown cmd`, which would read as a typo or a version mismatch. claws' own clients treat every
 * one of these as best-effort (they go on without the answer), so a refusal costs them nothing.
 *
 * Why these and not others (docs/protocol.md lists every claws command with its status):
 * - `lifecycle.plan|advance|reflect`: claws' mission phase machine, whose main effect is to
 *   refuse `create` until a plan is logged. Switchboard never gates `create`.
 * - `wave.*`: claws' "army" registry (a lead, sub-workers by role, heartbeats, harvest).
 * - `pipeline.*`: routes `output.<id>.*` bus messages into another terminal's input.
 * - `deliver-cmd`, `cmd.ack`: an idempotent command channel between peers; `publish` and
 *   `subscribe` (`cmd.<peerId>.*`) carry the same messages.
 * - `rpc.call`: request/response between peers through the server.
 * - `schema.list|get`: claws' payload schema registry; Switchboard does not validate payloads of
 *   peers' topics.
 * - `read`: claws' per-terminal command history; `poll` (all terminals) and `history.commands`
 *   (one session) answer it.
 */
import { clawsUnsupportedCommandNames } from '../../../common/protocol/control/clawsWorkerCommands.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { ControlError } from '../protocol.ts';

/** What the refused command does in claws, and what to use in Switchboard instead. */
const refused: ReadonlyArray<{ names: readonly string[]; what: string; instead: string }> = [
  {
    names: ['lifecycle.plan', 'lifecycle.advance', 'lifecycle.reflect'],
    what: "claws' mission phases (plan, spawn, …, reflect)",
    instead: 'create needs no plan here; lifecycle.register-spawn, lifecycle.register-monitor, lifecycle.mark-worker-status and lifecycle.snapshot work',
  },
  {
    names: ['wave.create', 'wave.status', 'wave.complete'],
    what: "claws' wave registry (a lead with sub-workers, heartbeats and harvest)",
    instead: 'track workers with the task registry (task.assign, task.list) and close their terminals with close',
  },
  {
    names: ['pipeline.create', 'pipeline.list', 'pipeline.close'],
    what: "claws' pipelines (output.<terminalId>.* messages typed into another terminal)",
    instead: 'subscribe to the source and send to the sink yourself',
  },
  {
    names: ['deliver-cmd', 'cmd.ack'],
    what: "claws' acknowledged command channel between peers",
    instead: 'publish to cmd.<peerId>.<verb> and subscribe to cmd.<peerId>.ack',
  },
  {
    names: ['rpc.call'],
    what: 'request/response calls between peers through the server',
    instead: 'publish rpc.<peerId>.request and subscribe to rpc.response.<yourPeerId>.*',
  },
  {
    names: ['schema.list', 'schema.get'],
    what: "claws' registry of payload schemas for bus topics",
    instead: 'payloads of peers\' topics are not validated here; server topics are listed in docs/protocol.md',
  },
  {
    names: ['read'],
    what: "claws' per-terminal command history",
    instead: 'use poll (every terminal) or history.commands (one session)',
  },
];

/** The refused commands are the table's (src/common/protocol/control); each has its reason here. */
export const clawsUnsupportedNames: readonly string[] = clawsUnsupportedCommandNames;

export function unsupportedMessage(name: string): string {
  const entry = refused.find((candidate) => candidate.names.includes(name));
  if (!entry) throw new Error(`not a refused claws command: ${name}`);
  return `${name} is a claws command Switchboard does not support: it is part of ${entry.what}. Instead: ${entry.instead}`;
}

export function clawsUnsupportedCommands(): ControlCommand[] {
  return clawsUnsupportedCommandNames.map((name) => {
    // Built at registration: a table entry without a reason here fails at startup, not at a client.
    const message = unsupportedMessage(name);
    return defineCommand(name, () => {
      throw new ControlError(message, 'UNKNOWN_METHOD');
    });
  });
}
