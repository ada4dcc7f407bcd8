/**
 * What the window state keeps of a pane started from a profile (layout/windowState.ts), so the
 * next start can bring the agent back rather than a shell: the profile, the session id Switchboard
 * chose, the worktree and the folder.
 */
import { z } from 'zod';
import { AgentProfileId } from '../../common/api/workspaceContract.ts';

export const AgentPaneRestore = z
  .object({
    profile: AgentProfileId,
    sessionId: z.string().max(200).nullable(),
    worktreePath: z.string().max(4096).nullable(),
    cwd: z.string().max(4096),
    prompt: z.string().max(64 * 1024).nullable(),
  })
  .strict();
export type AgentPaneRestore = z.infer<typeof AgentPaneRestore>;
