/**
 * The topics the server publishes on its own (claws.md): terminals created and closed, commands
 * starting and ending, terminals exiting. Follows the PtyHost and the CommandLog.
 *
 * - `system.terminal.created` / `system.terminal.closed`: PtyHost add/remove.
 * - `command.<id>.start`: the shell began a command (shell integration) — every one, also a
 *   command that ends within the same batch of output; an exec's sentinel wrapper is not announced.
 * - `command.<id>.end`: a command event was logged (shell integration, or an exec's sentinel);
 *   the payload is the event as `poll` returns it.
 * - `terminal.<id>.exit`: the terminal's process ended.
 *
 * And claws' own names for the same moments, with claws' snake_case payloads, for claws clients
 * (its MCP server counts a worker done on `system.worker.terminated`; its monitors wait for an
 * event carrying their worker's `correlation_id`, see commands/clawsWorkers.ts):
 * - `system.worker.terminated {terminal_id, correlation_id, terminated_at}`: a terminal closed
 *   (claws sends it for its wrapped terminals; every Switchboard terminal is one).
 * - `system.worker.process_exited {terminal_id, correlation_id, exit_code, exited_at}`: its process ended.
 * - `agent.<id>.state {terminalId, kind, state, previous, reason, since}`: the agent in the pane
 *   changed state (src/node/agents); `previous` is null when the agent was just recognised.
 * - `terminal.<id>.server {terminalId, event, host, port, url, pid, since}`: a dev server of the
 *   pane began listening (`event: "opened"`) or stopped (`"closed"`) (src/node/servers); a server
 *   whose URL or process changed is closed and opened again.
 *
 * `system.terminal.closed` also carries `terminal_id` and `correlation_id` beside our `terminalId`.
 * `correlation_id` is null for a terminal no claws client registered. Times are ISO strings, as in claws.
 */
import type { TerminalInfo } from '../../../common/api/contract.ts';
import type { DevServer } from '../../../common/api/devServerContract.ts';
import type { IDisposable } from '../../../common/lifecycle.ts';
import { isExecSentinelLine } from '../../../common/terminal/execSentinel.ts';
import type { PtyHost } from '../../pty/ptyHost.ts';
import type { CommandLog } from '../commandLog.ts';
import { commandEventBody } from '../commands/services.ts';

export interface ServerTopicsOptions {
  ptyHost: PtyHost;
  commandLog: CommandLog;
  publish(topic: string, payload: unknown): void;
  /** The claws correlation id registered for a terminal (null: none). */
  correlationOf?(terminalId: string): string | null;
  /** Told after a terminal's close has been published. */
  onTerminalClosed?(terminalId: string): void;
}

interface FollowedTerminal {
  listeners: IDisposable[];
}

export class ServerTopics implements IDisposable {
  readonly #options: ServerTopicsOptions;
  readonly #listeners: IDisposable[] = [];
  readonly #terminals = new Map<string, FollowedTerminal>();
  #started = false;

  constructor(options: ServerTopicsOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    const { ptyHost, commandLog, publish } = this.#options;
    this.#listeners.push(
      ptyHost.onDidAddTerminal((info) => {
        this.#follow(info);
        publish('system.terminal.created', terminalPayload(info));
      }),
      ptyHost.onDidRemoveTerminal(({ id }) => {
        for (const listener of this.#terminals.get(id)?.listeners ?? []) listener.dispose();
        this.#terminals.delete(id);
        const correlationId = this.#correlationOf(id);
        const now = new Date().toISOString();
        publish('system.terminal.closed', { terminalId: id, terminal_id: id, correlation_id: correlationId, closed_at: now });
        publish('system.worker.terminated', { terminal_id: id, correlation_id: correlationId, terminated_at: now });
        this.#options.onTerminalClosed?.(id);
      }),
      commandLog.onDidAppend((entry) => publish(`command.${entry.terminalId}.end`, commandEventBody(entry))),
    );
    for (const info of ptyHost.list()) this.#follow(info);
  }

  dispose(): void {
    for (const listener of this.#listeners) listener.dispose();
    this.#listeners.length = 0;
    for (const terminal of this.#terminals.values()) for (const listener of terminal.listeners) listener.dispose();
    this.#terminals.clear();
  }

  #correlationOf(terminalId: string): string | null {
    return this.#options.correlationOf?.(terminalId) ?? null;
  }

  #follow(info: TerminalInfo): void {
    if (this.#terminals.has(info.id)) return;
    const session = this.#options.ptyHost.get(info.id);
    if (!session) return;
    const { publish } = this.#options;
    const listeners = [
      session.onDidStartCommand((start) => {
        if (isExecSentinelLine(start.commandLine)) return;
        publish(`command.${info.id}.start`, {
          terminalId: info.id,
          terminalName: session.info.name,
          commandLine: start.commandLine,
          cwd: start.cwd ?? session.info.cwd,
          startedAt: start.startedAt,
        });
      }),
      session.onDidChangeAgent(({ agent, previous }) => {
        if (!agent) return;
        // A new agent in the pane (the last one exited) starts without a previous state.
        const before = previous && previous.kind === agent.kind && !(previous.state === 'exited' && agent.state !== 'exited') ? previous.state : null;
        if (before === agent.state && previous?.since === agent.since) return; // only its exit code was learnt
        publish(`agent.${info.id}.state`, { terminalId: info.id, kind: agent.kind, state: agent.state, previous: before, reason: agent.reason, since: agent.since });
      }),
      session.onDidChangeServers(({ servers, previous }) => {
        const key = (server: DevServer) => `${server.port} ${server.host} ${server.url} ${server.pid}`;
        const now = new Set(servers.map(key));
        const before = new Set(previous.map(key));
        for (const server of previous) if (!now.has(key(server))) publish(`terminal.${info.id}.server`, serverPayload(info.id, 'closed', server));
        for (const server of servers) if (!before.has(key(server))) publish(`terminal.${info.id}.server`, serverPayload(info.id, 'opened', server));
      }),
      session.onDidExit((status) => {
        publish(`terminal.${info.id}.exit`, { terminalId: info.id, exitCode: status.exitCode, signal: status.signal });
        publish('system.worker.process_exited', {
          terminal_id: info.id,
          correlation_id: this.#correlationOf(info.id),
          exit_code: status.exitCode,
          exited_at: new Date().toISOString(),
        });
      }),
    ];
    this.#terminals.set(info.id, { listeners });
  }
}

function serverPayload(terminalId: string, event: 'opened' | 'closed', server: DevServer): Record<string, unknown> {
  return { terminalId, event, host: server.host, port: server.port, url: server.url, pid: server.pid, since: server.since };
}

function terminalPayload(info: TerminalInfo): Record<string, unknown> {
  return { terminalId: info.id, name: info.name, pid: info.pid, cwd: info.cwd, createdBy: info.createdBy, createdAt: info.createdAt };
}
