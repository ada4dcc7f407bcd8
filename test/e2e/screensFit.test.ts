/**
 * Screens that fit (issue 17, items 9–13), measured in real Chromium against `switchboard serve`:
 * History's lists and session viewer at 1000×700, tab names beside their marks, every overlay of a
 * pane on top of the terminal (exit banner, search bar, agent-input line, an agent's prompt banner,
 * input notice, restored marker) with the DOM and the WebGL renderer, an outside-workspace path in the Review list, and the
 * Review diff (per-change headers, its last line, its toolbar, its tab strip), the sidebar's chips
 * and the panes' scrollbars.
 *
 * Chromium runs with its native scrollbars shown (Playwright hides them in headless mode), as a
 * person sees them. The checks measure geometry (boxes, scroll sizes, what is hit at a point), so
 * each fails when the screen does not fit. For a person to look at:
 * SWITCHBOARD_SCREENSHOTS=/tmp/some/dir node --test test/e2e/screensFit.test.ts
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { ControlClient } from '../../src/cli/controlClient.ts';
import { FakeClaudeCli } from '../integration/ide/ideTestKit.ts';
import { pollUntil } from '../helpers/poll.ts';
import { installStandInClaude } from '../helpers/standInClaude.ts';
import {
  openApp,
  openFreshApp,
  startServedApp,
  type ServedApp,
  transitionsDone,
  typeInPane,
  useSharedBrowser,
  waitForLayoutSaved,
  waitForPanes,
  waitForPaneText,
} from '../helpers/servedApp.ts';

const browser = useSharedBrowser({ showScrollbars: true });
const shots = process.env.SWITCHBOARD_SCREENSHOTS;

type Scheme = 'light' | 'dark';
interface Size {
  width: number;
  height: number;
}
const small: Size = { width: 1000, height: 700 };
const usual: Size = { width: 1280, height: 800 };
const large: Size = { width: 1920, height: 1080 };
const schemes: Scheme[] = ['light', 'dark'];

/** A review request waits this long for the person (the test decides it, or ends it). */
const reviewTimeoutMs = 120_000;
/** Items of one toolbar row are centred on one line; a second row is a whole row (26 px or more) lower. */
const oneRowTolerancePx = 4;

async function show(page: Page, size: Size, scheme: Scheme): Promise<void> {
  await page.setViewportSize(size);
  await page.emulateMedia({ colorScheme: scheme });
  await pollUntil(() => page.evaluate((wanted) => document.documentElement.dataset.theme === wanted, scheme), { what: `the ${scheme} theme` });
}

async function shot(page: Page, name: string): Promise<void> {
  if (!shots) return;
  await transitionsDone(page);
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

function sizeName(size: Size): string {
  return `${size.width}x${size.height}`;
}

/** Elements under `root` (or matching it) whose text is cut: wider content than box, or no box at all. */
function truncated(root: Locator, selector: string): Promise<string[]> {
  return root.evaluate(
    (element, selector) =>
      [...element.querySelectorAll<HTMLElement>(selector)]
        .filter((node) => node.getClientRects().length > 0 && (node.textContent ?? '').trim() !== '')
        .filter((node) => node.clientWidth === 0 || node.scrollWidth > node.clientWidth)
        .map((node) => `"${node.textContent?.trim()}" ${node.scrollWidth}px in ${node.clientWidth}px`),
    selector,
  );
}

/** Whether the characters of an element's first text are drawn left to right in the order they are written. */
function drawnInOrder(element: Locator): Promise<boolean> {
  return element.evaluate((node) => {
    const text = [...node.childNodes].find((child) => child.nodeType === Node.TEXT_NODE)!;
    const range = document.createRange();
    const lefts = [...(text.textContent ?? '')].map((_, index) => {
      range.setStart(text, index);
      range.setEnd(text, index + 1);
      return range.getBoundingClientRect().left;
    });
    return lefts.every((left, index) => index === 0 || left >= lefts[index - 1]!);
  });
}

/** Whether `tail`, the end of an element's last text, is drawn inside the element's box, and whether its text is cut at all. */
function tailInView(element: Locator, tail: string): Promise<{ tailInView: boolean; cut: boolean }> {
  return element.evaluate((node, tail) => {
    const text = [...node.childNodes].filter((child) => child.nodeType === Node.TEXT_NODE).at(-1)!;
    const length = (text.textContent ?? '').length;
    const range = document.createRange();
    range.setStart(text, length - tail.length);
    range.setEnd(text, length);
    const drawn = range.getBoundingClientRect();
    const box = node.getBoundingClientRect();
    return { tailInView: drawn.left >= box.left - 0.5 && drawn.right <= box.right + 0.5, cut: node.scrollWidth > node.clientWidth };
  }, tail);
}

/** The header cells of a table that overlap the next one. */
function overlappingHeaders(table: Locator): Promise<string[]> {
  return table.evaluate((element) => {
    const cells = [...element.querySelectorAll('thead th')].filter((cell) => cell.getClientRects().length > 0);
    const problems: string[] = [];
    for (let index = 1; index < cells.length; index++) {
      const before = cells[index - 1]!.getBoundingClientRect();
      const here = cells[index]!.getBoundingClientRect();
      if (before.right > here.left + 0.5) problems.push(`${cells[index - 1]!.textContent} overlaps ${cells[index]!.textContent}`);
    }
    return problems;
  });
}

/**
 * Points across `overlay` where something else is hit: empty when the overlay is fully on top and
 * fully on screen. The grid keeps 6px in from the edges, past the rounded corners (a point outside
 * a rounded corner does not hit the element).
 */
function coveredPoints(overlay: Locator): Promise<string[]> {
  return overlay.evaluate((element) => {
    const describe = (node: Element | null) => (node ? `${node.tagName.toLowerCase()}${[...node.classList].map((name) => `.${name}`).join('')}` : 'nothing (off screen)');
    const box = element.getBoundingClientRect();
    const inset = Math.min(6, box.width / 4, box.height / 4);
    const xs = [box.left + inset, box.left + box.width / 4, box.left + box.width / 2, box.left + (box.width * 3) / 4, box.right - inset];
    const ys = [box.top + inset, box.top + box.height / 2, box.bottom - inset];
    const problems: string[] = [];
    for (const x of xs) {
      for (const y of ys) {
        const hit = document.elementFromPoint(x, y);
        if (!hit || !element.contains(hit)) problems.push(`(${Math.round(x)}, ${Math.round(y)}): ${describe(hit)}`);
      }
    }
    return problems;
  });
}

async function assertOnTop(overlay: Locator, what: string): Promise<void> {
  await overlay.waitFor({ state: 'visible' });
  assert.deepEqual(await coveredPoints(overlay), [], `${what} is covered at these points`);
}

/**
 * Watches every pane overlay at every frame from the one it is added in until it goes: points
 * across it must hit the overlay itself. A terminal refits only a moment after its slot shrinks
 * for a new strip, so a strip it could paint over is caught in those frames (the new strip, or
 * one already shown above it). Page-side source, so it can run from an init script too (before
 * the app's first render).
 */
const overlayWatcher = `() => {
  const selector = '.exit-banner, .agent-input-line, .agent-prompt-banner, .pane-input-notice, .search-bar, .pane-restored';
  const record = { misses: [], sampled: {} };
  globalThis.__overlayWatch = record;
  const describe = (node) => (node ? node.tagName.toLowerCase() + [...node.classList].map((name) => '.' + name).join('') : 'nothing (off screen)');
  const watch = (overlay) => {
    const name = describe(overlay);
    let frame = 0;
    const sample = () => {
      if (!overlay.isConnected) return;
      frame++;
      const box = overlay.getBoundingClientRect();
      // Not while its tab or view is hidden (a person cannot see it then either).
      if (box.width > 0 && box.height > 0 && overlay.checkVisibility({ visibilityProperty: true })) {
        record.sampled[name] = (record.sampled[name] ?? 0) + 1;
        const inset = Math.min(6, box.width / 4, box.height / 4);
        for (const x of [box.left + inset, box.left + box.width / 2, box.right - inset]) {
          for (const y of [box.top + inset, box.top + box.height / 2, box.bottom - inset]) {
            const hit = document.elementFromPoint(x, y);
            if (!hit || !overlay.contains(hit)) record.misses.push(name + ', frame ' + frame + ', (' + Math.round(x) + ', ' + Math.round(y) + '): ' + describe(hit));
          }
        }
      }
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  };
  // The document itself is observed: from an init script, there is no documentElement yet.
  new MutationObserver((mutations) => {
    for (const mutation of mutations) {
      for (const node of mutation.addedNodes) {
        if (!(node instanceof Element)) continue;
        if (node.matches(selector)) watch(node);
        node.querySelectorAll(selector).forEach(watch);
      }
    }
  }).observe(document, { childList: true, subtree: true });
}`;

async function watchOverlays(page: Page): Promise<void> {
  await page.evaluate(`(${overlayWatcher})()`);
}

/** The same watcher from the first frame of every page of `context`. */
async function watchOverlaysFromLoad(context: BrowserContext): Promise<void> {
  await context.addInitScript(`(${overlayWatcher})()`);
}

function watchedOverlays(page: Page): Promise<{ misses: string[]; sampled: Record<string, number> }> {
  return page.evaluate(() => (globalThis as unknown as { __overlayWatch: { misses: string[]; sampled: Record<string, number> } }).__overlayWatch);
}

/** Holds `terminal.attach` back while `__attach.hold` is set, so a test can type into a pane that is not attached yet. */
async function holdAttachRequests(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const controls = { hold: false, held: [] as (() => void)[] };
    (globalThis as unknown as { __attach: typeof controls }).__attach = controls;
    const Native = WebSocket;
    globalThis.WebSocket = class extends Native {
      override send(data: Parameters<WebSocket['send']>[0]): void {
        if (controls.hold && typeof data === 'string' && data.includes('"terminal.attach"')) {
          controls.held.push(() => super.send(data));
          return;
        }
        super.send(data);
      }
    };
  });
}

/**
 * Chromium here has no GPU, only SwiftShader, and the app keeps to the DOM renderer on a software
 * rasteriser (webglSupport.ts). Naming a hardware renderer makes it load xterm's WebGL renderer
 * (drawn by SwiftShader), so the overlays are checked over a WebGL canvas too.
 */
async function claimHardwareWebgl(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    for (const prototype of [WebGLRenderingContext.prototype, WebGL2RenderingContext.prototype]) {
      const native = prototype.getParameter;
      prototype.getParameter = function (this: WebGLRenderingContext, parameter: number) {
        const value: unknown = native.call(this, parameter);
        return typeof value === 'string' && /swiftshader|llvmpipe|software/i.test(value) ? 'Test GPU' : value;
      };
    }
  });
}

async function openWithContext(
  t: TestContext,
  setup: (context: BrowserContext) => Promise<void>,
  options: { app?: ServedApp; size?: Size } = {},
): Promise<{ app: ServedApp; page: Page; firstPane: string }> {
  const app = options.app ?? (await startServedApp());
  if (!options.app) t.after(() => app.stop());
  const context = await browser().newContext({ viewport: options.size ?? usual });
  t.after(() => context.close());
  await setup(context);
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  t.after(() => assert.deepEqual(pageErrors, [], 'the page threw'));
  const firstPane = await openApp(page, app.url);
  return { app, page, firstPane };
}

function agentFor(app: ServedApp, t: TestContext): ControlClient {
  const agent = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
  t.after(() => agent.dispose());
  return agent;
}

/** The id of the pane that appears after `action`. */
async function newPaneAfter(page: Page, action: () => Promise<void>): Promise<string> {
  const before = new Set(await page.$$eval('[data-terminal-id]', (panes) => panes.map((pane) => pane.getAttribute('data-terminal-id'))));
  await action();
  return pollUntil(
    async () => (await page.$$eval('[data-terminal-id]', (panes) => panes.map((pane) => pane.getAttribute('data-terminal-id')))).find((id) => id && !before.has(id)),
    { what: 'a new pane' },
  );
}

async function newTab(page: Page): Promise<string> {
  const pane = await newPaneAfter(page, () => page.getByRole('button', { name: 'New terminal', exact: true }).click());
  await waitForPaneText(page, pane, '$');
  return pane;
}

/**
 * Every overlay of a pane, appearing over a pane at `size` in `scheme`: the search bar over a match
 * drawn under it, the exit banner, the agent-input line, and the input notice of a pane typed
 * into before it was attached. Each strip gets a pane of its own, so it is the one right under
 * the screen when it appears.
 */
async function exerciseOverlays(page: Page, agent: ControlClient, claudeBin: string, size: Size, scheme: Scheme, label: string): Promise<void> {
  await show(page, size, scheme);
  const pane = await newTab(page);
  const paneLocator = page.locator(`[data-terminal-id="${pane}"]`);

  // A match at the right end of the first two rows: under the search bar.
  await typeInPane(page, pane, "clear; for row in 1 2; do printf '%*s\\n' $(( $(tput cols) - 2 )) needle; done");
  await waitForPaneText(page, pane, /needle\n\s*needle/);
  await page.keyboard.press('Control+Shift+F');
  const search = paneLocator.locator('.search-bar input[type="search"]');
  await search.fill('needle');
  await pollUntil(async () => /of 2$/.test(await paneLocator.locator('.search-count').innerText()), { what: 'the two matches' });
  await paneLocator.locator('.xterm-find-result-decoration, .xterm-find-active-result-decoration').first().waitFor({ state: 'attached' });
  await assertOnTop(paneLocator.locator('.search-bar'), `the search bar (${label})`);
  await shot(page, `overlay-search-${label}`);
  await search.press('Escape');
  await paneLocator.locator('.search-bar').waitFor({ state: 'detached' });

  // The program ends: the banner, right under the screen.
  await typeInPane(page, pane, 'exit 3');
  const banner = paneLocator.locator('.exit-banner');
  await assertOnTop(banner, `the exit banner (${label})`);
  await shot(page, `overlay-exit-${label}`);
  await banner.getByRole('button', { name: 'Close' }).click();
  await paneLocator.waitFor({ state: 'detached' });

  // What an agent typed, in a pane of its own: a strip under the screen.
  const driven = await newTab(page);
  await agent.send(driven, { text: 'echo from-agent' });
  await assertOnTop(page.locator(`[data-terminal-id="${driven}"] .agent-input-line`), `the agent-input line (${label})`);
  await waitForPaneText(page, driven, 'from-agent');
  await shot(page, `overlay-agent-${label}`);
  await agent.close(driven);

  // An agent CLI asks permission: the strip with its question and Approve / Deny, under the screen.
  const asking = await newTab(page);
  await typeInPane(page, asking, join(claudeBin, 'claude'));
  await waitForPaneText(page, asking, 'Claude Code (stand-in for tests)');
  await typeInPane(page, asking, 'run true');
  const promptBanner = page.locator(`[data-terminal-id="${asking}"] .agent-prompt-banner`);
  await assertOnTop(promptBanner, `the agent's prompt banner (${label})`);
  await shot(page, `overlay-agent-prompt-${label}`);
  await promptBanner.getByRole('button', { name: 'Deny' }).click();
  await promptBanner.waitFor({ state: 'detached' });
  await agent.close(asking);

  // Keys typed into a pane that is not attached yet, more than it keeps: the notice says so.
  await page.evaluate(() => ((globalThis as unknown as { __attach: { hold: boolean } }).__attach.hold = true));
  const waiting = await newPaneAfter(page, () => page.getByRole('button', { name: 'New terminal', exact: true }).click());
  await page.waitForFunction((id) => document.activeElement?.closest('[data-terminal-id]')?.getAttribute('data-terminal-id') === id, waiting, { polling: 10 });
  await page.evaluate(() => navigator.clipboard.writeText(`echo ${'x'.repeat(70_000)}`));
  await page.keyboard.press('Control+Shift+V');
  const notice = page.locator(`[data-terminal-id="${waiting}"] .pane-input-notice`);
  await assertOnTop(notice, `the input notice before the pane is attached (${label})`);
  await page.evaluate(() => {
    const controls = (globalThis as unknown as { __attach: { hold: boolean; held: (() => void)[] } }).__attach;
    controls.hold = false;
    for (const send of controls.held.splice(0)) send();
  });
  await waitForPaneText(page, waiting, '$');
  await assertOnTop(notice, `the input notice once the pane is attached (${label})`);
  await shot(page, `overlay-notice-${label}`);
  await agent.close(waiting);
}

async function checkOverlays(t: TestContext, renderer: 'dom' | 'webgl'): Promise<void> {
  const { app, page, firstPane } = await openWithContext(t, async (context) => {
    await holdAttachRequests(context);
    if (renderer === 'webgl') await claimHardwareWebgl(context);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  });
  const canvases = await page.locator(`[data-terminal-id="${firstPane}"] .xterm-screen canvas`).count();
  assert.equal(canvases > 0, renderer === 'webgl', `the pane uses the ${renderer} renderer`);
  const agent = agentFor(app, t);
  const claudeBin = installStandInClaude(app.home);
  await watchOverlays(page);
  for (const size of [small, large]) {
    for (const scheme of schemes) await exerciseOverlays(page, agent, claudeBin, size, scheme, `${renderer}-${sizeName(size)}-${scheme}`);
  }
  const watched = await watchedOverlays(page);
  for (const overlay of ['div.exit-banner', 'div.agent-input-line', 'div.agent-prompt-banner', 'div.pane-input-notice', 'div.search-bar']) {
    assert.ok((watched.sampled[overlay] ?? 0) > 0, `${overlay} was watched as it appeared (${JSON.stringify(watched.sampled)})`);
  }
  assert.deepEqual(watched.misses.slice(0, 20), [], 'an overlay was covered in the frames after it appeared');
}

/** A client that speaks to the app's IDE bridge as the `claude` CLI does, found through its lock file. */
async function connectClaude(app: ServedApp, t: TestContext): Promise<FakeClaudeCli> {
  const lockDir = join(app.home, '.claude', 'ide');
  const lockName = await pollUntil(
    () => {
      try {
        return readdirSync(lockDir).find((name) => name.endsWith('.lock'));
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 15_000, what: 'the IDE lock file' },
  );
  const lock = JSON.parse(readFileSync(join(lockDir, lockName), 'utf8')) as { authToken: string };
  const cli = await FakeClaudeCli.connect(Number(lockName.slice(0, -'.lock'.length)), lock.authToken);
  t.after(() => cli.close());
  return cli;
}

/** Thirty numbered lines: edits to lines far apart are separate changes. */
const thirtyLines = Array.from({ length: 30 }, (_, index) => `export const line${index + 1} = ${index + 1};`).join('\n') + '\n';

function withLines(text: string, replacements: Record<number, string>): string {
  const lines = text.split('\n');
  for (const [number, replacement] of Object.entries(replacements)) lines[Number(number) - 1] = replacement;
  return lines.join('\n');
}

function requestReview(agent: ControlClient, fields: Record<string, unknown>): void {
  // Decided by the test or ended with it; the answer is not what these tests look at.
  agent.request('review.request', fields, { timeoutMs: reviewTimeoutMs }).catch(() => {});
}

async function openReview(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Sidebar' }).getByRole('button', { name: 'Review', exact: true }).click();
  await page.getByRole('region', { name: 'Review', exact: true }).waitFor();
}

describe('screens that fit', () => {
  it('History at 1000×700: every column of its lists and the session viewer’s whole toolbar', async (t) => {
    const { page, firstPane } = await openFreshApp(browser(), t, { viewport: small });
    await typeInPane(page, firstPane, 'echo hello-history');
    await waitForPaneText(page, firstPane, /^hello-history$/m);
    await page.getByRole('button', { name: 'History', exact: true }).click();
    const view = page.getByRole('region', { name: 'History' });
    const sessions = view.getByRole('table', { name: 'Sessions' });
    await sessions.locator('tbody tr').first().waitFor();

    for (const size of [small, usual]) {
      for (const scheme of schemes) {
        await show(page, size, scheme);
        const where = `${sizeName(size)} ${scheme}`;
        await view.getByRole('tab', { name: 'Sessions' }).click();
        await sessions.locator('tbody tr').first().waitFor();
        await shot(page, `history-sessions-${sizeName(size)}-${scheme}`);
        assert.deepEqual(await overlappingHeaders(sessions), [], `Sessions headers overlap at ${where}`);
        assert.deepEqual(await truncated(sessions, 'th'), [], `Sessions headers cut at ${where}`);
        assert.deepEqual(await truncated(sessions, '.history-session-name, .history-session-program'), [], `the session's name cut at ${where}`);
        // A folder too long for its column keeps its end, the part that tells sessions apart, in
        // view ("…k01BOp/workspace", not "/tmp/sb-e2e-k0…"), its characters in their order.
        const sessionFolder = sessions.locator('tbody tr').first().locator('.history-folder');
        assert.equal((await tailInView(sessionFolder, '/workspace')).tailInView, true, `the session's folder lost its end at ${where}`);
        assert.ok(await drawnInOrder(sessionFolder), `the session's folder drawn out of order at ${where}`);

        await view.getByRole('tab', { name: 'Commands' }).click();
        const commands = view.getByRole('table', { name: 'Commands' });
        // Commands are recorded off the hot path: the list may need a moment to have this one.
        await pollUntil(async () => (await commands.locator('tbody tr', { hasText: 'echo hello-history' }).count()) > 0, { timeoutMs: 15_000, what: 'the recorded command' });
        await shot(page, `history-commands-${sizeName(size)}-${scheme}`);
        assert.deepEqual(await overlappingHeaders(commands), [], `Commands headers overlap at ${where}`);
        assert.deepEqual(await truncated(commands, 'th'), [], `Commands headers cut at ${where}`);
        assert.deepEqual(await truncated(commands, '.history-command-line code'), [], `the command line cut at ${where}`);
        const commandFolder = commands.locator('tbody tr', { hasText: 'echo hello-history' }).locator('.history-folder');
        assert.equal((await tailInView(commandFolder, '/workspace')).tailInView, true, `the command's folder lost its end at ${where}`);
        assert.ok(await drawnInOrder(commandFolder), `the command's folder drawn out of order at ${where}`);
      }
    }

    await view.getByRole('tab', { name: 'Sessions' }).click();
    await sessions.locator('.history-row-open').first().click();
    const viewer = view.locator('.history-viewer[data-session-id]');
    await viewer.waitFor();
    const bar = viewer.locator('.history-viewer-bar');
    for (const size of [small, usual]) {
      for (const scheme of schemes) {
        await show(page, size, scheme);
        const where = `${sizeName(size)} ${scheme}`;
        await shot(page, `history-viewer-${sizeName(size)}-${scheme}`);
        assert.deepEqual(await truncated(bar, 'h2, button'), [], `the viewer's title or a button is cut at ${where}`);
        const outside = await bar.evaluate((element) => {
          const box = element.getBoundingClientRect();
          return [...element.querySelectorAll('button, h2, input')]
            .map((node) => ({ node, rect: node.getBoundingClientRect() }))
            .filter(({ rect }) => rect.left < box.left - 0.5 || rect.right > box.right + 0.5 || rect.right > window.innerWidth)
            .map(({ node, rect }) => `${node.textContent?.trim() || node.getAttribute('aria-label') || node.tagName} at ${Math.round(rect.left)}–${Math.round(rect.right)}`);
        });
        assert.deepEqual(outside, [], `outside the viewer's bar at ${where}`);
        await assertOnTop(viewer.getByRole('button', { name: 'Delete session' }), `Delete session at ${where}`);
      }
    }
  });

  it('History at 1000×700: a session replayed to its end shows its last lines and prompt in the box, not hidden below it', async (t) => {
    const { page, firstPane } = await openFreshApp(browser(), t, { viewport: small });
    // A full screen of output, then a last line: the recording is as tall as the pane (40 rows at
    // 1280×800's pane, more than the 1000×700 box holds at a legible size).
    await page.setViewportSize(usual);
    await typeInPane(page, firstPane, 'seq 1 120; echo last-line-$((6*7))');
    await waitForPaneText(page, firstPane, /^last-line-42$/m);
    await page.setViewportSize(small);
    await page.getByRole('button', { name: 'History', exact: true }).click();
    const view = page.getByRole('region', { name: 'History' });
    const sessions = view.getByRole('table', { name: 'Sessions' });
    await sessions.locator('.history-row-open').first().click();
    const viewer = view.locator('.history-viewer[data-session-id]');
    await viewer.getByRole('group', { name: 'Replay' }).waitFor();
    /** Whether the replay's row reading `text` is drawn within the box's visible part. */
    const rowInBox = (text: string) =>
      viewer.evaluate((element, text) => {
        const box = element.querySelector('.transcript-box')!.getBoundingClientRect();
        const row = [...element.querySelectorAll('.transcript-host .xterm-rows > div')].find((candidate) => candidate.textContent?.trim() === text);
        if (!row) return 'not drawn';
        const rect = row.getBoundingClientRect();
        return rect.top >= box.top - 1 && rect.bottom <= box.bottom + 1 ? 'in view' : `outside the box (${Math.round(rect.top)}–${Math.round(rect.bottom)} in ${Math.round(box.top)}–${Math.round(box.bottom)})`;
      }, text);
    const waitForRowInBox = (text: string, what: string) =>
      pollUntil(async () => ((await rowInBox(text)) === 'in view' ? true : undefined), { what }).catch(async (error: unknown) => {
        throw new Error(`${(error as Error).message}: ${await rowInBox(text)}`);
      });
    await waitForRowInBox('last-line-42', 'the last line in the box');
    await shot(page, 'history-viewer-end-1000x700');
    // A match found higher up: the box shows its row instead.
    await viewer.getByRole('searchbox', { name: 'Find in transcript' }).fill('82');
    await waitForRowInBox('82', 'the match in the box');
  });

  it('keeps tab names readable beside the not-recorded and shared marks, the sidebar’s chips on their row, and no native scrollbar in a pane', async (t) => {
    const { page, firstPane } = await openFreshApp(browser(), t, { viewport: usual });
    // Remote access set up (a relay URL), so a pane can be shared.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const relayUrl = page.getByRole('region', { name: 'Settings' }).getByRole('region', { name: 'Remote access' }).getByLabel('Relay URL');
    await relayUrl.fill('wss://relay.invalid');
    await relayUrl.press('Enter');
    await page.getByRole('button', { name: 'Terminals', exact: true }).click();

    // A second tab, not recorded and shared: both marks beside its name.
    const marked = await newTab(page);
    await page.getByRole('button', { name: "Don't record this terminal" }).click();
    await page.getByRole('button', { name: 'Delete and stop recording' }).click();
    await page.getByRole('button', { name: 'Share to relay' }).click();
    const markedTab = page.locator('.tab', { has: page.locator('.not-recorded-mark') });
    await markedTab.locator('[data-relay-shared]').waitFor();

    // A third that rings the bell out of view and ends with 4: both chips in the sidebar.
    const ringing = await newTab(page);
    await typeInPane(page, ringing, "sleep 1; printf 'ding\\a\\n'; exit 4");
    await page.getByRole('tab').first().click();
    const ringingItem = page.locator(`[data-terminal-item="${ringing}"]`);
    await ringingItem.locator('.attention-badge').waitFor();
    await ringingItem.locator('.exit-pill').waitFor();

    // More tabs than fit: the strip scrolls and every tab is at its narrowest.
    for (let count = 3; count < 10; count++) await page.getByRole('button', { name: 'New terminal', exact: true }).click();
    await waitForPanes(page, 10);
    await markedTab.locator('.tab-button').click();
    await waitForPaneText(page, marked, '$');

    for (const size of [usual, small]) {
      for (const scheme of schemes) {
        await show(page, size, scheme);
        const where = `${sizeName(size)} ${scheme}`;
        await shot(page, `tabs-${sizeName(size)}-${scheme}`);
        const strip = page.getByRole('tablist', { name: 'Terminal tabs' });
        assert.ok(await strip.evaluate((element) => element.scrollWidth > element.clientWidth), `the tab strip scrolls at ${where}`);
        assert.deepEqual(await truncated(strip, '.tab-title'), [], `a tab's name is cut at ${where}`);

        // The bell and exit chips side by side on the name's row, whole, inside the item.
        const chips = await ringingItem.evaluate((item) => {
          const box = item.getBoundingClientRect();
          const bell = item.querySelector('.attention-badge')!.getBoundingClientRect();
          const exit = item.querySelector('.exit-pill')!;
          const exitBox = exit.getBoundingClientRect();
          return {
            sameRow: Math.abs(bell.top - exitBox.top) < 1,
            inside: exitBox.left >= box.left && exitBox.right <= box.right && bell.left >= box.left && bell.right <= box.right,
            whole: exit.scrollWidth <= exit.clientWidth && exitBox.width > 0,
          };
        });
        assert.deepEqual(chips, { sameRow: true, inside: true, whole: true }, `the sidebar's bell and exit chips at ${where}`);
        assert.equal(await ringingItem.locator('.exit-pill').innerText(), 'exit 4');

        // xterm draws its own scrollbar; the viewport under it must not show a native one (its arrow peeked out).
        const gutters = await page.locator(`[data-terminal-id="${firstPane}"], [data-terminal-id="${marked}"]`).evaluateAll((panes) =>
          panes.flatMap((pane) => [...pane.querySelectorAll<HTMLElement>('.xterm-viewport')].map((viewport) => viewport.offsetWidth - viewport.clientWidth)),
        );
        assert.ok(gutters.length > 0 && gutters.every((width) => width === 0), `native scrollbar widths in the panes at ${where}: ${gutters.join(', ')}`);
      }
    }

    // The last tab active in a wide window, then the window narrows: the active tab stays in view.
    await show(page, large, 'dark');
    await page.getByRole('tab').last().click();
    await show(page, small, 'dark');
    const strip = page.getByRole('tablist', { name: 'Terminal tabs' });
    await pollUntil(
      async () => {
        const [stripBox, activeBox] = await Promise.all([strip.boundingBox(), strip.locator('.tab[data-active="true"]').boundingBox()]);
        return stripBox && activeBox && activeBox.x >= stripBox.x - 1 && activeBox.x + activeBox.width <= stripBox.x + stripBox.width + 1 ? true : undefined;
      },
      { what: 'the active tab inside the narrowed strip' },
    );
  });

  it('keeps every overlay of a pane on top of the terminal from the frame it appears (DOM renderer)', async (t) => {
    await checkOverlays(t, 'dom');
  });

  it('keeps every overlay of a pane on top of the terminal from the frame it appears (WebGL renderer)', async (t) => {
    await checkOverlays(t, 'webgl');
  });

  it('keeps a restored pane’s header and its marker clear of the search bar', async (t) => {
    const first = await startServedApp();
    t.after(() => first.stop());
    const { page, firstPane } = await openWithContext(t, async () => {}, { app: first });
    await typeInPane(page, firstPane, 'echo before-restart');
    await waitForPaneText(page, firstPane, /^before-restart$/m);
    await waitForLayoutSaved(page);
    await page.context().close();
    await first.stop({ keepFiles: true });

    const again = await startServedApp({ dirs: first.dirs });
    t.after(() => again.stop());
    const { page: restored, firstPane: pane } = await openWithContext(t, watchOverlaysFromLoad, { app: again, size: small });
    const paneLocator = restored.locator(`[data-terminal-id="${pane}"]`);
    const marker = paneLocator.locator('.pane-restored');
    for (const size of [small, large]) {
      for (const scheme of schemes) {
        await show(restored, size, scheme);
        const where = `${sizeName(size)} ${scheme}`;
        await assertOnTop(marker, `the restored marker at ${where}`);
        await paneLocator.locator('.pane-body').click();
        await restored.keyboard.press('Control+Shift+F');
        await paneLocator.locator('.search-bar').waitFor();
        await shot(restored, `restored-search-${sizeName(size)}-${scheme}`);
        await assertOnTop(paneLocator.locator('.pane-header'), `the restored pane's header with the search bar open at ${where}`);
        await assertOnTop(paneLocator.locator('.search-bar'), `the search bar at ${where}`);
        await restored.keyboard.press('Escape');
        await paneLocator.locator('.search-bar').waitFor({ state: 'detached' });
      }
    }
    const watched = await watchedOverlays(restored);
    assert.ok((watched.sampled['button.pane-restored'] ?? 0) > 0, `the marker was watched as it appeared (${JSON.stringify(watched.sampled)})`);
    assert.deepEqual(watched.misses.slice(0, 20), [], 'an overlay was covered in the frames after it appeared');
  });

  it('keeps the search bar inside a narrow split, its field still there to type in', async (t) => {
    const { page, firstPane } = await openWithContext(t, async () => {}, { size: small });
    // Three side by side at 1000 px: each pane is about 250 px wide.
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    const second = await newPaneAfter(page, () => page.keyboard.press('Control+Shift+D'));
    await waitForPaneText(page, second, '$');
    const third = await newPaneAfter(page, () => page.keyboard.press('Control+Shift+D'));
    await waitForPaneText(page, third, '$');
    for (const pane of [firstPane, third]) {
      const paneLocator = page.locator(`[data-terminal-id="${pane}"]`);
      await paneLocator.locator('.pane-body').click();
      await page.keyboard.press('Control+Shift+F');
      const bar = paneLocator.locator('.search-bar');
      await bar.waitFor();
      await shot(page, `search-narrow-${pane === firstPane ? 'left' : 'right'}`);
      const [paneBox, barBox, fieldBox] = await Promise.all([paneLocator.boundingBox(), bar.boundingBox(), bar.locator('input[type="search"]').boundingBox()]);
      assert.ok(paneBox && barBox && fieldBox);
      assert.ok(barBox.x >= paneBox.x && barBox.x + barBox.width <= paneBox.x + paneBox.width, `the bar (${barBox.x}–${barBox.x + barBox.width}) lies inside its pane (${paneBox.x}–${paneBox.x + paneBox.width})`);
      assert.ok(fieldBox.x >= barBox.x && fieldBox.width >= 56, `its field is inside it and wide enough to type in (${fieldBox.width} px)`);
      await assertOnTop(bar, `the search bar of a ${Math.round(paneBox.width)} px pane`);
      await page.keyboard.type('$');
      await pollUntil(async () => /of \d+$/.test(await paneLocator.locator('.search-count').innerText()), { what: 'a match count' });
      await page.keyboard.press('Escape');
      await bar.waitFor({ state: 'detached' });
    }
  });

  it('cuts a long folder in a narrow pane’s header at its start, so its last folders stay in view', async (t) => {
    const { page, firstPane } = await openWithContext(t, async () => {}, { size: small });
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    // Each split halves the newest pane: the last one is about 190 px wide at 1000 px.
    let narrow = firstPane;
    for (let split = 0; split < 2; split++) {
      narrow = await newPaneAfter(page, () => page.keyboard.press('Control+Shift+D'));
      await waitForPaneText(page, narrow, '$');
    }
    await typeInPane(page, narrow, 'mkdir -p services/payments/src && cd services/payments/src');
    const subtitle = page.locator(`[data-terminal-id="${narrow}"] .pane-subtitle`);
    await pollUntil(async () => (await subtitle.getAttribute('title'))?.endsWith('/payments/src'), { what: 'the header to follow the cd' });
    for (const scheme of schemes) {
      await show(page, small, scheme);
      await shot(page, `pane-header-deep-folder-${scheme}`);
      assert.deepEqual(await tailInView(subtitle, 'payments/src'), { tailInView: true, cut: true }, `the deep folder in a narrow pane's header (${scheme})`);
      assert.ok(await drawnInOrder(subtitle), `the deep folder in a narrow pane's header drawn out of order (${scheme})`);
    }
    // A command running there: the folder gives way first, and the command is shown whole.
    await typeInPane(page, narrow, 'sleep 300');
    const command = page.locator(`[data-terminal-id="${narrow}"] .pane-command`);
    await pollUntil(async () => (await command.count()) === 1 && (await command.innerText()).includes('sleep 300'), { what: 'the running command in the header' });
    await shot(page, 'pane-header-running-command');
    assert.deepEqual(await command.evaluate((element) => element.scrollWidth <= element.clientWidth), true, 'the running command is not cut');
  });

  it('shows an outside-workspace path in the Review list as it is written', async (t) => {
    const { app, page } = await openFreshApp(browser(), t, { viewport: usual });
    const agent = agentFor(app, t);
    const deep = join(app.home, 'a', 'rather', 'long', 'way', 'down', 'to', 'a', 'folder', 'outside', 'settings.json');
    requestReview(agent, { path: '/etc/hostname', newContents: 'other-host\n', title: 'Rename the host' });
    requestReview(agent, { path: deep, newContents: '{}\n', title: 'Deep file' });
    await openReview(page);
    const pending = page.getByRole('region', { name: 'Pending', exact: true });
    await pollUntil(async () => (await pending.locator('[data-review-id]').count()) === 2, { what: 'two pending reviews' });
    for (const size of [usual, small]) {
      for (const scheme of schemes) {
        await show(page, size, scheme);
        const where = `${sizeName(size)} ${scheme}`;
        await shot(page, `review-list-${sizeName(size)}-${scheme}`);
        // Characters drawn left to right in the order they are written: the leading "/" first.
        assert.ok(await drawnInOrder(pending.locator('[data-review-id]', { hasText: 'Rename the host' }).locator('.review-item-path')), `/etc/hostname drawn out of order at ${where}`);
        // A path too long for the list keeps its end (the file's name) in view.
        const end = await tailInView(pending.locator('[data-review-id]', { hasText: 'Deep file' }).locator('.review-item-path'), 'settings.json');
        assert.deepEqual(end, { tailInView: true, cut: true }, `the deep path's file name at ${where}`);
      }
    }
  });

  it('fits the Review diff: per-change headers, the last line, a steady toolbar, and a tab strip without a scrollbar', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t, { viewport: usual, workspaceFiles: { 'three.ts': thirtyLines, 'app.ts': thirtyLines } });
    const agent = agentFor(app, t);
    const proposed = withLines(thirtyLines, { 3: 'export const line3 = 300;', 15: 'export const line15 = 1500;', 27: 'export const line27 = 2700;' });
    requestReview(agent, { path: join(app.workspace, 'three.ts'), newContents: proposed, title: 'Three changes' });
    await openReview(page);
    const detail = page.getByRole('article', { name: 'Review of Three changes' });
    await pollUntil(async () => (await detail.locator('.cm-merge-b .cm-hunkHeader').count()) === 3, { what: 'three changes on the proposed side' });
    const layout = detail.getByRole('radiogroup', { name: 'Diff layout' });
    assert.equal(await layout.getByRole('radio', { name: 'Side by side' }).getAttribute('aria-checked'), 'true', 'side by side at 1280×800');

    for (const scheme of schemes) {
      await show(page, usual, scheme);
      await shot(page, `review-diff-${scheme}`);
      // Each side scrolls only down: its headers fit its width, whole.
      const sides = await detail.locator('.cm-merge-a .cm-scroller, .cm-merge-b .cm-scroller').evaluateAll((scrollers) =>
        scrollers.map((scroller) => {
          const box = scroller.getBoundingClientRect();
          const outside = [...scroller.querySelectorAll('.cm-hunkHeader > *')]
            .filter((part) => part.getBoundingClientRect().right > box.left + scroller.clientWidth + 0.5)
            .map((part) => part.textContent);
          return { scrolls: scroller.scrollWidth > scroller.clientWidth, outside };
        }),
      );
      assert.deepEqual(sides, [
        { scrolls: false, outside: [] },
        { scrolls: false, outside: [] },
      ], `the per-change headers fit each side (${scheme})`);
      assert.deepEqual(await truncated(detail, '.cm-hunkHeader > *'), [], `a header's text is cut (${scheme})`);
      // The file has thirty lines (and ends with a line break): thirty numbered lines on each side.
      const numbers = await detail.locator('.cm-merge-a, .cm-merge-b').evaluateAll((editors) =>
        editors.map((editor) =>
          Math.max(
            ...[...editor.querySelectorAll('.cm-lineNumbers .cm-gutterElement')]
              .filter((element) => (element as HTMLElement).style.visibility !== 'hidden')
              .map((element) => Number(element.textContent) || 0),
          ),
        ),
      );
      assert.deepEqual(numbers, [30, 30], `the highest line numbers shown (${scheme})`);
    }

    // Accepting a change adds to the toolbar's status; the toolbar stays one row and the diff stays put.
    const toolbar = detail.getByRole('toolbar', { name: 'Diff' });
    const firstLine = detail.locator('.cm-merge-b .cm-line').first();
    const toolbarBefore = (await toolbar.boundingBox())!;
    const lineBefore = (await firstLine.boundingBox())!;
    await detail.getByRole('button', { name: 'Accept change 1' }).click();
    await detail.locator('.review-change-accepted').waitFor();
    await shot(page, 'review-diff-accepted');
    assert.equal((await toolbar.boundingBox())!.height, toolbarBefore.height, 'the toolbar keeps its height');
    assert.equal((await firstLine.boundingBox())!.y, lineBefore.y, 'the diff stays where it was');
    assert.deepEqual(await truncated(toolbar, '.review-change-status'), [], 'the change status is cut');
    const middles = await toolbar.evaluate((element) =>
      [...element.children].filter((child) => child.getClientRects().length > 0).map((child) => child.getBoundingClientRect().top + child.getBoundingClientRect().height / 2),
    );
    assert.ok(Math.max(...middles) - Math.min(...middles) < oneRowTolerancePx, `the toolbar is one row at 1280×800 (middles ${middles.join(', ')})`);

    // Claude Code opens a file: the strip of tabs above the view scrolls sideways at most, and has no scrollbar while its tabs fit.
    const [terminal] = await agent.list();
    const cli = await connectClaude(app, t);
    await cli.handshake(terminal!.pid!);
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-header .claude-badge`).waitFor({ state: 'attached' });
    await cli.callTool('openFile', { filePath: join(app.workspace, 'app.ts') });
    await page.getByRole('region', { name: 'File app.ts' }).waitFor();
    const strip = page.getByRole('tablist', { name: 'Reviews and files' });
    for (const size of [usual, small]) {
      for (const scheme of schemes) {
        await show(page, size, scheme);
        await shot(page, `review-file-tabs-${sizeName(size)}-${scheme}`);
        const scrollbars = await strip.evaluate((element: HTMLElement) => ({
          vertical: element.offsetWidth - element.clientWidth,
          horizontal: element.offsetHeight - element.clientHeight,
          scrollsDown: element.scrollHeight > element.clientHeight,
        }));
        assert.deepEqual(scrollbars, { vertical: 0, horizontal: 0, scrollsDown: false }, `the tab strip's scrollbars at ${sizeName(size)} ${scheme}`);
      }
    }
  });
});
