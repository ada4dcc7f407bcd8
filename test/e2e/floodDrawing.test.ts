/**
 * A pane flooded with output, in real Chromium with the DOM renderer: it is redrawn at a pace
 * (renderer/features/terminals/renderPacing.ts), not at every frame, and everything is drawn once
 * the flood ends or a key goes in; a click's empty selection and the hidden textarea (where IME
 * composition and screen readers look) no longer ask for frames of their own, and the textarea
 * still sits on the cursor.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { TerminalConstants } from '../../src/common/constants.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, readPane, typeInPane, useSharedBrowser, waitForPaneText } from '../helpers/servedApp.ts';

const browser = useSharedBrowser();

/** From now on, the time of every frame in which the pane's rows changed (the frame's time, so two changes in one frame count once). */
async function recordRedraws(page: Page, terminalId: string): Promise<void> {
  await page.evaluate((id) => {
    const rows = document.querySelector(`[data-terminal-id="${id}"] .xterm-rows`)!;
    const at: number[] = [];
    (globalThis as { __redraws?: number[] }).__redraws = at;
    new MutationObserver(() => {
      const frame = Number(document.timeline.currentTime);
      if (at.at(-1) !== frame) at.push(frame);
    }).observe(rows, { childList: true, subtree: true, characterData: true });
  }, terminalId);
}

async function redraws(page: Page): Promise<number[]> {
  return page.evaluate(() => [...((globalThis as { __redraws?: number[] }).__redraws ?? [])]);
}

/** The cursor's cell and where the hidden textarea is, both relative to the pane's screen. */
async function textareaAndCursor(page: Page, terminalId: string): Promise<{ textarea: { left: number; top: number }; cursor: { left: number; top: number } | null }> {
  return page.evaluate((id) => {
    const pane = document.querySelector(`[data-terminal-id="${id}"]`)!;
    const screen = pane.querySelector('.xterm-screen')!.getBoundingClientRect();
    const textarea = pane.querySelector<HTMLTextAreaElement>('.xterm-helper-textarea')!;
    const cursor = pane.querySelector('.xterm-rows .xterm-cursor')?.getBoundingClientRect();
    return {
      textarea: { left: parseFloat(textarea.style.left), top: parseFloat(textarea.style.top) },
      cursor: cursor ? { left: cursor.left - screen.left, top: cursor.top - screen.top } : null,
    };
  }, terminalId);
}

describe('a flooded pane', () => {
  it('is redrawn at a pace while the flood runs, and drawn whole when a key stops it', async (t) => {
    const { page, firstPane: pane } = await openFreshApp(browser(), t);
    await typeInPane(page, pane, `yes 'a flood of output'`);
    await waitForPaneText(page, pane, 'a flood of output\na flood of output');
    // Pacing starts once the keystroke that started it is older than floodPacingAfterInputMs.
    await page.waitForTimeout(TerminalConstants.floodPacingAfterInputMs + 100);
    await recordRedraws(page, pane);
    await page.waitForTimeout(1_500);
    const times = await redraws(page);
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    assert.ok(times.length >= 5, `the flood was drawn while it ran (${times.length} redraws in 1.5 s)`);
    // At most every floodRenderIntervalMs (a redraw lands on the first display refresh after the
    // interval, less a timer's few ms): never at two refreshes in a row (16.7 ms), as unpaced.
    const shortest = Math.min(...gaps);
    assert.ok(shortest >= TerminalConstants.floodRenderIntervalMs - 6, `redraws at least ~${TerminalConstants.floodRenderIntervalMs} ms apart; the closest two were ${shortest.toFixed(1)} ms (gaps: ${gaps.map((gap) => gap.toFixed(0)).join(' ')})`);

    // Ctrl-C: the prompt after the flood is drawn, every row as the buffer has it.
    await page.keyboard.press('Control+C');
    await page.keyboard.type('echo after-the-flood');
    await page.keyboard.press('Enter');
    await waitForPaneText(page, pane, /^after-the-flood$/m);
    await pollUntil(
      async () => {
        const screen = ((await readPane(page, pane)) ?? '').split('\n').map((line) => line.trimEnd());
        const drawn = await page.evaluate((id) => [...document.querySelectorAll(`[data-terminal-id="${id}"] .xterm-rows > div`)].map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()), pane);
        return drawn.length === screen.length && drawn.every((text, row) => text === screen[row]) ? true : undefined;
      },
      { timeoutMs: 5_000, intervalMs: 50, what: 'every row drawn as the buffer has it after the flood' },
    );

    // The textarea follows the cursor at the redraw: on the cursor's cell after typing.
    await page.keyboard.type('typed but not run');
    await pollUntil(
      async () => {
        const { textarea, cursor } = await textareaAndCursor(page, pane);
        return cursor && Math.abs(textarea.left - cursor.left) < 1 && Math.abs(textarea.top - cursor.top) < 1 ? true : undefined;
      },
      { timeoutMs: 5_000, intervalMs: 50, what: 'the hidden textarea on the cursor' },
    );
  });

  it('after a click (an empty selection), scrolling output asks for no frames of its own', async (t) => {
    const { app, page, firstPane: pane } = await openFreshApp(browser(), t);
    // A click leaves an empty selection behind; xterm asked for a selection redraw on every line that scrolled.
    await page.locator(`[data-terminal-id="${pane}"] .xterm-screen`).click();
    await page.evaluate(() => {
      const counts = { frames: 0 };
      (globalThis as { __frames?: typeof counts }).__frames = counts;
      const request = window.requestAnimationFrame.bind(window);
      // xterm's SelectionService asks for its redraw with `()=>this._refresh()`.
      window.requestAnimationFrame = (callback) => {
        if (/this\._refresh\(\)/.test(callback.toString())) counts.frames++;
        return request(callback);
      };
    });
    await page.keyboard.type('seq 1 3000; echo counted');
    await page.keyboard.press('Enter');
    await waitForPaneText(page, pane, /^counted$/m);
    const asked = await page.evaluate(() => (globalThis as { __frames?: { frames: number } }).__frames!.frames);
    assert.equal(asked, 0, `no selection redraw was asked for while 3 000 lines scrolled with nothing selected (${asked} were)`);

    // The counter sees them: with text selected, scrolling output still moves the selection. The
    // output starts once the selection is made (typing would clear it): the shell waits for a file.
    await page.keyboard.type('until [ -e go ]; do sleep 0.05; done; seq 1 300; echo counted-again');
    await page.keyboard.press('Enter');
    const screen = (await page.locator(`[data-terminal-id="${pane}"] .xterm-screen`).boundingBox())!;
    await page.mouse.move(screen.x + 20, screen.y + 40);
    await page.mouse.down();
    await page.mouse.move(screen.x + 200, screen.y + 120, { steps: 5 });
    await page.mouse.up();
    await page.evaluate(() => ((globalThis as { __frames?: { frames: number } }).__frames!.frames = 0));
    writeFileSync(join(app.workspace, 'go'), '');
    await waitForPaneText(page, pane, /^counted-again$/m);
    const withSelection = await page.evaluate(() => (globalThis as { __frames?: { frames: number } }).__frames!.frames);
    assert.ok(withSelection > 0, 'with a selection, the scrolling output asked for its redraw (the counter works)');
  });
});
