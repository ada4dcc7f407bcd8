/**
 * Restore after restart in browser mode: stop `switchboard serve`, start it again on the same HOME
 * and data dir, and the window comes back — same splits, each pane marked "restored" with the last
 * screen of its previous session above a fresh shell in the same folder.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
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
});
