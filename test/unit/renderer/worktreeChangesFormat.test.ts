import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorktreeFinishResult } from '../../../src/common/api/workspaceContract.ts';
import { commentsMessage, conflictFiles, finishSummary, unmergedWorkText } from '../../../renderer/features/workspaces/changes/changesFormat.ts';

const result = (overrides: Partial<WorktreeFinishResult>): WorktreeFinishResult => ({
  mode: 'merge',
  path: '/src/repo-worktrees/fix',
  branch: 'fix',
  base: 'main',
  committed: null,
  merge: null,
  mergedCommit: null,
  worktreeRemoved: true,
  branchDeleted: false,
  closedTerminalId: null,
  ...overrides,
});

describe('worktree changes wording', () => {
  it('sends comments as path:line lines, by file then line, each on one line', () => {
    const message = commentsMessage([
      { id: 1, file: 'src/b.ts', line: 9, text: 'second file' },
      { id: 2, file: 'src/a.ts', line: 12, text: 'rename this\n  and test it' },
      { id: 3, file: 'src/a.ts', line: 3, text: 'first' },
    ]);
    assert.equal(message, 'src/a.ts:3 — first\nsrc/a.ts:12 — rename this and test it\nsrc/b.ts:9 — second file');
  });

  it('reads the conflicting files from both forms of MERGE_CONFLICT', () => {
    assert.deepEqual(
      conflictFiles('merging fix into main would conflict in: README.md, src/a b.ts. Nothing was committed or merged; main and the worktree are as they were'),
      ['README.md', 'src/a b.ts'],
    );
    assert.deepEqual(conflictFiles('merging fix into main conflicts in: x.txt. The merge was aborted; main and the worktree are as they were'), ['x.txt']);
    assert.deepEqual(conflictFiles('something else'), []);
  });

  it('names what a discard would lose without the note about confirm', () => {
    assert.equal(
      unmergedWorkText('discarding fix would lose uncommitted changes in a.txt, b.txt and 1 commit(s) not merged into main: abc1234 agent edit. Send confirm: true to discard anyway'),
      'uncommitted changes in a.txt, b.txt and 1 commit(s) not merged into main: abc1234 agent edit',
    );
    assert.equal(unmergedWorkText('plain'), 'plain');
  });

  it('says how a finish went', () => {
    assert.equal(
      finishSummary(result({ merge: 'fast-forward', mergedCommit: '0123456789abcdef', committed: 'fedcba9876543210', branchDeleted: true })),
      'Merged fix into main (fast-forward to 0123456); the worktree and the branch were removed. Uncommitted work was committed first (fedcba9).',
    );
    assert.match(finishSummary(result({ merge: 'merge-commit', mergedCommit: 'aaaaaaabbbb', branchDeleted: true, closedTerminalId: 't1' })), /merge commit aaaaaaa.*pane was closed/);
    assert.equal(finishSummary(result({ mode: 'branch' })), 'Kept the branch fix; the worktree was removed.');
    assert.equal(finishSummary(result({ mode: 'discard', branchDeleted: true })), 'Discarded fix: the worktree and the branch were removed.');
  });
});
