/**
 * agent.start with real git repositories, a real Hub and real PTYs: in a folder and in a new
 * worktree, `.worktreeinclude`, the setup script (success, failure, timeout), port ranges, and every
 * refusal — with nothing half-created after a failed start.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../../../src/common/api/errors.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { installStandInClaude } from '../../../helpers/standInClaude.ts';
import { WorkspaceLimits } from '../../../../src/common/api/workspaceContract.ts';
import { gitIn, makeRepo, screenText, startWorkspaceHub, type WorkspaceTestHub } from './workspaceTestKit.ts';

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a refusal');
}

describe('agent.start', () => {
  let t: WorkspaceTestHub;
  before(async () => {
    t = await startWorkspaceHub();
  });
  after(async () => {
    await t.dispose();
  });

  it('starts the profile in a plain folder with its args, the task and a port range', async () => {
    const folder = join(t.root, 'plain');
    mkdirSync(folder);
    const started = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder, prompt: 'Say hello' });
    assert.equal(started.worktree, undefined);
    assert.equal(started.cwd, folder);
    assert.equal(started.name, 'Say hello');
    assert.match(started.sessionId ?? '', /^[0-9a-f-]{36}$/);
    const text = await pollUntil(async () => {
      const screen = await screenText(t, started.terminalId);
      return screen.includes('FAKE-AGENT-READY') && screen;
    });
    assert.ok(text.includes(`ARGV:[--fake][--session-id][${started.sessionId}][Say hello]`), text);
    assert.ok(text.includes(`PORT=${started.portBase} BASE=${started.portBase} COUNT=10`), text);
    assert.ok(text.includes(`CWD=${folder}`), text);
    const info = t.hub.ptyHost.require(started.terminalId).info;
    assert.equal(info.name, 'Say hello');
    assert.deepEqual(info.createdBy, { kind: 'person', name: 'you' });
  });

  it('gives two live agents ranges that do not overlap', async () => {
    const folder = join(t.root, 'ports');
    mkdirSync(folder);
    const a = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder, name: 'ports a' });
    const b = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder, name: 'ports b' });
    assert.ok(Math.abs(a.portBase - b.portBase) >= 10, `${a.portBase} vs ${b.portBase}`);
  });

  it('makes a worktree beside the repository on a branch from the task, based on the current branch', async () => {
    const repo = makeRepo(t.root, 'wt-basic');
    const started = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, prompt: 'Fix the login timeout!', worktree: {} });
    assert.deepEqual(started.worktree, { path: join(t.root, 'wt-basic-worktrees', 'fix-the-login-timeout'), branch: 'fix-the-login-timeout', base: 'main' });
    assert.equal(started.cwd, started.worktree!.path);
    assert.equal(gitIn(started.worktree!.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'fix-the-login-timeout');
    await pollUntil(async () => (await screenText(t, started.terminalId)).includes(`CWD=${started.worktree!.path}`));
    const list = await t.client.call('worktree.list', { repoRoot: repo });
    assert.equal(list.length, 1);
    assert.equal(list[0]!.terminalId, started.terminalId);
    assert.equal(list[0]!.ahead, 0);
    assert.deepEqual(list[0]!.files, []);
    // A second agent with the same task gets the next free name.
    const second = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, prompt: 'Fix the login timeout!', worktree: {} });
    assert.equal(second.worktree!.branch, 'fix-the-login-timeout-2');
    assert.equal(second.name, 'Fix the login timeout! (2)');
  });

  it('two starts with the same task at once get two branches', async () => {
    const repo = makeRepo(t.root, 'wt-race');
    const [a, b] = await Promise.all([
      t.client.call('agent.start', { profile: 'fake', folder: repo, prompt: 'Same task', worktree: {} }),
      t.client.call('agent.start', { profile: 'fake', folder: repo, prompt: 'Same task', worktree: {} }),
    ]);
    assert.deepEqual([a.worktree!.branch, b.worktree!.branch].sort(), ['same-task', 'same-task-2']);
  });

  it('a repository started in before (its roots remembered) still starts from the branch checked out now, and refuses a detached HEAD leaving nothing', async () => {
    const repo = makeRepo(t.root, 'wt-again');
    const sub = join(repo, 'packages', 'web');
    mkdirSync(sub, { recursive: true });
    const first = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder: sub, worktree: { branch: 'again-1' } });
    assert.equal(first.worktree!.base, 'main');
    // The checkout moves on: the next start takes the new branch, both its name and its commit.
    gitIn(repo, 'switch', '-q', '-c', 'develop');
    writeFileSync(join(repo, 'on-develop.txt'), 'x\n');
    gitIn(repo, 'add', 'on-develop.txt');
    gitIn(repo, 'commit', '-q', '-m', 'on develop');
    const second = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder: sub, worktree: { branch: 'again-2' } });
    assert.equal(second.worktree!.base, 'develop');
    assert.equal(gitIn(second.worktree!.path, 'rev-parse', 'HEAD'), gitIn(repo, 'rev-parse', 'develop'));
    const worktrees = await t.client.call('worktree.list', { repoRoot: repo });
    assert.deepEqual(worktrees.map((info) => [info.branch, info.base]).sort(), [['again-1', 'main'], ['again-2', 'develop']]);
    // Detached: refused as before, and the worktree git made meanwhile is gone again, with its branch.
    gitIn(repo, 'switch', '-q', '--detach', 'main');
    const detached = await refusal(t.client.call('agent.start', { cols: 400, profile: 'fake', folder: sub, worktree: { branch: 'again-3' } }));
    assert.equal(detached.code, 'INVALID_BRANCH');
    assert.match(detached.message, /HEAD is detached in .*wt-again: name the base branch/);
    assert.equal(existsSync(join(t.root, 'wt-again-worktrees', 'again-3')), false);
    assert.equal(gitIn(repo, 'branch', '--list', 'again-3'), '');
    // A taken branch is still named as such when the base is HEAD's.
    gitIn(repo, 'switch', '-q', 'main');
    const taken = await refusal(t.client.call('agent.start', { cols: 400, profile: 'fake', folder: sub, worktree: { branch: 'again-1' } }));
    assert.equal(taken.code, 'BRANCH_EXISTS');
    // A repository made inside it since: that one is used, not the remembered one.
    gitIn(sub, 'init', '-q', '-b', 'trunk');
    gitIn(sub, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '--allow-empty', '-m', 'inner');
    const inner = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder: sub, worktree: { branch: 'inner-1' } });
    assert.deepEqual(inner.worktree, { path: join(repo, 'packages', 'web-worktrees', 'inner-1'), branch: 'inner-1', base: 'trunk' });
  });

  it('puts worktrees under the worktreesFolder setting, and refuses one inside the repository', async () => {
    const repo = makeRepo(t.root, 'wt-folder');
    const folder = join(t.root, 'all-worktrees');
    await t.client.call('settings.update', { worktreesFolder: folder });
    try {
      const started = await t.client.call('agent.start', { profile: 'fake', folder: repo, worktree: { branch: 'feature/in-folder' } });
      assert.equal(started.worktree!.path, join(folder, 'wt-folder', 'feature-in-folder'));
      assert.equal(gitIn(started.worktree!.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'feature/in-folder');
      await t.client.call('settings.update', { worktreesFolder: join(repo, 'inside') });
      const error = await refusal(t.client.call('agent.start', { profile: 'fake', folder: repo, worktree: { branch: 'inside-repo' } }));
      assert.equal(error.code, 'INVALID_PARAMS');
      assert.match(error.message, /is inside the repository/);
      assert.equal(gitIn(repo, 'branch', '--list', 'inside-repo'), '');
    } finally {
      await t.client.call('settings.update', { worktreesFolder: '' });
    }
  });

  it('copies the gitignored files .worktreeinclude lists, and nothing tracked', async () => {
    const repo = makeRepo(t.root, 'wt-include');
    writeFileSync(join(repo, '.env'), 'SECRET=1\n');
    writeFileSync(join(repo, 'debug.log'), 'not listed\n');
    mkdirSync(join(repo, 'config'));
    writeFileSync(join(repo, 'config', 'local.json'), '{"local":true}\n');
    writeFileSync(join(repo, '.gitignore'), '.env\nnode_modules/\n*.log\nconfig/local.json\n');
    writeFileSync(join(repo, '.worktreeinclude'), '.env\nconfig/*.json\nREADME.md\n');
    gitIn(repo, 'add', '.gitignore', '.worktreeinclude');
    gitIn(repo, 'commit', '-q', '-m', 'include');
    writeFileSync(join(repo, 'README.md'), 'changed in the main checkout, not committed\n');
    const started = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { branch: 'include-test' } });
    const path = started.worktree!.path;
    assert.equal(readFileSync(join(path, '.env'), 'utf8'), 'SECRET=1\n');
    assert.equal(readFileSync(join(path, 'config', 'local.json'), 'utf8'), '{"local":true}\n');
    assert.equal(existsSync(join(path, 'debug.log')), false, 'an ignored file that is not listed is not copied');
    assert.match(readFileSync(join(path, 'README.md'), 'utf8'), /^line 1/, 'a tracked file comes from git, not from the main checkout');
  });

  it('runs .switchboard/setup in the pane before the agent, with the port range', async () => {
    const repo = makeRepo(t.root, 'wt-setup');
    mkdirSync(join(repo, '.switchboard'));
    writeFileSync(join(repo, '.switchboard', 'setup'), '#!/bin/sh\necho "SETUP-RAN port=$PORT in $(pwd)"\ntouch setup-marker\n');
    chmodSync(join(repo, '.switchboard', 'setup'), 0o755);
    gitIn(repo, 'add', '-A');
    gitIn(repo, 'commit', '-q', '-m', 'setup');
    const started = await t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, prompt: 'after setup', worktree: {} });
    assert.equal(started.setupRan, true);
    const text = await pollUntil(async () => {
      const screen = await screenText(t, started.terminalId);
      return screen.includes('FAKE-AGENT-READY') && screen;
    });
    assert.ok(text.indexOf(`SETUP-RAN port=${started.portBase} in ${started.worktree!.path}`) !== -1, text);
    assert.ok(text.indexOf('SETUP-RAN') < text.indexOf('ARGV:'), 'setup output comes before the agent');
    assert.ok(existsSync(join(started.worktree!.path, 'setup-marker')));
    // The agent replaced the launcher: it is the pane's process and reads its input.
    t.hub.ptyHost.require(started.terminalId).write('ping\r');
    await pollUntil(async () => (await screenText(t, started.terminalId)).includes('GOT:ping'));
  });

  it('a failing setup starts no agent and leaves no worktree, branch or pane', async () => {
    const repo = makeRepo(t.root, 'wt-setup-fail');
    mkdirSync(join(repo, '.switchboard'));
    // Not executable on purpose: it is run with sh.
    writeFileSync(join(repo, '.switchboard', 'setup'), 'echo "installing…"\necho "npm ERR! missing thing" >&2\nexit 3\n');
    gitIn(repo, 'add', '-A');
    gitIn(repo, 'commit', '-q', '-m', 'setup');
    const panesBefore = t.hub.ptyHost.list().length;
    const error = await refusal(t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { branch: 'broken-setup' } }));
    assert.equal(error.code, 'SETUP_FAILED');
    assert.match(error.message, /exit 3/);
    assert.match(error.message, /npm ERR! missing thing/);
    assert.equal(existsSync(join(t.root, 'wt-setup-fail-worktrees', 'broken-setup')), false);
    assert.equal(gitIn(repo, 'branch', '--list', 'broken-setup'), '');
    assert.equal(gitIn(repo, 'worktree', 'list').split('\n').length, 1);
    await pollUntil(() => t.hub.ptyHost.list().length === panesBefore, { what: 'the failed pane to close' });
    assert.equal((await t.client.call('worktree.list', { repoRoot: repo })).length, 0);
  });

  it('a failing setup in a narrow pane reports its own output only: our wrapped "[switchboard] running …" line is not part of it', async () => {
    const repo = makeRepo(t.root, 'wt-setup-fail-narrow');
    mkdirSync(join(repo, '.switchboard'));
    writeFileSync(join(repo, '.switchboard', 'setup'), 'echo "installing…"\necho "npm ERR! missing thing" >&2\nexit 3\n');
    gitIn(repo, 'add', '-A');
    gitIn(repo, 'commit', '-q', '-m', 'setup');
    // 40 columns: the worktree's setup path makes our own line wrap over two rows or more.
    const error = await refusal(t.client.call('agent.start', { cols: 40, profile: 'fake', folder: repo, worktree: { branch: 'narrow-setup' } }));
    assert.equal(error.code, 'SETUP_FAILED');
    assert.equal(error.message.split('\nLast output:\n')[1], 'installing…\nnpm ERR! missing thing');
  });

  it('a setup that hangs is stopped at the setup timeout, and nothing stays', async () => {
    await t.client.call('settings.update', { agentSetupTimeoutSec: 1 });
    try {
      const repo = makeRepo(t.root, 'wt-setup-hang');
      mkdirSync(join(repo, '.switchboard'));
      writeFileSync(join(repo, '.switchboard', 'setup'), '#!/bin/sh\necho waiting-forever\nsleep 600\n');
      chmodSync(join(repo, '.switchboard', 'setup'), 0o755);
      gitIn(repo, 'add', '-A');
      gitIn(repo, 'commit', '-q', '-m', 'setup');
      const error = await refusal(t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { branch: 'hung-setup' } }));
      assert.equal(error.code, 'SETUP_TIMEOUT');
      assert.match(error.message, /within 1 s/);
      assert.match(error.message, /waiting-forever/);
      assert.equal(existsSync(join(t.root, 'wt-setup-hang-worktrees', 'hung-setup')), false);
      assert.equal(gitIn(repo, 'branch', '--list', 'hung-setup'), '');
    } finally {
      await t.client.call('settings.update', { agentSetupTimeoutSec: 600 });
    }
  });

  it('refuses bad input with specific codes', async () => {
    const repo = makeRepo(t.root, 'wt-bad');
    gitIn(repo, 'switch', '-q', '-c', 'previous');
    gitIn(repo, 'switch', '-q', 'main');
    gitIn(repo, 'branch', '-q', '-D', 'previous'); // `@{-1}` now names a branch that does not exist
    gitIn(repo, 'tag', 'v1');
    const plain = join(t.root, 'not-a-repo');
    mkdirSync(plain);
    const cases: Array<[string, () => Promise<unknown>, string, RegExp]> = [
      ['not a repository', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: plain, worktree: {} }), 'NOT_A_GIT_REPO', /not in a git repository.*without a worktree/],
      ['branch exists', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { branch: 'main' } }), 'BRANCH_EXISTS', /"main" already exists/],
      ['invalid branch', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { branch: 'bad..name' } }), 'INVALID_BRANCH', /not a valid branch name/],
      ['branch with a lock suffix', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { branch: 'x.lock' } }), 'INVALID_BRANCH', /not a valid branch name/],
      ['unknown base', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { base: 'nope' } }), 'INVALID_BRANCH', /no branch "nope"/],
      // The checks run side by side; the refusal still names the base first, then the branch.
      ['unknown base and a taken branch', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { base: 'nope', branch: 'main' } }), 'INVALID_BRANCH', /no branch "nope"/],
      // git worktree add -b would take these otherwise: the previous branch's name, an option, a tag for a base.
      ['a previous-branch name', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { branch: '@{-1}' } }), 'INVALID_BRANCH', /"@\{-1\}" is not a valid branch name/],
      ['a name like an option', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { branch: '-f' } }), 'INVALID_BRANCH', /"-f" is not a valid branch name/],
      ['a tag for a base', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { base: 'v1', branch: 'from-tag' } }), 'INVALID_BRANCH', /no branch "v1"/],
      ['unknown base and a name like an option', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: repo, worktree: { base: 'nope', branch: '-f' } }), 'INVALID_BRANCH', /no branch "nope"/],
      ['unknown profile', () => t.client.call('agent.start', { cols: 400, profile: 'nobody', folder: repo }), 'NOT_FOUND', /no agent profile "nobody"/],
      ['missing folder', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: join(t.root, 'gone') }), 'NOT_FOUND', /folder not found/],
      ['relative folder', () => t.client.call('agent.start', { cols: 400, profile: 'fake', folder: 'relative/path' }), 'INVALID_PARAMS', /absolute path/],
    ];
    for (const [what, promise, code, message] of cases) {
      const error = await refusal(promise());
      assert.equal(error.code, code, `${what}: ${error.message}`);
      assert.match(error.message, message, what);
    }
    assert.equal(gitIn(repo, 'worktree', 'list').split('\n').length, 1, 'no refusal made a worktree');
    assert.equal(gitIn(repo, 'branch', '--list', '--format=%(refname:short)'), 'main', 'no refusal made a branch');
  });

  it('says a profile is not installed, naming the command it looked for', async () => {
    await t.client.call('settings.update', {
      agentProfiles: [
        { id: 'fake', name: 'Fake agent', command: t.agentPath },
        { id: 'ghost', name: 'Ghost', command: 'switchboard-no-such-agent-cli' },
      ],
    });
    const profiles = await t.client.call('agent.profiles', {});
    const ghost = profiles.find((entry) => entry.profile.id === 'ghost')!;
    assert.equal(ghost.installed, false);
    assert.equal(ghost.command, 'switchboard-no-such-agent-cli');
    assert.match(ghost.reason ?? '', /not found on PATH/);
    assert.deepEqual(
      profiles.filter((entry) => entry.profile.builtIn).map((entry) => entry.profile.id),
      ['claude', 'codex', 'gemini', 'aider', 'opencode'],
    );
    const error = await refusal(t.client.call('agent.start', { cols: 400, profile: 'ghost', folder: t.root }));
    assert.equal(error.code, 'PROFILE_NOT_INSTALLED');
    assert.match(error.message, /Ghost is not installed: `switchboard-no-such-agent-cli` not found on PATH/);
  });

  it('starts Claude Code in the asking permission mode with a session id of ours; the task waits to be typed, or is its last argument in auto mode', async () => {
    // The claude profile overridden to run the fake agent: the argv is what Claude Code would get.
    await t.client.call('settings.update', {
      agentProfiles: [{ id: 'claude', name: 'Claude Code', command: t.agentPath, resume: { kind: 'session', startArgs: ['--session-id', '{sessionId}'], resumeArgs: ['--resume', '{sessionId}'] } }],
    });
    const folder = join(t.root, 'claude-shape');
    mkdirSync(folder);
    const started = await t.client.call('agent.start', { cols: 400, profile: 'claude', folder, prompt: '-x starts with a dash' });
    const text = await pollUntil(async () => {
      const screen = await screenText(t, started.terminalId);
      return screen.includes('FAKE-AGENT-READY') && screen;
    });
    // Its own hooks first (agent state; claudeHooks.ts), in a private folder of the data dir — the
    // screen wraps the long JSON, so it is read unwrapped.
    const argv = text.replaceAll('\n', '');
    const hooks = /ARGV:\[--settings\]\[(\{"hooks":.*?\}\]\}\]\}\})\]/.exec(argv);
    assert.ok(hooks, argv);
    assert.deepEqual(Object.keys((JSON.parse(hooks[1]!) as { hooks: object }).hooks), ['UserPromptSubmit', 'PermissionRequest', 'PostToolUse', 'Stop', 'Notification']);
    assert.ok(hooks[1]!.includes(join(t.dataDir, 'agent-hooks')), hooks[1]);
    // Reviewing in Switchboard: no task on the command line (it is typed once the CLI is connected to the IDE bridge).
    assert.ok(argv.includes(`}]}]}}][--permission-mode][default][--session-id][${started.sessionId}]PORT=`), argv);
    await t.client.call('settings.update', {
      agentProfiles: [{ id: 'claude', name: 'Claude Code', command: t.agentPath, reviewEditsInSwitchboard: false, resume: { kind: 'session', startArgs: ['--session-id', '{sessionId}'], resumeArgs: ['--resume', '{sessionId}'] } }],
    });
    const plain = await t.client.call('agent.start', { cols: 400, profile: 'claude', folder, prompt: '-x auto mode' });
    const plainText = await pollUntil(async () => {
      const screen = await screenText(t, plain.terminalId);
      return screen.includes('FAKE-AGENT-READY') && screen;
    });
    assert.ok(plainText.replaceAll('\n', '').includes(`}]}]}}][--session-id][${plain.sessionId}][--][-x auto mode]PORT=`), plainText);
  });

  it('types the task into Claude Code once its input box shows (a stand-in CLI that never connects to the IDE bridge: after the wait)', async () => {
    const bin = installStandInClaude(join(t.home, 'stand-in'));
    await t.client.call('settings.update', {
      agentProfiles: [{ id: 'claude', name: 'Claude Code', command: join(bin, 'claude'), resume: { kind: 'session', startArgs: ['--session-id', '{sessionId}'], resumeArgs: ['--resume', '{sessionId}'] } }],
    });
    const folder = join(t.root, 'claude-typed');
    mkdirSync(folder);
    const started = await t.client.call('agent.start', { cols: 120, profile: 'claude', folder, prompt: 'tidy the\nimports' });
    assert.equal(t.hub.ptyHost.require(started.terminalId).info.args.includes('tidy the\nimports'), false);
    let last = '';
    await pollUntil(async () => (last = await screenText(t, started.terminalId)).includes('❯ tidy the imports'), {
      what: 'the task typed into the stand-in',
      timeoutMs: WorkspaceLimits.firstPromptIdeWaitMs + 30_000,
    }).catch((error: Error) => {
      throw new Error(`${error.message}; agent: ${JSON.stringify(t.hub.ptyHost.get(started.terminalId)?.info.agent)}; the pane shows:\n${last}`);
    });
  });
});
