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

/** Lines per block: each flood prints numbered blocks until told to stop, so it is still running, however fast the machine, when A's typed line is drawn. */
const blockLines = 1_000;
/** About 60 chars a line, so every pane stays wider than a line (no wrapping). */
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

    // Each flood waits for one file, so all three start together once pane A is focused and typed
    // in, and prints whole numbered blocks until another file says stop.
    for (const [index, id] of flooding.entries()) {
      const name = `F${index}`;
      await typeInPane(page, id, `until [ -e go ]; do sleep 0.05; done; while [ ! -e stop ]; do seq -f '${name}-%04g-${filler}' 1 ${blockLines}; done; echo ${name}-done-$((6*7))`);
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
    await page.keyboard.press('Enter');
    await waitForPaneText(page, typing, 'typed-in-a-42\n', 15_000);
    await page.keyboard.type('touch stop');
    await page.keyboard.press('Enter');

    // Held back, not dropped: what the pane holds of each flood (its scrollback keeps the last
    // 10 000 lines) runs on line after line without a gap, ends with a whole block, then its marker.
    for (const [index, id] of flooding.entries()) {
      await waitForPaneText(page, id, `F${index}-done-42`, 90_000);
      const lines = (await readPaneBuffer(page, id))!.filter((line) => line.startsWith(`F${index}-`));
      assert.equal(lines.at(-1), `F${index}-done-42`);
      const numbered = lines.slice(0, -1);
      assert.ok(numbered.length > blockLines, `flood ${index} printed more than one block (${numbered.length} lines)`);
      const line = (n: number) => `F${index}-${String(n).padStart(4, '0')}-${filler}`;
      const first = Number(/^F\d-(\d{4})-/.exec(numbered[0]!)?.[1]);
      const expected = numbered.map((_, offset) => line(((first - 1 + offset) % blockLines) + 1));
      assert.deepEqual(numbered, expected, `flood ${index}: every line, in order`);
      assert.equal(numbered.at(-1), line(blockLines));
    }
  });
});
