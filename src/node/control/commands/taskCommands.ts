/**
 * claws' `peers` and task registry commands (docs/protocol.md "Peers and tasks"), with claws'
 * request and response shapes so its `mcp_server.js` works unchanged: `task.assign` and
 * `task.cancel` are for orchestrators, `task.update` and `task.complete` for the worker the task is
 * assigned to, `task.list` and `peers` for anyone.
 */
import { z } from 'zod';
import { FinalTaskStatus, OpenTaskStatus, TaskLimits, TaskStatus } from '../../../common/api/taskContract.ts';
import type { Bus } from '../bus/bus.ts';
import type { PeerDirectory, PeerInfo, PeerRole } from '../bus/busPeers.ts';
import { type CommandContext, type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { ControlError } from '../protocol.ts';
import type { TaskRegistry } from '../tasks/taskRegistry.ts';
import type { ControlServices } from './services.ts';

export interface TaskCommandDeps {
  tasks: TaskRegistry;
  bus: Bus;
  peers: PeerDirectory;
  services: ControlServices;
}

export const TaskCommandErrors = {
  callHelloFirst: 'call hello first',
  role: (cmd: string, roles: readonly PeerRole[], role: PeerRole) => `${cmd} is for peers with role ${roles.join(' or ')} (this peer is ${role})`,
  unknownAssignee: (assignee: string) => `assignee peer not found: ${assignee} (it is not connected; peers lists the connected peers)`,
  noTerminal: (peer: PeerInfo) =>
    `peer ${peer.peerId} (${peer.peerName}) said hello without a terminalId, so there is no terminal to type the prompt into: use deliver "publish"`,
  terminalGone: (peer: PeerInfo) => `the terminal ${peer.terminalId} of peer ${peer.peerId} (${peer.peerName}) is not open`,
} as const;

/** claws clients send null for fields they leave out; treat it as absent. */
function clawsParams<T extends z.ZodRawShape>(shape: T) {
  return z.preprocess((value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null));
  }, z.object(shape));
}

const TaskId = z.string().min(1).max(64);
const PeerId = z.string().min(1).max(200);
const OpenStatus = z.enum(OpenTaskStatus.options, { error: () => 'task.update takes status pending, running or blocked (task.complete finishes a task)' });
const FinalStatus = z.enum(FinalTaskStatus.options, { error: () => 'task.complete takes status succeeded, failed or skipped' });
const ListStatus = z.enum(TaskStatus.options, { error: () => `status must be one of ${TaskStatus.options.join(', ')}` });

/** Any JSON value whose text fits the bound. */
const Result = z.unknown().superRefine((value, context) => {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) context.addIssue({ code: 'custom', message: 'result must be a JSON value' });
  else if (text.length > TaskLimits.resultJsonChars) context.addIssue({ code: 'custom', message: `result is too large: its JSON is ${text.length} characters (limit ${TaskLimits.resultJsonChars})` });
});

export function taskCommands(deps: TaskCommandDeps): ControlCommand[] {
  const { tasks, bus, peers, services } = deps;

  /** The calling peer, refused unless it said hello with one of `roles`. */
  function caller(context: CommandContext, roles: readonly PeerRole[]): PeerInfo {
    const peerId = peers.peerIdOf(context.peer);
    const peer = peerId === null ? undefined : bus.peers.find((candidate) => candidate.peerId === peerId);
    if (!peer) throw new ControlError(TaskCommandErrors.callHelloFirst, 'INVALID_PARAMS');
    peers.touch(context.peer);
    if (!roles.includes(peer.role)) throw new ControlError(TaskCommandErrors.role(context.cmd, roles, peer.role), 'UNAUTHORIZED');
    return peer;
  }

  return [
    defineCommand({
      name: 'peers',
      params: clawsParams({}),
      run: (_params, context) => {
        peers.touch(context.peer);
        return {
          peers: bus.peers.map((peer) => ({
            peerId: peer.peerId,
            peerName: peer.peerName,
            role: peer.role,
            terminalId: peer.terminalId,
            capabilities: peer.capabilities,
            connectedAt: peer.connectedAt,
            lastSeen: peers.lastSeen(peer.peerId) ?? peer.connectedAt,
          })),
        };
      },
    }),

    defineCommand({
      name: 'task.assign',
      params: clawsParams({
        title: z.string().trim().min(1).max(TaskLimits.titleChars),
        assignee: PeerId,
        prompt: z.string().min(1).max(TaskLimits.promptChars),
        timeoutMs: z.number().int().min(1).max(TaskLimits.maxTimeoutMs).optional(),
        /** claws: `publish` (default) sends `task.assigned.<assignee>`; `inject` types the prompt into the assignee's terminal; `both`. */
        deliver: z.enum(['publish', 'inject', 'both']).optional(),
      }),
      run: async (params, context) => {
        const by = caller(context, ['orchestrator']);
        const assignee = bus.peers.find((peer) => peer.peerId === params.assignee);
        if (!assignee) throw new ControlError(TaskCommandErrors.unknownAssignee(params.assignee), 'NOT_FOUND');
        const deliver = params.deliver ?? 'publish';
        const inject = deliver !== 'publish';
        // Checked before the task exists: a task whose prompt cannot be delivered is not assigned.
        const session = inject ? injectTarget(assignee) : undefined;
        const task = tasks.assign(by, assignee, { title: params.title, prompt: params.prompt, timeoutMs: params.timeoutMs });
        if (session) {
          try {
            await services.input.send(session, params.prompt, {
              newline: true,
              // Bracketed paste when the program in the pane asked for it (a multi-line mission into Claude Code).
              paste: undefined,
              guard: services.typingGuard.guardFor(session.id, { wait: true, isConnected: () => context.peer.connected, session }),
              onTyped: () => services.audit.record({ peer: by.peerName, cmd: 'task.assign', terminalId: session.id, summary: `${task.taskId}: ${params.prompt}\r` }),
            });
          } catch (error) {
            throw new ControlError(`task ${task.taskId} was assigned, but typing its prompt into terminal ${session.id} failed: ${(error as Error).message}`, 'INTERNAL', {
              taskId: task.taskId,
              assignedAt: task.assignedAt,
            });
          }
        }
        return { taskId: task.taskId, assignedAt: task.assignedAt, deliver };
      },
    }),

    defineCommand({
      name: 'task.update',
      params: clawsParams({
        taskId: TaskId,
        status: OpenStatus,
        progressPct: z.number().min(0).max(100).optional(),
        note: z.string().max(TaskLimits.noteChars).optional(),
      }),
      run: (params, context) => {
        const peer = caller(context, ['worker']);
        const task = tasks.update(peer.peerId, params);
        return { taskId: task.taskId, status: task.status };
      },
    }),

    defineCommand({
      name: 'task.complete',
      params: clawsParams({
        taskId: TaskId,
        status: FinalStatus,
        result: Result.optional(),
        artifacts: z
          .array(z.object({ type: z.string().min(1).max(TaskLimits.artifactTypeChars), path: z.string().min(1).max(TaskLimits.artifactPathChars) }))
          .max(TaskLimits.maxArtifacts)
          .optional(),
      }),
      run: (params, context) => {
        const peer = caller(context, ['worker']);
        const { task, changed } = tasks.complete(peer.peerId, params);
        // Completing a finished task is not an error (claws): say what it ended as.
        return { taskId: task.taskId, status: task.status, alreadyCompleted: !changed };
      },
    }),

    defineCommand({
      name: 'task.cancel',
      params: clawsParams({ taskId: TaskId, reason: z.string().max(TaskLimits.reasonChars).optional() }),
      run: (params, context) => {
        caller(context, ['orchestrator']);
        const task = tasks.cancel(params);
        return { taskId: task.taskId, cancelRequested: true };
      },
    }),

    defineCommand({
      name: 'task.list',
      params: clawsParams({ assignee: PeerId.optional(), status: ListStatus.optional(), since: z.number().finite().optional() }),
      run: (params, context) => {
        peers.touch(context.peer);
        return { tasks: tasks.list(params).map((task) => ({ ...task })) };
      },
    }),
  ] as ControlCommand[];

  function injectTarget(peer: PeerInfo) {
    if (peer.terminalId === null) throw new ControlError(TaskCommandErrors.noTerminal(peer), 'INVALID_PARAMS');
    const session = services.ptyHost.get(peer.terminalId);
    if (!session || session.exitStatus) throw new ControlError(TaskCommandErrors.terminalGone(peer), 'NOT_FOUND');
    return session;
  }
}
