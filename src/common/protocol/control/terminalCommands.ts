/**
 * Switchboard's own terminal commands under the claws framing: readScreen, wait, resize, signal,
 * rename, and the audit log. They name their terminal with `terminalId` (the request's `id` is
 * accepted as well, as for claws commands).
 */
import { z } from 'zod';
import { AgentState } from '../../api/agentContract.ts';
import { DevServer } from '../../api/devServerContract.ts';
import { ControlConstants } from '../../constants.ts';
import { Cols, Rows, TerminalRef, TimeoutMs } from './fields.ts';
import { IdValue } from './wire.ts';

/** Signals an agent may send: the ones a person can cause from a terminal, plus the polite stops. */
export const allowedSignals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL', 'SIGQUIT', 'SIGTSTP', 'SIGCONT', 'SIGWINCH', 'SIGUSR1', 'SIGUSR2'] as const;

/** One line of the audit log: what an agent did to a terminal. */
export const AuditEntry = z.object({
  seq: z.number().int(),
  /** Epoch ms. */
  at: z.number(),
  /** The client's name (`clientName`), or "socket client". */
  peer: z.string(),
  cmd: z.string(),
  terminalId: z.string(),
  /** The terminal's name when the entry was recorded: entries outlive their terminals (and restarts). */
  terminalName: z.string().nullable(),
  /** One line for people: what was typed, which signal, the new size… */
  summary: z.string(),
});

export const terminalCommandSchemas = {
  readScreen: {
    params: z.object({
      terminalId: TerminalRef,
      /** true: all scrollback above the screen; a number: at most that many lines of it. */
      scrollback: z.union([z.boolean(), z.number().int().min(0).max(1_000_000)]).optional(),
    }),
    result: z.looseObject({
      lines: z.array(z.string()),
      cursor: z.looseObject({ x: z.number(), y: z.number() }),
      altScreen: z.boolean(),
      bracketedPaste: z.boolean(),
      cols: z.number(),
      rows: z.number(),
    }),
  },
  wait: {
    params: z
      .object({
        terminalId: TerminalRef,
        pattern: z.string().min(1).max(1000).optional(),
        flags: z
          .string()
          .regex(/^[imsu]*$/, 'allowed regex flags are i, m, s and u')
          .optional(),
        exit: z.boolean().optional(),
        idleMs: z.number().int().min(1).max(ControlConstants.maxTimeoutMs).optional(),
        prompt: z.boolean().optional(),
        /** The pane's agent is in (or enters) this state, or one of these (docs/protocol.md, Agents). */
        agentState: z.union([AgentState, z.array(AgentState).min(1).max(4)]).optional(),
        /** A process of the pane listens on this TCP port (or already does): the pane's dev server is up (docs/protocol.md, Dev servers). */
        port: z.number().int().min(1).max(65_535).optional(),
        /** Count output from this offset on (a `send` answer's offset), closing the act-then-wait race. */
        since: z.number().int().min(0).optional(),
        timeoutMs: TimeoutMs.optional(),
      })
      .refine(
        (params) =>
          params.pattern !== undefined || params.exit === true || params.idleMs !== undefined || params.prompt === true || params.agentState !== undefined || params.port !== undefined,
        { message: 'wait needs at least one of pattern, exit, idleMs, prompt, agentState or port' },
      ),
    // A timeout is an error (`TIMEOUT`), so `matched` always names the condition that was met.
    result: z.looseObject({
      matched: z.enum(['pattern', 'exit', 'idle', 'prompt', 'agentState', 'port']),
      offset: z.number(),
      /** pattern: the matching text and its groups. */
      text: z.string().optional(),
      groups: z.array(z.string().nullable()).optional(),
      /** exit (and prompt, when shell integration tells): how it ended. */
      exitCode: z.number().int().nullable().optional(),
      signal: z.string().nullable().optional(),
      commandLine: z.string().optional(),
      /** agentState: the agent as it is now. */
      agent: z.looseObject({ kind: z.string(), label: z.string(), state: AgentState, since: z.number(), reason: z.string().nullable() }).optional(),
      /** port: the server listening on it. */
      server: DevServer.optional(),
    }),
  },
  resize: {
    params: z.object({ terminalId: TerminalRef, cols: Cols, rows: Rows }),
    result: z.looseObject({ cols: z.number().int(), rows: z.number().int() }),
  },
  signal: {
    params: z.object({ terminalId: TerminalRef, signal: z.enum(allowedSignals) }),
    result: z.looseObject({ signal: z.enum(allowedSignals), processGroup: z.number().int() }),
  },
  rename: {
    params: z.object({ terminalId: TerminalRef, name: z.string().min(1).max(200) }),
    result: z.looseObject({ name: z.string() }),
  },
  audit: {
    params: z.object({
      limit: z.number().int().min(1).max(ControlConstants.auditEntries).optional(),
      peer: z.string().max(200).optional(),
      terminalId: IdValue.optional(),
    }),
    result: z.looseObject({ entries: z.array(AuditEntry) }),
  },
} as const;
