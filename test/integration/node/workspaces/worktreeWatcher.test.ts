/**
 * The worktree watcher lists the folders to watch with git again only when the set can have
 * changed (something created, deleted or renamed, a .gitignore edited): an agent editing its files
 * in place costs a refresh's reads, not a listing as well. Real git, real fs.watch.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nullLogger } from '../../../../src/node/logger.ts';
import { WorktreeWatcher } from '../../../../src/node/workspaces/worktreeWatcher.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { makeRepo } from './workspaceTestKit.ts';

describe('worktree watcher', () => {
  let root: string;
  let repo: string;
  let watcher: WorktreeWatcher;
  let changes = 0;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'sb-watcher-'));
    mkdirSync(join(root, 'repo', 'src'), { recursive: true });
    repo = makeRepo(root, 'repo', { 'README.md': 'one\n', 'src/.keep': '' });
    watcher = new WorktreeWatcher({ path: repo, logger: nullLogger, onDidChange: () => changes++ });
    await watcher.resync();
  });
  after(() => {
    watcher.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  /** The next debounced change, then the owner's resync as WorkspaceService does it. */
  async function nextRefresh(change: () => void, what: string): Promise<void> {
    const before = changes;
    change();
    await pollUntil(() => changes > before, { what });
    await watcher.resync();
  }

  it('lists the folders once, then not again for files edited in place', async () => {
    assert.equal(watcher.listings, 1);
    assert.ok(watcher.watchedFolderCount >= 2, 'the worktree, src/ and the git dir are watched');
    await nextRefresh(() => writeFileSync(join(repo, 'README.md'), 'two\n'), 'an edit noticed');
    await nextRefresh(() => writeFileSync(join(repo, 'src', '.keep'), 'kept\n'), 'an edit in a folder noticed');
    assert.equal(watcher.listings, 1, 'edits in place listed nothing');
  });

  it('lists again after a file or a folder is created, and watches the new folder', async () => {
    await nextRefresh(() => writeFileSync(join(repo, 'src', 'new.ts'), 'x\n'), 'a new file noticed');
    assert.equal(watcher.listings, 2);
    await nextRefresh(() => {
      mkdirSync(join(repo, 'src', 'deep'));
      writeFileSync(join(repo, 'src', 'deep', 'later.txt'), 'y\n');
    }, 'a new folder noticed');
    const listed = watcher.listings;
    assert.ok(listed >= 3);
    // The new folder is watched: an edit in it is noticed, and lists nothing.
    await nextRefresh(() => writeFileSync(join(repo, 'src', 'deep', 'later.txt'), 'z\n'), 'an edit in the new folder noticed');
    assert.equal(watcher.listings, listed);
  });

  it('lists again after .gitignore changes what git ignores', async () => {
    const listed = watcher.listings;
    await nextRefresh(() => writeFileSync(join(repo, '.gitignore'), 'build/\n'), 'the new .gitignore noticed');
    assert.equal(watcher.listings, listed + 1, 'a new .gitignore is a created file');
    await nextRefresh(() => writeFileSync(join(repo, '.gitignore'), 'dist/\n'), 'the edited .gitignore noticed');
    assert.equal(watcher.listings, listed + 2, 'an edited .gitignore lists again');
  });
});
