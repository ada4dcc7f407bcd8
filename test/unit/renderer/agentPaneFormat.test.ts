import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notResumedText } from '../../../renderer/features/workspaces/agentPaneFormat.ts';

describe('an agent pane not resumed after a restart', () => {
  it('with its worktree gone, names the shell’s real folder, never the one that is gone', () => {
    const pane = {
      profileName: 'Claude Code',
      message: 'the worktree /src/repo-worktrees/fix is gone',
      reason: 'worktree-missing' as const,
      cwd: '/src/repo-worktrees/fix',
      worktreePath: '/src/repo-worktrees/fix',
    };
    assert.equal(notResumedText(pane, '/src/repo'), 'Claude Code was not resumed: the worktree /src/repo-worktrees/fix is gone. This is a shell in /src/repo.');
    assert.equal(notResumedText(pane, null), 'Claude Code was not resumed: the worktree /src/repo-worktrees/fix is gone. This is a shell outside it.');
    assert.equal(
      notResumedText({ ...pane, message: null }, '/home/me'),
      'Claude Code was not resumed: it cannot be. Its folder /src/repo-worktrees/fix was deleted. This is a shell in /home/me.',
    );
  });

  it('otherwise the shell is where the agent worked', () => {
    const pane = { profileName: 'Codex', message: 'Codex cannot be resumed', reason: 'cannot-resume' as const, cwd: '/src/app', worktreePath: null };
    assert.equal(notResumedText(pane, '/src/app'), 'Codex was not resumed: Codex cannot be resumed. This is a shell in /src/app.');
    assert.equal(notResumedText(pane, null), 'Codex was not resumed: Codex cannot be resumed. This is a shell in /src/app.');
  });
});
