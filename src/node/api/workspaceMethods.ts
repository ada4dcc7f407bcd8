/**
 * The contract's agent-workspace methods (`agent.profiles`, `agent.start`, `worktree.*`) on top of
 * the WorkspaceService. Params arrive validated by HubConnection. The caller is optional, so the
 * control socket's commands run these same handlers (crediting the agent that asked).
 */
import type { Creator, MethodResult, ParsedParams } from '../../common/api/contract.ts';
import type { workspaceMethods } from '../../common/api/workspaceContract.ts';
import type { CallContext } from './hubConnection.ts';
import type { WorkspaceService } from '../workspaces/workspaceService.ts';

export type WorkspaceMethod = keyof typeof workspaceMethods;

export type WorkspaceMethodHandlers = {
  readonly [M in WorkspaceMethod]: (params: ParsedParams<M>, context?: CallContext, creator?: Creator) => MethodResult<M> | Promise<MethodResult<M>>;
};

export function createWorkspaceMethods(workspaces: WorkspaceService): WorkspaceMethodHandlers {
  return {
    'agent.profiles': async () => await workspaces.profileAvailability(),
    'agent.start': async (params, context, creator) => await workspaces.startAgent(params, creator ?? context?.connection.peer ?? { kind: 'person', name: 'you' }),
    'agent.panes': () => workspaces.panes(),
    'agent.restart': async ({ terminalId, prompt }, context, creator) =>
      await workspaces.restartAgent(terminalId, { prompt: prompt === true }, creator ?? context?.connection.peer ?? { kind: 'person', name: 'you' }),
    'worktree.list': async ({ repoRoot }) => await workspaces.list({ repoRoot }),
    'worktree.diff': async (params) => await workspaces.diff(params),
    'worktree.discard': async (params) => await workspaces.discard(params),
    'worktree.finish': async (params) => await workspaces.finish(params),
    'worktree.suggestBranch': async ({ folder, task }) => await workspaces.suggestBranch(folder, task),
  };
}
