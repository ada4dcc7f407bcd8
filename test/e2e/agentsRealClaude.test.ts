/**
 * The real Claude Code CLI typed by hand into a pane of the app in real Chromium, against a
 * scripted model on loopback (test/helpers/scriptedClaudeModel.ts): the sidebar follows it, its
 * first-run question is answered with the banner's option buttons, its Bash permission prompt
 * shows in "Waiting for you" with the command and is approved from there, and quitting shows
 * `exited 0`. Runs when SWITCHBOARD_CLAUDE_BIN points at a claude binary (CI has none; see
 * test/fixtures/agents/claude-code/README.md for installing one into a scratch folder).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createTempHome } from '../helpers/tempHome.ts';
import { pollUntil } from '../helpers/poll.ts';
import { startScriptedModel, claudeCliEnv } from '../helpers/scriptedClaudeModel.ts';
import { openFreshApp, useSharedBrowser, waitForPaneText } from '../helpers/servedApp.ts';

const claudeBin = process.env.SWITCHBOARD_CLAUDE_BIN;
const skip = claudeBin ? false : 'SWITCHBOARD_CLAUDE_BIN is not set: no real Claude Code CLI to run';
const browser = useSharedBrowser();

/** Types a line as a person does: Claude Code takes an Enter right after fast text as part of a paste. */
async function typeLine(page: Page, terminalId: string, line: string): Promise<void> {
  await page.locator(`[data-terminal-id="${terminalId}"] .pane-body`).click();
  await page.keyboard.type(line);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await page.keyboard.press('Enter');
}

describe('the real Claude Code in the UI', { skip }, () => {
  it('follows it in the sidebar, answers its question and its permission prompt from the UI, and shows its exit', async (t) => {
    const model = await startScriptedModel({
      delayMs: 1000,
      script: { 'please make the marker': [{ name: 'Bash', input: { command: 'touch marker.txt', description: 'Create the marker file' } }] },
    });
    t.after(() => model.close());
    const scratch = createTempHome('sb-e2e-claude-');
    t.after(() => scratch.dispose());
    const config = join(scratch.home, 'claude-config');
    mkdirSync(config, { recursive: true });
    const apiKey = 'sk-ant-api03-' + 'x'.repeat(80);
    const { app, page, firstPane } = await openFreshApp(browser(), t, {
      env: {
        PATH: `${dirname(claudeBin!)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        ...claudeCliEnv({ config, modelUrl: model.url, apiKey }),
      },
    });
    // Onboarded and trusting the workspace; "default" asks before each tool call.
    writeFileSync(
      join(config, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, projects: { [app.workspace]: { hasTrustDialogAccepted: true } }, customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] } }),
    );
    writeFileSync(join(config, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }));

    const item = page.locator(`[data-terminal-item="${firstPane}"]`);
    const line = item.locator('.agent-state-line');
    await waitForPaneText(page, firstPane, '$');
    await typeLine(page, firstPane, 'claude');
    await line.waitFor({ timeout: 30_000 });
    assert.match(await line.innerText(), /Claude Code/);

    // A first run may ask which permission mode to keep: its options are buttons on the banner.
    const banner = page.locator(`[data-terminal-id="${firstPane}"]`).getByRole('group', { name: 'Claude Code asks' });
    // It draws its input box before the question: settled means asking, or idle for a few seconds.
    const settledIdle = async () =>
      (await line.getAttribute('data-agent-state')) === 'idle' && /\b([3-9]|\d\d+) s\b|min/.test(await line.locator('.agent-elapsed').innerText());
    await pollUntil(async () => (await banner.count()) > 0 || (await settledIdle()), { timeoutMs: 30_000, what: 'Claude Code settled at its input box or asking' });
    if ((await banner.count()) > 0) {
      t.diagnostic(`first-run question: ${(await banner.innerText()).replace(/\s+/g, ' ')}`);
      if (process.env.SWITCHBOARD_SCREENSHOTS) await page.screenshot({ path: join(process.env.SWITCHBOARD_SCREENSHOTS, 'agent-question.png') });
      await banner.getByRole('button', { name: /keep manual mode/i }).click();
    }
    await pollUntil(async () => (await line.getAttribute('data-agent-state')) === 'idle', { timeoutMs: 30_000, what: 'Claude Code idle' });

    await typeLine(page, firstPane, 'please make the marker');
    const row = page.getByRole('list', { name: 'Waiting for you' }).locator(`[data-waiting-terminal="${firstPane}"][data-agent-state="needs-input"]`);
    await row.waitFor({ timeout: 30_000 });
    assert.match(await row.innerText(), /Bash: touch marker\.txt/);
    await row.getByRole('button', { name: 'Approve' }).click();
    await pollUntil(() => existsSync(join(app.workspace, 'marker.txt')), { timeoutMs: 20_000, what: 'marker.txt made by the approved command' });
    await pollUntil(async () => (await line.getAttribute('data-agent-state')) === 'idle', { timeoutMs: 30_000, what: 'idle after the turn' });

    await typeLine(page, firstPane, '/exit');
    await pollUntil(async () => /exited 0/.test(await line.innerText().catch(() => '')), { timeoutMs: 20_000, what: 'exited 0 in the sidebar' });
  });
});
