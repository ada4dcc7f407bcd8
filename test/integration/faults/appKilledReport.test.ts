/**
 * Fault: the app is killed (`kill -9`) — what the person sees on the next start, in real Chromium
 * against a real `switchboard serve`. The first run records a pane the person typed into and is
 * SIGKILLed (its pid from serve.json); the second run, on the same HOME and data dir, says in the
 * History view that the last run stopped while recording (a dismissible notice, once), and the
 * session it closed carries the "interrupted" pill. (The bytes kept and lost:
 * appKilled.test.ts.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isProcessAlive } from '../../../src/node/processAlive.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { newPage, openApp, startServedApp, typeInPane, useSharedBrowser, waitForPaneText } from '../../helpers/servedApp.ts';

const browser = useSharedBrowser();

describe('fault: the app is killed — the next start tells the person', () => {
  it('shows a notice in History and marks the session interrupted; dismissed, the notice stays away', async (t) => {
    const first = await startServedApp();
    let second: Awaited<ReturnType<typeof startServedApp>> | undefined;
    t.after(async () => {
      await second?.stop({ keepFiles: true });
      await first.stop();
    });
    const page = await newPage(t, browser());
    const pane = await openApp(page, first.url);
    await typeInPane(page, pane, 'echo before-the-crash-$((6*7))');
    await waitForPaneText(page, pane, 'before-the-crash-42');
    // Recorded: History lists it, live.
    await page.getByRole('button', { name: 'History', exact: true }).click();
    const view = page.getByRole('region', { name: 'History' });
    await view.locator('table[aria-label="Sessions"] .history-exit[data-kind="live"]').first().waitFor();

    const { pid } = JSON.parse(readFileSync(join(first.dataDir, 'serve.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
    await pollUntil(() => !isProcessAlive(pid), { what: 'the app to be gone' });

    second = await startServedApp({ dirs: first.dirs });
    const again = await newPage(t, browser());
    await openApp(again, second.url);
    await again.getByRole('button', { name: 'History', exact: true }).locator('.history-nav-dot[data-severity="info"]').waitFor();
    await again.getByRole('button', { name: 'History', exact: true }).click();
    const history = again.getByRole('region', { name: 'History' });
    const notice = history.locator('.history-banner[data-recording="interrupted"]');
    await notice.waitFor();
    assert.match(await notice.innerText(), /Switchboard stopped without closing a terminal session it was recording \(it crashed or was killed\)/);
    const pill = history.locator('table[aria-label="Sessions"] .history-exit', { hasText: 'interrupted' });
    await pill.first().waitFor();
    assert.match((await pill.first().getAttribute('title')) ?? '', /crashed or was killed/);

    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
    await again.reload();
    await again.getByRole('region', { name: 'History' }).locator('table[aria-label="Sessions"]').waitFor();
    assert.equal(await again.locator('.history-banner[data-recording="interrupted"]').count(), 0, 'once: not again after a reload');
  });
});
