/**
 * Finishing a worktree with real git: merge (fast-forward, merge commit, a conflict left exactly as
 * it was, a dirty base refused), keep the branch only, and discard (refused with unmerged work
 * unless confirmed, naming it); plus the concurrent-agent limit.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../../../src/common/api/errors.ts';
import { WorkspaceLimits } from '../../../../src/common/api/workspaceContract.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { mergeIntoBase } from '../../../../src/node/workspaces/worktreeGit.ts';
import { gitIn, makeRepo, startWorkspaceHub, type WorkspaceTestHub } from './workspaceTestKit.ts';

describe('worktree.finish', () => {
  let t: WorkspaceTestHub;
  before(async () => {
    t = await startWorkspaceHub();
  });
  after(async () => {
    await t.dispose();
  });

  async function startIn(name: string, branch: string, prompt = `Task ${branch}`) {
    const repo = makeRepo(t.root, name);
    const started = await t.client.call('agent.start', { profile: 'fake', folder: repo, worktree: { branch }, prompt });
    return { repo, path: started.worktree!.path, terminalId: started.terminalId };
  }

  it('merge fast-forwards the base with the uncommitted work committed under the task, then removes the worktree, the branch and the pane', async () => {
    const { repo, path, terminalId } = await startIn('ff', 'ff-work', 'Add a feature file');
    writeFileSync(join(path, 'feature.txt'), 'feature\n');
    const result = await t.client.call('worktree.finish', { path, mode: 'merge' });
    assert.equal(result.merge, 'fast-forward');
    assert.ok(result.committed);
    assert.equal(result.mergedCommit, gitIn(repo, 'rev-parse', 'main'));
    assert.equal(gitIn(repo, 'log', '-1', '--format=%s', 'main'), 'Add a feature file (Switchboard agent)');
    assert.equal(readFileSync(join(repo, 'feature.txt'), 'utf8'), 'feature\n', 'the main checkout has the file');
    assert.equal(result.worktreeRemoved, true);
    assert.equal(existsSync(path), false);
    assert.equal(result.branchDeleted, true);
    assert.equal(gitIn(repo, 'branch', '--list', 'ff-work'), '');
    assert.equal(result.closedTerminalId, terminalId);
    await pollUntil(() => !t.hub.ptyHost.get(terminalId), { what: 'the agent pane closed' });
    assert.equal((await t.client.call('worktree.list', { repoRoot: repo })).length, 0);
  });

  it('merge makes a merge commit when the base moved on', async () => {
    const { repo, path } = await startIn('mc', 'mc-work');
    writeFileSync(join(path, 'agent.txt'), 'agent\n');
    gitIn(path, 'add', '-A');
    gitIn(path, 'commit', '-q', '-m', 'agent commit');
    writeFileSync(join(repo, 'person.txt'), 'person\n');
    gitIn(repo, 'add', '-A');
    gitIn(repo, 'commit', '-q', '-m', 'person commit');
    const result = await t.client.call('worktree.finish', { path, mode: 'merge', message: 'unused: nothing uncommitted' });
    assert.equal(result.merge, 'merge-commit');
    assert.equal(result.committed, null);
    assert.equal(gitIn(repo, 'rev-list', '--count', '--merges', 'main'), '1');
    assert.ok(existsSync(join(repo, 'agent.txt')) && existsSync(join(repo, 'person.txt')));
    assert.equal(gitIn(repo, 'status', '--porcelain'), '');
  });

  it('a conflict stops the merge, names the files and leaves the base, the main checkout and the worktree as they were', async () => {
    const { repo, path, terminalId } = await startIn('conflict', 'conflict-work');
    writeFileSync(join(path, 'README.md'), 'agent version\n');
    gitIn(path, 'add', '-A');
    gitIn(path, 'commit', '-q', '-m', 'agent edit');
    writeFileSync(join(path, 'pending.txt'), 'not committed yet\n');
    writeFileSync(join(repo, 'README.md'), 'person version\n');
    gitIn(repo, 'add', '-A');
    gitIn(repo, 'commit', '-q', '-m', 'person edit');
    const mainBefore = gitIn(repo, 'rev-parse', 'main');
    const headBefore = gitIn(path, 'rev-parse', 'HEAD');
    await assert.rejects(t.client.call('worktree.finish', { path, mode: 'merge' }), (error: ApiError) => {
      assert.equal(error.code, 'MERGE_CONFLICT');
      assert.match(error.message, /would conflict in: README\.md\. Nothing was committed or merged/);
      return true;
    });
    assert.equal(gitIn(path, 'rev-parse', 'HEAD'), headBefore, 'the uncommitted work was not committed');
    assert.equal(gitIn(path, 'status', '--porcelain'), '?? pending.txt');
    assert.equal(gitIn(repo, 'rev-parse', 'main'), mainBefore);
    assert.equal(gitIn(repo, 'status', '--porcelain'), '');
    assert.equal(readFileSync(join(repo, 'README.md'), 'utf8'), 'person version\n');
    assert.ok(existsSync(path), 'the worktree stays');
    assert.ok(t.hub.ptyHost.get(terminalId), 'the agent keeps running');
    assert.equal((await t.client.call('worktree.list', { repoRoot: repo }))[0]?.path, path);
  });

  it('a merge that stops on a conflict anyway (a git without merge-tree) is aborted, naming the files', async () => {
    const repo = makeRepo(t.root, 'abort');
    gitIn(repo, 'branch', 'side');
    writeFileSync(join(repo, 'README.md'), 'main version\n');
    gitIn(repo, 'commit', '-q', '-am', 'main edit');
    gitIn(repo, 'checkout', '-q', 'side');
    writeFileSync(join(repo, 'README.md'), 'side version\n');
    gitIn(repo, 'commit', '-q', '-am', 'side edit');
    gitIn(repo, 'checkout', '-q', 'main');
    const before = gitIn(repo, 'rev-parse', 'main');
    await assert.rejects(mergeIntoBase(repo, 'side', 'main'), (error: ApiError) => {
      assert.equal(error.code, 'MERGE_CONFLICT');
      assert.match(error.message, /conflicts in: README\.md\. The merge was aborted/);
      return true;
    });
    assert.equal(gitIn(repo, 'rev-parse', 'main'), before);
    assert.equal(gitIn(repo, 'status', '--porcelain'), '');
    assert.equal(existsSync(join(repo, '.git', 'MERGE_HEAD')), false);
  });

  it('a dirty main checkout blocks the merge, naming its files; nothing is merged', async () => {
    const { repo, path } = await startIn('dirty', 'dirty-work');
    writeFileSync(join(path, 'x.txt'), 'x\n');
    writeFileSync(join(repo, 'README.md'), 'edited by the person, not committed\n');
    const mainBefore = gitIn(repo, 'rev-parse', 'main');
    await assert.rejects(t.client.call('worktree.finish', { path, mode: 'merge' }), (error: ApiError) => {
      assert.equal(error.code, 'BASE_DIRTY');
      assert.match(error.message, /has uncommitted changes: README\.md/);
      return true;
    });
    assert.equal(gitIn(repo, 'rev-parse', 'main'), mainBefore);
    assert.equal(readFileSync(join(repo, 'README.md'), 'utf8'), 'edited by the person, not committed\n');
  });

  it('branch mode commits, removes the worktree and keeps the branch', async () => {
    const { repo, path } = await startIn('keep', 'keep-work');
    writeFileSync(join(path, 'kept.txt'), 'kept\n');
    const result = await t.client.call('worktree.finish', { path, mode: 'branch' });
    assert.equal(result.worktreeRemoved, true);
    assert.equal(result.branchDeleted, false);
    assert.equal(existsSync(path), false);
    assert.equal(gitIn(repo, 'show', 'keep-work:kept.txt'), 'kept');
    assert.equal(existsSync(join(repo, 'kept.txt')), false, 'the main checkout is untouched');
  });

  it('discard refuses with uncommitted changes or unmerged commits unless confirmed, naming them', async () => {
    const { repo, path } = await startIn('discard', 'discard-work');
    writeFileSync(join(path, 'wip.txt'), 'wip\n');
    writeFileSync(join(path, 'done.txt'), 'done\n');
    gitIn(path, 'add', 'done.txt');
    gitIn(path, 'commit', '-q', '-m', 'finished part');
    await assert.rejects(t.client.call('worktree.finish', { path, mode: 'discard' }), (error: ApiError) => {
      assert.equal(error.code, 'UNMERGED_WORK');
      assert.match(error.message, /uncommitted changes in wip\.txt/);
      assert.match(error.message, /1 commit\(s\) not merged into main: [0-9a-f]+ finished part/);
      assert.match(error.message, /confirm: true/);
      return true;
    });
    assert.ok(existsSync(path));
    const result = await t.client.call('worktree.finish', { path, mode: 'discard', confirm: true });
    assert.equal(result.worktreeRemoved, true);
    assert.equal(result.branchDeleted, true);
    assert.equal(existsSync(path), false);
    assert.equal(gitIn(repo, 'branch', '--list', 'discard-work'), '');
  });

  it('refuses to finish (merge, branch, discard) while its agent works or waits for an answer unless confirmed, naming the pane; nothing is changed', async () => {
    const { repo, path, terminalId } = await startIn('busy', 'busy-work');
    const session = t.hub.ptyHost.get(terminalId)!;
    await pollUntil(() => session.info.state === 'running' && session.offset > 0, { what: 'the fake agent started' });
    const asking = { kind: 'claude-code', label: 'Claude Code', state: 'needs-input' as const, since: Date.now(), reason: 'Bash: rm -rf build', prompt: null, exitCode: null };
    session.setAgent(asking);
    const mainBefore = gitIn(repo, 'rev-parse', 'main');
    for (const mode of ['merge', 'branch'] as const) {
      await assert.rejects(t.client.call('worktree.finish', { path, mode }), (error: ApiError) => {
        assert.equal(error.code, 'BUSY');
        assert.match(error.message, /closes the pane "[^"]+" where Claude Code waits for an answer: Bash: rm -rf build\. Nothing was changed\. Send confirm: true/);
        assert.match(error.message, new RegExp(`--confirm`));
        return true;
      });
    }
    writeFileSync(join(path, 'wip.txt'), 'wip\n');
    session.setAgent({ ...asking, state: 'working', reason: null });
    await assert.rejects(t.client.call('worktree.finish', { path, mode: 'discard' }), (error: ApiError) => {
      assert.equal(error.code, 'UNMERGED_WORK');
      assert.match(error.message, /would lose uncommitted changes in wip\.txt, and close the pane "[^"]+" where Claude Code is still working/);
      return true;
    });
    assert.ok(existsSync(path), 'the worktree stays');
    assert.ok(t.hub.ptyHost.get(terminalId), 'the agent keeps running');
    assert.equal(gitIn(repo, 'rev-parse', 'main'), mainBefore);
    // Done with its turn: nothing to ask. (Confirmed, a busy one is finished the same way.)
    session.setAgent({ ...asking, state: 'idle', reason: null });
    const result = await t.client.call('worktree.finish', { path, mode: 'merge' });
    assert.equal(result.merge, 'fast-forward');
    assert.equal(result.closedTerminalId, terminalId);
  });

  it('merge with a busy agent goes ahead when confirmed', async () => {
    const { path, terminalId } = await startIn('busy-confirmed', 'busy-confirmed-work');
    const session = t.hub.ptyHost.get(terminalId)!;
    await pollUntil(() => session.offset > 0, { what: 'the fake agent started' });
    session.setAgent({ kind: 'claude-code', label: 'Claude Code', state: 'working', since: Date.now(), reason: null, prompt: null, exitCode: null });
    const result = await t.client.call('worktree.finish', { path, mode: 'merge', confirm: true });
    assert.equal(result.merge, 'up-to-date');
    assert.equal(result.closedTerminalId, terminalId);
  });

  it('discard of a worktree with nothing in it needs no confirmation; one whose folder is gone is said so and can still be discarded', async () => {
    const clean = await startIn('discard-clean', 'clean-work');
    const result = await t.client.call('worktree.finish', { path: clean.path, mode: 'discard' });
    assert.equal(result.branchDeleted, true);
    const gone = await startIn('gone', 'gone-work');
    await t.hub.ptyHost.close(gone.terminalId);
    gitIn(gone.repo, 'worktree', 'remove', '--force', gone.path);
    const [info] = await t.client.call('worktree.list', { repoRoot: gone.repo });
    assert.equal(info!.missing, true);
    assert.match(info!.error ?? '', /is gone/);
    await assert.rejects(t.client.call('worktree.finish', { path: gone.path, mode: 'merge' }), (error: ApiError) => error.code === 'NOT_FOUND' && /is gone/.test(error.message));
    const discarded = await t.client.call('worktree.finish', { path: gone.path, mode: 'discard', confirm: true });
    assert.equal(discarded.branchDeleted, true);
  });

  it('a worktree whose folder is gone tells what its branch holds; "branch" keeps the branch and forgets the worktree; with the branch gone too it says so', async () => {
    const gone = await startIn('gone-keep', 'gone-keep-work');
    writeFileSync(join(gone.path, 'kept.txt'), 'kept\n');
    gitIn(gone.path, 'add', '-A');
    gitIn(gone.path, 'commit', '-q', '-m', 'agent commit');
    await t.hub.ptyHost.close(gone.terminalId);
    gitIn(gone.repo, 'worktree', 'remove', '--force', gone.path);
    const [info] = await t.client.call('worktree.list', { repoRoot: gone.repo });
    assert.equal(info!.missing, true);
    assert.equal(info!.ahead, 1, 'the branch’s commit not on main');
    assert.equal(info!.error, `the worktree folder ${gone.path} is gone`);
    await assert.rejects(t.client.call('worktree.finish', { path: gone.path, mode: 'merge' }), (error: ApiError) => error.code === 'NOT_FOUND');
    const kept = await t.client.call('worktree.finish', { path: gone.path, mode: 'branch' });
    assert.equal(kept.branchDeleted, false);
    assert.equal(gitIn(gone.repo, 'show', 'gone-keep-work:kept.txt'), 'kept');
    assert.equal((await t.client.call('worktree.list', { repoRoot: gone.repo })).length, 0);

    const both = await startIn('gone-both', 'gone-both-work');
    await t.hub.ptyHost.close(both.terminalId);
    gitIn(both.repo, 'worktree', 'remove', '--force', both.path);
    gitIn(both.repo, 'branch', '-D', 'gone-both-work');
    const [bothInfo] = await t.client.call('worktree.list', { repoRoot: both.repo });
    assert.equal(bothInfo!.error, `the worktree folder ${both.path} is gone, and so is its branch gone-both-work`);
    await assert.rejects(t.client.call('worktree.finish', { path: both.path, mode: 'branch' }), (error: ApiError) => error.code === 'NOT_FOUND');
    const forgotten = await t.client.call('worktree.finish', { path: both.path, mode: 'discard' });
    assert.equal(forgotten.branchDeleted, false);
  });

  it(`refuses agent ${WorkspaceLimits.maxConcurrentAgents + 1} with AGENT_LIMIT`, async () => {
    const folder = t.root;
    const running = t.hub.ptyHost.list().filter((info) => info.state === 'running').length;
    const started: string[] = [];
    for (let i = running; i < WorkspaceLimits.maxConcurrentAgents; i++) {
      started.push((await t.client.call('agent.start', { profile: 'fake', folder, name: `limit ${i}` })).terminalId);
    }
    await assert.rejects(t.client.call('agent.start', { profile: 'fake', folder, name: 'one too many' }), (error: ApiError) => error.code === 'AGENT_LIMIT' && /50 agents are running/.test(error.message));
    await t.hub.ptyHost.close(started[0]!);
    const again = await t.client.call('agent.start', { profile: 'fake', folder, name: 'room again' });
    assert.ok(again.terminalId);
  });
});
