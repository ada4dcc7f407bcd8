/**
 * The card a pane shows while its agent asks ("Claude Code asks: Bash: … Approve Deny"), measured in
 * real Chromium against `switchboard serve` with the Claude Code stand-in: at 1000×700 it hides
 * none of the agent's own dialog (the question, its options, "Esc to cancel · Tab to amend" at the
 * bottom of the screen), it does not resize the terminal (the agent would redraw the prompt the
 * Hub reads), and it stays clear of the search bar. For a person to look at:
 * SWITCHBOARD_SCREENSHOTS=/tmp/some/dir node --test test/e2e/agentPromptCard.test.ts
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, transitionsDone, typeInPane, useSharedBrowser, waitForPaneText } from '../helpers/servedApp.ts';
import { installStandInClaude } from '../helpers/standInClaude.ts';

const browser = useSharedBrowser();
const shots = process.env.SWITCHBOARD_SCREENSHOTS;

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** The pane's screen rows (DOM renderer) with their text and where each row's text is drawn. */
function screenRows(page: Page, terminalId: string): Promise<Array<{ text: string; box: Box }>> {
  return page.evaluate((id) => {
    const rows = [...document.querySelectorAll(`[data-terminal-id="${id}"] .xterm-rows > div`)];
    return rows.map((row) => {
      const range = document.createRange();
      range.selectNodeContents(row);
      const text = range.getBoundingClientRect();
      const line = row.getBoundingClientRect();
      return { text: row.textContent ?? '', box: { top: line.top, bottom: line.bottom, left: text.left, right: text.right } };
    });
  }, terminalId);
}

function overlaps(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

async function boxOf(page: Page, selector: string): Promise<Box> {
  const box = await page.locator(selector).boundingBox();
  assert.ok(box, `${selector} is shown`);
  return { top: box.y, bottom: box.y + box.height, left: box.x, right: box.x + box.width };
}

describe('an agent’s prompt card', () => {
  it('at 1000×700 leaves the agent’s dialog in view, keeps the terminal’s size and stays clear of the search bar', async (t) => {
    const { app, page, firstPane: pane } = await openFreshApp(browser(), t, { viewport: { width: 1000, height: 700 } });
    const bin = installStandInClaude(app.home);
    await waitForPaneText(page, pane, '$');
    await typeInPane(page, pane, join(bin, 'claude'));
    await waitForPaneText(page, pane, 'Claude Code (stand-in for tests)');
    // Once the Hub knows the agent, the pane's header shows it (and the terminal refits once, under it).
    await page.locator(`[data-terminal-id="${pane}"] .agent-state-line[data-agent-state="idle"]`).waitFor({ timeout: 15_000 });
    await transitionsDone(page);
    await pollUntil(async () => {
      const count = (await screenRows(page, pane)).length;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return count === (await screenRows(page, pane)).length;
    }, { what: 'the terminal settled at its size' });
    const rowsBefore = (await screenRows(page, pane)).length;
    assert.ok(rowsBefore > 0, 'the pane draws its rows in the DOM');

    await typeInPane(page, pane, 'run npm test -- --watch=false');
    const card = `[data-terminal-id="${pane}"] .agent-prompt-banner`;
    await page.locator(card).waitFor({ timeout: 15_000 });
    await waitForPaneText(page, pane, 'Esc to cancel');
    await transitionsDone(page);
    if (shots) await page.screenshot({ path: join(shots, 'agent-prompt-card-1000x700.png') });

    const cardBox = await boxOf(page, card);
    const rows = await screenRows(page, pane);
    assert.equal(rows.length, rowsBefore, 'the card takes no rows from the terminal (no resize of the agent’s PTY)');
    const first = rows.findIndex((row) => row.text.includes('Bash command'));
    const last = rows.findIndex((row) => row.text.includes('Esc to cancel'));
    assert.ok(first >= 0 && last > first, `the dialog is on screen (${first}..${last})`);
    const hidden = rows.slice(first, last + 1).filter((row) => row.text.trim() !== '' && overlaps(row.box, cardBox));
    assert.deepEqual(
      hidden.map((row) => row.text.trim()),
      [],
      'no line of the agent’s dialog is under the card',
    );
    // What is drawn where "Esc to cancel" is: the terminal, not the card.
    const footer = rows[last]!.box;
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('.agent-prompt-banner, .xterm')?.className ?? '', [(footer.left + footer.right) / 2, (footer.top + footer.bottom) / 2]);
    assert.match(hit, /xterm/, 'the dialog’s footer is not covered');

    // The search bar opened while it asks: the card goes under it, both in full view.
    await page.keyboard.press('Control+Shift+F');
    const search = `[data-terminal-id="${pane}"] .search-bar`;
    await page.locator(search).waitFor();
    await pollUntil(async () => !overlaps(await boxOf(page, search), await boxOf(page, card)), { what: 'the card clear of the search bar' });
    if (shots) {
      await transitionsDone(page);
      await page.screenshot({ path: join(shots, 'agent-prompt-card-search-1000x700.png') });
    }
    await page.keyboard.press('Escape');
    await page.locator(search).waitFor({ state: 'detached' });

    await page.locator(card).getByRole('button', { name: 'Approve' }).click();
    await page.locator(card).waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal((await screenRows(page, pane)).length, rowsBefore);
  });
});
