/**
 * `.worktreeinclude` (docs/security.md §10): the gitignored files it lists are copied into a new
 * agent worktree, and never anywhere else — not through a symbolic link the checkout put in the
 * worktree, not over something already there — and a symbolic link is copied as a link, never
 * followed. Real git repositories and worktrees.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { copyWorktreeInclude } from '../../../src/node/workspaces/worktreeGit.ts';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

function setUp(t: TestContext) {
  const root = mkdtempSync(join(tmpdir(), 'sb-sec-wtinclude-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const repo = join(root, 'repo');
  const outside = join(root, 'outside');
  mkdirSync(repo);
  mkdirSync(outside);
  git(repo, 'init', '-q', '-b', 'main');
  return { root, repo, outside };
}

describe('.worktreeinclude', () => {
  it('never writes through a symbolic link the checkout put in the worktree, nor creates folders outside it', async (t) => {
    const { root, repo, outside } = setUp(t);
    // The base commit has `cfg` as a link to a folder outside; the user's working copy has a real
    // `cfg/` there (another branch, an uncommitted change) holding ignored files the include lists.
    writeFileSync(join(repo, '.gitignore'), '*.env\n');
    writeFileSync(join(repo, '.worktreeinclude'), '*.env\n');
    symlinkSync(outside, join(repo, 'cfg'));
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'base');
    rmSync(join(repo, 'cfg'));
    mkdirSync(join(repo, 'cfg', 'deeper'), { recursive: true });
    writeFileSync(join(repo, 'cfg', 'app.env'), 'SECRET=1\n');
    writeFileSync(join(repo, 'cfg', 'deeper', 'db.env'), 'SECRET=2\n');
    writeFileSync(join(repo, 'top.env'), 'TOP=1\n');
    const worktree = join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', worktree, 'main');
    assert.ok(lstatSync(join(worktree, 'cfg')).isSymbolicLink(), 'the checkout made cfg a link to the outside folder');

    const copied = await copyWorktreeInclude(repo, worktree);
    assert.deepEqual(readdirSync(outside), [], 'nothing was written, and no folder made, outside the worktree');
    assert.deepEqual(copied, ['top.env'], 'only the file whose folder is really inside the worktree');
    assert.equal(readFileSync(join(worktree, 'top.env'), 'utf8'), 'TOP=1\n');
  });

  it('copies a symbolic link as a link (never the file it points to), and never replaces what is already in the worktree', async (t) => {
    const { root, repo, outside } = setUp(t);
    writeFileSync(join(outside, 'private.txt'), 'PRIVATE\n');
    writeFileSync(join(repo, '.gitignore'), '*.env\nlocal/\n');
    writeFileSync(join(repo, '.worktreeinclude'), '*.env\nlocal/\n');
    writeFileSync(join(repo, 'kept.env'), 'tracked in the base\n');
    git(repo, 'add', '.');
    git(repo, 'add', '-f', 'kept.env');
    git(repo, 'commit', '-q', '-m', 'base');
    git(repo, 'rm', '-q', '--cached', 'kept.env');
    writeFileSync(join(repo, 'kept.env'), 'the working copy\'s version\n');
    symlinkSync(join(outside, 'private.txt'), join(repo, 'link.env'));
    symlinkSync('../../../outside/private.txt', join(repo, 'relative.env'));
    mkdirSync(join(repo, 'local'));
    writeFileSync(join(repo, 'local', 'notes.txt'), 'notes\n');
    const worktree = join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', worktree, 'main');

    const copied = await copyWorktreeInclude(repo, worktree);
    assert.deepEqual(copied.sort(), ['link.env', 'local/notes.txt', 'relative.env']);
    assert.ok(lstatSync(join(worktree, 'link.env')).isSymbolicLink(), 'a link stays a link');
    assert.equal(readlinkSync(join(worktree, 'link.env')), join(outside, 'private.txt'));
    assert.equal(readlinkSync(join(worktree, 'relative.env')), '../../../outside/private.txt', 'with its target as written');
    assert.equal(readFileSync(join(worktree, 'kept.env'), 'utf8'), 'tracked in the base\n', 'the checked-out file is not replaced');
    assert.equal(readFileSync(join(outside, 'private.txt'), 'utf8'), 'PRIVATE\n');
    assert.ok(!existsSync(join(worktree, '.git', 'link.env')));
  });

  it('skips a destination that is a dangling link the checkout made, instead of failing or writing through it', async (t) => {
    const { root, repo, outside } = setUp(t);
    writeFileSync(join(repo, '.gitignore'), '*.env\n');
    writeFileSync(join(repo, '.worktreeinclude'), '*.env\n');
    // The base commit has a.env as a dangling link into the outside folder; the working copy has it
    // untracked as a plain file.
    symlinkSync(join(outside, 'created-by-copy.env'), join(repo, 'a.env'));
    git(repo, 'add', '.');
    git(repo, 'add', '-f', 'a.env');
    git(repo, 'commit', '-q', '-m', 'base');
    git(repo, 'rm', '-q', '--cached', 'a.env');
    rmSync(join(repo, 'a.env'));
    writeFileSync(join(repo, 'a.env'), 'A=1\n');
    writeFileSync(join(repo, 'b.env'), 'B=1\n');
    const worktree = join(root, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent', worktree, 'main');
    assert.ok(lstatSync(join(worktree, 'a.env')).isSymbolicLink());

    const copied = await copyWorktreeInclude(repo, worktree);
    assert.deepEqual(copied, ['b.env']);
    assert.deepEqual(readdirSync(outside), [], 'nothing was created through the dangling link');
  });
});
