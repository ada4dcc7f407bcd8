/**
 * Keys typed before a pane can take them, in real Chromium against a real `switchboard serve` and
 * real bash on a temp HOME: typed the instant a pane appears, during a reload, during a lost
 * connection, past the 64 KiB bound, and into a terminal that ended before it was ready.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { pollUntil } from '../helpers/poll.ts';
import { readPane, type ServedApp, startServedApp, typeInPane, useSharedBrowser, waitForPanes, waitForPaneText } from '../helpers/servedApp.ts';

const browser = useSharedBrowser();
const shots = process.env.SWITCHBOARD_SCREENSHOTS;

/** What the instrumented page keeps for the test (see `instrument`). */
interface PageControls {
  sockets: WebSocket[];
  /** `terminal.attach` requests held back while `holdAttach` is set. */
  held: (() => void)[];
  holdAttach: boolean;
  /** New connections are refused: the page stays disconnected until this is cleared. */
  blockConnect: boolean;
  /** `terminal.attach` asks for a terminal that does not exist. */
  failAttach: boolean;
}
type WithControls = { __sbTest: PageControls };

/**
 * Test-side only: wraps the page's WebSocket so a test can hold back `terminal.attach` (a pane
 * that exists but is not attached yet, for as long as the test needs), cut the connection and keep
 * it cut. Holding is switched on for the next page load with `sessionStorage['sb-test-hold-attach']`.
 */
async function instrument(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const controls = {
      sockets: [] as WebSocket[],
      held: [] as (() => void)[],
      holdAttach: sessionStorage.getItem('sb-test-hold-attach') === '1',
      blockConnect: false,
      failAttach: false,
    };
    (globalThis as unknown as { __sbTest: typeof controls }).__sbTest = controls;
    const Native = WebSocket;
    globalThis.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        // A path the server refuses to upgrade: same origin (nothing for the page's CSP to refuse), no connection.
        super(controls.blockConnect ? String(url).replace(/\/api$/, '/no-api') : url, protocols);
        controls.sockets.push(this);
      }
      override send(data: Parameters<WebSocket['send']>[0]): void {
        if (typeof data === 'string' && data.includes('"terminal.attach"')) {
          const attach = data;
          // Decided when the request goes out, so a held request can be made to fail too.
          const send = () => {
            if (!controls.failAttach) return super.send(attach);
            const request = JSON.parse(attach) as { params: { id: string } };
            request.params.id = 'no-such-terminal';
            super.send(JSON.stringify(request));
          };
          if (controls.holdAttach) controls.held.push(send);
          else send();
          return;
        }
        super.send(data);
      }
    };
  });
}

async function openInstrumented(t: TestContext, options: { bashrc?: string; holdAttach?: boolean } = {}): Promise<{ app: ServedApp; page: Page }> {
  const app = await startServedApp(options.bashrc === undefined ? {} : { bashrc: options.bashrc });
  t.after(() => app.stop());
  const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
  t.after(() => context.close());
  await instrument(context);
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  t.after(() => assert.deepEqual(pageErrors, [], 'the page threw'));
  if (options.holdAttach) {
    // sessionStorage belongs to the origin: set it there, then load the app with holding on.
    await page.goto(`${app.origin}/favicon.ico`).catch(() => undefined);
    await page.evaluate(() => sessionStorage.setItem('sb-test-hold-attach', '1'));
  }
  await page.goto(app.url);
  return { app, page };
}

/** `terminal.attach` requests held back so far: more than none means the pane is not attached yet. */
function heldAttaches(page: Page): Promise<number> {
  return page.evaluate(() => (globalThis as unknown as WithControls).__sbTest.held.length);
}

async function releaseAttach(page: Page): Promise<void> {
  await page.evaluate(() => {
    const controls = (globalThis as unknown as WithControls).__sbTest;
    controls.holdAttach = false;
    sessionStorage.removeItem('sb-test-hold-attach');
    for (const send of controls.held.splice(0)) send();
  });
}

/** The first pane, once it exists and has the keyboard (what a person sees as "the pane is there"). */
async function firstPaneWithFocus(page: Page): Promise<string> {
  const [pane] = await waitForPanes(page, 1);
  await page.waitForFunction((id) => document.activeElement?.closest('[data-terminal-id]')?.getAttribute('data-terminal-id') === id, pane!, { polling: 10 });
  return pane!;
}

/** A paste into the focused terminal's textarea, as the context menu or a middle click gives it. */
async function pasteIntoFocused(page: Page, text: string): Promise<void> {
  await page.evaluate((text) => {
    const clipboardData = new DataTransfer();
    clipboardData.setData('text/plain', text);
    document.activeElement!.dispatchEvent(new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }));
  }, text);
}

function count(screen: string, pattern: RegExp): number {
  return screen.match(new RegExp(pattern.source, 'gm'))?.length ?? 0;
}

/** Waits until `output` stands on a line of its own with a prompt after it (the command is done). */
function waitForOutputThenPrompt(page: Page, pane: string, output: string): Promise<string> {
  // `#`: an empty .bashrc leaves the prompt to /etc/bash.bashrc, which gives root one.
  return waitForPaneText(page, pane, new RegExp(`^${output}\\n(?:.*\\n)*?.*[$#] ?$`, 'm'));
}

function inputNotice(page: Page, pane: string) {
  return page.locator(`[data-terminal-id="${pane}"] .pane-input-notice`);
}

describe('keys typed before a pane is ready', () => {
  for (const [what, bashrc] of [
    ['an empty .bashrc', ''],
    ['a .bashrc that takes half a second', "sleep 0.5\nPS1='$ '\n"],
  ] as const) {
    it(`runs a command typed the instant a new pane appears (${what})`, async (t) => {
      const { page } = await openInstrumented(t, { bashrc });
      const pane = await firstPaneWithFocus(page);
      // No waiting for a prompt: a person types as soon as the pane is there.
      await page.keyboard.type('echo hi-$((6*7))');
      await page.keyboard.press('Enter');
      const screen = await waitForOutputThenPrompt(page, pane, 'hi-42');
      assert.equal(count(screen, /^hi-42$/), 1, 'ran once');
      assert.doesNotMatch(screen, /command not found|syntax error/);
    });
  }

  for (const [what, open] of [
    ['Ctrl+Shift+` (new tab)', (page: Page) => page.keyboard.press('Control+Shift+Backquote')],
    ['Ctrl+Shift+D (split)', (page: Page) => page.keyboard.press('Control+Shift+D')],
    ['the + button', (page: Page) => page.getByRole('button', { name: 'New terminal', exact: true }).first().click()],
  ] as const) {
    it(`gives keys typed right after ${what} to the new pane, none to the one that had the keyboard`, async (t) => {
      const { page } = await openInstrumented(t, { bashrc: "sleep 0.5\nPS1='$ '\n" });
      const first = await firstPaneWithFocus(page);
      await waitForPaneText(page, first, '$');
      // As a fast typist does: the command follows the shortcut at once, before the pane is there.
      await open(page);
      await page.keyboard.type('echo new-pane-$((6*7))');
      await page.keyboard.press('Enter');
      const panes = await waitForPanes(page, 2);
      const created = panes.find((pane) => pane !== first)!;
      const screen = await waitForOutputThenPrompt(page, created, 'new-pane-42');
      assert.equal(count(screen, /^new-pane-42$/), 1, 'ran once in the new pane');
      assert.doesNotMatch(screen, /command not found/);
      assert.doesNotMatch((await readPane(page, first)) ?? '', /new-pane|echo/, 'nothing typed into the pane that had the keyboard');
    });
  }

  it('keeps keys typed while a reloaded page reattaches its pane, without losing or doubling any', async (t) => {
    const { page } = await openInstrumented(t);
    const pane = await firstPaneWithFocus(page);
    // Attached and idle first: what is under test is the next phase.
    await waitForPaneText(page, pane, '$');
    await typeInPane(page, pane, 'echo one-$((1+1))');
    await waitForOutputThenPrompt(page, pane, 'one-2');

    // The next load holds its attach back, so the keys below certainly arrive before the pane is attached.
    await page.evaluate(() => sessionStorage.setItem('sb-test-hold-attach', '1'));
    await page.reload();
    assert.equal(await firstPaneWithFocus(page), pane);
    await page.keyboard.type('echo two-$((2+2))');
    await page.keyboard.press('Enter');
    assert.ok((await heldAttaches(page)) > 0, 'the pane was not attached yet while the keys were typed');
    await releaseAttach(page);

    const screen = await waitForOutputThenPrompt(page, pane, 'two-4');
    assert.equal(count(screen, /^two-4$/), 1, 'ran once');
    assert.equal(count(screen, /^one-2$/), 1, 'the command before the reload did not run again');
  });

  it('keeps keys typed while the connection is lost and sends them once, after it is back', async (t) => {
    const { page } = await openInstrumented(t);
    const pane = await firstPaneWithFocus(page);
    // Attached and idle first: what is under test is the next phase.
    await waitForPaneText(page, pane, '$');
    await typeInPane(page, pane, 'echo one-$((1+1))');
    await waitForOutputThenPrompt(page, pane, 'one-2');

    await page.evaluate(() => {
      const controls = (globalThis as unknown as WithControls).__sbTest;
      controls.blockConnect = true;
      for (const socket of controls.sockets) socket.close();
    });
    const banner = page.getByRole('status').filter({ hasText: 'Disconnected from Switchboard — reconnecting…' });
    await banner.waitFor();
    // Typed without clicking first: the pane kept the keyboard.
    await page.keyboard.type('echo during-$((3*3))');
    await page.keyboard.press('Enter');
    await page.keyboard.type('echo then-$((4*4))');
    await page.keyboard.press('Enter');
    assert.ok(await banner.isVisible(), 'still disconnected while typing');

    await page.evaluate(() => ((globalThis as unknown as WithControls).__sbTest.blockConnect = false));
    await banner.waitFor({ state: 'detached', timeout: 15_000 });
    const screen = await waitForOutputThenPrompt(page, pane, 'then-16');
    assert.equal(count(screen, /^during-9$/), 1, 'the first line ran once');
    assert.equal(count(screen, /^then-16$/), 1, 'the second line ran once');
    assert.ok(screen.indexOf('during-9') < screen.indexOf('then-16'), 'in the order typed');
    assert.equal(count(screen, /^one-2$/), 1, 'nothing from before the drop ran again');
  });

  it('pastes what was pasted before the pane was ready, after the keys typed before it, bracketed as the shell asks', async (t) => {
    const { page } = await openInstrumented(t, { holdAttach: true });
    const pane = await firstPaneWithFocus(page);
    await page.keyboard.type('echo typed-$((1+2)); ');
    await pasteIntoFocused(page, 'echo pasted-$((3+4))\necho second-$((1+1))');
    // The shell is usually up (and asked for bracketed paste) before the pane attaches; when it is
    // not, the paste waits for it (the slow-rc test below).
    assert.ok((await heldAttaches(page)) > 0, 'the pane was not attached yet while pasting');
    await releaseAttach(page);

    // Bracketed: both lines are inserted at one prompt, and nothing runs before Enter.
    const inserted = await waitForPaneText(page, pane, /\$ echo typed-\$\(\(1\+2\)\); echo pasted-\$\(\(3\+4\)\)\necho second-\$\(\(1\+1\)\)/);
    assert.doesNotMatch(inserted, /^(typed-3|pasted-7)$/m, 'a bracketed paste is inserted, not run');
    await page.keyboard.press('Enter');
    const screen = await waitForOutputThenPrompt(page, pane, 'second-2');
    assert.match(screen, /^typed-3\npasted-7\nsecond-2$/m, 'each ran once, in the order given');
  });

  it('holds a paste for a shell still reading a slow rc until it asks for bracketed paste, then inserts it', async (t) => {
    // The shell prints nothing for a second (a slow ~/.bashrc): the pane attaches before its first prompt.
    const { page } = await openInstrumented(t, { holdAttach: true, bashrc: "sleep 1\nPS1='$ '\n" });
    const pane = await firstPaneWithFocus(page);
    await page.keyboard.type('echo typed-$((1+2)); ');
    await pasteIntoFocused(page, 'echo pasted-$((3+4))\necho second-$((1+1))');
    await releaseAttach(page);
    // Keys typed after the paste, while it waits, stay behind it.
    await page.keyboard.type(' # after');

    const inserted = await waitForPaneText(page, pane, /\$ echo typed-\$\(\(1\+2\)\); echo pasted-\$\(\(3\+4\)\)\necho second-\$\(\(1\+1\)\) # after/);
    assert.doesNotMatch(inserted, /^(typed-3|pasted-7)$/m, 'a bracketed paste is inserted, not run');
    await page.keyboard.press('Enter');
    const screen = await waitForOutputThenPrompt(page, pane, 'second-2');
    assert.match(screen, /^typed-3\npasted-7\nsecond-2$/m, 'each ran once, in the order given');
  });

  it('holds a paste for a shell whose rc printed a banner and is still loading, until its first prompt', async (t) => {
    // As nvm or conda do: the rc prints, then takes a second more. The pane attaches to output that
    // is not a prompt yet, and the shell has not asked for bracketed paste.
    const { app, page } = await openInstrumented(t, { holdAttach: true, bashrc: "echo loading-tools\ntouch ~/banner-shown\nsleep 1\nPS1='$ '\n" });
    const pane = await firstPaneWithFocus(page);
    await page.keyboard.type('echo typed-$((1+2)); ');
    await pasteIntoFocused(page, 'echo pasted-$((3+4))\necho second-$((1+1))');
    // The banner is out before the pane attaches: it attaches to output that is not a prompt.
    const banner = join(app.home, 'banner-shown');
    await pollUntil(() => existsSync(banner), { what: 'the rc to print its banner' });
    await releaseAttach(page);

    const inserted = await waitForPaneText(page, pane, /\$ echo typed-\$\(\(1\+2\)\); echo pasted-\$\(\(3\+4\)\)\necho second-\$\(\(1\+1\)\)/);
    assert.match(inserted, /loading-tools/);
    assert.doesNotMatch(inserted, /^(typed-3|pasted-7)$/m, 'a bracketed paste is inserted, not run');
    await page.keyboard.press('Enter');
    const screen = await waitForOutputThenPrompt(page, pane, 'second-2');
    assert.match(screen, /^typed-3\npasted-7\nsecond-2$/m, 'each ran once, in the order given');
  });

  it('holds a paste made once the pane took keys but while the shell still reads its rc, until its first prompt', async (t) => {
    // No held attach: the pane is live at once and typed keys reach the PTY (its echo shows them)
    // while bash still sleeps in its rc; a paste then must not reach bash as typed lines.
    const { page } = await openInstrumented(t, { bashrc: "sleep 2\nPS1='$ '\n" });
    const pane = await firstPaneWithFocus(page);
    await page.keyboard.type('echo typed-$((1+2)); ');
    await waitForPaneText(page, pane, 'echo typed-$((1+2));');
    await pasteIntoFocused(page, 'echo pasted-$((3+4))\necho second-$((1+1))');
    await page.keyboard.type(' # after');

    // The keys echoed during the rc leave the prompt drawn after them, so readline's redraw of the
    // line is not a clean "$ …" (as in any terminal): what counts is that nothing ran before Enter.
    const inserted = await waitForPaneText(page, pane, /\$ .*\n?.*echo second-\$\(\(1\+1\)\) # after/);
    assert.doesNotMatch(inserted, /^(typed-3|pasted-7)$/m, 'a bracketed paste is inserted at the prompt, not run');
    await page.keyboard.press('Enter');
    const screen = await waitForOutputThenPrompt(page, pane, 'second-2');
    assert.match(screen, /^typed-3\npasted-7\nsecond-2$/m, 'each ran once, in the order given');
  });

  it('refuses keys past 64 KiB visibly, and sends what it kept', async (t) => {
    const { page } = await openInstrumented(t, { holdAttach: true });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const pane = await firstPaneWithFocus(page);
    await page.keyboard.type('echo kept-$((1+1))');
    await page.keyboard.press('Enter');
    // 70 000 characters pasted while the pane is not attached: more than the 64 KiB it holds.
    await page.evaluate(() => navigator.clipboard.writeText(`echo ${'x'.repeat(70_000)}`));
    await page.keyboard.press('Control+Shift+V');
    const notice = inputNotice(page, pane);
    await notice.waitFor();
    assert.match(await notice.innerText(), /refused/i);
    assert.match(await notice.innerText(), /64 KiB/);
    // Once refusing, it refuses everything until the terminal takes input: no gap in what it sends.
    await page.keyboard.type('echo refused-too');
    if (shots) await page.screenshot({ path: join(shots, 'type-ahead-refused.png') });

    await releaseAttach(page);
    const screen = await waitForOutputThenPrompt(page, pane, 'kept-2');
    assert.doesNotMatch(screen, /xxxxxxxx|refused-too/);
    assert.match(await notice.innerText(), /refused/i, 'the notice stays to say what did not go');
    // The pane takes keys again, and the notice has done its job.
    await page.keyboard.type('echo after-$((2+3))');
    await page.keyboard.press('Enter');
    await waitForOutputThenPrompt(page, pane, 'after-5');
    await notice.waitFor({ state: 'detached' });
  });

  it('says so in the pane when the terminal ended before it took the keys typed into it', async (t) => {
    const { page } = await openInstrumented(t, { bashrc: 'exit 7\n', holdAttach: true });
    const pane = await firstPaneWithFocus(page);
    await page.keyboard.type('echo never-$((1+1))');
    await page.keyboard.press('Enter');
    await page.locator(`[data-terminal-id="${pane}"] .exit-banner`).filter({ hasText: 'Process exited with code 7' }).waitFor();
    await releaseAttach(page);
    const notice = inputNotice(page, pane);
    await notice.waitFor();
    assert.match(await notice.innerText(), /ended before .*not sent/);
    if (shots) await page.screenshot({ path: join(shots, 'type-ahead-terminal-ended.png') });
    assert.doesNotMatch((await readPane(page, pane))!, /never-2/);
  });

  it('says so in the pane when it cannot attach, and drops what was typed', async (t) => {
    const { page } = await openInstrumented(t, { holdAttach: true });
    const pane = await firstPaneWithFocus(page);
    await page.keyboard.type('echo never-$((1+1))');
    await page.evaluate(() => ((globalThis as unknown as WithControls).__sbTest.failAttach = true));
    await releaseAttach(page);
    const failure = page.locator(`[data-terminal-id="${pane}"] .pane-message`);
    await failure.waitFor();
    assert.match(await failure.innerText(), /Could not show this terminal/);
    const notice = inputNotice(page, pane);
    await notice.waitFor();
    assert.match(await notice.innerText(), /not sent/);
    if (shots) await page.screenshot({ path: join(shots, 'type-ahead-attach-failed.png') });
  });
});
