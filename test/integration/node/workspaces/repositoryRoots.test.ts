/**
 * RepositoryRoots with real git: a folder's repository is remembered (no git asked again, so no
 * branch in the answer), and forgotten the moment it no longer holds — the repository's `.git`
 * gone, or a repository made between the folder and it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RepositoryRoots } from '../../../../src/node/workspaces/repositoryRoots.ts';
import { gitIn, makeRepo } from './workspaceTestKit.ts';

describe('RepositoryRoots', () => {
  const root = mkdtempSync(join(tmpdir(), 'sb-repo-roots-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('remembers a folder’s repository and asks git again once it no longer holds', async () => {
    const repo = makeRepo(root, 'outer');
    const folder = join(repo, 'a', 'b');
    mkdirSync(folder, { recursive: true });
    const roots = new RepositoryRoots();

    assert.deepEqual(await roots.locate(folder), { root: repo, mainRoot: repo, branch: 'main' }, 'asked: the branch comes with it');
    assert.deepEqual(await roots.locate(folder), { root: repo, mainRoot: repo }, 'remembered: no branch, it may have changed');

    // A repository made in between is the one git finds now.
    gitIn(join(repo, 'a'), 'init', '-q', '-b', 'inner');
    assert.deepEqual(await roots.locate(folder), { root: join(repo, 'a'), mainRoot: join(repo, 'a'), branch: 'inner' });
    rmSync(join(repo, 'a', '.git'), { recursive: true });
    assert.deepEqual(await roots.locate(folder), { root: repo, mainRoot: repo, branch: 'main' });

    // The repository's .git gone: not a repository any more.
    renameSync(join(repo, '.git'), join(root, 'moved-git'));
    assert.equal(await roots.locate(folder), null);
  });

  it('remembers a linked worktree as its own top, with the main checkout beside it', async () => {
    const repo = makeRepo(root, 'main-checkout');
    const linked = join(root, 'linked');
    gitIn(repo, 'worktree', 'add', '-q', '-b', 'side', linked);
    const roots = new RepositoryRoots();
    assert.deepEqual(await roots.locate(linked), { root: linked, mainRoot: repo, branch: 'side' });
    assert.deepEqual(await roots.locate(linked), { root: linked, mainRoot: repo });
  });
});
