/** What command handlers work with, and the small helpers every terminal command shares. */
import type { TerminalInfo } from '../../../common/api/contract.ts';
import type { z } from 'zod';
import type { CommandEvent, ControlTerminal } from '../../../common/protocol/control/clawsCommands.ts';
import type { ILogger } from '../../logger.ts';
import type { PtyHost } from '../../pty/ptyHost.ts';
import type { PtySession } from '../../pty/ptySession.ts';
import type { AuditLog } from '../auditLog.ts';
import type { CommandContext } from '../commandRegistry.ts';
import type { CommandLog, LoggedCommand } from '../commandLog.ts';
import type { ExecRunner } from '../execRunner.ts';
import { ControlError, ProtocolErrors, type RequestId } from '../protocol.ts';
import type { TerminalInput } from '../terminalInput.ts';
import type { TerminalWaiter } from '../terminalWaiter.ts';
import type { TypingGuard } from '../typingGuard.ts';

export interface ControlServices {
  readonly ptyHost: PtyHost;
  readonly commandLog: CommandLog;
  readonly audit: AuditLog;
  readonly exec: ExecRunner;
  readonly input: TerminalInput;
  readonly waiter: TerminalWaiter;
  /** Holds agents' `send` while a person is typing in the same terminal. */
  readonly typingGuard: TypingGuard;
  readonly logger: ILogger;
  readonly version: string;
  readonly workspaceFolders: readonly string[];
  readonly startedAt: number;
  /** The sockets this server listens on. */
  servers(): Array<{ workspace: string | null; socket: string }>;
  commandNames(): string[];
  /** Ask the UI to show (and unless preserveFocus, focus) a terminal's pane. */
  reveal(terminalId: string, preserveFocus: boolean): void;
  /** The pane the person has focused, if the UI reported one. */
  focusedTerminalId(): string | null;
}

/**
 * The terminal a request targets: its `terminalId` field, else — the claws convention — the
 * request's own `id`.
 */
export function targetTerminalRef(terminalId: RequestId | undefined, context: CommandContext): RequestId {
  return terminalId ?? context.requestId;
}

export function requireTerminal(services: ControlServices, terminalId: RequestId | undefined, context: CommandContext): PtySession {
  const ref = targetTerminalRef(terminalId, context);
  const session = services.ptyHost.get(String(ref));
  if (!session) throw new ControlError(ProtocolErrors.unknownTerminal(ref) + (terminalRefMistake(terminalId, context) ?? ''), 'NOT_FOUND');
  return session;
}

/**
 * When a request without `terminalId` has a numeric `id` (`{"id":10,"cmd":"send"}`): what to add to
 * "unknown terminal id 10" so the client sees its mistake — claws' rule took its request counter
 * for the terminal id, and terminal ids are strings (`t-3f2a9c01`), so it can name none. Undefined
 * otherwise: a string id may be a claws client's terminal that is gone, which gets claws' exact words.
 */
export function terminalRefMistake(terminalId: RequestId | undefined, context: CommandContext): string | undefined {
  if (terminalId !== undefined || typeof context.requestId !== 'number') return undefined;
  return `: no terminalId given, so the request id ${context.requestId} was taken as the terminal id (the claws convention); send the terminal in terminalId`;
}

export function requireRunning(session: PtySession): void {
  if (session.exitStatus) throw new ControlError(`terminal ${session.id} has exited`, 'TERMINAL_EXITED');
}

export function audit(services: ControlServices, context: CommandContext, terminalId: string, summary: string): void {
  services.audit.record({ peer: context.peer.name, cmd: context.cmd, terminalId, summary });
}

/** A terminal as claws' `list` describes it, plus our own fields. */
export function describeTerminal(info: TerminalInfo, focusedId: string | null): z.input<typeof ControlTerminal> {
  return {
    id: info.id,
    name: info.name,
    pid: info.pid,
    hasShellIntegration: info.shellIntegration,
    active: info.id === focusedId,
    logPath: null,
    wrapped: true,
    cwd: info.cwd,
    status: info.state,
    exitCode: info.exitCode,
    signal: info.signal,
    cols: info.cols,
    rows: info.rows,
    createdBy: info.createdBy,
    createdAt: info.createdAt,
    runningCommand: info.runningCommand,
    agent: info.agent ? { kind: info.agent.kind, label: info.agent.label, state: info.agent.state, since: info.agent.since, reason: info.agent.reason } : null,
    servers: (info.servers ?? []).map(({ host, port, url, pid, since }) => ({ host, port, url, pid, since })),
  };
}

/** A command event as `exec` and `poll` return it (claws' HistoryEvent plus our fields). */
export function commandEventBody(entry: LoggedCommand): z.input<typeof CommandEvent> {
  return {
    seq: entry.seq,
    terminalId: entry.terminalId,
    terminalName: entry.terminalName,
    commandLine: entry.commandLine,
    output: entry.output,
    exitCode: entry.exitCode,
    startedAt: entry.startedAt,
    endedAt: entry.endedAt,
    cwd: entry.cwd,
    truncated: entry.truncated,
    startOffset: entry.startOffset,
    endOffset: entry.endOffset,
    source: entry.source,
  };
}
