/**
 * claws' `peers` and task registry commands (docs/protocol.md "Peers and tasks"), with claws'
 * request and response shapes so its `mcp_server.js` works unchanged: `task.assign` and
 * `task.cancel` are for orchestrators, `task.update` and `task.complete` for the worker the task is
 * assigned to, `task.list` and `peers` for anyone.
 */
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
    defineCommand('peers', (_params, context) => {
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
    }),

    defineCommand('task.assign', async (params, context) => {
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
    }),

    defineCommand('task.update', (params, context) => {
      const peer = caller(context, ['worker']);
      const task = tasks.update(peer.peerId, params);
      return { taskId: task.taskId, status: task.status };
    }),

    defineCommand('task.complete', (params, context) => {
      const peer = caller(context, ['worker']);
      const { task, changed } = tasks.complete(peer.peerId, params);
      // Completing a finished task is not an error (claws): say what it ended as.
      return { taskId: task.taskId, status: task.status, alreadyCompleted: !changed };
    }),

    defineCommand('task.cancel', (params, context) => {
      caller(context, ['orchestrator']);
      const task = tasks.cancel(params);
      return { taskId: task.taskId, cancelRequested: true };
    }),

    defineCommand('task.list', (params, context) => {
      peers.touch(context.peer);
      return { tasks: tasks.list(params).map((task) => ({ ...task })) };
    }),
  ];

  function injectTarget(peer: PeerInfo) {
    if (peer.terminalId === null) throw new ControlError(TaskCommandErrors.noTerminal(peer), 'INVALID_PARAMS');
    const session = services.ptyHost.get(peer.terminalId);
    if (!session || session.exitStatus) throw new ControlError(TaskCommandErrors.terminalGone(peer), 'NOT_FOUND');
    return session;
  }
}
