/**
 * A worktree's changes as the sidebar and the Review view see them: ahead count and files with
 * +/− lines, refreshed by file watching (and not while idle), the diff against the base in its
 * three scopes, and per-file and per-hunk discard — with real git and a real Hub.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WorktreeInfo } from '../../../../src/common/api/workspaceContract.ts';
import { ApiError } from '../../../../src/common/api/errors.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { gitIn, makeRepo, startWorkspaceHub, type WorkspaceTestHub } from './workspaceTestKit.ts';

describe('worktree changes', () => {
  let t: WorkspaceTestHub;
  let repo: string;
  let path: string;
  const events: WorktreeInfo[] = [];
  before(async () => {
    t = await startWorkspaceHub();
    t.client.on('worktree.changed', (info) => events.push(info));
    repo = makeRepo(t.root, 'changes');
    const started = await t.client.call('agent.start', { profile: 'fake', folder: repo, worktree: { branch: 'work' }, prompt: 'Change things' });
    path = started.worktree!.path;
  });
  after(async () => {
    await t.dispose();
  });

  const latest = () => events.filter((event) => event.path === path).at(-1);

  it('lists committed and uncommitted changes with their lines, refreshed when files change', async () => {
    await pollUntil(() => latest(), { what: 'the first worktree.changed' });
    writeFileSync(join(path, 'README.md'), readFileSync(join(path, 'README.md'), 'utf8').replace('line 2\n', 'line two\n'));
    mkdirSync(join(path, 'src'));
    writeFileSync(join(path, 'src', 'new.ts'), 'export const a = 1;\nexport const b = 2;\n');
    const changed = await pollUntil(() => {
      const info = latest();
      return info && info.files.length === 2 && info;
    }, { what: 'a worktree.changed with both files' });
    assert.deepEqual(
      changed.files.map((file) => [file.path, file.status, file.additions, file.deletions, file.uncommitted]),
      [
        ['README.md', 'modified', 1, 1, true],
        ['src/new.ts', 'added', 2, 0, true],
      ],
    );
    assert.equal(changed.ahead, 0);
    assert.equal(changed.uncommittedCount, 2);
    // A commit (by the agent) moves them to committed and the branch ahead.
    gitIn(path, 'add', '-A');
    gitIn(path, 'commit', '-q', '-m', 'agent work');
    const committed = await pollUntil(() => {
      const info = latest();
      return info && info.ahead === 1 && info;
    }, { what: 'ahead 1 after the commit' });
    assert.equal(committed.uncommittedCount, 0);
    assert.deepEqual(committed.files.map((file) => [file.path, file.uncommitted]), [['README.md', false], ['src/new.ts', false]]);
    // A file in a folder made after the watch started is noticed too.
    mkdirSync(join(path, 'src', 'deep'));
    writeFileSync(join(path, 'src', 'deep', 'later.txt'), 'x\n');
    await pollUntil(() => latest()?.files.some((file) => file.path === 'src/deep/later.txt'), { what: 'the file in the new folder' });
    writeFileSync(join(path, 'src', 'deep', 'later2.txt'), 'y\n');
    await pollUntil(() => latest()?.files.some((file) => file.path === 'src/deep/later2.txt'), { what: 'a second file in the new folder' });
    rmSync(join(path, 'src', 'deep'), { recursive: true });
    await pollUntil(() => latest()?.files.length === 2, { what: 'the removed folder gone from the list' });
  });

  it('sends no refresh while nothing changes (no polling)', async () => {
    // Let any refresh in flight land, then count: a loop would show within a few debounce periods.
    await new Promise((resolve) => setTimeout(resolve, 800));
    const before = events.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(events.length, before, 'a worktree.changed arrived while nothing changed');
  });

  it('diffs against the base: all, committed only, uncommitted only, and one file with its contents', async () => {
    writeFileSync(join(path, 'README.md'), readFileSync(join(path, 'README.md'), 'utf8').replace('line 18\n', 'line eighteen\n'));
    writeFileSync(join(path, 'untracked.txt'), 'brand new\n');
    const all = await t.client.call('worktree.diff', { path });
    assert.equal(all.scope, 'all');
    assert.equal(all.base, 'main');
    assert.deepEqual(all.files.map((file) => file.path), ['README.md', 'src/new.ts', 'untracked.txt']);
    const readme = all.files[0]!;
    assert.equal(readme.hunks.length, 2, readme.diff);
    assert.match(readme.diff, /^diff --git a\/README.md b\/README.md\n/);
    assert.match(readme.hunks[0]!.text, /^@@ -1,5 \+1,5 @@\n line 1\n-line 2\n\+line two\n/);
    const committed = await t.client.call('worktree.diff', { path, scope: 'committed' });
    assert.deepEqual(committed.files.map((file) => [file.path, file.hunks.length]), [['README.md', 1], ['src/new.ts', 1]]);
    const uncommitted = await t.client.call('worktree.diff', { path, scope: 'uncommitted' });
    assert.deepEqual(uncommitted.files.map((file) => [file.path, file.status]), [['README.md', 'modified'], ['untracked.txt', 'added']]);
    const one = await t.client.call('worktree.diff', { path, file: 'README.md' });
    assert.equal(one.files.length, 1);
    assert.match(one.files[0]!.oldContents ?? '', /^line 1\nline 2\n/);
    assert.match(one.files[0]!.newContents ?? '', /^line 1\nline two\n/);
    const added = await t.client.call('worktree.diff', { path, file: 'untracked.txt' });
    assert.equal(added.files[0]!.oldContents, null);
    assert.equal(added.files[0]!.newContents, 'brand new\n');
  });

  it('discards one hunk in the working tree, leaving the others', async () => {
    const all = await t.client.call('worktree.diff', { path, file: 'README.md' });
    const [first, second] = all.files[0]!.hunks;
    const info = await t.client.call('worktree.discard', { path, file: 'README.md', hunk: second!.text });
    const text = readFileSync(join(path, 'README.md'), 'utf8');
    assert.match(text, /line two\n/, 'the other hunk stays');
    assert.match(text, /line 18\n/, 'the discarded hunk is undone');
    assert.equal(info.files.find((file) => file.path === 'README.md')!.additions, 1);
    // The same hunk again is no longer there: refused, nothing touched.
    await assert.rejects(t.client.call('worktree.discard', { path, file: 'README.md', hunk: second!.text }), (error: ApiError) => error.code === 'NOT_FOUND' && /read the diff again/.test(error.message));
    // A committed hunk can be discarded too: the working tree gets the base's lines back (uncommitted).
    await t.client.call('worktree.discard', { path, file: 'README.md', hunk: first!.text });
    assert.equal(readFileSync(join(path, 'README.md'), 'utf8'), readFileSync(join(repo, 'README.md'), 'utf8'));
  });

  it('discards a whole file: a new one is removed, a changed one comes back as in the base', async () => {
    await t.client.call('worktree.discard', { path, file: 'untracked.txt' });
    assert.equal(existsSync(join(path, 'untracked.txt')), false);
    await t.client.call('worktree.discard', { path, file: 'src/new.ts' });
    assert.equal(existsSync(join(path, 'src', 'new.ts')), false);
    writeFileSync(join(path, 'README.md'), 'rewritten\n');
    const info = await t.client.call('worktree.discard', { path, file: 'README.md', scope: 'uncommitted' });
    assert.equal(readFileSync(join(path, 'README.md'), 'utf8'), gitIn(path, 'show', 'HEAD:README.md') + '\n');
    assert.ok(info.files.every((file) => file.path !== 'src/new.ts'));
  });

  it('shows a commit an agent makes the instant its worktree exists (before the watches are in place)', async () => {
    // As a scripted agent does: commit at once, in three new worktrees side by side.
    const started = await Promise.all(['at-once-1', 'at-once-2', 'at-once-3'].map((branch) => t.client.call('agent.start', { profile: 'fake', folder: repo, worktree: { branch }, prompt: branch })));
    for (const { worktree } of started) {
      writeFileSync(join(worktree!.path, 'README.md'), 'rewritten at once\n');
      gitIn(worktree!.path, 'commit', '-q', '-am', 'agent: at once');
    }
    for (const { worktree } of started) {
      const shown = await pollUntil(() => {
        const info = events.filter((event) => event.path === worktree!.path).at(-1);
        return info && info.ahead === 1 && info;
      }, { what: `ahead 1 in ${worktree!.branch}` });
      assert.deepEqual(shown.files.map((file) => [file.path, file.uncommitted]), [['README.md', false]]);
    }
  });

  it('refuses paths outside the worktree and unknown worktrees', async () => {
    await assert.rejects(t.client.call('worktree.discard', { path, file: '../changes/README.md' }), (error: ApiError) => error.code === 'INVALID_PARAMS');
    await assert.rejects(t.client.call('worktree.discard', { path, file: '.git/config' }), (error: ApiError) => error.code === 'INVALID_PARAMS');
    await assert.rejects(t.client.call('worktree.diff', { path: repo }), (error: ApiError) => error.code === 'NOT_FOUND' && /not a worktree Switchboard made/.test(error.message));
  });
});
