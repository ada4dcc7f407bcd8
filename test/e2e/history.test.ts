/**
 * The History browser in real Chromium against `switchboard serve` with a real history database:
 * a closed session is found by a word it printed (highlighted in the snippet), opened at the
 * match, replayed to the end at 16× to the same screen the pane showed, exported as asciicast
 * and text, imported back and deleted; a past command runs again in a new terminal (typed, not
 * run); a session is referenced in a running terminal; a terminal marked "don't record" leaves
 * nothing; a paused recorder and a moved-aside database are announced.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { HistoryConstants } from '../../src/node/history/historyConstants.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  openFreshApp,
  readHistoryViewer,
  readPane,
  typeInPane,
  useSharedBrowser,
  waitForPaneText,
  waitForPanes,
} from '../helpers/servedApp.ts';
import { createTempHome } from '../helpers/tempHome.ts';

const browser = useSharedBrowser();

/** Screen text without trailing blanks on each line and without blank lines at the bottom. */
function normalizeScreen(screen: string | null): string {
  return (screen ?? '')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trimEnd();
}

/** Waits until the pane's last non-blank line is a bare prompt (the shell is idle again). */
async function waitForIdlePrompt(page: Page, terminalId: string, after: string): Promise<string> {
  return pollUntil(
    async () => {
      const screen = normalizeScreen(await readPane(page, terminalId));
      return screen.includes(after) && screen.endsWith('\n$') ? screen : undefined;
    },
    { timeoutMs: 15_000, what: `an idle prompt after "${after}" in ${terminalId}` },
  );
}

/**
 * Searches History until `word` has an output hit. The full-text index is fed off the hot path
 * (after output has been quiet a moment), so a word printed a moment ago may not be searchable
 * at the first try; the search is typed again until it is. Each try clears the box and waits
 * for the results to go (the list is back) before typing the word: the same query typed again
 * within the search debounce would keep the first results instead of searching anew.
 */
async function searchUntilFound(view: Locator, word: string): Promise<Locator> {
  const box = view.getByRole('searchbox', { name: 'Search history' });
  const hit = view.locator('.history-hit[data-source="output"]').first();
  const anyResults = view.locator(
    '.history-hits, .history-status-line:has-text("Searching…"), .history-status-line:has-text("Nothing found"), .history-status-line:has-text("Search failed")',
  );
  const settledResults = view.locator('.history-hits, .history-status-line:has-text("Nothing found")');
  await pollUntil(
    async () => {
      await box.fill('');
      await anyResults.first().waitFor({ state: 'detached' });
      await box.fill(word);
      await settledResults.first().waitFor();
      return (await hit.count()) > 0;
    },
    { timeoutMs: 30_000, intervalMs: 200, what: `an output hit for ${word}` },
  );
  return hit;
}

async function openHistory(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'History', exact: true }).click();
  const view = page.getByRole('region', { name: 'History' });
  await view.waitFor();
  return view;
}

describe('History in the UI', () => {
  it('finds a closed session by a word it printed, replays it to the same screen, exports, imports and deletes it', async (t) => {
    const { page, firstPane } = await openFreshApp(browser(), t);
    const unique = `zebra${Date.now().toString(36)}`;
    // More lines after the word than the pane has rows: the match ends up in the scrollback, so
    // opening the session at it has to scroll there.
    await typeInPane(page, firstPane, `echo "found-$((6*7))-${unique}"; seq 1000 1150; false`);
    await waitForIdlePrompt(page, firstPane, '1150');
    // UTF-8 written as octal escapes: the command line stays ASCII, the output has é and ✓.
    await typeInPane(page, firstPane, `printf '\\e[32mgreen\\e[0m \\303\\251 \\342\\234\\223\\n'; echo tail-line`);
    await waitForIdlePrompt(page, firstPane, 'tail-line');
    // End the shell (Ctrl+D) before reading the screen to compare with: a shell killed by closing
    // its pane may print a last line break after the screen was read, and on a full screen that
    // scrolls the recording's last screen by a line.
    await page.keyboard.press('Control+D');
    await page.locator(`[data-terminal-id="${firstPane}"] .exit-banner`).waitFor({ timeout: 15_000 });
    // bash says "exit" as it goes: the screen is complete once that is on it.
    const liveScreen = await pollUntil(
      async () => {
        const screen = normalizeScreen(await readPane(page, firstPane));
        return screen.endsWith('\n$\nexit') ? screen : undefined;
      },
      { timeoutMs: 15_000, what: 'the shell to say "exit"' },
    );
    assert.ok(liveScreen.includes('green é ✓') && liveScreen.includes('tail-line'), liveScreen);

    // Close the pane: its session stays in History.
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.getByRole('button', { name: 'Close terminal' }).click();
    await pollUntil(async () => (await page.locator(`[data-terminal-id="${firstPane}"]`).count()) === 0, { what: 'the pane to close' });

    const view = await openHistory(page);
    const sessionRows = view.locator('table[aria-label="Sessions"] tbody tr');
    await sessionRows.first().waitFor();

    // Full-text search: the hit's snippet marks the word (as a <mark> element, not HTML from the store).
    const hit = await searchUntilFound(view, unique);
    assert.match(await hit.locator('mark').first().innerText(), new RegExp(unique));
    // For a person to look at: SWITCHBOARD_SCREENSHOTS=/some/dir node --test test/e2e/history.test.ts
    const shots = process.env.SWITCHBOARD_SCREENSHOTS;
    if (shots) await page.screenshot({ path: join(shots, 'history-search.png') });

    // From the keyboard: ↓ from the search box to the first result, Enter opens the session at the match.
    await view.getByRole('searchbox', { name: 'Search history' }).focus();
    await page.keyboard.press('ArrowDown');
    await pollUntil(() => hit.evaluate((element) => element === document.activeElement), { what: 'the first hit to take focus' });
    await page.keyboard.press('Enter');
    const viewer = view.locator('.history-viewer[data-session-id]');
    await viewer.waitFor();
    const controls = viewer.getByRole('group', { name: 'Replay' });
    await controls.waitFor();
    // Opened at the match: the word is highlighted on a line in view (xterm displays a search
    // decoration only while its line is in the viewport; the match is far up the scrollback,
    // so the view has scrolled to it), and the "match not on screen" notice is not shown.
    const highlightInView = viewer.locator('.transcript-host .xterm-find-result-decoration:visible').first();
    await highlightInView.waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(await viewer.locator('[data-notice="match-off-screen"]').count(), 0);
    assert.ok(
      !normalizeScreen(await readHistoryViewer(page)).includes(unique),
      'the word is not on the bottom screen, so a highlight in view means the view scrolled to it',
    );
    await pollUntil(async () => normalizeScreen(await readHistoryViewer(page)) === liveScreen, {
      timeoutMs: 15_000,
      what: 'the whole transcript to be shown',
    });
    assert.equal(await controls.getAttribute('data-replay-state'), 'ended');

    // Back to the very start: nothing of the session's commands is on screen yet.
    await viewer.getByRole('slider', { name: 'Replay position' }).focus();
    await page.keyboard.press('Home');
    await pollUntil(async () => !normalizeScreen(await readHistoryViewer(page)).includes('tail-line'), { what: 'the screen to go back to the start' });
    assert.equal(await controls.getAttribute('data-replay-state'), 'paused');

    // Replay to the end at 16× (Space plays, also with the transcript focused): the same screen the pane had.
    await viewer.getByRole('radio', { name: '16×' }).click();
    await viewer.locator('.transcript-host').click();
    await page.keyboard.press('Space');
    await pollUntil(async () => (await controls.getAttribute('data-replay-state')) === 'ended', { timeoutMs: 30_000, what: 'the replay to end' });
    await pollUntil(async () => normalizeScreen(await readHistoryViewer(page)) === liveScreen, {
      timeoutMs: 15_000,
      what: 'the replayed screen to match the pane',
    });
    // One mark per command, coloured by exit code: `…; false` failed, the printf line succeeded.
    assert.deepEqual(await viewer.locator('.replay-mark').evaluateAll((marks) => marks.map((mark) => mark.getAttribute('data-outcome'))), [
      'failure',
      'success',
    ]);
    if (shots) await page.screenshot({ path: join(shots, 'history-replayed.png') });

    // Export as asciicast v2: a header line, then one JSON event per line.
    const [castDownload] = await Promise.all([page.waitForEvent('download'), viewer.getByRole('button', { name: 'Export .cast' }).click()]);
    assert.match(castDownload.suggestedFilename(), /\.cast$/);
    const castPath = await castDownload.path();
    const castLines = readFileSync(castPath, 'utf8').split('\n').filter((line) => line.length > 0);
    const header = JSON.parse(castLines[0]!) as { version: number; width: number; height: number };
    assert.equal(header.version, 2);
    assert.ok(header.width > 0 && header.height > 0);
    for (const line of castLines.slice(1)) {
      const event = JSON.parse(line) as unknown[];
      assert.ok(Array.isArray(event) && typeof event[0] === 'number' && typeof event[1] === 'string' && typeof event[2] === 'string', line);
    }
    assert.ok(castLines.some((line) => line.includes(unique)));

    // And as plain text, colours stripped.
    const [textDownload] = await Promise.all([page.waitForEvent('download'), viewer.getByRole('button', { name: 'Export text' }).click()]);
    const text = readFileSync(await textDownload.path(), 'utf8');
    assert.ok(text.includes(`found-42-${unique}`));
    assert.ok(text.includes('green é ✓'));
    assert.ok(!text.includes('\x1b['));

    // Escape goes back to the search results, as they were.
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    await hit.waitFor();

    // A file that is not asciicast is refused with the line at fault.
    const fileInput = view.locator('input[type="file"][aria-label="Import asciicast file"]');
    await fileInput.setInputFiles({ name: 'broken.cast', mimeType: 'application/x-asciicast', buffer: Buffer.from('{"version": 2, "width": 80, "height": 24}\nnot json\n') });
    const importError = view.getByRole('alert').filter({ hasText: 'broken.cast' });
    await importError.waitFor();
    assert.match(await importError.innerText(), /line 2/);
    await importError.getByRole('button', { name: 'Dismiss' }).click();

    // Import the exported cast: it opens as a session of its own, replaying to the same screen.
    await fileInput.setInputFiles(castPath);
    const imported = view.locator('.history-viewer[data-session-id]');
    await imported.waitFor();
    await pollUntil(async () => normalizeScreen(await readHistoryViewer(page)) === liveScreen, {
      timeoutMs: 15_000,
      what: 'the imported session to show the same screen',
    });
    const importedId = await imported.getAttribute('data-session-id');
    assert.ok(importedId);
    await imported.getByText('imported cast').waitFor();

    // Delete the imported copy from its viewer (with a confirmation), then the original from the list.
    await imported.getByRole('button', { name: 'Delete session' }).click();
    let dialog = page.getByRole('dialog', { name: 'Delete session' });
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await imported.waitFor({ state: 'detached' });
    await view.getByRole('searchbox', { name: 'Search history' }).fill('');
    await pollUntil(async () => (await view.locator(`tr[data-session-id="${importedId}"]`).count()) === 0 && (await sessionRows.count()) > 0, {
      what: 'the imported session to leave the list',
    });
    const originalRow = view.locator('tr[data-session-id]:not([data-live])').first();
    const originalId = await originalRow.getAttribute('data-session-id');
    await originalRow.hover();
    await originalRow.getByRole('button', { name: /^Delete / }).click();
    dialog = page.getByRole('dialog', { name: 'Delete session' });
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await pollUntil(async () => (await view.locator(`tr[data-session-id="${originalId}"]`).count()) === 0, { what: 'the deleted session to leave the list' });
    await view.getByRole('searchbox', { name: 'Search history' }).fill(unique);
    await view.getByText(`Nothing found for “${unique}”.`).waitFor({ timeout: 15_000 });
  });

  it('runs a past command again in a new terminal (typed, not run), references a session in a running pane, and records nothing of a "don\'t record" terminal', async (t) => {
    const { page, firstPane } = await openFreshApp(browser(), t);
    await typeInPane(page, firstPane, 'echo again-$((40+2))');
    await waitForIdlePrompt(page, firstPane, 'again-42');

    // A second terminal that is not recorded: its session goes from History.
    await page.getByRole('button', { name: 'New terminal' }).first().click();
    const [, secretPane] = await waitForPanes(page, 2);
    assert.ok(secretPane);
    await waitForPaneText(page, secretPane, '$');
    const toggle = page.getByRole('button', { name: "Don't record this terminal" });
    await pollUntil(async () => (await toggle.getAttribute('aria-pressed')) === 'false', { what: 'the record toggle' });
    await toggle.click();
    // It deletes what was recorded: asked first.
    const confirm = page.getByRole('dialog', { name: "Don't record this terminal?" });
    await confirm.getByRole('button', { name: 'Delete and stop recording' }).click();
    await pollUntil(async () => (await toggle.getAttribute('aria-pressed')) === 'true', { what: 'the terminal to be marked "don\'t record"' });
    await page.locator('.tab[data-active="true"] .not-recorded-mark').waitFor();
    await typeInPane(page, secretPane, 'echo secret-$((7*6))-words');
    await waitForIdlePrompt(page, secretPane, 'secret-42-words');
    // A positive control, printed after the secret in the recorded pane: History writes and
    // indexes output in order, so once the control is found, the secret would be found too had
    // it been recorded (a search right away could come up empty only because it is too early).
    const control = `ctl${Date.now().toString(36)}`;
    await page.getByRole('tab').first().click();
    await typeInPane(page, firstPane, `echo ${control}-$((6*7))`);
    await waitForIdlePrompt(page, firstPane, `${control}-42`);

    const view = await openHistory(page);
    const searchBox = view.getByRole('searchbox', { name: 'Search history' });
    await searchUntilFound(view, control);
    const recordedSessionId = await view.locator('.history-hit-group').first().getAttribute('data-session-id');
    assert.ok(recordedSessionId);
    await searchBox.fill('secret');
    await view.getByText('Nothing found for “secret”.').waitFor({ timeout: 15_000 });
    await searchBox.fill('');

    // Only the recorded terminal's session is listed (the list is read afresh, after the control was found).
    const sessionRows = view.locator('table[aria-label="Sessions"] tbody tr');
    await sessionRows.first().waitFor({ timeout: 15_000 });
    assert.deepEqual(await sessionRows.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id'))), [recordedSessionId]);
    // Filters: it is still running, so "Failed" lists nothing and "Still running" lists it.
    await view.getByLabel('Exit status').selectOption('failure');
    await view.getByText('No session matches these filters.').waitFor();
    await view.getByLabel('Exit status').selectOption('running');
    await pollUntil(async () => (await sessionRows.count()) === 1, { what: 'the running session' });
    await view.getByRole('button', { name: 'Clear filters' }).click();

    // Commands tab: the command with its exit code; "Run again" types it at a new prompt without running it.
    await view.getByRole('tab', { name: 'Commands' }).click();
    const commandRow = view.locator('table[aria-label="Commands"] tbody tr', { hasText: 'echo again-$((40+2))' });
    await commandRow.waitFor({ timeout: 15_000 });
    assert.equal(await commandRow.locator('.history-exit').innerText(), '✓ 0');
    await commandRow.hover();
    await commandRow.getByRole('button', { name: /^Run again/ }).click();
    const panes = await waitForPanes(page, 3);
    const againPane = panes.find((id) => id !== firstPane && id !== secretPane)!;
    await waitForPaneText(page, againPane, '$ echo again-$((40+2))');
    // Had it been run already, this would be a new command line starting with "&&" (a syntax error).
    await page.keyboard.type(' && echo typed-after');
    await page.keyboard.press('Enter');
    const ran = await waitForIdlePrompt(page, againPane, 'typed-after');
    assert.match(ran, /\nagain-42\ntyped-after\n\$$/);

    // Reference the first session in the running terminal: a pointer is pasted there, not run.
    await openHistory(page);
    await view.getByRole('tab', { name: 'Sessions' }).click();
    const row = view.locator('table[aria-label="Sessions"] tbody tr').last();
    await row.locator('.history-row-open').click();
    const viewer = view.locator('.history-viewer[data-session-id]');
    await viewer.getByRole('group', { name: 'Replay' }).waitFor();
    await viewer.getByRole('button', { name: 'Reference in agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reference in agent' });
    await dialog.locator(`[data-terminal-choice="${againPane}"]`).click();
    const pointer = await dialog.getByLabel('Pointer').innerText();
    assert.match(pointer, /^# switchboard: transcript of session/);
    await dialog.getByText(/^Typed into/).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Terminals', exact: true }).click();
    await waitForPaneText(page, againPane, '# switchboard: transcript of session');
  });

  it('warns that recording is paused (a database from a newer Switchboard), in the view and in the sidebar', async (t) => {
    const dirs = createTempHome('sb-e2e-');
    mkdirSync(dirs.dataDir, { recursive: true, mode: 0o700 });
    const db = new DatabaseSync(join(dirs.dataDir, HistoryConstants.databaseFileName));
    db.exec(`PRAGMA application_id = ${HistoryConstants.applicationId}; PRAGMA user_version = 9999;`);
    db.close();
    const { page } = await openFreshApp(browser(), t, { dirs });
    const navButton = page.getByRole('button', { name: 'History', exact: true });
    await navButton.locator('.history-nav-dot[data-severity="warning"]').waitFor();
    const view = await openHistory(page);
    const banner = view.locator('.history-banner[data-recording="paused"]');
    await banner.waitFor();
    assert.match(await banner.innerText(), /Recording is paused\. .*newer.*Terminals keep working/s);
  });

  it('says once that an unreadable database was moved aside', async (t) => {
    const dirs = createTempHome('sb-e2e-');
    mkdirSync(dirs.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dirs.dataDir, HistoryConstants.databaseFileName), 'this is not a database, it is a note\n'.repeat(200));
    const { page } = await openFreshApp(browser(), t, { dirs });
    const view = await openHistory(page);
    const notice = view.getByRole('status').filter({ hasText: 'moved aside' });
    await notice.waitFor();
    assert.match(await notice.innerText(), new RegExp(`${HistoryConstants.databaseFileName}\\.corrupt-`));
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
    // Once: a reload does not bring it back.
    await page.reload();
    await waitForPanes(page, 1);
    // The reload keeps the window on History.
    const again = page.getByRole('region', { name: 'History' });
    await again.waitFor();
    await again.locator('table[aria-label="Sessions"], .history-status-line').first().waitFor();
    assert.equal(await again.getByRole('status').filter({ hasText: 'moved aside' }).count(), 0);
  });
});
