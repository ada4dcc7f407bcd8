/**
 * claws' `peers` and task registry commands (docs/protocol.md "Peers and tasks"), with claws'
 * request and response shapes so its `mcp_server.js` works unchanged.
 */
import { z } from 'zod';
import { FinalTaskStatus, OpenTaskStatus, TaskLimits, TaskStatus } from '../../api/taskContract.ts';
import { PeerRole } from './busCommands.ts';
import { clawsParams } from './fields.ts';

const TaskId = z.string().min(1).max(64);
const PeerId = z.string().min(1).max(200);
const OpenStatus = z.enum(OpenTaskStatus.options, { error: () => 'task.update takes status pending, running or blocked (task.complete finishes a task)' });
const FinalStatus = z.enum(FinalTaskStatus.options, { error: () => 'task.complete takes status succeeded, failed or skipped' });
const ListStatus = z.enum(TaskStatus.options, { error: () => `status must be one of ${TaskStatus.options.join(', ')}` });

/** Any JSON value whose text fits the bound. */
const TaskResultValue = z.unknown().superRefine((value, context) => {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) context.addIssue({ code: 'custom', message: 'result must be a JSON value' });
  else if (text.length > TaskLimits.resultJsonChars) context.addIssue({ code: 'custom', message: `result is too large: its JSON is ${text.length} characters (limit ${TaskLimits.resultJsonChars})` });
});

export const TaskArtifact = z.object({ type: z.string().min(1).max(TaskLimits.artifactTypeChars), path: z.string().min(1).max(TaskLimits.artifactPathChars) });

/** One task as `task.list` returns it: claws' field names plus the names and terminal kept for people. */
export const ControlTask = z.looseObject({
  taskId: z.string(),
  title: z.string(),
  prompt: z.string(),
  assignee: z.string(),
  assignedBy: z.string(),
  assigneeName: z.string(),
  assignedByName: z.string(),
  assigneeTerminalId: z.string().nullable(),
  status: TaskStatus,
  progressPct: z.number().optional(),
  note: z.string().optional(),
  result: z.unknown().optional(),
  artifacts: z.array(z.object({ type: z.string(), path: z.string() })).optional(),
  assignedAt: z.number(),
  updatedAt: z.number(),
  completedAt: z.number().optional(),
  timeoutMs: z.number().optional(),
  cancelRequested: z.boolean().optional(),
  cancelReason: z.string().optional(),
});

export const ControlPeerInfo = z.looseObject({
  peerId: z.string(),
  peerName: z.string(),
  role: PeerRole,
  terminalId: z.string().nullable(),
  capabilities: z.array(z.string()),
  /** Epoch ms. */
  connectedAt: z.number(),
  lastSeen: z.number(),
});

export const taskCommandSchemas = {
  peers: {
    params: clawsParams({}),
    result: z.looseObject({ peers: z.array(ControlPeerInfo) }),
  },
  'task.assign': {
    params: clawsParams({
      title: z.string().trim().min(1).max(TaskLimits.titleChars),
      assignee: PeerId,
      prompt: z.string().min(1).max(TaskLimits.promptChars),
      timeoutMs: z.number().int().min(1).max(TaskLimits.maxTimeoutMs).optional(),
      /** claws: `publish` (default) sends `task.assigned.<assignee>`; `inject` types the prompt into the assignee's terminal; `both`. */
      deliver: z.enum(['publish', 'inject', 'both']).optional(),
    }),
    result: z.looseObject({ taskId: z.string(), assignedAt: z.number(), deliver: z.enum(['publish', 'inject', 'both']) }),
  },
  'task.update': {
    params: clawsParams({
      taskId: TaskId,
      status: OpenStatus,
      progressPct: z.number().min(0).max(100).optional(),
      note: z.string().max(TaskLimits.noteChars).optional(),
    }),
    result: z.looseObject({ taskId: z.string(), status: TaskStatus }),
  },
  'task.complete': {
    params: clawsParams({
      taskId: TaskId,
      status: FinalStatus,
      result: TaskResultValue.optional(),
      artifacts: z.array(TaskArtifact).max(TaskLimits.maxArtifacts).optional(),
    }),
    // Completing a finished task is not an error (claws): `alreadyCompleted` says so, `status` what it ended as.
    result: z.looseObject({ taskId: z.string(), status: TaskStatus, alreadyCompleted: z.boolean() }),
  },
  'task.cancel': {
    params: clawsParams({ taskId: TaskId, reason: z.string().max(TaskLimits.reasonChars).optional() }),
    result: z.looseObject({ taskId: z.string(), cancelRequested: z.literal(true) }),
  },
  'task.list': {
    params: clawsParams({ assignee: PeerId.optional(), status: ListStatus.optional(), since: z.number().finite().optional() }),
    result: z.looseObject({ tasks: z.array(ControlTask) }),
  },
} as const;
