/**
 * A worktree's changes in the Review view, in real Chromium against `switchboard serve` with real
 * git (issue 20): an agent started in its own worktree over the control socket (a custom profile
 * whose program is a shell script), its changes listed from the Review list, a hunk discarded (the
 * file on disk changes), the diff following the agent's writes, an edit saved into the worktree,
 * line comments typed into the agent's pane without Enter (and with it, when asked), a merge into
 * the base, and a conflicting merge left untouched, then discarded after the second question.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { ControlClient } from '../../src/cli/controlClient.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, useSharedBrowser } from '../helpers/servedApp.ts';
import { createTempHome } from '../helpers/tempHome.ts';
import { gitIn as git, makeRepo as makeGitRepo } from '../integration/node/workspaces/workspaceTestKit.ts';

const browser = useSharedBrowser();
const screenshots = process.env.SWITCHBOARD_SCREENSHOTS;

const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n') + '\n';

function withLines(text: string, replacements: Record<number, string>): string {
  const lines = text.split('\n');
  for (const [number, replacement] of Object.entries(replacements)) lines[Number(number) - 1] = replacement;
  return lines.join('\n');
}

/** A repository on main: greeting.txt of 20 numbered lines and a short README.md. */
function makeRepo(parent: string, name: string): string {
  return makeGitRepo(parent, name, { 'greeting.txt': numbered(20), 'README.md': '# Repo\n\nAbout it.\n' });
}

/**
 * The app on a temp HOME whose settings have a "Fake agent" profile: a shell script that says it
 * is ready and then echoes each line it reads as `GOT:<line>` (so Enter in its pane shows).
 */
async function openAppWithAgentProfile(t: TestContext, viewport?: { width: number; height: number }) {
  const dirs = createTempHome('sb-e2e-wt-');
  const agent = join(dirs.home, 'fake-agent');
  writeFileSync(agent, ['#!/bin/sh', 'printf "FAKE-AGENT-READY\\n"', 'while IFS= read -r line; do printf "GOT:%s\\n" "$line"; done', ''].join('\n'));
  chmodSync(agent, 0o755);
  mkdirSync(dirs.dataDir, { recursive: true });
  writeFileSync(join(dirs.dataDir, 'settings.json'), JSON.stringify({ agentProfiles: [{ id: 'fake', name: 'Fake agent', command: agent, prompt: { kind: 'none' } }] }));
  const { app, page } = await openFreshApp(browser(), t, { dirs, ...(viewport ? { viewport } : {}) });
  const control = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-orchestrator' });
  t.after(() => control.dispose());
  return { app, page, control };
}

async function startAgent(control: ControlClient, repo: string, branch: string, prompt: string): Promise<{ path: string; terminalId: string }> {
  const started = (await control.request('agent.start', { profile: 'fake', folder: repo, worktree: { branch }, prompt }, { timeoutMs: 30_000 })) as {
    terminalId: string;
    worktree: { path: string };
  };
  await waitForScreen(control, started.terminalId, 'FAKE-AGENT-READY');
  return { path: started.worktree.path, terminalId: started.terminalId };
}

async function screenOf(control: ControlClient, terminalId: string): Promise<string> {
  const screen = (await control.request('readScreen', { terminalId })) as { lines: string[] };
  return screen.lines.join('\n');
}

async function waitForScreen(control: ControlClient, terminalId: string, text: string): Promise<string> {
  return pollUntil(
    async () => {
      const screen = await screenOf(control, terminalId);
      return screen.includes(text) ? screen : undefined;
    },
    { timeoutMs: 15_000, what: `the agent pane to show ${text}` },
  );
}

async function openReview(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Sidebar' }).getByRole('button', { name: 'Review', exact: true }).click();
  await page.getByRole('region', { name: 'Review', exact: true }).waitFor();
}

async function openWorktree(page: Page, name: string) {
  await page.getByRole('region', { name: 'Worktrees' }).getByRole('button', { name: new RegExp(name) }).click();
  const article = page.getByRole('article', { name: `Changes of ${name}` });
  await article.waitFor();
  return article;
}

async function shoot(page: Page, name: string): Promise<void> {
  if (!screenshots) return;
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    // The theme follows the scheme on the next frame.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: join(screenshots, `${name}-${scheme}.png`) });
  }
}

describe('A worktree’s changes in Review', () => {
  it('lists the files, discards a hunk on disk, types comments into the agent’s pane without Enter, and merges into the base', async (t) => {
    const { app, page, control } = await openAppWithAgentProfile(t);
    const repo = makeRepo(app.workspace, 'repo');
    const { path, terminalId } = await startAgent(control, repo, 'fix-greeting', 'Fix the greeting');

    // The agent's work: one commit, then uncommitted edits (two far-apart hunks) and a new file.
    writeFileSync(join(path, 'README.md'), '# Repo\n\nAbout it, better.\n');
    git(path, 'commit', '-q', '-am', 'agent: README');
    writeFileSync(join(path, 'greeting.txt'), withLines(numbered(20), { 2: 'line 2 — changed', 18: 'line 18 — changed' }));
    writeFileSync(join(path, 'new.txt'), 'brand new\n');

    await openReview(page);
    const worktrees = page.getByRole('region', { name: 'Worktrees' });
    await worktrees.getByText('fix-greeting → main').waitFor();
    const article = await openWorktree(page, 'Fix the greeting');
    await article.getByText('1 ahead · 0 behind').waitFor();
    const files = article.getByRole('navigation', { name: 'Changed files' });
    // All three files once the watcher saw the uncommitted ones (the list follows worktree.changed).
    await pollUntil(async () => (await files.locator('[data-file]').count()) === 3, { timeoutMs: 15_000, what: 'three changed files' });
    assert.equal(await files.locator('[data-file="new.txt"] .worktree-uncommitted-mark').count(), 1, 'new.txt is marked uncommitted');
    assert.equal(await files.locator('[data-file="README.md"] .worktree-uncommitted-mark').count(), 0, 'README.md is committed');

    // The committed scope lists only the commit's file.
    await article.getByRole('radio', { name: 'Committed', exact: true }).click();
    await pollUntil(async () => (await files.locator('[data-file]').allInnerTexts()).join('|').includes('README.md') && (await files.locator('[data-file]').count()) === 1, {
      what: 'only README.md in the committed scope',
    });
    await article.getByRole('radio', { name: 'All', exact: true }).click();

    await files.locator('[data-file="greeting.txt"]').click();
    const diff = article.locator('.worktree-file[data-file="greeting.txt"]');
    await diff.locator('.cm-gitHunkHeader').first().waitFor();
    await pollUntil(async () => (await diff.getByRole('button', { name: /^Discard hunk/ }).count()) === 2, { what: 'two hunks to discard' });
    assert.match(await diff.locator('.cm-gitHunkHeader').first().innerText(), /Hunk 1 of 2[\s\S]*@@ -1,5 \+1,5 @@/);
    await shoot(page, 'worktree-changes-1280');

    // Discard the first hunk: line 2 is back on disk, line 18 keeps the agent's change.
    await diff.getByRole('button', { name: 'Discard hunk 1' }).click();
    await pollUntil(() => readFileSync(join(path, 'greeting.txt'), 'utf8') === withLines(numbered(20), { 18: 'line 18 — changed' }), { what: 'hunk 1 undone on disk' });
    await pollUntil(async () => (await diff.getByRole('button', { name: /^Discard hunk/ }).count()) === 1, { what: 'one hunk left in the diff' });

    // Two comments: one from the gutter of line 18, one with the Comment button on another file.
    await clickCommentGutter(page, diff, 'line 18 — changed');
    await page.getByRole('textbox', { name: 'Comment on greeting.txt line 18' }).fill('Use a comma here');
    await page.keyboard.press('Enter');
    await diff.locator('.cm-lineComment', { hasText: 'Use a comma here' }).waitFor();

    await files.locator('[data-file="new.txt"]').click();
    const newFile = article.locator('.worktree-file[data-file="new.txt"]');
    await newFile.locator('.cm-content[aria-label="Working tree contents"]').first().waitFor();
    // The agent writes on while the file is shown: the diff follows (worktree.changed).
    writeFileSync(join(path, 'new.txt'), 'brand new\nsecond line\n');
    await newFile.locator('.cm-content[aria-label="Working tree contents"] .cm-line', { hasText: 'second line' }).waitFor();
    await newFile.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.getByRole('textbox', { name: 'Comment on new.txt line 1' }).fill('Is this file needed?');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await article.getByRole('button', { name: /^2 comments/ }).waitFor();

    // Back to greeting.txt: its comment survived switching files.
    await files.locator('[data-file="greeting.txt"]').click();
    await article.locator('.worktree-file[data-file="greeting.txt"] .cm-lineComment', { hasText: 'Use a comma here' }).waitFor();
    await shoot(page, 'worktree-comments-1280');

    await article.getByRole('button', { name: 'Send comments to agent' }).click();
    await article.getByText(/Sent 2 comments to .* press Enter there/).waitFor();
    const screen = await waitForScreen(control, terminalId, 'Is this file needed?');
    assert.match(screen, /greeting\.txt:18 — Use a comma here/);
    assert.match(screen, /new\.txt:1 — Is this file needed\?/);
    assert.doesNotMatch(screen, /GOT:/, 'nothing was submitted: no Enter');
    await article.getByRole('button', { name: 'No comments' }).waitFor();

    // Edit before keeping: the person changes a line of the working tree side and saves it.
    const proposed = diff.locator('.cm-content[aria-label="Working tree contents"]');
    await proposed.locator('.cm-line', { hasText: 'line 18 — changed' }).click();
    await page.keyboard.press('End');
    await page.keyboard.type(', reviewed');
    await diff.locator('.review-edited-tag').waitFor();
    assert.equal(await diff.getByRole('button', { name: 'Discard hunk 1' }).isDisabled(), true, 'no hunk discard over unsaved edits');
    await diff.getByRole('button', { name: 'Save' }).click();
    await pollUntil(() => readFileSync(join(path, 'greeting.txt'), 'utf8') === withLines(numbered(20), { 18: 'line 18 — changed, reviewed' }), { what: 'the edit saved in the worktree' });
    await pollUntil(async () => (await diff.locator('.review-edited-tag').count()) === 0, { what: 'the diff read again from disk' });

    // "and press Enter": the agent gets the message submitted.
    await clickCommentGutter(page, diff, 'line 18 — changed, reviewed');
    await page.getByRole('textbox', { name: 'Comment on greeting.txt line 18' }).fill('Now submit this one');
    await page.keyboard.press('Enter');
    await article.getByRole('checkbox', { name: 'and press Enter' }).check();
    await article.getByRole('button', { name: 'Send comments to agent' }).click();
    await waitForScreen(control, terminalId, 'GOT:');
    // The first message is still on the agent's input line (it was never submitted), so one line has both; the screen wraps it.
    assert.match((await screenOf(control, terminalId)).replace(/\n/g, ''), /GOT:greeting\.txt:18 — Use a comma here.*greeting\.txt:18 — Now submit this one/);

    // Merge into main with the task as the message of the uncommitted work.
    await article.getByRole('button', { name: 'Merge into main' }).click();
    const form = article.getByRole('form', { name: 'Merge into main' });
    assert.equal(await form.getByRole('textbox').inputValue(), 'Fix the greeting');
    await shoot(page, 'worktree-merge-form-1280');
    await form.getByRole('button', { name: 'Merge into main' }).click();
    const notice = page.locator('.worktree-finish-notice');
    await notice.waitFor();
    assert.match(await notice.innerText(), /Merged fix-greeting into main \(fast-forward to [0-9a-f]{7}\); the worktree and the branch were removed/);
    await page.getByRole('article', { name: 'Changes of Fix the greeting' }).waitFor({ state: 'detached' });
    assert.equal(git(repo, 'log', '-1', '--format=%s', 'main'), 'Fix the greeting');
    assert.equal(readFileSync(join(repo, 'greeting.txt'), 'utf8'), withLines(numbered(20), { 18: 'line 18 — changed, reviewed' }));
    assert.equal(readFileSync(join(repo, 'new.txt'), 'utf8'), 'brand new\nsecond line\n');
    assert.equal(existsSync(path), false, 'the worktree folder is gone');
    assert.equal(git(repo, 'branch', '--list', 'fix-greeting'), '');
    await page.getByRole('region', { name: 'Worktrees' }).waitFor({ state: 'detached' });
  });

  it('a conflicting merge names the files and changes nothing; Discard asks again naming the unmerged commit', async (t) => {
    const { app, page, control } = await openAppWithAgentProfile(t, { width: 1000, height: 700 });
    const repo = makeRepo(app.workspace, 'repo');
    const { path } = await startAgent(control, repo, 'readme-work', 'Rewrite the readme');
    writeFileSync(join(path, 'README.md'), '# Agent version\n');
    git(path, 'commit', '-q', '-am', 'agent: readme');
    writeFileSync(join(repo, 'README.md'), '# Person version\n');
    git(repo, 'commit', '-q', '-am', 'person: readme');
    const mainBefore = git(repo, 'rev-parse', 'main');
    const branchBefore = git(repo, 'rev-parse', 'readme-work');

    await openReview(page);
    let article = await openWorktree(page, 'Rewrite the readme');
    await article.getByText('1 ahead · 1 behind').waitFor();

    // A review that arrives meanwhile does not take the page; picking it does, and the worktree comes back on a click.
    const review = control.request('review.request', { path: join(repo, 'README.md'), newContents: '# Proposed\n', title: 'Another proposal' }, { timeoutMs: 120_000 });
    review.catch(() => {});
    const pendingItem = page.getByRole('region', { name: 'Pending', exact: true }).locator('[data-review-id]', { hasText: 'Another proposal' });
    await pendingItem.waitFor();
    assert.equal(await article.isVisible(), true, 'the worktree page stays while a review arrives');
    await pendingItem.click();
    await page.getByRole('article', { name: 'Review of Another proposal' }).waitFor();
    assert.equal(await page.locator('.worktree-item[aria-current="true"]').count(), 0);
    await page.getByRole('article', { name: 'Review of Another proposal' }).getByRole('button', { name: 'Reject', exact: true }).click();
    assert.equal((await review).decision, 'rejected');
    article = await openWorktree(page, 'Rewrite the readme');

    // Away from Review, a review comes: opening Review shows it, not the worktree looked at last.
    await page.getByRole('button', { name: 'Terminals', exact: true }).click();
    const later = control.request('review.request', { path: join(repo, 'README.md'), newContents: '# Later\n', title: 'A later proposal' }, { timeoutMs: 120_000 });
    later.catch(() => {});
    await page.getByRole('list', { name: 'Waiting for you' }).locator('[data-waiting-kind="review"]').waitFor();
    await openReview(page);
    const laterArticle = page.getByRole('article', { name: 'Review of A later proposal' });
    await laterArticle.waitFor();
    assert.equal(await article.isVisible(), false);
    await laterArticle.getByRole('button', { name: 'Reject', exact: true }).click();
    assert.equal((await later).decision, 'rejected');
    article = await openWorktree(page, 'Rewrite the readme');
    await article.locator('.worktree-file[data-file="README.md"] .cm-gitHunkHeader').first().waitFor();
    await shoot(page, 'worktree-changes-1000');
    await article.getByRole('button', { name: 'Merge into main' }).click();
    await article.getByRole('form', { name: 'Merge into main' }).getByRole('button', { name: 'Merge into main' }).click();
    const problem = article.locator('.worktree-finish-problem');
    await problem.waitFor();
    assert.match(await problem.innerText(), /Merging readme-work into main conflicts[\s\S]*README\.md[\s\S]*Nothing was merged/);
    await shoot(page, 'worktree-conflict-1000');
    assert.equal(git(repo, 'rev-parse', 'main'), mainBefore, 'main did not move');
    assert.equal(git(repo, 'rev-parse', 'readme-work'), branchBefore, 'the branch did not move');
    assert.equal(git(repo, 'status', '--porcelain'), '', 'the main checkout is clean');
    assert.equal(readFileSync(join(path, 'README.md'), 'utf8'), '# Agent version\n');

    // Discard: the Hub refuses without confirm, naming the unmerged commit; the window asks again.
    await article.getByRole('button', { name: 'Discard', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Discard readme-work?' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /1 commit\(s\) not merged into main: [0-9a-f]+ agent: readme/);
    await shoot(page, 'worktree-discard-ask-1000');
    await dialog.getByRole('button', { name: 'Discard anyway' }).click();
    await page.locator('.worktree-finish-notice', { hasText: 'Discarded readme-work' }).waitFor();
    assert.equal(existsSync(path), false);
    assert.equal(git(repo, 'branch', '--list', 'readme-work'), '');
    assert.equal(git(repo, 'rev-parse', 'main'), mainBefore);

    // The "Discarded" line was about that worktree: looking at another one puts it away.
    await startAgent(control, repo, 'other-work', 'Other work');
    await openWorktree(page, 'Other work');
    await page.locator('.worktree-finish-notice').waitFor({ state: 'detached' });
    await shoot(page, 'worktree-other-after-discard-1000');
  });

  it('asks before merging over comments typed into the agent’s prompt and not submitted; a worktree whose folder is gone shows one state, and Keep branch keeps it', async (t) => {
    const { app, page, control } = await openAppWithAgentProfile(t, { width: 1000, height: 700 });
    const repo = makeRepo(app.workspace, 'repo');
    const { path, terminalId } = await startAgent(control, repo, 'typed-work', 'Typed work');
    writeFileSync(join(path, 'new.txt'), 'brand new\n');

    await openReview(page);
    let article = await openWorktree(page, 'Typed work');
    const newFile = article.locator('.worktree-file[data-file="new.txt"]');
    await newFile.waitFor();
    await newFile.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.getByRole('textbox', { name: 'Comment on new.txt line 1' }).fill('Why this file?');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await article.getByRole('button', { name: 'Send comments to agent' }).click();
    await waitForScreen(control, terminalId, 'Why this file?');

    await article.getByRole('button', { name: 'Merge into main' }).click();
    await article.getByRole('form', { name: 'Merge into main' }).getByRole('button', { name: 'Merge into main' }).click();
    const ask = page.getByRole('dialog', { name: 'Merge typed-work and close the agent’s pane?' });
    await ask.waitFor();
    assert.match(await ask.innerText(), /1 comment you sent is typed into its prompt but not submitted; it would be lost/);
    await shoot(page, 'worktree-merge-ask-unsent-1000');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    assert.ok(existsSync(path), 'nothing was merged');

    // Its folder deleted by hand, with a commit on its branch: Review says just that.
    git(path, 'add', '-A');
    git(path, 'commit', '-q', '-m', 'agent: new file');
    git(repo, 'worktree', 'remove', '--force', path);
    await page.reload();
    // The window comes back on Review, where it was.
    await page.getByRole('region', { name: 'Review', exact: true }).waitFor();
    article = await openWorktree(page, 'Typed work');
    const gone = article.locator('.worktree-gone');
    await gone.waitFor();
    assert.match(await gone.innerText(), /folder is gone[\s\S]*Its branch typed-work is still there, with 1 commit not on main/);
    assert.equal(await article.getByText(/ahead · .* behind/).count(), 0, 'no counts of a worktree that is not there');
    assert.equal(await article.getByRole('button', { name: 'Send comments to agent' }).count(), 0);
    assert.equal(await article.getByRole('button', { name: 'Merge into main' }).count(), 0);
    assert.equal(await article.getByRole('alert').count(), 0, 'no error over it');
    await shoot(page, 'worktree-gone-1000');
    await article.getByRole('button', { name: 'Keep branch', exact: true }).click();
    await page.locator('.worktree-finish-notice', { hasText: 'Kept the branch typed-work' }).waitFor();
    assert.equal(git(repo, 'log', '-1', '--format=%s', 'typed-work'), 'agent: new file');
  });
});

/** Click the comment gutter beside the proposed side's line with `text`. */
async function clickCommentGutter(page: Page, diff: ReturnType<Page['locator']>, text: string): Promise<void> {
  const proposed = diff.locator('.cm-content[aria-label="Working tree contents"]');
  const line = proposed.locator('.cm-line', { hasText: text });
  const lineBox = await line.boundingBox();
  const editor = diff.locator('.cm-editor:has(.cm-content[aria-label="Working tree contents"])');
  const gutterBox = await editor.locator('.cm-commentGutter').boundingBox();
  assert.ok(lineBox && gutterBox, 'the line and the comment gutter are on screen');
  await page.mouse.click(gutterBox.x + gutterBox.width / 2, lineBox.y + lineBox.height / 2);
}
