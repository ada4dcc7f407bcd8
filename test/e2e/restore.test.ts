/**
 * Restore after restart in browser mode: stop `switchboard serve`, start it again on the same HOME
 * and data dir, and the window comes back — same splits, each pane marked "restored" with the last
 * screen of its previous session above a fresh shell in the same folder.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ControlClient } from '../../src/cli/controlClient.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  openFreshApp,
  paneIds,
  readHistoryViewer,
  startServedApp,
  typeInPane,
  useSharedBrowser,
  waitForLayoutSaved,
  waitForPanes,
  waitForPaneText,
} from '../helpers/servedApp.ts';

describe('restore after restart (browser mode)', () => {
  const browser = useSharedBrowser();

  it('brings back the splits, the folders and the last screens, marked restored', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);
    mkdirSync(join(app.workspace, 'sub dir'));
    await typeInPane(page, firstPane, 'cd "sub dir" && echo "before-restart-$((6*7))"');
    await waitForPaneText(page, firstPane, 'before-restart-42');
    await page.getByRole('button', { name: 'Split right', exact: true }).click();
    const [, secondPane] = await waitForPanes(page, 2);
    await typeInPane(page, secondPane!, 'echo "right-side-$((7*7))"');
    await waitForPaneText(page, secondPane!, 'right-side-49');
    await waitForLayoutSaved(page);
    await page.context().close();
    await app.stop({ keepFiles: true });

    const again = await startServedApp({ dirs: app.dirs });
    t.after(() => again.stop());
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    t.after(() => context.close());
    const restoredPage = await context.newPage();
    await restoredPage.goto(again.url);
    const [left, right] = await waitForPanes(restoredPage, 2);
    assert.equal((await paneIds(restoredPage)).length, 2, 'both panes of the split came back, and no more');
    assert.ok(left !== firstPane && right !== secondPane, 'fresh terminals');
    await waitForPaneText(restoredPage, left!, 'before-restart-42');
    await waitForPaneText(restoredPage, right!, 'right-side-49');
    await waitForPaneText(restoredPage, left!, /restored · ended/);
    assert.equal(await restoredPage.locator('.pane-restored').count(), 2, 'each pane is marked restored');

    // A working shell, in the folder the pane was in.
    await typeInPane(restoredPage, left!, 'echo "now-in-$(basename "$PWD")"');
    await waitForPaneText(restoredPage, left!, 'now-in-sub dir');
    // For a person to look at: SWITCHBOARD_SCREENSHOTS=/some/dir node --test test/e2e/restore.test.ts
    const shots = process.env.SWITCHBOARD_SCREENSHOTS;
    if (shots) await restoredPage.screenshot({ path: join(shots, 'restored.png') });

    // The badge opens the previous session in History.
    await restoredPage.locator(`[data-terminal-id="${left}"] .pane-restored`).click();
    await pollUntil(async () => (await readHistoryViewer(restoredPage))?.includes('before-restart-42'), { what: 'the previous session in History' });
    if (shots) await restoredPage.screenshot({ path: join(shots, 'restored-history.png') });
  });
  it('keeps "don\'t record" and the agents\' activity across a restart, and shows both', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);
    // "Don't record this terminal" → "Delete and stop recording", as a person does it.
    const toggle = page.getByRole('button', { name: "Don't record this terminal" });
    await pollUntil(async () => (await toggle.getAttribute('aria-pressed')) === 'false', { what: 'the record toggle' });
    await toggle.click();
    await page.getByRole('dialog', { name: "Don't record this terminal?" }).getByRole('button', { name: 'Delete and stop recording' }).click();
    await pollUntil(async () => (await toggle.getAttribute('aria-pressed')) === 'true', { what: 'the pane to be marked "don\'t record"' });
    // An agent works in the pane: the Activity view lists it.
    const agent = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
    t.after(() => agent.dispose());
    await agent.send(firstPane, { text: 'echo "agent-was-here-$((2*21))"' });
    await waitForPaneText(page, firstPane, 'agent-was-here-42');
    agent.dispose();
    await page.getByRole('button', { name: 'Activity', exact: true }).click();
    const rowsBefore = await pollUntil(async () => {
      const cells = await activityRows(page);
      return cells.length === 1 ? cells : undefined;
    }, { what: 'the agent\'s send in the Activity view' });
    await waitForLayoutSaved(page);
    await page.context().close();
    await app.stop({ keepFiles: true }); // Ctrl-C

    const again = await startServedApp({ dirs: app.dirs });
    t.after(() => again.stop());
    const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    t.after(() => context.close());
    const restoredPage = await context.newPage();
    await restoredPage.goto(again.url);
    const [pane] = await waitForPanes(restoredPage, 1);
    await waitForPaneText(restoredPage, pane!, 'not recorded in History');
    // The tab's record button and the tab's mark say it, as before the restart.
    const restoredToggle = restoredPage.getByRole('button', { name: "Don't record this terminal" });
    await pollUntil(async () => (await restoredToggle.getAttribute('aria-pressed')) === 'true', { what: 'the restored pane to be marked "don\'t record"' });
    assert.match((await restoredToggle.getAttribute('title')) ?? '', /^Not recorded in History/);
    await restoredPage.locator('.tab[data-active="true"] .not-recorded-mark').waitFor();
    const shots = process.env.SWITCHBOARD_SCREENSHOTS;
    if (shots) await restoredPage.screenshot({ path: join(shots, 'restored-not-recorded.png') });
    // The Activity view still lists what the agent did, attached to the pane that came back.
    await restoredPage.getByRole('button', { name: 'Activity', exact: true }).click();
    const rowsAfter = await pollUntil(async () => {
      const cells = await activityRows(restoredPage);
      return cells.length === rowsBefore.length ? cells : undefined;
    }, { what: 'the activity of before the restart' });
    assert.deepEqual(rowsAfter, rowsBefore);
    await restoredPage.locator('.activity-terminal').getByRole('button', { name: rowsBefore[0]![2]! }).waitFor();
    if (shots) await restoredPage.screenshot({ path: join(shots, 'restored-activity.png') });
  });
});

/** The Activity view's rows: agent, action, terminal, details. */
async function activityRows(page: Page): Promise<string[][]> {
  const rows = page.getByRole('region', { name: 'Activity' }).locator('tbody tr[data-audit-seq]');
  return await rows.evaluateAll((elements) => elements.map((row) => [...row.querySelectorAll('td')].slice(1).map((cell) => (cell.textContent ?? '').trim())));
}
