import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorktreeInfo } from '../../../src/common/api/workspaceContract.ts';
import { fieldForError, newAgentStart, worktreeHolding } from '../../../renderer/features/workspaces/newAgentForm.ts';

// Only the fields the dialog reads.
const worktree = (path: string, repoRoot: string, base: string, missing = false): WorktreeInfo => ({ path, repoRoot, base, branch: path.split('/').pop(), missing }) as WorktreeInfo;
const worktrees = [worktree('/tmp/x/repo-worktrees/fix-the-readme-typo', '/tmp/x/repo', 'main'), worktree('/tmp/x/repo-worktrees/gone', '/tmp/x/repo', 'main', true)];

describe('New agent: where it starts', () => {
  it('starts from the repository and base of the agent worktree the focused pane is in, not on that agent’s branch', () => {
    assert.deepEqual(newAgentStart('/tmp/x/repo-worktrees/fix-the-readme-typo', '/w', worktrees), { folder: '/tmp/x/repo', base: 'main' });
    assert.deepEqual(newAgentStart('/tmp/x/repo-worktrees/fix-the-readme-typo/src/', '/w', worktrees), { folder: '/tmp/x/repo', base: 'main' });
  });

  it('starts in the focused pane’s own folder elsewhere, and in the fallback without a pane', () => {
    assert.deepEqual(newAgentStart('/tmp/x/repo', '/w', worktrees), { folder: '/tmp/x/repo', base: null });
    // A sibling whose name merely begins the same is not inside the worktree.
    assert.deepEqual(newAgentStart('/tmp/x/repo-worktrees/fix-the-readme-typo-2', '/w', worktrees), { folder: '/tmp/x/repo-worktrees/fix-the-readme-typo-2', base: null });
    assert.deepEqual(newAgentStart(undefined, '/w', worktrees), { folder: '/w', base: null });
  });

  it('keeps a worktree whose folder is gone as the folder typed (nothing to map it by but a record)', () => {
    assert.equal(worktreeHolding('/tmp/x/repo-worktrees/gone', worktrees)?.missing, true);
    assert.deepEqual(newAgentStart('/tmp/x/repo-worktrees/gone', '/w', worktrees), { folder: '/tmp/x/repo-worktrees/gone', base: null });
  });
});

describe('New agent: the field a refusal is about', () => {
  it('puts a taken or invalid branch on the branch field while it is shown', () => {
    assert.equal(fieldForError('BRANCH_EXISTS', 'the branch "x" already exists in /r; choose another name', true), 'branch');
    assert.equal(fieldForError('INVALID_BRANCH', '"a b" is not a valid branch name', true), 'branch');
    assert.equal(fieldForError('INVALID_PARAMS', 'the worktree folder /r-worktrees/x already exists; remove it', true), 'branch');
    assert.equal(fieldForError('BRANCH_EXISTS', 'the branch "x" already exists', false), 'task');
  });

  it('puts a missing CLI on the agent, a wrong folder on the folder, anything else on the task', () => {
    assert.equal(fieldForError('PROFILE_NOT_INSTALLED', 'Codex is not installed', true), 'profile');
    assert.equal(fieldForError('NOT_FOUND', 'folder not found: /nope', true), 'folder');
    assert.equal(fieldForError('NOT_A_GIT_REPO', '/tmp is not in a git repository', true), 'folder');
    assert.equal(fieldForError('SETUP_FAILED', '.switchboard/setup failed (exit 1)', true), 'task');
    assert.equal(fieldForError(null, 'connection lost', true), 'task');
  });
});
