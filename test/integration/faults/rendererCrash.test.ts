/**
 * Fault: the renderer crashes (Chromium's renderer process killed through CDP `Page.crash`) while a
 * pane floods, in real Chromium against a real `switchboard serve`. The tab is then loaded again,
 * as the person (browser mode) or the window (Electron: main/windowBridge.ts reloads a crashed
 * window by itself) does.
 *
 * Checked: the crashed page's connection goes away without stalling anything — the flood, whose
 * PTY the unacknowledged output of the dead page would otherwise pause (flow control), finishes;
 * the reloaded page gets the same panes back with their screens (both panes, the flooded one
 * showing the flood's end), and the shells are live. A plain reload is
 * test/e2e/terminalPanes.test.ts › "restores the same panes and screens after a page reload".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pollUntil } from '../../helpers/poll.ts';
import { newPage, openFreshApp, readPane, typeInPane, useSharedBrowser, waitForLayoutSaved, waitForPanes, waitForPaneText } from '../../helpers/servedApp.ts';

const browser = useSharedBrowser();

describe('fault: the renderer crashes', () => {
  it('brings the panes back with their screens after a crash mid-flood, and the flood is not stalled by the dead page', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);
    await page.getByRole('button', { name: 'Split down', exact: true }).click();
    const ids = await waitForPanes(page, 2);
    const quiet = ids[1]!;
    await typeInPane(page, quiet, 'echo quiet-$((3*3))');
    await waitForPaneText(page, quiet, /quiet-9\n\$/);
    await waitForLayoutSaved(page);

    // About 2 MB, twenty times the Hub's pause threshold: it only finishes if the dead page's debt is dropped.
    await typeInPane(page, firstPane, 'seq -f "flood line %g" 1 60000; echo flood-$((40+2))-done');
    await waitForPaneText(page, firstPane, 'flood line');
    const crashed = new Promise<void>((resolve) => page.once('crash', () => resolve()));
    const cdp = await page.context().newCDPSession(page);
    // Page.crash never answers: the renderer is gone before it could.
    void cdp.send('Page.crash').catch(() => {});
    await crashed;

    // The person loads the tab again (a crashed tab cannot be reloaded in place by Playwright: a new one, same session cookie).
    const again = await newPage(t, browser());
    await again.context().addCookies(await page.context().cookies());
    await again.goto(app.url);
    const restored = await waitForPanes(again, 2);
    assert.deepEqual(restored, ids, 'the same terminals in the same places');
    await waitForPaneText(again, firstPane, 'flood-42-done', 60_000);
    await pollUntil(async () => /quiet-9\n\$/.test((await readPane(again, quiet)) ?? ''), { what: 'the quiet pane’s screen back' });
    for (const [index, id] of ids.entries()) {
      await typeInPane(again, id, `echo alive-$((${index}+10))`);
      await waitForPaneText(again, id, `alive-${index + 10}`);
    }
  });
});
