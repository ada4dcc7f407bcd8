/**
 * End-to-end plumbing: a real `switchboard serve` child process on a temp HOME / data dir, and a
 * real headless Chromium (Debian's /usr/bin/chromium) to drive the UI it serves.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { pollUntil } from './poll.ts';
import { createTempHome, testEnv } from './tempHome.ts';

const cliMain = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const readyPrefix = 'Switchboard ready: ';

export interface ServedApp {
  /** The one-time URL with the token, as printed by `switchboard serve`. */
  url: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  port: number;
  token: string;
  home: string;
  dataDir: string;
  workspace: string;
  stdout(): string;
  stderr(): string;
  /** SIGINT, wait for a clean exit (SIGKILL after a grace period), then remove the temp dirs (unless `keepFiles`, for a restart). */
  stop(options?: { keepFiles?: boolean }): Promise<void>;
  /** The temp dirs, to start the app again on the same HOME and data dir (`startServedApp({ dirs })`). */
  dirs: TempDirs;
}

type TempDirs = ReturnType<typeof createTempHome>;

export interface ServedAppOptions {
  /** Files to create in the workspace before the server starts (name → content). */
  workspaceFiles?: Record<string, string>;
  env?: Record<string, string>;
  /** Start on the HOME and data dir of an earlier app stopped with `keepFiles` (an app restart). */
  dirs?: TempDirs;
  /** Listen on this port (default: a free one). */
  port?: number;
  /** The temp HOME's .bashrc (default: `PS1='$ '`, so every pane's prompt is predictable). */
  bashrc?: string;
  /** Start the server under this umask (octal digits, e.g. '000'), as a shell would give it. */
  umask?: string;
}

/**
 * Starts browser mode on a free port. HOME is a temp dir whose .bashrc only sets `PS1='$ '` (unless
 * `bashrc` says otherwise), so every pane's prompt is predictable.
 */
export async function startServedApp(options: ServedAppOptions = {}): Promise<ServedApp> {
  const temp = options.dirs ?? createTempHome('sb-e2e-');
  writeFileSync(join(temp.home, '.bashrc'), options.bashrc ?? "PS1='$ '\n");
  for (const [name, content] of Object.entries(options.workspaceFiles ?? {})) writeFileSync(join(temp.workspace, name), content);

  const serveArgs = [cliMain, 'serve', '--port', String(options.port ?? 0), temp.workspace];
  // `exec`, so the signal stop() sends reaches the server itself.
  const [command, args]: [string, string[]] = options.umask === undefined
    ? [process.execPath, serveArgs]
    : ['/bin/sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, ...serveArgs]];
  const child = spawn(command, args, {
    env: { ...testEnv(temp.home), SWITCHBOARD_HOME: temp.dataDir, SWITCHBOARD_LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));

  const stop = async (stopOptions: { keepFiles?: boolean } = {}) => {
    await stopChild(child, exited);
    if (!stopOptions.keepFiles) temp.dispose();
  };

  let url: string;
  try {
    url = await pollUntil(
      () => {
        if (exitedEarly) throw new Error(`switchboard serve exited before it was ready; stderr: ${stderr}`);
        const line = stdout.split('\n').find((candidate) => candidate.startsWith(readyPrefix));
        return line?.slice(readyPrefix.length).trim();
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the "Switchboard ready" line' },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    token: parsed.searchParams.get('token') ?? '',
    home: temp.home,
    dataDir: temp.dataDir,
    workspace: temp.workspace,
    stdout: () => stdout,
    stderr: () => stderr,
    stop,
    dirs: temp,
  };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  const graceful = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000).unref())]);
  if (!graceful) {
    child.kill('SIGKILL');
    await exited;
  }
}

export const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

export interface TestBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh context (no cookies) and one page at 1280×800. */
export async function launchBrowser(options: { colorScheme?: 'dark' | 'light' } = {}): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumArgs });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: options.colorScheme ?? 'dark' });
  const page = await context.newPage();
  return { browser, context, page, close: () => browser.close() };
}

/**
 * One headless Chromium shared by the tests of a file: launched before them, closed after.
 * `showScrollbars`: keep the native scrollbars a person sees (Playwright hides them in headless
 * mode, which would hide a stray scrollbar from a test that measures the page).
 */
export function useSharedBrowser(options: { showScrollbars?: boolean } = {}): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: chromiumArgs,
      ...(options.showScrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
    });
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the shared browser is not launched yet (use it inside a test)');
    return browser;
  };
}

/**
 * A fresh server and a fresh browser context (no cookies) for one test, both ended with it, and the
 * app opened at its first pane. The page must not throw or trip its Content-Security-Policy.
 */
export async function openFreshApp(
  browser: Browser,
  t: TestContext,
  options: ServedAppOptions & { viewport?: { width: number; height: number } } = {},
): Promise<{ app: ServedApp; page: Page; firstPane: string }> {
  const { viewport = { width: 1280, height: 800 }, ...appOptions } = options;
  const app = await startServedApp(appOptions);
  t.after(() => app.stop());
  const page = await newPage(t, browser, viewport);
  const firstPane = await openApp(page, app.url);
  return { app, page, firstPane };
}

// ---- page helpers -------------------------------------------------------------------------

/** A fresh browser context (no cookies) and a page that must not throw or trip its CSP (Electron's, a meta tag in index.html). */
export async function newPage(t: TestContext, shared: Browser, viewport: { width: number; height: number } = { width: 1280, height: 800 }): Promise<Page> {
  const context = await shared.newContext({ viewport });
  t.after(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  t.after(() => assert.deepEqual(problems, [], 'the page threw or broke its CSP'));
  return page;
}

/**
 * For a person to look at: with SWITCHBOARD_SCREENSHOTS=/dir, the page at each size (default
 * 1280×800 and 1000×700), light and dark, as `<name>-<width>x<height>-<scheme>.png`; nothing
 * without it. Each is shot once the app follows the scheme and its colour transitions are over.
 * The viewport is put back to the first size after.
 */
export async function shootEverySize(
  page: Page,
  name: string,
  sizes: ReadonlyArray<readonly [number, number]> = [
    [1280, 800],
    [1000, 700],
  ],
): Promise<void> {
  const dir = process.env.SWITCHBOARD_SCREENSHOTS;
  if (!dir) return;
  for (const [width, height] of sizes) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme });
      // The app follows the system scheme (a media query listener), then fades colours; a theme set in Settings does not follow.
      await page.waitForFunction((scheme) => !document.documentElement.dataset.theme || document.documentElement.dataset.theme === scheme, colorScheme, { timeout: 2000 }).catch(() => undefined);
      await transitionsDone(page);
      await page.screenshot({ path: join(dir, `${name}-${width}x${height}-${colorScheme}.png`) });
    }
  }
  await page.setViewportSize({ width: sizes[0]![0], height: sizes[0]![1] });
}

/** Waits until the page's colour fades and other finite animations are over (a screenshot for a person, not mid-fade). */
export async function transitionsDone(page: Page): Promise<void> {
  await page.evaluate(() => {
    // Styles first, so the transitions a change just started are there to wait for.
    void document.body.offsetHeight;
    // A running spinner never finishes, and a transition a later style change cancels rejects: neither is waited for.
    const finite = document.getAnimations().filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity);
    return Promise.all(finite.map((animation) => animation.finished.catch(() => undefined)));
  });
}

/** Opens the app and waits until its first pane shows a shell prompt. Returns that pane's id. */
export async function openApp(page: Page, url: string): Promise<string> {
  await page.goto(url);
  const [first] = await waitForPanes(page, 1);
  await waitForPaneText(page, first!, '$');
  return first!;
}

/** Terminal ids of the panes on screen, in DOM order, once there are at least `count`. */
export async function waitForPanes(page: Page, count: number): Promise<string[]> {
  return pollUntil(
    async () => {
      const ids = await paneIds(page);
      return ids.length >= count ? ids : undefined;
    },
    { timeoutMs: 15_000, what: `${count} pane(s)` },
  );
}

export function paneIds(page: Page): Promise<string[]> {
  return page.$$eval('[data-terminal-id]', (panes) => panes.map((pane) => pane.getAttribute('data-terminal-id') ?? ''));
}

/** The visible screen text of a pane, read from its xterm buffer through the app's test hook. */
export function readPane(page: Page, terminalId: string): Promise<string | null> {
  return page.evaluate((id) => (globalThis as WithTestHook).__switchboardTest?.readPane(id) ?? null, terminalId);
}

export async function waitForPaneText(page: Page, terminalId: string, text: string | RegExp, timeoutMs = 15_000): Promise<string> {
  let last: string | null = null;
  try {
    return await pollUntil(
      async () => {
        last = await readPane(page, terminalId);
        if (last === null) return undefined;
        return (typeof text === 'string' ? last.includes(text) : text.test(last)) ? last : undefined;
      },
      { timeoutMs, intervalMs: 50, what: `pane ${terminalId} to show ${String(text)}` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- pane screen ---\n${last ?? '(no pane)'}\n---`);
  }
}

/** Clicks into a pane and types a line into it, as a person would. */
export async function typeInPane(page: Page, terminalId: string, line: string): Promise<void> {
  await page.locator(`[data-terminal-id="${terminalId}"] .pane-body`).click();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

/** Waits until the app has saved its latest layout with the Hub (so a reload restores it). */
export async function waitForLayoutSaved(page: Page): Promise<void> {
  await pollUntil(() => page.evaluate(() => (globalThis as WithTestHook).__switchboardTest?.isLayoutSaved() ?? false), {
    what: 'the layout to be saved',
  });
}

/** The screen of the History view's session viewer (read from its xterm buffer), or null when none is open. */
export function readHistoryViewer(page: Page): Promise<string | null> {
  return page.evaluate(() => (globalThis as WithTestHook).__switchboardTest?.readHistoryViewer() ?? null);
}

/** The shape of renderer/app/testHook.ts, seen from the test side (which has no DOM types). */
interface TestHook {
  readPane(terminalId: string): string | null;
  paneIds(): string[];
  isLayoutSaved(): boolean;
  readHistoryViewer(): string | null;
}
type WithTestHook = { __switchboardTest?: TestHook };
