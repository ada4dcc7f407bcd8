/**
 * Agents back after a restart (issue 20), in real Chromium against a real `switchboard serve`
 * stopped with Ctrl-C and started again on the same data: an agent whose profile can resume comes
 * back with its resume command in its worktree, labelled "resumed"; one whose profile cannot shows
 * its last screen with a line that says so and Start again, which starts it afresh (with its task
 * if asked) in the same place of the layout. The agents are fake CLIs (shell scripts printing
 * their argv); the real Claude Code resuming its conversation is covered in
 * test/integration/node/workspaces/agentRealClaude.test.ts.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { makeRepo } from '../integration/node/workspaces/workspaceTestKit.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, paneIds, readPane, shootEverySize, startServedApp, useSharedBrowser, waitForLayoutSaved, waitForPanes, waitForPaneText } from '../helpers/servedApp.ts';
import { createTempHome } from '../helpers/tempHome.ts';

const browser = useSharedBrowser();

/** Starts an agent from the New agent dialog (in a worktree named after the task); returns its pane. */
async function startFromDialog(page: Page, profileName: string, repo: string, task: string): Promise<string> {
  const before = new Set(await paneIds(page));
  await page.keyboard.press('Control+Shift+A');
  const dialog = page.getByRole('dialog', { name: 'New agent' });
  const select = dialog.getByLabel('Agent');
  await select.locator('option', { hasText: profileName }).waitFor({ state: 'attached' });
  await select.selectOption({ label: profileName });
  await dialog.getByLabel('Repository or folder').fill(repo);
  await dialog.getByLabel(/^Task/).fill(task);
  await pollUntil(async () => (await dialog.getByLabel(/^Branch/).isVisible()) && (await dialog.getByLabel(/^Branch/).inputValue()) !== '', { what: 'the branch', timeoutMs: 10_000 });
  await dialog.getByRole('button', { name: 'Start agent' }).click();
  await dialog.waitFor({ state: 'detached', timeout: 20_000 });
  const pane = await pollUntil(async () => (await paneIds(page)).find((id) => !before.has(id)), { what: 'the agent pane' });
  await waitForPaneText(page, pane, 'AGENT-UP');
  return pane;
}

describe('agents back after a restart', () => {
  it('resumes an agent whose profile can, and offers Start again for one that cannot, in its place', async (t) => {
    const dirs = createTempHome('sb-e2e-agent-restore-');
    const repo = makeRepo(join(dirs.workspace, '..'), 'app');
    const agent = join(dirs.home, 'fake-agent');
    writeFileSync(agent, ['#!/bin/sh', 'printf "ARGV:"', 'for arg in "$@"; do printf "[%s]" "$arg"; done', 'printf "\\nAGENT-UP\\n"', 'while IFS= read -r line; do :; done', ''].join('\n'));
    chmodSync(agent, 0o755);
    mkdirSync(dirs.dataDir, { recursive: true });
    writeFileSync(
      join(dirs.dataDir, 'settings.json'),
      JSON.stringify({
        agentProfiles: [
          { id: 'keeps', name: 'Keeps', command: agent, prompt: { kind: 'argument' }, resume: { kind: 'args', resumeArgs: ['--continue'] } },
          { id: 'once', name: 'Once', command: agent, prompt: { kind: 'argument' }, resume: { kind: 'none' } },
        ],
      }),
    );
    t.after(() => dirs.dispose());
    const { app, page } = await openFreshApp(browser(), t, { dirs, env: { PATH: '/usr/bin:/bin' } });
    const keeps = await startFromDialog(page, 'Keeps', repo, 'Tidy the docs');
    await waitForPaneText(page, keeps, 'ARGV:[Tidy the docs]');
    const once = await startFromDialog(page, 'Once', repo, 'Fix the tests');
    await waitForPaneText(page, once, 'ARGV:[Fix the tests]');
    await waitForLayoutSaved(page);
    await page.context().close();
    await app.stop({ keepFiles: true }); // Ctrl-C

    const again = await startServedApp({ dirs, env: { PATH: '/usr/bin:/bin' } });
    t.after(() => again.stop());
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    t.after(() => context.close());
    const restored = await context.newPage();
    await restored.goto(again.url);
    const panes = await waitForPanes(restored, 3);
    const paneOf = async (text: string) => pollUntil(async () => {
      for (const id of await paneIds(restored)) if (((await readPane(restored, id)) ?? '').includes(text)) return id;
      return undefined;
    }, { what: `the pane that showed ${text}` });

    // The resumable one: its resume command, in its worktree, under its last screen, marked resumed.
    const resumed = await paneOf('ARGV:[Tidy the docs]');
    await waitForPaneText(restored, resumed, 'ARGV:[--continue]');
    // (Each agent has a tab of its own: show this one.)
    await restored.locator(`[data-terminal-item="${resumed}"] .terminal-item-main`).click();
    await restored.locator(`[data-terminal-id="${resumed}"] .pane-resumed`).waitFor();
    await shootEverySize(restored, 'agent-resumed');

    // The other: a shell under its last screen, a line saying why, and Start again.
    const notResumed = await paneOf('ARGV:[Fix the tests]');
    await restored.locator(`[data-terminal-item="${notResumed}"] .terminal-item-main`).click();
    const notice = restored.locator(`[data-terminal-id="${notResumed}"] .agent-pane-notice`);
    await notice.waitFor();
    assert.match(await notice.innerText(), /^Once was not resumed: Once cannot be resumed\. This is a shell in .*app-worktrees\/fix-the-tests\./);
    await shootEverySize(restored, 'agent-not-resumed');
    const tabOf = (id: string) => restored.locator(`[data-terminal-id="${id}"]`).evaluate((pane) => pane.closest('[data-tab-id]')?.getAttribute('data-tab-id') ?? null);
    const tabBefore = await tabOf(notResumed);
    await notice.getByRole('button', { name: 'Start again with its task' }).click();
    const started = await pollUntil(async () => (await paneIds(restored)).find((id) => !panes.includes(id)), { what: 'the new agent pane' });
    await waitForPaneText(restored, started, 'ARGV:[Fix the tests]');
    assert.equal((await paneIds(restored)).includes(notResumed), false, 'the old pane is gone');
    assert.equal((await paneIds(restored)).length, 3, 'replaced, not added');
    assert.equal(await tabOf(started), tabBefore, 'in the same place');
    assert.equal(await restored.locator(`[data-terminal-id="${started}"] .agent-pane-notice`).count(), 0);
  });
});
