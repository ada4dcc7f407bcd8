/**
 * What agents do, as the window sees it: the audit log (loaded once, then kept live from
 * `audit.recorded`) and the tasks agents hand each other (claws' task registry, live from
 * `tasks.changed`) for the Activity view, and per terminal the input an agent typed a moment ago,
 * for the pane's activity line. Owned by the Workbench.
 */
import type { AuditEntry, EventPayload } from '../../../src/common/api/contract.ts';
import { type TaskInfo, TaskLimits } from '../../../src/common/api/taskContract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import { Disposable, toDisposable } from '../../../src/common/lifecycle.ts';
import { ObservableValue } from '../../app/observable.ts';

/** Entries the Activity view keeps; older ones are still in the Hub's log, just not on screen. */
export const activityListLimit = 500;

/** How long an agent's input stays announced under its pane (the line fades out near the end). */
export const agentInputShownMs = 5_000;

export interface RecentAgentInput extends EventPayload<'terminal.agentInput'> {
  /** Distinguishes two inputs with the same text, so the highlight replays for each. */
  serial: number;
}

export class AgentActivity extends Disposable {
  readonly #client: IHubClient;
  /** Newest first. */
  readonly entries = this.register(new ObservableValue<readonly AuditEntry[]>([]));
  /** claws tasks, newest assignment first (as many as the Hub keeps). */
  readonly tasks = this.register(new ObservableValue<readonly TaskInfo[]>([]));
  /** Per terminal id, the agent input shown under the pane now. */
  readonly recentInput = this.register(new ObservableValue<ReadonlyMap<string, RecentAgentInput>>(new Map()));
  readonly #expiry = new Map<string, ReturnType<typeof setTimeout>>();
  #nextSerial = 1;

  constructor(client: IHubClient) {
    super();
    this.#client = client;
    this.register(
      toDisposable(() => {
        for (const timer of this.#expiry.values()) clearTimeout(timer);
        this.#expiry.clear();
      }),
    );
  }

  /** Subscribes first, then loads, so nothing recorded in between is missed (duplicates merge by seq). */
  async start(): Promise<void> {
    this.register(this.#client.on('audit.recorded', (entry) => this.#merge([entry])));
    this.register(this.#client.on('terminal.agentInput', (input) => this.#showInput(input)));
    this.register(this.#client.on('tasks.changed', (task) => this.#mergeTasks([task])));
    const [listed, tasks] = await Promise.all([this.#client.call('audit.list', { limit: activityListLimit }), this.#client.call('tasks.list', {})]);
    if (this.store.isDisposed) return;
    this.#merge(listed);
    this.#mergeTasks(tasks);
  }

  /** A task's newest state wins: an event that arrived before the list is newer than the list's copy. */
  #mergeTasks(incoming: readonly TaskInfo[]): void {
    const byId = new Map(this.tasks.value.map((task) => [task.taskId, task]));
    for (const task of incoming) {
      const known = byId.get(task.taskId);
      if (!known || known.updatedAt <= task.updatedAt) byId.set(task.taskId, task);
    }
    const merged = [...byId.values()].sort((a, b) => b.assignedAt - a.assignedAt || b.taskId.localeCompare(a.taskId, undefined, { numeric: true })).slice(0, TaskLimits.maxTasks);
    this.tasks.set(merged);
  }

  #merge(incoming: readonly AuditEntry[]): void {
    const bySeq = new Map(this.entries.value.map((entry) => [entry.seq, entry]));
    for (const entry of incoming) bySeq.set(entry.seq, entry);
    const merged = [...bySeq.values()].sort((a, b) => b.seq - a.seq).slice(0, activityListLimit);
    this.entries.set(merged);
  }

  #showInput(input: EventPayload<'terminal.agentInput'>): void {
    const next = new Map(this.recentInput.value);
    next.set(input.id, { ...input, serial: this.#nextSerial++ });
    this.recentInput.set(next);
    clearTimeout(this.#expiry.get(input.id));
    this.#expiry.set(
      input.id,
      setTimeout(() => {
        this.#expiry.delete(input.id);
        const remaining = new Map(this.recentInput.value);
        remaining.delete(input.id);
        this.recentInput.set(remaining);
      }, agentInputShownMs),
    );
  }
}
