/** What an agent pane's notice says after a restart; pure, so it is tested in Node. */
import type { AgentPaneInfo } from '../../../src/common/api/workspaceContract.ts';

/**
 * What the notice says: why the agent was not resumed and where the shell is. With its folder gone
 * the shell was started elsewhere (the repository, else the workspace): the shell's own folder is
 * named, as the pane's line and `switchboard ls` name it, never the folder that is gone.
 */
export function notResumedText(pane: Pick<AgentPaneInfo, 'profileName' | 'message' | 'reason' | 'cwd' | 'worktreePath'>, shellCwd: string | null): string {
  const why = `${pane.profileName} was not resumed: ${pane.message ?? 'it cannot be'}.`;
  if (pane.reason !== 'worktree-missing') return `${why} This is a shell in ${shellCwd ?? pane.cwd}.`;
  const gone = pane.worktreePath ?? pane.cwd;
  const folder = pane.message?.includes(gone) ? '' : ` Its folder ${gone} was deleted.`;
  return `${why}${folder} ${shellCwd && shellCwd !== gone ? `This is a shell in ${shellCwd}.` : 'This is a shell outside it.'}`;
}
