/**
 * claws' per-worker bookkeeping, the part its clients depend on: which terminal a worker runs in
 * and its correlation id, which monitor watches it, and which monitors are armed.
 *
 * A correlation id is a UUID that claws' MCP server makes for every terminal it spawns
 * (`claws_create`, `claws_worker`, `claws_fleet`) and registers with `lifecycle.register-spawn`
 * (claws v0.8 also takes it as `create {correlation_id}`). The server stamps it on the events about
 * that terminal (`system.terminal.closed`, `system.worker.terminated`,
 * `system.worker.process_exited`), and a monitor (`stream-events.js --wait <uuid>`) waits for an
 * event that carries it. Terminal ids can repeat across a claws restart; a correlation id never does.
 *
 * What claws builds around this — a phase machine (`lifecycle.plan|advance|reflect`) that gates
 * `create`, waves, pipelines — Switchboard does not: see clawsUnsupported.ts.
 *
 * In memory only: a correlation id names a terminal of this run, and terminals do not survive a
 * restart under the same id.
 */
import type { ControlResultBody } from '../../../common/protocol/control/commands.ts';
import { WorkerStatus } from '../../../common/protocol/control/clawsWorkerCommands.ts';
import type { PtyHost } from '../../pty/ptyHost.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { ControlError, ProtocolErrors } from '../protocol.ts';

export { WorkerStatus };

/** claws' SpawnedWorker (its lifecycle-store), field for field: claws clients read these names. */
export interface SpawnedWorker {
  id: string;
  correlation_id: string;
  name: string;
  spawned_at: string;
  status: WorkerStatus;
  completed_at?: string;
}

/** claws' MonitorRecord. */
export interface MonitorRecord {
  terminal_id: string;
  correlation_id: string;
  command: string;
  armed_at: string;
}

export const ClawsWorkersLimits = {
  /** Workers remembered; the oldest finished ones go first. An orchestrator runs tens, not thousands. */
  maxWorkers: 1000,
  /** Arm intents remembered (each is a UUID string); older ones go first. */
  maxIntents: 1000,
} as const;

export class ClawsWorkers {
  readonly #workers = new Map<string, SpawnedWorker>();
  readonly #monitors = new Map<string, MonitorRecord>();
  /** Correlation ids a monitor is about to watch (`monitors.register-intent`). */
  readonly #intents = new Set<string>();
  /** Correlation id → the bus peer (a `stream-events.js --wait` process) that watches it. */
  readonly #claims = new Map<string, string>();

  registerSpawn(terminalId: string, correlationId: string, name: string): SpawnedWorker {
    const existing = this.#workers.get(terminalId);
    if (existing && existing.status === 'spawned') {
      if (existing.correlation_id === correlationId) return existing;
      throw new ControlError(
        `lifecycle.register-spawn: terminal ${terminalId} is already registered with correlation id ${existing.correlation_id}`,
        'INVALID_PARAMS',
      );
    }
    const worker: SpawnedWorker = { id: terminalId, correlation_id: correlationId, name, spawned_at: new Date().toISOString(), status: 'spawned' };
    this.#workers.delete(terminalId);
    this.#workers.set(terminalId, worker);
    this.#trimWorkers();
    return worker;
  }

  registerMonitor(terminalId: string, correlationId: string, command: string): MonitorRecord {
    const monitor: MonitorRecord = { terminal_id: terminalId, correlation_id: correlationId, command, armed_at: new Date().toISOString() };
    this.#monitors.set(terminalId, monitor);
    return monitor;
  }

  markStatus(terminalId: string, status: WorkerStatus): SpawnedWorker | null {
    const worker = this.#workers.get(terminalId);
    if (!worker) return null;
    worker.status = status;
    if (status === 'spawned') delete worker.completed_at;
    else worker.completed_at = new Date().toISOString();
    return { ...worker };
  }

  /** The correlation id of the worker in this terminal, if one was registered. */
  correlationOf(terminalId: string): string | null {
    return this.#workers.get(terminalId)?.correlation_id ?? null;
  }

  /** The terminal closed: its worker is closed (unless it already ended otherwise) and nobody monitors it any more. */
  terminalClosed(terminalId: string): void {
    const worker = this.#workers.get(terminalId);
    if (worker && worker.status === 'spawned') this.markStatus(terminalId, 'closed');
    this.#monitors.delete(terminalId);
  }

  registerIntent(correlationId: string): void {
    this.#intents.delete(correlationId);
    this.#intents.add(correlationId);
    while (this.#intents.size > ClawsWorkersLimits.maxIntents) this.#intents.delete(this.#intents.values().next().value!);
  }

  /** A bus peer said hello with `monitorCorrelationId`: it is the monitor of that correlation id. */
  claim(correlationId: string, peerId: string): void {
    this.#claims.set(correlationId, peerId);
    this.#intents.delete(correlationId);
  }

  /** The peer left: its claims end. */
  release(peerId: string): void {
    for (const [correlationId, claimant] of this.#claims) if (claimant === peerId) this.#claims.delete(correlationId);
  }

  armed(correlationId: string): { armed: boolean; claimed: boolean; pending: boolean; peerId: string | null } {
    const peerId = this.#claims.get(correlationId) ?? null;
    const claimed = peerId !== null;
    const pending = this.#intents.has(correlationId);
    return { armed: claimed || pending, claimed, pending, peerId };
  }

  /**
   * The part of claws' lifecycle state Switchboard keeps. `phase` is null: there is no phase
   * machine here (claws' own hooks read `monitors`; nothing reads the phase to decide anything).
   */
  snapshot(): ControlResultBody<'lifecycle.snapshot'>['state'] {
    const workers = [...this.#workers.values()];
    return {
      v: 3,
      phase: null,
      spawned_workers: workers.map((worker) => ({ ...worker })),
      monitors: [...this.#monitors.values()].map((monitor) => ({ ...monitor })),
      // claws keeps this older mirror for clients that ask "is this terminal closed?".
      workers: workers.map((worker) => ({ id: worker.id, closed: worker.status === 'closed' })),
    };
  }

  #trimWorkers(): void {
    if (this.#workers.size <= ClawsWorkersLimits.maxWorkers) return;
    // Finished workers first (oldest first), then the oldest of the rest.
    for (const [id, worker] of this.#workers) {
      if (this.#workers.size <= ClawsWorkersLimits.maxWorkers) return;
      if (worker.status !== 'spawned') this.#workers.delete(id);
    }
    for (const id of this.#workers.keys()) {
      if (this.#workers.size <= ClawsWorkersLimits.maxWorkers) return;
      this.#workers.delete(id);
    }
  }
}

/** The commands over ClawsWorkers, with claws' names, fields and answers. */
export function clawsWorkerCommands(workers: ClawsWorkers, ptyHost: PtyHost): ControlCommand[] {
  const requireTerminal = (terminalId: string) => {
    if (!ptyHost.get(terminalId)) throw new ControlError(ProtocolErrors.unknownTerminal(terminalId), 'NOT_FOUND');
  };
  return [
    defineCommand('lifecycle.register-spawn', (params) => {
      requireTerminal(params.terminalId);
      return { worker: workers.registerSpawn(params.terminalId, params.correlationId, params.name) };
    }),
    defineCommand('lifecycle.register-monitor', (params) => {
      requireTerminal(params.terminalId);
      return { monitor: workers.registerMonitor(params.terminalId, params.correlationId, params.command) };
    }),
    // claws answers worker: null for a terminal it never registered; so do we.
    defineCommand('lifecycle.mark-worker-status', (params) => ({ worker: workers.markStatus(params.terminalId, params.status) })),
    defineCommand('lifecycle.snapshot', () => ({ state: workers.snapshot() })),
    defineCommand('monitors.register-intent', (params) => {
      workers.registerIntent(params.correlation_id);
      return {};
    }),
    defineCommand('monitors.is-corr-armed', (params) => workers.armed(params.correlation_id)),
  ];
}
