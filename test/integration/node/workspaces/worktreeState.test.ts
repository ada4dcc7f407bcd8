/**
 * worktreeState with real git: every kind of change against the base — renamed, deleted, binary,
 * changed to a link, modified, added — with its status and +/− lines from one `git diff --raw
 * --numstat`, committed or not, and untracked files counted from disk.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { worktreeState } from '../../../../src/node/workspaces/worktreeGit.ts';
import { gitIn, makeRepo } from './workspaceTestKit.ts';

describe('worktreeState', () => {
  const root = mkdtempSync(join(tmpdir(), 'sb-worktree-state-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('gives each changed file its status, lines and whether it is committed', async () => {
    const lines = (count: number, word: string) => Array.from({ length: count }, (_, i) => `${word} ${i + 1}\n`).join('');
    const repo = makeRepo(root, 'repo', {
      'moved-from.txt': lines(30, 'stable line'),
      'gone.txt': lines(3, 'gone'),
      'image.bin': 'PNG\0\x01\x02',
      'link-me.txt': 'plain file\n',
      'edited.txt': lines(5, 'edited'),
    });
    const path = join(root, 'work');
    gitIn(repo, 'worktree', 'add', '-q', '-b', 'agent', path);
    // Committed on the branch: a rename with a small edit, a deletion, a binary change.
    gitIn(path, 'mv', 'moved-from.txt', 'moved-to.txt');
    writeFileSync(join(path, 'moved-to.txt'), lines(30, 'stable line') + 'one more\n');
    gitIn(path, 'rm', '-q', 'gone.txt');
    writeFileSync(join(path, 'image.bin'), 'PNG\0\x03\x04\x05');
    gitIn(path, 'add', '-A');
    gitIn(path, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'agent work');
    // Not committed: a file turned into a link, an edit, a new file.
    unlinkSync(join(path, 'link-me.txt'));
    symlinkSync('edited.txt', join(path, 'link-me.txt'));
    writeFileSync(join(path, 'edited.txt'), lines(5, 'edited').replace('edited 2\n', 'edited two\nand three\n'));
    writeFileSync(join(path, 'fresh.txt'), 'a\nb\nc\n');

    const state = await worktreeState(path, 'main');
    assert.equal(state.ahead, 1);
    assert.equal(state.behind, 0);
    assert.deepEqual(
      state.files.map((file) => [file.path, file.oldPath, file.status, file.additions, file.deletions, file.binary, file.uncommitted]),
      [
        ['edited.txt', null, 'modified', 2, 1, false, true],
        ['fresh.txt', null, 'added', 3, 0, false, true],
        ['gone.txt', null, 'deleted', 0, 3, false, false],
        ['image.bin', null, 'modified', null, null, true, false],
        ['link-me.txt', null, 'typechange', 1, 1, false, true],
        ['moved-to.txt', 'moved-from.txt', 'renamed', 1, 0, false, false],
      ],
    );
    assert.equal(state.uncommittedCount, 3);
    assert.equal(state.additions, 2 + 3 + 0 + 1 + 1);
    assert.equal(state.deletions, 1 + 0 + 3 + 1);
  });
});
