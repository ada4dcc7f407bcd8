/**
 * claws' task registry (docs/protocol.md "Tasks"): an orchestrator assigns a task to a worker peer,
 * the worker reports progress and completes it, the orchestrator may ask to cancel it. Each change
 * is published on the bus with claws' topics (`task.assigned.<assignee>`, `task.status`,
 * `task.completed`, `task.cancel_requested.<assignee>`) and fired for the Activity view.
 *
 * Unlike claws (in memory only), tasks are kept across restarts in `tasks.json` (0600), bounded to
 * `TaskLimits.maxTasks`: a person who looks at the Activity view after a restart still sees what
 * was assigned to whom and how it ended. A task still open when the app stopped is marked failed
 * on load, as claws fails a task whose assignee disconnects — no worker can finish it any more.
 *
 * Owned by the ControlServer. The constructor does no I/O; `load()` reads the file; `dispose()`
 * writes pending changes synchronously.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { FinalTaskStatus, isFinalTaskStatus, OpenTaskStatus, TaskLimits, TaskStatus } from '../../../common/api/taskContract.ts';
import { Emitter, type Event } from '../../../common/event.ts';
import type { IDisposable } from '../../../common/lifecycle.ts';
import { type ILogger, nullLogger } from '../../logger.ts';
import { PRIVATE_FILE_MODE, writePrivateFileAtomic } from '../../paths.ts';
import { ControlError } from '../protocol.ts';

export const tasksFileName = 'tasks.json';

const Artifact = z.object({ type: z.string().max(TaskLimits.artifactTypeChars), path: z.string().max(TaskLimits.artifactPathChars) });
export type TaskArtifact = z.infer<typeof Artifact>;

/** One task, with claws' field names (task.list returns these) plus the names and terminal we keep for people. */
const TaskRecordSchema = z.object({
  taskId: z.string().min(1).max(64),
  title: z.string().max(TaskLimits.titleChars),
  prompt: z.string().max(TaskLimits.promptChars),
  assignee: z.string().max(200),
  assignedBy: z.string().max(200),
  assigneeName: z.string().max(200),
  assignedByName: z.string().max(200),
  assigneeTerminalId: z.string().max(256).nullable(),
  status: TaskStatus,
  progressPct: z.number().min(0).max(100).optional(),
  note: z.string().max(TaskLimits.noteChars).optional(),
  result: z.unknown().optional(),
  artifacts: z.array(Artifact).max(TaskLimits.maxArtifacts).optional(),
  assignedAt: z.number(),
  updatedAt: z.number(),
  completedAt: z.number().optional(),
  timeoutMs: z.number().optional(),
  cancelRequested: z.boolean().optional(),
  cancelReason: z.string().max(TaskLimits.reasonChars).optional(),
});
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

const TasksFile = z.object({ version: z.literal(1), nextSeq: z.number().int().min(1), tasks: z.array(TaskRecordSchema).max(TaskLimits.maxTasks * 2) });

/** Who is asking, or who a task goes to: a claws/2 peer. */
export interface TaskPeer {
  peerId: string;
  peerName: string;
  terminalId: string | null;
}

export const TaskErrors = {
  unknownTask: (taskId: string) => `unknown task id: ${taskId} (task.list shows the tasks kept)`,
  notYourTask: (task: TaskRecord, peerId: string) =>
    `task ${task.taskId} is assigned to peer ${task.assignee} (${task.assigneeName}), not to this peer (${peerId}): only its assignee may update or complete it`,
  alreadyFinished: (task: TaskRecord, verb: string) => `task ${task.taskId} already finished (${task.status}): ${verb}`,
  full: `too many open tasks: all ${TaskLimits.maxTasks} kept tasks are still open; complete or cancel some first`,
  resultTooLarge: (chars: number) => `result is too large: its JSON is ${chars} characters (limit ${TaskLimits.resultJsonChars})`,
  resultNotJson: 'result must be a JSON value',
} as const;

/** Why open tasks of a peer fail when it goes (claws' note, kept as is). */
export const assigneeDisconnectedNote = 'assignee disconnected';
const restartedNote = 'Switchboard stopped before the task finished';

/** How soon after a change the file is rewritten: one write for a burst of updates. */
const saveDelayMs = 200;

export interface TaskRegistryOptions {
  /** null: in memory only. */
  filePath: string | null;
  /** Publish a server message on the bus. */
  publish: (topic: string, payload: unknown) => void;
  logger?: ILogger;
  now?: () => number;
}

export class TaskRegistry implements IDisposable {
  readonly #filePath: string | null;
  readonly #publish: (topic: string, payload: unknown) => void;
  readonly #logger: ILogger;
  readonly #now: () => number;
  /** Insertion order = assignment order. */
  readonly #tasks = new Map<string, TaskRecord>();
  #nextSeq = 1;
  #saveTimer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #dirty = false;
  #disposed = false;
  readonly #onDidChange = new Emitter<TaskRecord>();
  /** A task was assigned or changed; the record as it is now (do not mutate). */
  readonly onDidChange: Event<TaskRecord> = this.#onDidChange.event;

  constructor(options: TaskRegistryOptions) {
    this.#filePath = options.filePath;
    this.#publish = options.publish;
    this.#logger = options.logger ?? nullLogger;
    this.#now = options.now ?? Date.now;
  }

  /** Read `tasks.json`. Missing: empty. Unreadable or invalid: moved aside (logged), start empty. */
  async load(): Promise<void> {
    if (this.#filePath === null) return;
    let text: string;
    try {
      text = await readFile(this.#filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#logger.warn('tasks: cannot read the file; starting empty', { file: this.#filePath, error });
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = TasksFile.safeParse(json);
    if (!parsed.success) {
      const aside = `${this.#filePath}.corrupt-${this.#now()}`;
      this.#logger.warn('tasks: the file is not a valid task list; moved aside, starting empty', { file: this.#filePath, aside, error: parsed.error.message });
      try {
        renameSync(this.#filePath, aside);
      } catch (error) {
        this.#logger.warn('tasks: could not move the file aside', { error });
      }
      return;
    }
    const now = this.#now();
    for (const task of parsed.data.tasks) {
      if (!isFinalTaskStatus(task.status)) {
        task.status = 'failed';
        task.note = restartedNote;
        task.updatedAt = now;
        task.completedAt = now;
        this.#dirty = true;
      }
      this.#tasks.set(task.taskId, task);
    }
    this.#nextSeq = parsed.data.nextSeq;
    this.#trim();
    if (this.#dirty) this.#scheduleSave();
  }

  get size(): number {
    return this.#tasks.size;
  }

  get(taskId: string): TaskRecord | undefined {
    return this.#tasks.get(taskId);
  }

  /** Kept tasks in assignment order, filtered as claws' `task.list` does (`since`: updated at or after). */
  list(filter: { assignee?: string | undefined; status?: TaskStatus | undefined; since?: number | undefined } = {}): TaskRecord[] {
    return [...this.#tasks.values()].filter(
      (task) =>
        (filter.assignee === undefined || task.assignee === filter.assignee) &&
        (filter.status === undefined || task.status === filter.status) &&
        (filter.since === undefined || task.updatedAt >= filter.since),
    );
  }

  assign(by: TaskPeer, assignee: TaskPeer, request: { title: string; prompt: string; timeoutMs?: number | undefined }): TaskRecord {
    this.#makeRoom();
    const now = this.#now();
    const task: TaskRecord = {
      taskId: `t_${String(this.#nextSeq++).padStart(3, '0')}`,
      title: request.title,
      prompt: request.prompt,
      assignee: assignee.peerId,
      assignedBy: by.peerId,
      assigneeName: assignee.peerName,
      assignedByName: by.peerName,
      assigneeTerminalId: assignee.terminalId,
      status: 'pending',
      assignedAt: now,
      updatedAt: now,
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    };
    this.#tasks.set(task.taskId, task);
    // claws' payload: the whole task record, on a topic a worker subscribes to for itself.
    this.#publish(`task.assigned.${task.assignee}`, { ...task });
    this.#changed(task);
    return task;
  }

  update(peerId: string, request: { taskId: string; status: z.infer<typeof OpenTaskStatus>; progressPct?: number | undefined; note?: string | undefined }): TaskRecord {
    const task = this.#ownTask(peerId, request.taskId);
    if (isFinalTaskStatus(task.status)) throw new ControlError(TaskErrors.alreadyFinished(task, 'task.update cannot reopen it'), 'INVALID_PARAMS');
    task.status = request.status;
    if (request.progressPct !== undefined) task.progressPct = request.progressPct;
    if (request.note !== undefined) task.note = request.note;
    task.updatedAt = this.#now();
    this.#publish('task.status', { taskId: task.taskId, assignee: task.assignee, status: task.status, progressPct: task.progressPct, note: task.note });
    this.#changed(task);
    return task;
  }

  /** Idempotent, as in claws: completing a finished task changes nothing and publishes nothing (`changed: false`). */
  complete(
    peerId: string,
    request: { taskId: string; status: z.infer<typeof FinalTaskStatus>; result?: unknown; artifacts?: TaskArtifact[] | undefined },
  ): { task: TaskRecord; changed: boolean } {
    const task = this.#ownTask(peerId, request.taskId);
    if (isFinalTaskStatus(task.status)) return { task, changed: false };
    const now = this.#now();
    task.status = request.status;
    if (request.result !== undefined) task.result = request.result;
    if (request.artifacts !== undefined) task.artifacts = request.artifacts;
    task.completedAt = now;
    task.updatedAt = now;
    this.#publish('task.completed', { taskId: task.taskId, status: task.status, result: task.result, artifacts: task.artifacts });
    this.#changed(task);
    return { task, changed: true };
  }

  /**
   * Ask the assignee to stop: the task stays open until the worker completes it (claws' contract:
   * it should complete with `skipped`). Asking again updates the reason.
   */
  cancel(request: { taskId: string; reason?: string | undefined }): TaskRecord {
    const task = this.#task(request.taskId);
    if (isFinalTaskStatus(task.status)) throw new ControlError(TaskErrors.alreadyFinished(task, 'there is nothing to cancel'), 'INVALID_PARAMS');
    task.cancelRequested = true;
    if (request.reason !== undefined) task.cancelReason = request.reason;
    task.updatedAt = this.#now();
    this.#publish(`task.cancel_requested.${task.assignee}`, { taskId: task.taskId, reason: request.reason });
    this.#changed(task);
    return task;
  }

  /** claws' rule: a worker that goes fails its open tasks (nobody else may complete them). */
  failOpenTasksOf(peerId: string): void {
    const now = this.#now();
    for (const task of this.#tasks.values()) {
      if (task.assignee !== peerId || isFinalTaskStatus(task.status)) continue;
      task.status = 'failed';
      task.note = assigneeDisconnectedNote;
      task.updatedAt = now;
      task.completedAt = now;
      this.#publish('task.completed', { taskId: task.taskId, status: 'failed', result: null });
      this.#changed(task);
    }
  }

  /** Panes restored after a restart have new ids (old → new): a task's terminal follows its pane. */
  followRestoredTerminals(newIds: ReadonlyMap<string, string>): void {
    for (const task of this.#tasks.values()) {
      const id = task.assigneeTerminalId === null ? undefined : newIds.get(task.assigneeTerminalId);
      if (id === undefined) continue;
      task.assigneeTerminalId = id;
      this.#changed(task);
    }
  }

  /** Wait until every change so far is on disk (tests, shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    this.#writing = this.#writing.then(() => this.#save());
    await this.#writing;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#saveTimer);
    this.#onDidChange.dispose();
    // The process may be exiting: what the async chain has not written goes out now.
    if (this.#dirty && this.#filePath !== null) {
      try {
        const temp = join(dirname(this.#filePath), `.tasks-${process.pid}.tmp`);
        writeFileSync(temp, this.#serialize(), { mode: PRIVATE_FILE_MODE });
        renameSync(temp, this.#filePath);
        this.#dirty = false;
      } catch (error) {
        this.#logger.warn('tasks: could not write the file at shutdown', { file: this.#filePath, error });
      }
    }
  }

  // ---- internals ----------------------------------------------------------------------

  #task(taskId: string): TaskRecord {
    const task = this.#tasks.get(taskId);
    if (!task) throw new ControlError(TaskErrors.unknownTask(taskId), 'NOT_FOUND');
    return task;
  }

  #ownTask(peerId: string, taskId: string): TaskRecord {
    const task = this.#task(taskId);
    if (task.assignee !== peerId) throw new ControlError(TaskErrors.notYourTask(task, peerId), 'UNAUTHORIZED');
    return task;
  }

  /** Before adding one: drop the oldest finished task when full; refuse when every kept task is open. */
  #makeRoom(): void {
    if (this.#tasks.size < TaskLimits.maxTasks) return;
    for (const task of this.#tasks.values()) {
      if (!isFinalTaskStatus(task.status)) continue;
      this.#tasks.delete(task.taskId);
      return;
    }
    throw new ControlError(TaskErrors.full, 'INVALID_PARAMS');
  }

  /** After load: keep the newest `maxTasks` (a file from a build with a higher bound). */
  #trim(): void {
    const extra = this.#tasks.size - TaskLimits.maxTasks;
    if (extra <= 0) return;
    for (const taskId of [...this.#tasks.keys()].slice(0, extra)) this.#tasks.delete(taskId);
    this.#dirty = true;
  }

  #changed(task: TaskRecord): void {
    this.#dirty = true;
    this.#scheduleSave();
    this.#onDidChange.fire(task);
  }

  #scheduleSave(): void {
    if (this.#filePath === null || this.#disposed || this.#saveTimer !== undefined) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = undefined;
      this.#writing = this.#writing.then(() => this.#save());
    }, saveDelayMs);
    // A pending save never keeps the process alive: dispose() writes it synchronously.
    this.#saveTimer.unref();
  }

  async #save(): Promise<void> {
    if (!this.#dirty || this.#filePath === null || this.#disposed) return;
    this.#dirty = false;
    try {
      await writePrivateFileAtomic(this.#filePath, this.#serialize());
    } catch (error) {
      this.#dirty = true;
      this.#logger.warn('tasks: could not write the file', { file: this.#filePath, error });
    }
  }

  #serialize(): string {
    return JSON.stringify({ version: 1, nextSeq: this.#nextSeq, tasks: [...this.#tasks.values()] });
  }
}
