/**
 * Agent workspaces over the control socket (docs/protocol.md, "Agent workspaces"): `agent.start`,
 * `agent.profiles`, `worktree.list`, `worktree.diff`, `worktree.discard` and `worktree.finish`.
 * Each takes its Hub API method's params at the top level of the request
 * (`{cmd:"agent.start", profile:"claude", folder:"/src/app", worktree:{branch:"fix-x"}}`) and
 * answers its result's fields beside the envelope, so the socket, the UI and the CLI share the
 * answers and the validation (src/common/api/workspaceContract.ts).
 */
import { z } from 'zod';
import {
  AgentProfileAvailability,
  AgentStartResult,
  workspaceMethods,
  WorktreeDiff,
  WorktreeFinishResult,
  WorktreeInfo,
} from '../../api/workspaceContract.ts';
import { pickedParams } from './fields.ts';

/** The method's own fields, picked from the request (the envelope's id/cmd/clientName are not the method's). */
function methodParams<S extends z.ZodObject>(schema: S) {
  const keys = Object.keys(schema.shape);
  return pickedParams((fields) => Object.fromEntries(keys.map((key) => [key, fields[key]])), schema as unknown as z.ZodType<z.output<S>, z.input<S>>);
}

const m = workspaceMethods;

export const workspaceCommandSchemas = {
  'agent.profiles': { params: methodParams(m['agent.profiles'].params), result: z.looseObject({ profiles: z.array(AgentProfileAvailability) }) },
  'agent.start': { params: methodParams(m['agent.start'].params), result: AgentStartResult.loose() },
  'worktree.list': { params: methodParams(m['worktree.list'].params), result: z.looseObject({ worktrees: z.array(WorktreeInfo) }) },
  'worktree.diff': { params: methodParams(m['worktree.diff'].params), result: WorktreeDiff.loose() },
  'worktree.discard': { params: methodParams(m['worktree.discard'].params), result: z.looseObject({ worktree: WorktreeInfo }) },
  'worktree.finish': { params: methodParams(m['worktree.finish'].params), result: WorktreeFinishResult.loose() },
} as const;
