import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorktreeFinishResult } from '../../../src/common/api/workspaceContract.ts';
import { commentsMessage, conflictFiles, finishConfirmation, finishSummary, nothingToMerge, unmergedWorkText, type FinishRiskInput } from '../../../renderer/features/workspaces/changes/changesFormat.ts';

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

  it('says "nothing to merge" for a merge that brought nothing, not "merged"', () => {
    assert.equal(
      finishSummary(result({ merge: 'up-to-date', mergedCommit: 'abc', branchDeleted: true, closedTerminalId: 't1' })),
      'Nothing to merge: fix had nothing main did not have. The worktree and the branch were removed. The agent’s pane was closed.',
    );
    assert.match(finishSummary(result({ merge: 'up-to-date', committed: 'abcdef0123', mergedCommit: 'abc' })), /^Merged fix into main/);
    assert.equal(nothingToMerge({ ahead: 0, uncommittedCount: 0 }), true);
    assert.equal(nothingToMerge({ ahead: 0, uncommittedCount: 2 }), false);
  });

  describe('asks before finishing a worktree whose agent would lose something', () => {
    const claude = (state: 'working' | 'needs-input' | 'idle', reason: string | null = null) => ({ state, label: 'Claude Code', reason, since: 1000 });
    const input = (overrides: Partial<FinishRiskInput>): FinishRiskInput => ({
      mode: 'merge',
      branch: 'fix',
      base: 'main',
      pane: { name: 'Fix login', running: true, agent: claude('idle') },
      unsubmitted: null,
      uncommittedCount: 0,
      ahead: 0,
      ...overrides,
    });

    it('nothing to ask when the agent is done with its turn, exited or there is no pane', () => {
      assert.equal(finishConfirmation(input({})), null);
      assert.equal(finishConfirmation(input({ pane: null })), null);
      assert.equal(finishConfirmation(input({ pane: { name: 'x', running: false, agent: claude('working') } })), null);
    });

    it('names a turn running or a question waiting, for every mode', () => {
      const working = finishConfirmation(input({ pane: { name: 'Fix login', running: true, agent: claude('working') } }))!;
      assert.equal(working.title, 'Merge fix and close the agent’s pane?');
      assert.equal(working.message, 'Merging closes the agent’s pane. Claude Code in “Fix login” is still working on its turn; it would be stopped mid-turn.');
      assert.equal(working.confirmLabel, 'Merge anyway');
      const asking = finishConfirmation(input({ mode: 'branch', pane: { name: 'Fix login', running: true, agent: claude('needs-input', 'Bash: rm -rf build') } }))!;
      assert.match(asking.message, /^Keeping only the branch closes the agent’s pane\. Claude Code in “Fix login” waits for your answer \(Bash: rm -rf build\)/);
      assert.equal(asking.confirmLabel, 'Keep branch anyway');
      const discard = finishConfirmation(input({ mode: 'discard', uncommittedCount: 2, ahead: 1, pane: { name: 'Fix login', running: true, agent: claude('working') } }))!;
      assert.match(discard.message, /The branch’s work goes too: 2 uncommitted files and 1 commit not merged into main\.$/);
    });

    it('names comments typed into its prompt and not submitted, until the agent moves on', () => {
      const unsubmitted = { terminalId: 't1', count: 3, agentSince: 1000 };
      const ask = finishConfirmation(input({ unsubmitted }))!;
      assert.equal(ask.message, 'Merging closes the agent’s pane. 3 comments you sent are typed into its prompt but not submitted; they would be lost.');
      // The agent started a turn since (Enter was pressed there): nothing waits in its prompt.
      assert.equal(finishConfirmation(input({ unsubmitted, pane: { name: 'Fix login', running: true, agent: { ...claude('idle'), since: 2000 } } })), null);
      assert.equal(finishConfirmation(input({ unsubmitted, pane: { name: 'Fix login', running: false, agent: claude('idle') } })), null);
    });
  });
});
