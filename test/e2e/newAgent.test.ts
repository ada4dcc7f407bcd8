/**
 * New agent (issue 20) in real Chromium against a real `switchboard serve`, a real git repository
 * and a fake agent CLI (a shell script printing its argv, PORT and cwd): Ctrl+Shift+A the instant
 * the window is up, a profile that is not installed said so, the branch following the task, the
 * agent started in its own worktree in a new tab named after the task, the sidebar's repository
 * group with the branch and the changed files (live, from file changes), a taken branch refused
 * in the dialog, and a folder that is no repository.
 * With SWITCHBOARD_SCREENSHOTS=/dir, each screen is shot at 1280×800 and 1000×700, light and dark.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gitIn, makeRepo, writeFakeAgent } from '../integration/node/workspaces/workspaceTestKit.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, readPane, shootEverySize, useSharedBrowser, waitForPanes, waitForPaneText } from '../helpers/servedApp.ts';
import { createTempHome } from '../helpers/tempHome.ts';

const browser = useSharedBrowser();

describe('New agent: start an agent in its own worktree in one step', () => {
  it('starts the agent from the dialog in a worktree on a branch named after the task, and the sidebar follows its changes', async (t) => {
    const dirs = createTempHome('sb-e2e-agent-');
    // The workspace folder is the repository people work in.
    const repo = makeRepo(join(dirs.workspace, '..'), 'workspace-repo');
    const agentPath = writeFakeAgent(dirs.home);
    mkdirSync(dirs.dataDir, { recursive: true });
    writeFileSync(
      join(dirs.dataDir, 'settings.json'),
      JSON.stringify({ agentProfiles: [{ id: 'fake', name: 'Fake agent', command: agentPath, prompt: { kind: 'argument' } }] }),
    );
    const { page, firstPane } = await openFreshApp(browser(), t, { dirs, env: { PATH: '/usr/bin:/bin' } });
    t.after(() => dirs.dispose());

    // At once, from the pane: the chord opens the dialog.
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.keyboard.press('Control+Shift+A');
    const dialog = page.getByRole('dialog', { name: 'New agent' });
    await dialog.waitFor();
    const agentSelect = dialog.getByLabel('Agent');
    await pollUntil(async () => (await agentSelect.inputValue()) === 'fake', { what: 'the installed profile picked', timeoutMs: 10_000 });
    // Claude Code is not on this PATH: listed, not pickable, with what was looked for.
    const claude = agentSelect.locator('option', { hasText: 'Claude Code' });
    assert.equal(await claude.isDisabled(), true);
    assert.match(await claude.innerText(), /not installed \(looked for claude\)/);

    await dialog.getByLabel('Repository or folder').fill(repo);
    await dialog.getByLabel(/^Task/).fill('Fix the login timeout');
    const branch = dialog.getByLabel(/^Branch, from main/);
    await pollUntil(async () => (await branch.isVisible()) && (await branch.inputValue()) === 'fix-the-login-timeout', { what: 'the branch derived from the task', timeoutMs: 10_000 });
    assert.equal(await dialog.getByRole('checkbox', { name: 'Work in a new git worktree' }).isChecked(), true);
    await shootEverySize(page, 'new-agent-dialog');

    // The checkout moves on while the dialog is open: the agent still starts from main, as the dialog said.
    const mainCommit = gitIn(repo, 'rev-parse', 'main');
    gitIn(repo, 'switch', '-q', '-c', 'elsewhere');
    gitIn(repo, 'commit', '-q', '--allow-empty', '-m', 'elsewhere');
    await dialog.getByRole('button', { name: 'Start agent' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 20_000 });
    gitIn(repo, 'switch', '-q', 'main');
    const panes = await waitForPanes(page, 1);
    const agentPane = panes.find((id) => id !== firstPane) ?? panes[0]!;
    const worktree = join(dirs.workspace, '..', 'workspace-repo-worktrees', 'fix-the-login-timeout');
    await waitForPaneText(page, agentPane, 'FAKE-AGENT-READY');
    const screen = (await readPane(page, agentPane)) ?? '';
    assert.match(screen, /ARGV:\[Fix the login timeout\]/);
    assert.ok(screen.includes(`CWD=${worktree}`), screen);
    assert.equal(gitIn(worktree, 'rev-parse', 'HEAD'), mainCommit, 'started from main, not the branch checked out since');
    assert.match(screen, /PORT=\d+ BASE=\d+/);
    // The pane is named after the task, in a tab of its own, and has the keyboard.
    await page.getByRole('tab', { name: /Fix the login timeout/ }).waitFor();

    // The sidebar groups it under its repository, with its branch.
    const sidebar = page.getByRole('navigation', { name: 'Sidebar' });
    await sidebar.locator('.repo-group-header', { hasText: 'workspace-repo' }).waitFor();
    const line = sidebar.locator(`[data-worktree="${worktree}"]`);
    await line.getByText('fix-the-login-timeout').waitFor();
    await line.getByText('no changes yet').waitFor();
    // The agent edits a file: the counts follow, without anyone asking.
    const readme = join(worktree, 'README.md');
    writeFileSync(readme, readFileSync(readme, 'utf8').replace('line 2\n', 'line 2 changed\n'));
    writeFileSync(join(worktree, 'login.ts'), 'export const timeoutMs = 30_000;\nexport const retries = 3;\n');
    await line.getByText(/^2 files \+3 −1$/).waitFor({ timeout: 15_000 });
    await shootEverySize(page, 'new-agent-sidebar');
    // Changes opens the worktree's page in Review.
    await line.getByRole('button', { name: 'Changes of fix-the-login-timeout' }).click();
    const changes = page.getByRole('article', { name: 'Changes of Fix the login timeout' });
    const files = changes.getByRole('navigation', { name: 'Changed files' });
    await files.getByText('login.ts').waitFor();
    await files.getByText('README.md').waitFor();
    await page.getByRole('button', { name: 'Terminals', exact: true }).click();

    // From the agent's pane (its folder is its worktree), New agent starts in the repository, from
    // the worktree's base: not on top of that agent's unmerged branch.
    await page.keyboard.press('Control+Shift+A');
    const again = page.getByRole('dialog', { name: 'New agent' });
    await pollUntil(async () => (await again.getByLabel('Repository or folder').inputValue()).endsWith('/workspace-repo'), { what: 'the repository, not the worktree', timeoutMs: 10_000 });
    await again.getByLabel(/^Branch, from main$/).waitFor({ timeout: 10_000 });
    assert.equal(await again.getByLabel('Repository or folder').inputValue(), repo.replace(dirs.home, '~'));

    // The same branch again: refused in the dialog, which stays open with what was typed.
    await again.getByLabel(/^Task/).fill('Second try');
    const againBranch = again.getByLabel(/^Branch/);
    await pollUntil(async () => (await againBranch.isVisible()) && (await againBranch.inputValue()) === 'second-try', { what: 'the derived branch', timeoutMs: 10_000 });
    await againBranch.fill('fix-the-login-timeout');
    await again.getByRole('button', { name: 'Start agent' }).click();
    await again.getByRole('alert').getByText(/the branch "fix-the-login-timeout" already exists/).waitFor({ timeout: 15_000 });
    assert.equal(await again.getByLabel(/^Task/).inputValue(), 'Second try', 'what was typed is kept');
    // The keyboard is back on the field the refusal is about (not on <body>, where Escape is lost).
    await pollUntil(async () => (await againBranch.evaluate((element) => element === document.activeElement)) === true, { what: 'the branch field focused' });
    assert.equal(await againBranch.getAttribute('aria-invalid'), 'true');
    await shootEverySize(page, 'new-agent-branch-taken');

    // A folder that is no repository: no worktree, and the dialog says why.
    const plain = join(dirs.home, 'plain-folder');
    mkdirSync(plain);
    await again.getByLabel('Repository or folder').fill(plain);
    await again.getByText(/the agent works in the folder itself/).waitFor({ timeout: 10_000 });
    assert.equal(await again.getByRole('checkbox', { name: 'Work in a new git worktree' }).isDisabled(), true);
    await page.keyboard.press('Escape');
    await again.waitFor({ state: 'detached' });

    // Start right after the task is typed, before the branch shown catches up with it: the branch
    // is the task's as it is at Start, like the pane's name.
    await page.keyboard.press('Control+Shift+A');
    const quick = page.getByRole('dialog', { name: 'New agent' });
    await pollUntil(async () => (await quick.getByLabel(/^Branch/).isVisible()) && (await quick.getByLabel(/^Branch/).inputValue()) === 'agent', { what: 'the branch of no task', timeoutMs: 10_000 });
    await quick.getByLabel(/^Task/).fill('Paste and go');
    await quick.getByRole('button', { name: 'Start agent' }).click();
    await quick.waitFor({ state: 'detached', timeout: 20_000 });
    await page.getByRole('tab', { name: /Paste and go/ }).waitFor();
    assert.equal(gitIn(repo, 'branch', '--list', '--format=%(refname:short)', 'paste-and-go'), 'paste-and-go');
    assert.equal(gitIn(repo, 'branch', '--list', 'agent'), '');
  });
});

describe('Settings → Agent profiles', () => {
  it('lists the built-in profiles with what was looked for, adds a profile of your own that New agent then offers, and refuses bad input by field', async (t) => {
    const { page, app } = await openFreshApp(browser(), t, { env: { PATH: '/usr/bin:/bin' } });
    const agentPath = writeFakeAgent(app.home);
    await page.getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Agent profiles' });
    const claude = section.locator('[data-profile="claude"]');
    await claude.waitFor();
    assert.match(await claude.innerText(), /Claude Code[\s\S]*built in[\s\S]*not installed: looked for claude — not found on PATH \(\/usr\/bin:\/bin\)/);
    // Claude Code asks before edits by default, so they reach Review; the switch says so.
    const review = claude.getByRole('checkbox', { name: /Review edits in Switchboard/ });
    assert.equal(await review.isChecked(), true);

    await section.getByRole('button', { name: 'Add a profile…' }).click();
    const form = section.getByRole('form', { name: 'New profile' });
    await form.getByLabel('Id', { exact: true }).fill('My Agent');
    await form.getByLabel('Name', { exact: true }).fill('My agent');
    await form.getByLabel(/^Command/).fill(agentPath);
    await form.getByRole('button', { name: 'Save profile' }).click();
    await form.getByRole('alert').getByText(/^Id: profile ids are lowercase letters/).waitFor();
    await form.getByLabel('Id', { exact: true }).fill('mine');
    await form.getByLabel(/^Environment/).fill('NOT AN ASSIGNMENT');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await form.getByRole('alert').getByText('Environment: "NOT AN ASSIGNMENT" is not NAME=value.').waitFor();
    await form.getByLabel(/^Environment/).fill('MY_AGENT_MODE=careful');
    await form.getByLabel('After a restart').selectOption('args');
    await form.getByLabel(/^Resume arguments/).fill('--continue');
    await shootEverySize(page, 'settings-agent-profile-form');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await form.waitFor({ state: 'detached' });
    const mine = section.locator('[data-profile="mine"]');
    await mine.waitFor();
    assert.match(await mine.innerText(), new RegExp(`My agent[\\s\\S]*yours[\\s\\S]*installed: ${agentPath}`));
    await shootEverySize(page, 'settings-agent-profiles');

    // Stored in the data dir's settings, as the Hub validated it.
    const stored = JSON.parse(readFileSync(join(app.dataDir, 'settings.json'), 'utf8')) as { agentProfiles: unknown[] };
    assert.deepEqual(stored.agentProfiles, [
      { id: 'mine', name: 'My agent', kind: 'custom', command: agentPath, args: [], env: { MY_AGENT_MODE: 'careful' }, prompt: { kind: 'argument' }, resume: { kind: 'args', resumeArgs: ['--continue'] }, reviewEditsInSwitchboard: true },
    ]);

    // Turning Claude Code's switch off stores an override of the built-in profile; Reset drops it.
    await review.uncheck();
    await claude.getByText('built in · changed').waitFor();
    await claude.getByRole('button', { name: 'Reset Claude Code' }).click();
    await claude.getByText('built in · changed').waitFor({ state: 'detached' });
    assert.equal(await review.isChecked(), true);

    // New agent offers it, installed.
    await page.keyboard.press('Control+Shift+A');
    const dialog = page.getByRole('dialog', { name: 'New agent' });
    const option = dialog.getByLabel('Agent').locator('option', { hasText: 'My agent' });
    await option.waitFor({ state: 'attached' });
    assert.equal(await option.isDisabled(), false);
    await page.keyboard.press('Escape');

    await mine.getByRole('button', { name: 'Delete My agent' }).click();
    await mine.waitFor({ state: 'detached' });
  });
});
