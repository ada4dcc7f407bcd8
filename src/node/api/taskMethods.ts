/**
 * claws' task registry on the client API: `tasks.list` and the `tasks.changed` event, so the
 * Activity view shows who assigned which task to whom, its status and its result, live.
 */
import type { EventPayload, HubEvent } from '../../common/api/contract.ts';
import { TerminalId } from '../../common/api/contractTypes.ts';
import { type TaskInfo, TaskLimits } from '../../common/api/taskContract.ts';
import { Disposable } from '../../common/lifecycle.ts';
import type { TaskRecord, TaskRegistry } from '../control/tasks/taskRegistry.ts';
import type { HubMethodHandlers } from './hubConnection.ts';

type Broadcast = <E extends HubEvent>(event: E, payload: EventPayload<E>) => void;

export class TaskFeed extends Disposable {
  readonly #tasks: TaskRegistry;

  constructor(options: { tasks: TaskRegistry; broadcast: Broadcast }) {
    super();
    this.#tasks = options.tasks;
    this.register(this.#tasks.onDidChange((task) => options.broadcast('tasks.changed', toTaskInfo(task))));
  }

  readonly methods: Pick<HubMethodHandlers, 'tasks.list'> = {
    'tasks.list': () => this.#tasks.list().reverse().map(toTaskInfo),
  };
}

export function toTaskInfo(task: TaskRecord): TaskInfo {
  return {
    taskId: task.taskId,
    title: task.title,
    promptPreview: task.prompt.slice(0, TaskLimits.previewChars),
    status: task.status,
    assignedBy: task.assignedBy,
    assignedByName: task.assignedByName,
    assignee: task.assignee,
    assigneeName: task.assigneeName,
    // A peer may name any string as its terminal in hello; only a real terminal id reaches the UI.
    assigneeTerminalId: TerminalId.safeParse(task.assigneeTerminalId).success ? task.assigneeTerminalId : null,
    progressPct: task.progressPct ?? null,
    note: task.note ?? null,
    resultPreview: resultPreview(task.result),
    artifacts: task.artifacts ?? [],
    cancelRequested: task.cancelRequested ?? false,
    cancelReason: task.cancelReason ?? null,
    assignedAt: task.assignedAt,
    updatedAt: task.updatedAt,
    completedAt: task.completedAt ?? null,
  };
}

/** A string result as is, anything else as JSON; cut for the UI. */
function resultPreview(result: unknown): string | null {
  if (result === undefined || result === null) return null;
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return text.length > TaskLimits.previewChars ? `${text.slice(0, TaskLimits.previewChars - 1)}…` : text;
}
