/**
 * The task part of the API contract: claws' task registry (`task.assign|update|complete|cancel|list`
 * on the control socket, docs/protocol.md "Tasks") as the Activity view shows it — who assigned
 * each task, to whom, its status and its result, live. Spread into `hubMethods`/`hubEvents` by
 * contract.ts. The limits are here because the socket's schemas and the UI's share them.
 */
import { z } from 'zod';
import { TerminalId } from './contractTypes.ts';

export const TaskLimits = {
  /**
   * Tasks kept (in memory and in `tasks.json`). When full, the oldest finished task goes; if all
   * are still open, `task.assign` is refused. Enough for a long fleet run; small enough that the
   * file (prompts included) stays a few MB at worst.
   */
  maxTasks: 200,
  titleChars: 200,
  /** A worker's mission; claws' are a few KB, this leaves room without making the file huge. */
  promptChars: 32 * 1024,
  noteChars: 2000,
  reasonChars: 2000,
  /** `result` is any JSON value; this bounds its JSON text. */
  resultJsonChars: 16 * 1024,
  maxArtifacts: 100,
  artifactTypeChars: 100,
  artifactPathChars: 4096,
  /** What the UI gets of a prompt and of a result: enough for a tooltip, not the whole mission. */
  previewChars: 1000,
  /** claws stores `timeoutMs` without acting on it; so do we (24 h is a sane upper bound). */
  maxTimeoutMs: 24 * 60 * 60 * 1000,
} as const;

/** claws' statuses: open ones (`pending`, `running`, `blocked`) and final ones. */
export const TaskStatus = z.enum(['pending', 'running', 'blocked', 'succeeded', 'failed', 'skipped']);
export type TaskStatus = z.infer<typeof TaskStatus>;
export const OpenTaskStatus = z.enum(['pending', 'running', 'blocked']);
export const FinalTaskStatus = z.enum(['succeeded', 'failed', 'skipped']);

export function isFinalTaskStatus(status: TaskStatus): boolean {
  return FinalTaskStatus.safeParse(status).success;
}

/** One task as the UI sees it: names beside ids, and previews instead of the whole prompt and result. */
export const TaskInfo = z.object({
  /** claws' format: `t_001`, `t_002`… */
  taskId: z.string().min(1).max(64),
  title: z.string(),
  /** The prompt's first `TaskLimits.previewChars` characters. */
  promptPreview: z.string(),
  status: TaskStatus,
  /** Peer id and name of the orchestrator that assigned it (the name outlives the connection). */
  assignedBy: z.string(),
  assignedByName: z.string(),
  /** Peer id and name of the worker it was assigned to. */
  assignee: z.string(),
  assigneeName: z.string(),
  /** The terminal the assignee said hello from, if any. */
  assigneeTerminalId: TerminalId.nullable(),
  progressPct: z.number().nullable(),
  note: z.string().nullable(),
  /** The result as text (a string as is, anything else as JSON), cut to `TaskLimits.previewChars`; null when none. */
  resultPreview: z.string().nullable(),
  artifacts: z.array(z.object({ type: z.string(), path: z.string() })),
  cancelRequested: z.boolean(),
  cancelReason: z.string().nullable(),
  /** Epoch ms. */
  assignedAt: z.number(),
  updatedAt: z.number(),
  completedAt: z.number().nullable(),
});
export type TaskInfo = z.infer<typeof TaskInfo>;

export const taskMethods = {
  /** Every kept task, newest assignment first. */
  'tasks.list': { params: z.object({}).strict(), result: z.array(TaskInfo) },
} as const;

export const taskEvents = {
  /** A task was assigned or changed (status, progress, result, cancel request): the task as it is now. */
  'tasks.changed': TaskInfo,
} as const;
