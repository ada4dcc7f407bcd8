/**
 * The terminal UI in real Chromium against a real `switchboard serve`: panes run real shells,
 * split, host full-screen programs, show exit codes, and survive a page reload.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import {
  openFreshApp as openSharedFreshApp,
  useSharedBrowser,
  readPane,
  typeInPane,
  waitForLayoutSaved,
  waitForPanes,
  waitForPaneText,
  type ServedAppOptions,
} from '../helpers/servedApp.ts';
import { pollUntil } from '../helpers/poll.ts';

const browser = useSharedBrowser();

/** A fresh server and browser context for one test (see servedApp.ts). */
function openFreshApp(t: TestContext, options: ServedAppOptions = {}) {
  return openSharedFreshApp(browser(), t, options);
}

describe('terminal panes in browser mode', () => {
  it('runs a command typed into a pane and shows its output', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    assert.deepEqual(await waitForPanes(page, 1), [firstPane], 'a first load opens exactly one pane');
    await typeInPane(page, firstPane, 'echo hello-$((6*7))');
    const screen = await waitForPaneText(page, firstPane, 'hello-42');
    // The command line shows the unexpanded text; only the output has the computed value.
    assert.match(screen, /echo hello-\$\(\(6\*7\)\)/);
  });

  it('splits right into two panes, each with its own working shell', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    await page.getByRole('button', { name: 'Split right', exact: true }).click();
    const ids = await waitForPanes(page, 2);
    assert.equal(ids.length, 2);
    assert.equal(new Set(ids).size, 2, 'the panes show different terminals');
    assert.equal(ids[0], firstPane, 'the original pane stays on the left');
    const secondPane = ids[1]!;

    const left = await page.locator(`[data-terminal-id="${firstPane}"]`).boundingBox();
    const right = await page.locator(`[data-terminal-id="${secondPane}"]`).boundingBox();
    assert.ok(left && right && right.x >= left.x + left.width - 2, 'the new pane is to the right of the first');

    await typeInPane(page, firstPane, 'echo left-$((1+1))');
    await typeInPane(page, secondPane, 'echo right-$((2+2))');
    await waitForPaneText(page, firstPane, 'left-2');
    await waitForPaneText(page, secondPane, 'right-4');
    assert.ok(!(await readPane(page, firstPane))!.includes('right-4'), 'input to one pane does not reach the other');
    assert.ok(!(await readPane(page, secondPane))!.includes('left-2'), 'input to one pane does not reach the other');
  });

  it('gives the screen back after a full-screen program quits', async (t) => {
    const longFile = Array.from({ length: 300 }, (_, index) => `long-line-${index + 1}`).join('\n') + '\n';
    const { page, firstPane } = await openFreshApp(t, { workspaceFiles: { 'long.txt': longFile } });
    await typeInPane(page, firstPane, 'echo before-$((40+2))');
    await waitForPaneText(page, firstPane, 'before-42');

    await typeInPane(page, firstPane, 'less long.txt');
    const inLess = await waitForPaneText(page, firstPane, 'long-line-1\n');
    assert.ok(!inLess.includes('before-42'), 'less draws on the alternate screen, hiding the shell output');

    await page.keyboard.press('q');
    const back = await pollUntil(
      async () => {
        const screen = await readPane(page, firstPane);
        return screen && screen.includes('before-42') && !screen.includes('long-line-1\n') ? screen : undefined;
      },
      { what: 'the shell screen to come back after quitting less' },
    );
    assert.match(back, /\$ less long\.txt/);
    await typeInPane(page, firstPane, 'echo after-$((50+5))');
    await waitForPaneText(page, firstPane, 'after-55');
  });

  it("shows each command's result in the sidebar: ✓, or ✗ with its exit code", async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    const item = page.locator(`[data-terminal-item="${firstPane}"]`);
    await typeInPane(page, firstPane, 'sh -c "exit 4"');
    await pollUntil(async () => (await item.locator('.terminal-item-last').count()) === 1, { what: 'the last command in the sidebar' });
    const last = item.locator('.terminal-item-last');
    assert.equal(await last.innerText(), '✗ 4 sh -c "exit 4"');
    assert.equal(await last.getAttribute('data-failed'), 'true');
    await typeInPane(page, firstPane, 'true');
    await pollUntil(async () => (await last.innerText()) === '✓ true', { what: 'the next command to replace it' });
    assert.equal(await last.getAttribute('data-failed'), 'false');
  });

  it('shows a non-zero exit code in the sidebar and in the pane banner', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    await typeInPane(page, firstPane, 'exit 3');

    const banner = page.locator(`[data-terminal-id="${firstPane}"] .exit-banner`);
    await banner.waitFor();
    assert.match(await banner.innerText(), /exited with code 3/i);
    assert.equal(await banner.getAttribute('data-failed'), 'true');

    const item = page.locator(`[data-terminal-item="${firstPane}"]`);
    await pollUntil(async () => /exit 3/.test(await item.innerText()), { what: 'the sidebar to show exit 3' });
    assert.equal(await item.getAttribute('data-state'), 'exited');
    assert.equal(await item.locator('.exit-pill').getAttribute('data-failed'), 'true');

    // The last screen stays visible under the banner until the terminal is closed.
    assert.match((await readPane(page, firstPane))!, /\$ exit 3/);
  });

  it('restores the same panes and screens after a page reload', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    await page.getByRole('button', { name: 'Split down', exact: true }).click();
    const ids = await waitForPanes(page, 2);
    const secondPane = ids[1]!;
    await typeInPane(page, firstPane, 'echo top-$((3*3))');
    await typeInPane(page, secondPane, 'echo bottom-$((4*4))');
    // The screens are compared once each shell has drawn its next prompt: the output line shows before it.
    await waitForPaneText(page, firstPane, /top-9\n\$/);
    await waitForPaneText(page, secondPane, /bottom-16\n\$/);
    await waitForLayoutSaved(page);
    const before = { first: await readPane(page, firstPane), second: await readPane(page, secondPane) };

    await page.reload();
    const restored = await waitForPanes(page, 2);
    assert.deepEqual(restored, ids, 'the same terminals in the same places');
    for (const [id, screen] of [
      [firstPane, before.first],
      [secondPane, before.second],
    ] as const) {
      await pollUntil(async () => (await readPane(page, id)) === screen, {
        what: `pane ${id} to show the same screen after the reload`,
      }).catch(async (error: Error) => {
        throw new Error(`${error.message}\n--- before ---\n${screen}\n--- after ---\n${await readPane(page, id)}`);
      });
    }
    // Still live shells, not pictures of them.
    await typeInPane(page, secondPane, 'echo again-$((5*5))');
    await waitForPaneText(page, secondPane, 'again-25');
  });

  it('keeps a pane live through an output flood (flow control acks reach the Hub)', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    // About 1 MB: ten times the Hub's pause threshold, so the PTY only finishes if the pane keeps acknowledging.
    await typeInPane(page, firstPane, 'seq 1 150000; echo flood-done-$((6*7))');
    await waitForPaneText(page, firstPane, 'flood-done-42', 60_000);
    assert.match((await readPane(page, firstPane))!, /150000/);
    await typeInPane(page, firstPane, 'echo after-flood');
    await waitForPaneText(page, firstPane, 'after-flood');
  });

  it('badges a terminal that rang the bell out of view, and clears it once shown', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    await page.getByRole('button', { name: 'New terminal', exact: true }).click();
    const [, second] = await waitForPanes(page, 2);
    await typeInPane(page, second!, "sleep 1; printf 'ding\\a\\n'");
    // Back to the first tab before the bell rings.
    await page.getByRole('tab').first().click();
    const item = page.locator(`[data-terminal-item="${second}"]`);
    await pollUntil(async () => (await item.locator('.attention-badge').count()) === 1, { what: 'the bell badge on the hidden terminal' });
    assert.equal(await page.locator(`[data-terminal-item="${firstPane}"] .attention-badge`).count(), 0);

    await item.locator('.terminal-item-main').click();
    await waitForPaneText(page, second!, 'ding');
    await pollUntil(async () => (await item.locator('.attention-badge').count()) === 0, { what: 'the badge to clear once the pane is shown' });
  });

  it('shows what a terminal printed while its tab was hidden, at the size the window took meanwhile', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    // The shell's size as `stty size` last printed it in the pane.
    const sttySizes = async (count: number) =>
      pollUntil(async () => {
        const sizes = [...((await readPane(page, firstPane)) ?? '').matchAll(/^(\d+) (\d+)$/gm)];
        return sizes.length >= count ? { rows: Number(sizes.at(-1)![1]), cols: Number(sizes.at(-1)![2]) } : undefined;
      }, { what: `stty size printed ${count} time(s)` });
    await typeInPane(page, firstPane, 'stty size');
    const before = await sttySizes(1);
    const command = 'sleep 1; for i in $(seq 1 40); do echo hidden-$i; done';
    await typeInPane(page, firstPane, command);
    await page.getByRole('button', { name: 'New terminal', exact: true }).click();
    const [, second] = await waitForPanes(page, 2);
    await waitForPaneText(page, second!, '$');
    // The window grows while the first tab is hidden, and the hidden terminal prints meanwhile.
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: size.width + 200, height: size.height + 100 });
    const last = page.locator(`[data-terminal-item="${firstPane}"] .terminal-item-last`);
    await pollUntil(async () => (await last.count()) === 1 && (await last.innerText()) === `✓ ${command}`, { what: 'the hidden command finished (the sidebar)' });
    // Shown again: every line, and the shell sized to the pane as it is drawn now.
    await page.getByRole('tab').first().click();
    await waitForPaneText(page, firstPane, 'hidden-40');
    await typeInPane(page, firstPane, 'stty size');
    const after = await sttySizes(2);
    assert.equal(after.rows, await page.locator(`[data-terminal-id="${firstPane}"] .xterm-rows > div`).count(), 'the shell has as many rows as the pane draws');
    assert.ok(after.cols > before.cols && after.rows > before.rows, `the shell grew with the window: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  });

  it('asks before closing a terminal that still runs a command; Cancel keeps it', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    await page.getByRole('button', { name: 'Split right', exact: true }).click();
    const [, secondPane] = await waitForPanes(page, 2);
    await waitForPaneText(page, secondPane!, '$');
    await typeInPane(page, firstPane, 'sleep 300');
    const item = page.locator(`[data-terminal-item="${firstPane}"]`);
    await pollUntil(async () => /sleep 300/.test(await item.innerText()), { what: 'the sidebar to show sleep running' });

    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.keyboard.press('Control+Shift+X');
    const dialog = page.getByRole('dialog', { name: 'Close the terminal?' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /sleep 300/);
    // For a person to look at: SWITCHBOARD_SCREENSHOTS=/some/dir node --test test/e2e/terminalPanes.test.ts
    if (process.env.SWITCHBOARD_SCREENSHOTS) await page.screenshot({ path: join(process.env.SWITCHBOARD_SCREENSHOTS, 'confirm-close.png') });
    // The keyboard starts on Cancel: Enter, pressed at once, keeps what runs.
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Cancel');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.locator(`[data-terminal-id="${firstPane}"]`).count(), 1, 'Cancel keeps the terminal');

    // The pane's own × asks too.
    await page.locator(`[data-terminal-id="${firstPane}"]`).getByRole('button', { name: 'Close pane' }).click();
    await dialog.getByRole('button', { name: 'Close terminal' }).click();
    await pollUntil(async () => (await page.locator(`[data-terminal-id="${firstPane}"]`).count()) === 0, { what: 'the confirmed close' });

    // An idle shell closes at once.
    await page.locator(`[data-terminal-id="${secondPane}"] .pane-body`).click();
    await page.keyboard.press('Control+Shift+X');
    await pollUntil(async () => (await page.locator(`[data-terminal-id="${secondPane}"]`).count()) === 0, { what: 'the idle pane to close' });
    assert.equal(await page.getByRole('dialog').count(), 0);
  });

  it('keeps the new-terminal dialog open with the error beside a folder that does not exist', async (t) => {
    const { page } = await openFreshApp(t);
    await page.getByRole('button', { name: 'Choose folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'New terminal in a folder' });
    const input = dialog.getByLabel('Working directory');
    await input.fill('/no/such/folder-here');
    await input.press('Enter');
    await pollUntil(async () => (await dialog.getByRole('alert').count()) === 1, { what: 'the error in the dialog' });
    assert.equal(await dialog.getByRole('alert').innerText(), 'No such folder: /no/such/folder-here');
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    if (process.env.SWITCHBOARD_SCREENSHOTS) await page.screenshot({ path: join(process.env.SWITCHBOARD_SCREENSHOTS, 'new-terminal-error.png') });
    assert.equal(await page.locator('.toast').count(), 0, 'no toast besides');
    await input.fill('/tmp');
    await input.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await waitForPanes(page, 2);
  });

  it('keeps tab titles readable with many tabs: the strip scrolls and shows the active tab', async (t) => {
    const { page } = await openFreshApp(t);
    for (let count = 2; count <= 14; count++) {
      await page.getByRole('button', { name: 'New terminal', exact: true }).click();
      await pollUntil(async () => (await page.getByRole('tab').count()) === count, { what: `${count} tabs` });
    }
    const strip = (await page.getByRole('tablist').boundingBox())!;
    for (const tab of await page.getByRole('tab').all()) {
      const title = tab.locator('.tab-title');
      const fits = await title.evaluate((element) => element.scrollWidth <= element.clientWidth);
      assert.ok(fits, `"${await title.innerText()}" is shown whole`);
    }
    const active = (await page.getByRole('tab', { selected: true }).boundingBox())!;
    assert.ok(active.x >= strip.x - 1 && active.x + active.width <= strip.x + strip.width + 1, 'the active tab is in view');
    const add = (await page.getByRole('button', { name: 'New terminal', exact: true }).boundingBox())!;
    const paneActions = (await page.getByRole('toolbar', { name: 'Pane actions' }).boundingBox())!;
    assert.ok(add.x >= strip.x + strip.width - 1 && add.x + add.width <= paneActions.x + 1, 'the new-terminal button stays in view, right of the tabs');
    // Each has a name of its own, and the sidebar, too long for the window, shows the current one.
    const names = await page.locator('.tab .tab-title').allInnerTexts();
    assert.equal(new Set(names).size, 14, names.join(', '));
    const list = (await page.getByRole('list', { name: 'All terminals' }).boundingBox())!;
    const current = page.locator('[data-terminal-item][data-current="true"]');
    await pollUntil(async () => {
      const box = await current.boundingBox();
      return box !== null && box.y >= list.y - 1 && box.y + box.height <= list.y + list.height + 1;
    }, { what: 'the current terminal in view in the sidebar' });
    if (process.env.SWITCHBOARD_SCREENSHOTS) await page.screenshot({ path: join(process.env.SWITCHBOARD_SCREENSHOTS, 'many-tabs.png') });
  });

  it('hides the sidebar (Ctrl+Shift+B) and resizes it by its edge; both survive a reload', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    const sidebar = page.getByRole('navigation', { name: 'Sidebar' });
    const paneWidth = async () => (await page.locator(`[data-terminal-id="${firstPane}"]`).boundingBox())!.width;
    const before = await paneWidth();
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.keyboard.press('Control+Shift+B');
    await sidebar.waitFor({ state: 'detached' });
    await pollUntil(async () => (await paneWidth()) > before + 200, { what: 'the pane to take the room' });
    await page.getByRole('button', { name: 'Show sidebar' }).click();
    await sidebar.waitFor();

    const edge = (await page.getByRole('separator', { name: 'Sidebar width' }).boundingBox())!;
    const startWidth = (await sidebar.boundingBox())!.width;
    await page.mouse.move(edge.x + edge.width / 2, edge.y + 200);
    await page.mouse.down();
    await page.mouse.move(edge.x + edge.width / 2 + 100, edge.y + 200, { steps: 5 });
    await page.mouse.up();
    await pollUntil(async () => Math.abs((await sidebar.boundingBox())!.width - (startWidth + 100)) < 3, { what: 'the sidebar 100 px wider' });
    await page.reload();
    await sidebar.waitFor();
    await pollUntil(async () => Math.abs((await sidebar.boundingBox())!.width - (startWidth + 100)) < 3, { what: 'the width after a reload' });
  });

  it('resizes a split by dragging its divider and keeps the size across a reload', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    await page.getByRole('button', { name: 'Split right', exact: true }).click();
    const [, secondPane] = await waitForPanes(page, 2);
    await waitForPaneText(page, secondPane!, '$');
    const width = async () => (await page.locator(`[data-terminal-id="${firstPane}"]`).boundingBox())!.width;
    const before = await width();

    const divider = (await page.locator('.split-handle').boundingBox())!;
    // A rule a person can see between the panes, not a 0-px gap.
    assert.ok(divider.width >= 1 && divider.height > 100, `divider ${divider.width}×${divider.height}`);
    const x = divider.x + divider.width / 2;
    const y = divider.y + divider.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x - 150, y, { steps: 8 });
    await page.mouse.up();
    const dragged = await pollUntil(async () => {
      const now = await width();
      return Math.abs(before - 150 - now) < 4 ? now : undefined;
    }, { what: 'the left pane to shrink by the drag' });

    // The pane's terminal follows its new size (fewer columns than the wider right pane).
    await typeInPane(page, firstPane, 'echo cols-$(tput cols)');
    const leftCols = Number(/cols-(\d+)/.exec(await waitForPaneText(page, firstPane, /cols-\d+/))![1]);
    await typeInPane(page, secondPane!, 'echo cols-$(tput cols)');
    const rightCols = Number(/cols-(\d+)/.exec(await waitForPaneText(page, secondPane!, /cols-\d+/))![1]);
    assert.ok(leftCols < rightCols - 10, `left ${leftCols} columns, right ${rightCols}`);

    await waitForLayoutSaved(page);
    await page.reload();
    await waitForPanes(page, 2);
    await pollUntil(async () => Math.abs((await width()) - dragged) < 3, { what: 'the dragged size after the reload' });
  });
  it('draws with WebGL only in the panes in view: a hidden tab gives its contexts back, Off drops them all', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    // Counts the WebGL contexts the page makes and which are alive, from before the app's script runs.
    await page.addInitScript(() => {
      const made: WebGL2RenderingContext[] = [];
      const original = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
        const context = (original as (this: HTMLCanvasElement, ...args: unknown[]) => RenderingContext | null).call(this, type, ...rest);
        if (context && type === 'webgl2' && !made.includes(context as WebGL2RenderingContext)) made.push(context as WebGL2RenderingContext);
        return context;
      } as typeof original;
      (globalThis as unknown as { __liveWebgl: () => number }).__liveWebgl = () => made.filter((context) => !context.isContextLost()).length;
    });
    await page.reload();
    await waitForPanes(page, 1);
    const live = () => page.evaluate(() => (globalThis as unknown as { __liveWebgl: () => number }).__liveWebgl());
    const liveBecomes = (count: number, what: string) => pollUntil(async () => ((await live()) === count ? true : undefined), { timeoutMs: 15_000, what: `${count} live WebGL contexts: ${what}` });

    // Auto on this machine (no GPU: Chromium's WebGL is a software one): the DOM renderer.
    await typeInPane(page, firstPane, 'echo dom-$((1+1))');
    await waitForPaneText(page, firstPane, 'dom-2');
    assert.equal(await live(), 0, 'auto uses no software WebGL');

    // Settings → Terminal → GPU acceleration: On.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    await settings.getByRole('radiogroup', { name: 'GPU acceleration' }).getByRole('radio', { name: 'On' }).click();
    await pollUntil(async () => ((await settings.getByRole('radio', { name: 'On' }).getAttribute('aria-checked')) === 'true' ? true : undefined), { what: 'On chosen' });
    if (process.env.SWITCHBOARD_SCREENSHOTS) await page.screenshot({ path: join(process.env.SWITCHBOARD_SCREENSHOTS, 'settings-gpu.png') });
    await page.keyboard.press('Escape');
    await liveBecomes(1, 'the one pane in view');

    await page.getByRole('button', { name: 'Split right', exact: true }).click();
    const [, secondPane] = await waitForPanes(page, 2);
    await liveBecomes(2, 'both panes of the tab');
    await typeInPane(page, secondPane!, 'echo webgl-$((2+3))');
    await waitForPaneText(page, secondPane!, 'webgl-5');

    // A second tab: its pane takes a context at once; the first tab's two give theirs back once
    // they have been hidden a while (a quick look at another tab keeps them).
    await page.keyboard.press('Control+Shift+Backquote');
    await pollUntil(async () => (await page.getByRole('tab').count()) === 2, { what: 'a second tab' });
    const shownPanes = () => page.$$eval('[data-terminal-id]', (panes) => panes.filter((pane) => pane.checkVisibility({ visibilityProperty: true })).map((pane) => pane.getAttribute('data-terminal-id')));
    const thirdPane = await pollUntil(async () => {
      const shown = await shownPanes();
      return shown.length === 1 && ![firstPane, secondPane].includes(shown[0]!) ? shown[0]! : undefined;
    }, { what: 'the new tab\'s pane alone in view' });
    // Right away (the grace is 5 s from the switch; the new shell's prompt may take longer on a busy machine).
    await liveBecomes(3, 'the new pane took one; the hidden ones keep theirs for now');
    await waitForPaneText(page, thirdPane, '$');
    await liveBecomes(1, 'only the pane in view after the grace period');

    // Back to the first tab: its panes draw again, with WebGL, showing what they showed.
    await page.getByRole('tab').first().click();
    await pollUntil(async () => ((await shownPanes()).join() === [firstPane, secondPane].join() ? true : undefined), { what: 'the first tab\'s two panes in view' });
    await liveBecomes(3, 'the first tab\'s panes took theirs again');
    await liveBecomes(2, 'and the hidden tab\'s pane gave its one back');
    assert.match((await readPane(page, secondPane!))!, /webgl-5/);
    if (process.env.SWITCHBOARD_SCREENSHOTS) await page.screenshot({ path: join(process.env.SWITCHBOARD_SCREENSHOTS, 'webgl-panes.png') });

    // Off: every pane back on the DOM renderer, still working.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await settings.getByRole('radiogroup', { name: 'GPU acceleration' }).getByRole('radio', { name: 'Off' }).click();
    await page.keyboard.press('Escape');
    await liveBecomes(0, 'none with Off');
    await typeInPane(page, firstPane, 'echo off-$((3+4))');
    await waitForPaneText(page, firstPane, 'off-7');
  });
  it('asks Chromium about WebGL once per window, not at every reload, and again after a context was lost', async (t) => {
    const { page, firstPane } = await openFreshApp(t);
    // Counts the WebGL2 contexts asked for, from before the app's script runs.
    await page.addInitScript(() => {
      const counts = { webgl2: 0 };
      (globalThis as unknown as { __webglAsked: typeof counts }).__webglAsked = counts;
      const original = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
        if (type === 'webgl2') counts.webgl2++;
        return (original as (this: HTMLCanvasElement, ...args: unknown[]) => RenderingContext | null).call(this, type, ...rest);
      } as typeof original;
    });
    const asked = () => page.evaluate(() => (globalThis as unknown as { __webglAsked: { webgl2: number } }).__webglAsked.webgl2);
    const reloadAndType = async (text: string) => {
      await page.reload();
      await waitForPanes(page, 1);
      await typeInPane(page, firstPane, `echo ${text}-$((6*7))`);
      await waitForPaneText(page, firstPane, `${text}-42`);
    };
    const probeKey = 'switchboard.webglProbe';
    const remembered = () => page.evaluate((key) => sessionStorage.getItem(key), probeKey);

    // The first load probed (Auto: is WebGL on hardware here?) and kept the answer for the window.
    const found = /^\{"webgl2":(true|false),"hardware":(true|false)\}$/.exec((await remembered()) ?? '');
    assert.ok(found, 'the probe\'s answer is kept');
    // On a GPU, Auto draws the pane with WebGL: its own context is asked for too.
    const paneContexts = found[2] === 'true' ? 1 : 0;
    await reloadAndType('reloaded');
    assert.equal(await asked(), paneContexts, 'a reload does not probe again: the answer is remembered');
    await page.evaluate((key) => sessionStorage.removeItem(key), probeKey);
    await reloadAndType('forgotten');
    assert.equal(await asked(), 1 + paneContexts, 'with nothing remembered, the load probes once');

    // With GPU acceleration On the pane draws with WebGL; a context lost for real (here: made to)
    // makes the next load probe again, and the pane goes on with the DOM renderer.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    await settings.getByRole('radiogroup', { name: 'GPU acceleration' }).getByRole('radio', { name: 'On' }).click();
    await page.keyboard.press('Escape');
    const pane = page.locator(`[data-terminal-id="${firstPane}"]`);
    await pollUntil(async () => ((await pane.locator('canvas').count()) > 0 ? true : undefined), { what: 'the pane drawn with WebGL' });
    assert.notEqual(await remembered(), null);
    const lost = await pane.evaluate((element) => {
      for (const canvas of element.querySelectorAll('canvas')) {
        const context = canvas.getContext('webgl2');
        if (context) {
          context.getExtension('WEBGL_lose_context')!.loseContext();
          return true;
        }
      }
      return false;
    });
    assert.ok(lost, 'the pane has a WebGL2 canvas to lose');
    // xterm's WebGL addon waits 3 s for the context to come back before it gives up on it.
    await pollUntil(async () => ((await remembered()) === null && (await pane.locator('canvas').count()) === 0 ? true : undefined), {
      what: 'the probe forgotten and the pane back on the DOM renderer',
      timeoutMs: 10_000,
    });
    await typeInPane(page, firstPane, 'echo after-loss-$((2+2))');
    await waitForPaneText(page, firstPane, 'after-loss-4');
  });

  it('gives the tab in view WebGL before hidden tabs when there are more panes than contexts', async (t) => {
    const { page } = await openFreshApp(t);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByRole('region', { name: 'Settings' }).getByRole('radiogroup', { name: 'GPU acceleration' }).getByRole('radio', { name: 'On' }).click();
    await page.keyboard.press('Escape');
    // Seven panes in each of two tabs: fourteen, over the app's budget of twelve contexts.
    const shown = () =>
      page.$$eval('[data-terminal-id]', (panes) => panes.filter((pane) => pane.checkVisibility({ visibilityProperty: true })).map((pane) => ({ id: pane.getAttribute('data-terminal-id'), webgl: pane.querySelector('canvas') !== null })));
    const splitTo = async (count: number) => {
      for (let panes = 1; panes < count; panes++) await page.getByRole('button', { name: 'Split right', exact: true }).click();
      await pollUntil(async () => ((await shown()).length === count ? true : undefined), { what: `${count} panes in view` });
    };
    const allDrawnWithWebgl = (what: string, timeoutMs: number) =>
      pollUntil(async () => {
        const panes = await shown();
        return panes.length === 7 && panes.every((pane) => pane.webgl) ? panes.map((pane) => pane.id) : undefined;
      }, { timeoutMs, what });
    await splitTo(7);
    const first = await allDrawnWithWebgl('the first tab\'s seven panes on WebGL', 15_000);
    await page.keyboard.press('Control+Shift+Backquote');
    await pollUntil(async () => (await page.getByRole('tab').count()) === 2, { what: 'a second tab' });
    await splitTo(7);
    // Within the hidden panes' grace: the five free contexts and two taken from the hidden tab.
    const second = await allDrawnWithWebgl('the second tab\'s seven panes on WebGL at once', 3_000);
    assert.equal(second.filter((id) => first.includes(id)).length, 0);
    // And back, still within the grace: the first tab takes two back from the now hidden second.
    await page.getByRole('tab').first().click();
    assert.deepEqual(await allDrawnWithWebgl('the first tab\'s panes on WebGL again at once', 3_000), first);
  });
});
