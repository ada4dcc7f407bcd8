/**
 * claws/1 commands: list, create, show, send, exec, readLog, poll, close, introspect, ping. Field
 * names, defaults and limits follow claws (docs/protocol.md); our own fields ride beside claws'.
 */
import { z } from 'zod';
import { Creator } from '../../api/contractTypes.ts';
import { DevServer } from '../../api/devServerContract.ts';
import { TerminalConstants } from '../../constants.ts';
import { clawsParams, Cols, Rows, TerminalRef, TimeoutMs } from './fields.ts';

/** A terminal as claws' `list` describes it, plus our own fields. */
export const ControlTerminal = z.looseObject({
  id: z.string(),
  name: z.string(),
  pid: z.number().int().nullable(),
  hasShellIntegration: z.boolean(),
  /** The pane the person has focused. */
  active: z.boolean(),
  /** claws' log file; Switchboard keeps output in memory and History, so always null. */
  logPath: z.null(),
  wrapped: z.literal(true),
  cwd: z.string().nullable(),
  status: z.enum(['running', 'exited']),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  cols: z.number().int(),
  rows: z.number().int(),
  createdBy: Creator,
  createdAt: z.number(),
  /** The command the shell runs now, when shell integration tells. */
  runningCommand: z.string().nullable(),
  /** The agent CLI the pane runs (or ran: `exited`) and its state (docs/protocol.md, Agents); null: none. Optional: older servers lack it. */
  agent: z
    .looseObject({ kind: z.string(), label: z.string(), state: z.enum(['working', 'needs-input', 'idle', 'exited']), since: z.number(), reason: z.string().nullable() })
    .nullable()
    .optional(),
  /** Dev servers its processes listen on (docs/protocol.md, Dev servers): `{host, port, url, pid, since}` by port. Optional: older servers lack it. */
  servers: z.array(DevServer).optional(),
});
export type ControlTerminal = z.infer<typeof ControlTerminal>;

/** A finished command as `exec` and `poll` return it: claws' HistoryEvent plus our fields. */
export const CommandEvent = z.looseObject({
  seq: z.number().int(),
  terminalId: z.string(),
  terminalName: z.string(),
  commandLine: z.string(),
  /** ANSI-stripped, at most the last 256 KiB. */
  output: z.string(),
  exitCode: z.number().int().nullable(),
  startedAt: z.number(),
  endedAt: z.number(),
  cwd: z.string().nullable(),
  truncated: z.boolean(),
  startOffset: z.number(),
  endOffset: z.number(),
  /** Who ran it: an agent through `exec`, or typed in the pane. */
  source: z.string(),
});
export type CommandEvent = z.infer<typeof CommandEvent>;

export const clawsCommandSchemas = {
  list: {
    params: clawsParams({}),
    result: z.looseObject({ terminals: z.array(ControlTerminal) }),
  },
  create: {
    params: clawsParams({
      name: z.string().max(200).optional(),
      cwd: z.string().min(1).max(4096).optional(),
      /** Accepted for claws clients; every terminal is captured. */
      wrapped: z.boolean().optional(),
      /** Reveal the new pane (default true, as in claws). */
      show: z.boolean().optional(),
      /** Keep the keyboard where it is when showing (default true). */
      preserveFocus: z.boolean().optional(),
      shellPath: z.string().min(1).max(4096).optional(),
      shellArgs: z.array(z.string().max(64 * 1024)).max(1024).optional(),
      env: z.record(z.string(), z.string().max(64 * 1024)).optional(),
      cols: Cols.optional(),
      rows: Rows.optional(),
      shellIntegration: z.boolean().optional(),
      /** claws v0.8: the worker's correlation id, stamped on the events about this terminal. */
      correlation_id: z.string().min(1).max(200).optional(),
    }),
    // The new terminal's id is also the envelope's `id` (claws): clients read it from there.
    result: z.looseObject({ id: z.union([z.string(), z.number()]).transform(String), wrapped: z.literal(true), logPath: z.null(), terminal: ControlTerminal }),
  },
  show: {
    params: clawsParams({ terminalId: TerminalRef, preserveFocus: z.boolean().optional() }),
    result: z.looseObject({}),
  },
  send: {
    params: clawsParams({
      terminalId: TerminalRef,
      text: z.string().max(TerminalConstants.maxWriteChars).optional(),
      newline: z.boolean().optional(),
      paste: z.boolean().optional(),
      show: z.boolean().optional(),
      /** While a person is typing in the pane: true (default) waits until they pause; false refuses at once. */
      wait: z.boolean().optional(),
    }),
    result: z.looseObject({
      mode: z.literal('wrapped'),
      pasted: z.boolean(),
      /** The terminal's output offset when the text was written: pass it to `wait` as `since`. */
      offset: z.number(),
    }),
  },
  exec: {
    params: clawsParams({
      terminalId: TerminalRef,
      command: z.string().min(1).max(TerminalConstants.maxWriteChars),
      timeoutMs: TimeoutMs.optional(),
      show: z.boolean().optional(),
    }),
    result: z.looseObject({
      event: CommandEvent,
      truncated: z.boolean(),
      /** Present (true) when a person typed into the terminal while the command ran: the terminal echoed their keys into its output. */
      personTyped: z.literal(true).optional(),
    }),
  },
  readLog: {
    params: clawsParams({
      terminalId: TerminalRef,
      offset: z.number().int().min(0).optional(),
      /** Clamped to 524288 as in claws, not refused. */
      limit: z.number().int().min(1).optional(),
      strip: z.boolean().optional(),
    }),
    result: z.looseObject({
      bytes: z.string(),
      offset: z.number(),
      nextOffset: z.number(),
      totalSize: z.number(),
      /** More bytes follow, or the start was clamped up past bytes the ring no longer holds. */
      truncated: z.boolean(),
      logPath: z.null(),
    }),
  },
  poll: {
    params: clawsParams({ since: z.number().int().min(0).optional(), limit: z.number().int().min(1).optional() }),
    result: z.looseObject({ events: z.array(CommandEvent), cursor: z.number(), limit: z.number(), truncated: z.boolean() }),
  },
  close: {
    params: clawsParams({ terminalId: TerminalRef }),
    result: z.looseObject({ alreadyClosed: z.boolean() }),
  },
  introspect: {
    params: clawsParams({}),
    result: z.looseObject({
      protocol: z.string(),
      extensionVersion: z.string(),
      nodeVersion: z.string(),
      platform: z.string(),
      /** The Node ABI of the Electron this runs in; null outside Electron. */
      electronAbi: z.string().nullable(),
      nodePty: z.looseObject({ loaded: z.boolean(), error: z.string().nullable(), loadedFrom: z.string().nullable() }),
      servers: z.array(z.looseObject({ workspace: z.string().nullable(), socket: z.string() })),
      terminals: z.number().int(),
      uptime_ms: z.number(),
      /** Every command this server answers. */
      commands: z.array(z.string()),
    }),
  },
  ping: {
    params: clawsParams({}),
    result: z.looseObject({ serverTime: z.number() }),
  },
} as const;
