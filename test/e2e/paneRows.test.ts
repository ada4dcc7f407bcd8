/**
 * What a pane draws, row by row, in real Chromium with the DOM renderer, now that rows whose line
 * only moved are moved instead of built again (renderer/features/terminals/domRowReuse.ts). Output
 * of the shapes terminals see — coloured lines one at a time, three at a time, a screenful at once,
 * identical lines, a program rewriting the screen in place, wide and combined characters, links
 * and curly underlines — then scrolling back and forth, a selection made and cleared, a theme
 * change, and the line being typed with its cursor.
 *
 * Two oracles: after each step every row shows the text of the buffer's line at that row (polled:
 * the DOM follows at the next frame; a stale row never would); and at the end the pane's rows are
 * exactly — every span, class and style — what a second window attaching afresh builds from
 * nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { pollUntil } from '../helpers/poll.ts';
import { newPage, openApp, openFreshApp, readPane, typeInPane, useSharedBrowser, waitForPaneText } from '../helpers/servedApp.ts';

const browser = useSharedBrowser();

/**
 * The text of each drawn row and of the buffer's line there, and what each row's spans look like:
 * their text, classes and computed colours and decorations (but the cursor's: which window has
 * focus decides those). Not the markup itself: each window measures its own letter spacing, and a style
 * attribute written through the CSSOM is serialized differently from one parsed.
 */
async function drawnRows(page: Page, terminalId: string): Promise<{ drawn: string[]; buffer: string[]; markup: string[]; cursorRows: number[] }> {
  const screen = (await readPane(page, terminalId)) ?? '';
  const drawn = await page.evaluate((id) => {
    const rows = [...document.querySelectorAll<HTMLElement>(`[data-terminal-id="${id}"] .xterm-rows > div`)];
    return {
      drawn: rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()),
      markup: rows.map((row) =>
        [...row.children]
          .map((span) => {
            const style = getComputedStyle(span);
            const classes = [...span.classList].filter((name) => !name.startsWith('xterm-cursor')).join('.');
            if (span.classList.contains('xterm-cursor')) return `[${span.textContent}|${classes}|the cursor]`;
            return `[${span.textContent}|${classes}|${style.color}|${style.backgroundColor}|${style.textDecorationLine} ${style.textDecorationStyle} ${style.textDecorationColor}|${style.fontWeight}]`;
          })
          .join(''),
      ),
      cursorRows: rows.flatMap((row, index) => (row.querySelector('.xterm-cursor') ? [index] : [])),
    };
  }, terminalId);
  return { ...drawn, buffer: screen.split('\n').map((line) => line.trimEnd()) };
}

/** Every row shows its line, and at most one the cursor, once the next frame is drawn. */
async function rowsAgree(page: Page, terminalId: string, what: string): Promise<void> {
  let last: Awaited<ReturnType<typeof drawnRows>> | undefined;
  try {
    await pollUntil(
      async () => {
        last = await drawnRows(page, terminalId);
        const sameText = last.drawn.length === last.buffer.length && last.drawn.every((text, row) => text === last!.buffer[row]);
        // A cursor left behind on a row it moved off would be a second one.
        return sameText && last.cursorRows.length <= 1 ? true : undefined;
      },
      { timeoutMs: 5_000, intervalMs: 50, what: `the rows drawn to match the buffer after ${what}` },
    );
  } catch (error) {
    const differing = (last?.drawn ?? []).flatMap((text, row) => (text === last!.buffer[row] ? [] : [`row ${row}: drawn "${text}", buffer "${last!.buffer[row]}"`]));
    assert.fail(`${(error as Error).message}\n${differing.join('\n')}\ncursor drawn on rows ${JSON.stringify(last?.cursorRows)}`);
  }
}

async function run(page: Page, terminalId: string, command: string, done: string, what: string): Promise<void> {
  await typeInPane(page, terminalId, `${command}; echo ${done}`);
  await waitForPaneText(page, terminalId, new RegExp(`^${done}$`, 'm'));
  await rowsAgree(page, terminalId, what);
}

describe('pane rows as drawn', () => {
  it('match the buffer through every shape of output, and what a fresh window builds', async (t) => {
    const { app, page, firstPane: pane } = await openFreshApp(browser(), t);
    const fresh = await newPage(t, browser());
    /** A second window opened now builds every row from nothing: the pane's rows look exactly the same. */
    const drawnAsFresh = async (what: string) => {
      const scheme = await page.evaluate(() => (matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark'));
      await fresh.emulateMedia({ colorScheme: scheme });
      await openApp(fresh, app.url);
      const screen = await readPane(page, pane);
      await pollUntil(async () => ((await readPane(fresh, pane)) === screen ? true : undefined), { what: `the fresh window's screen after ${what}` });
      await rowsAgree(fresh, pane, `a fresh attach after ${what}`);
      const [mine, theirs] = await Promise.all([drawnRows(page, pane), drawnRows(fresh, pane)]);
      const differing = mine.markup.flatMap((spans, row) => (spans === theirs.markup[row] ? [] : [`row ${row}:\n  kept:  ${spans}\n  fresh: ${theirs.markup[row]}`]));
      assert.deepEqual(differing, [], `after ${what}, every row drawn exactly as a fresh window draws it`);
    };

    await run(page, pane, `for i in $(seq 1 40); do printf '\\e[3%dmrow %d\\e[0m \\e[1mbold\\e[0m \\e[7minverse\\e[0m\\n' $((i % 7 + 1)) $i; sleep 0.03; done`, 'done-one-by-one', 'coloured lines one at a time');
    await run(page, pane, `for i in $(seq 1 12); do printf 'x%d\\ny%d\\nz%d\\n' $i $i $i; sleep 0.05; done`, 'done-three', 'three lines at a time');
    await run(page, pane, 'seq 1 500', 'done-screenful', 'a screenful at once');
    await run(page, pane, `for i in $(seq 1 30); do echo same; sleep 0.02; done; printf '\\n\\n\\n'`, 'done-same', 'identical lines and blank ones');
    await run(page, pane, `printf '\\e[2J\\e[H'; for i in $(seq 1 30); do printf '\\e[%d;1Hcell %d  ' $((i % 10 + 1)) $i; sleep 0.02; done; printf '\\e[14;1H'`, 'done-in-place', 'a screen rewritten in place');
    await run(page, pane, `printf 'wide \\u65e5\\u672c\\u8a9e e\\u0301 \\U0001F600 end\\n'; printf '\\e]8;;https://example.com/\\e\\\\a link\\e]8;;\\e\\\\ \\e[4:3mcurly\\e[0m \\e[58;5;196m\\e[4mred underline\\e[0m\\n'`, 'done-wide', 'wide, combined and linked characters');
    await run(page, pane, `for i in $(seq 1 60); do printf '\\e[38;2;%d;100;200mtrue colour %d\\e[0m\\n' $((i * 4)) $i; sleep 0.01; done`, 'done-rgb', 'true colour lines');

    // Scrolled back a few lines, further, and down again to the bottom.
    const body = page.locator(`[data-terminal-id="${pane}"] .xterm-screen`);
    await body.hover();
    for (const [deltaY, what] of [
      [-60, 'a scroll back by a few lines'],
      [-400, 'a scroll back by pages'],
      [120, 'a scroll down'],
      [10_000, 'a scroll to the bottom'],
    ] as const) {
      await page.mouse.wheel(0, deltaY);
      await rowsAgree(page, pane, what);
    }

    // A selection drawn over rows (xterm builds them itself then), cleared, then more output.
    const box = (await body.boundingBox())!;
    await page.mouse.move(box.x + 20, box.y + 40);
    await page.mouse.down();
    await page.mouse.move(box.x + 200, box.y + 160, { steps: 5 });
    await page.mouse.up();
    await rowsAgree(page, pane, 'a selection');
    // xterm draws selected cells above the selection layer, in the selection's colour.
    const selectedCells = () => page.evaluate((id) => document.querySelectorAll(`[data-terminal-id="${id}"] .xterm-rows span.xterm-decoration-top`).length, pane);
    await pollUntil(async () => ((await selectedCells()) > 0 ? true : undefined), { what: 'the selected cells drawn in the selection colour' });
    await page.mouse.click(box.x + 30, box.y + box.height - 30);
    await rowsAgree(page, pane, 'a cleared selection');
    await pollUntil(async () => ((await selectedCells()) === 0 ? true : undefined), { what: 'no cell drawn as selected once the selection is cleared' });
    await drawnAsFresh('a cleared selection');
    await run(page, pane, `for i in $(seq 1 20); do echo "after the selection $i"; sleep 0.02; done`, 'done-after-selection', 'output after a selection');

    // A theme change redraws every row with the new colours.
    await page.emulateMedia({ colorScheme: 'light' });
    await run(page, pane, `for i in $(seq 1 5); do printf '\\e[32mlight %d\\e[0m\\n' $i; sleep 0.02; done`, 'done-light', 'a theme change');

    // The line being typed: one cursor, on its row.
    await page.keyboard.type('echo partial');
    await pollUntil(
      async () => {
        const rows = await drawnRows(page, pane);
        const typed = rows.drawn.findLastIndex((text) => text === '$ echo partial');
        return typed !== -1 && rows.cursorRows.length === 1 && rows.cursorRows[0] === typed ? true : undefined;
      },
      { what: 'one cursor, on the row being typed' },
    );
    await rowsAgree(page, pane, 'typing');

    await drawnAsFresh('typing');
  });
});
