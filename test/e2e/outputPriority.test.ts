/**
 * Output priority in real Chromium against a real `switchboard serve`: one page parses and draws
 * every pane, so a flood in one pane must not starve the echo of the pane being typed in
 * (renderer/features/terminals/outputScheduler.ts) — and holding the floods back must not lose
 * any of their output. Behaviour only; how fast is measured by `npm run bench -- isolation`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openFreshApp, readPane, typeInPane, useSharedBrowser, waitForPaneText, waitForPanes } from '../helpers/servedApp.ts';
import { pollUntil } from '../helpers/poll.ts';
import type { Page } from 'playwright-core';

const browser = useSharedBrowser();

/** Lines per flood: the whole flood stays in the pane's 10 000-line scrollback, so all of it can be checked. */
const floodLines = 9_000;
/** About 60 chars a line: 540 KB per pane, twice the Hub's flow-control window (250 000 chars). */
const filler = 'x'.repeat(50);

function readPaneBuffer(page: Page, terminalId: string): Promise<string[] | null> {
  return page.evaluate(
    (id) => (globalThis as unknown as { __switchboardTest?: { readPaneBuffer(id: string): string[] | null } }).__switchboardTest?.readPaneBuffer(id) ?? null,
    terminalId,
  );
}

describe('output priority between panes', () => {
  it("draws the typed line in the focused pane while three other panes flood, and the floods' output arrives whole", async (t) => {
    const { page, firstPane } = await openFreshApp(browser(), t);
    // Two columns, the second split in three rows: every pane stays wider than a flood's line.
    await page.getByRole('button', { name: 'Split right', exact: true }).click();
    await waitForPanes(page, 2);
    await page.getByRole('button', { name: 'Split down', exact: true }).click();
    await waitForPanes(page, 3);
    await page.getByRole('button', { name: 'Split down', exact: true }).click();
    const panes = await waitForPanes(page, 4);
    const typing = firstPane;
    const flooding = panes.filter((id) => id !== typing);
    assert.equal(flooding.length, 3);

    // Each flood waits for one file, so all three start together once pane A is focused and typed in.
    for (const [index, id] of flooding.entries()) {
      const name = `F${index}`;
      await typeInPane(page, id, `until [ -e go ]; do sleep 0.05; done; seq -f '${name}-%05g-${filler}' 1 ${floodLines}; echo ${name}-done-$((6*7))`);
    }
    await typeInPane(page, typing, 'touch go');
    await pollUntil(
      async () => {
        const screens = await Promise.all(flooding.map((id) => readPane(page, id)));
        return screens.every((screen, index) => screen?.includes(`F${index}-0`)) ? true : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 20, what: 'all three floods to be drawing' },
    );

    // Typed into A, key by key: its echo is drawn while the floods still run.
    await page.keyboard.type('echo typed-in-a-$((40+2))');
    await waitForPaneText(page, typing, 'echo typed-in-a-$((40+2))', 15_000);
    const during = await Promise.all(flooding.map((id) => readPane(page, id)));
    for (const [index, screen] of during.entries()) {
      assert.ok(!screen?.includes(`F${index}-done-42`), `flood ${index} had not finished when A's typed line was drawn:\n${screen}`);
    }
    await page.keyboard.press('Enter');
    await waitForPaneText(page, typing, 'typed-in-a-42\n', 15_000);

    // Held back, not dropped: every line of every flood, in order, then its marker.
    for (const [index, id] of flooding.entries()) {
      await waitForPaneText(page, id, `F${index}-done-42`, 90_000);
      const lines = (await readPaneBuffer(page, id))!.filter((line) => line.startsWith(`F${index}-`));
      const expected = Array.from({ length: floodLines }, (_, line) => `F${index}-${String(line + 1).padStart(5, '0')}-${filler}`);
      assert.equal(lines.length, floodLines + 1, `flood ${index}: ${floodLines} lines and its marker`);
      assert.deepEqual(lines.slice(0, floodLines), expected, `flood ${index}: every line, in order`);
      assert.equal(lines[floodLines], `F${index}-done-42`);
    }
  });
});
