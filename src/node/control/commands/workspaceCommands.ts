/**
 * Agent workspaces over the control socket (docs/protocol.md, "Agent workspaces"): `agent.start`,
 * `agent.profiles`, `worktree.list`, `worktree.diff`, `worktree.discard`, `worktree.finish`. Each
 * runs the Hub's method of the same name (the table's params are that method's), so the socket,
 * the UI and the CLI share answers and validation; an agent's start is credited to the peer.
 */
import type { Creator, MethodResult, ParsedParams } from '../../../common/api/contract.ts';
import { isApiError } from '../../../common/api/errors.ts';
import type { workspaceMethods } from '../../../common/api/workspaceContract.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { ControlError } from '../protocol.ts';

export type WorkspaceMethod = keyof typeof workspaceMethods;

/** Runs a Hub `agent.*`/`worktree.*` method (params already validated by the contract schema). */
export type WorkspaceCall = <M extends WorkspaceMethod>(method: M, params: ParsedParams<M>, creator: Creator) => Promise<MethodResult<M>>;

export function workspaceCommands(call: WorkspaceCall): ControlCommand[] {
  const run = async <M extends WorkspaceMethod>(method: M, params: ParsedParams<M>, peer: string): Promise<MethodResult<M>> => {
    try {
      return await call(method, params, { kind: 'agent', name: peer });
    } catch (error) {
      if (isApiError(error)) throw new ControlError(error.message, error.code);
      throw error;
    }
  };
  return [
    defineCommand('agent.profiles', async (params, context) => ({ profiles: await run('agent.profiles', params, context.peer.name) })),
    defineCommand('agent.start', async (params, context) => await run('agent.start', params, context.peer.name)),
    defineCommand('worktree.list', async (params, context) => ({ worktrees: await run('worktree.list', params, context.peer.name) })),
    defineCommand('worktree.diff', async (params, context) => await run('worktree.diff', params, context.peer.name)),
    defineCommand('worktree.discard', async (params, context) => ({ worktree: await run('worktree.discard', params, context.peer.name) })),
    defineCommand('worktree.finish', async (params, context) => await run('worktree.finish', params, context.peer.name)),
  ];
}
