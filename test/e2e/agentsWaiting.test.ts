/**
 * What a person sees of agents (issue 19), in real Chromium against `switchboard serve`, with the
 * Hub's real agent detection reading a Claude Code stand-in (test/helpers/standInClaude.ts) in
 * real panes: each agent pane's state and time in the sidebar, the "Waiting for you" list (order,
 * click to jump, Ctrl+Shift+U, Escape not clearing it), the window title's count, Approve / Deny
 * on the pane's banner and in the list (and a stale answer refused), desktop notifications (one per
 * wait) and Do not disturb, and pending reviews in the same list.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { ControlClient } from '../../src/cli/controlClient.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, typeInPane, useSharedBrowser, waitForPanes, waitForPaneText } from '../helpers/servedApp.ts';
import { installStandInClaude } from '../helpers/standInClaude.ts';

const browser = useSharedBrowser();

function sidebarItem(page: Page, terminalId: string): Locator {
  return page.locator(`[data-terminal-item="${terminalId}"]`);
}

function waitingList(page: Page): Locator {
  return page.getByRole('list', { name: 'Waiting for you' });
}

/** The Waiting for you rows, top to bottom, as "<terminal id>:<state>" (reviews as "review"). */
async function waitingRows(page: Page): Promise<string[]> {
  return page.$$eval('[aria-label="Waiting for you"] > li', (rows) =>
    rows.map((row) => (row.getAttribute('data-waiting-kind') === 'agent' ? `${row.getAttribute('data-waiting-terminal')}:${row.getAttribute('data-agent-state')}` : 'review')),
  );
}

async function waitForRows(page: Page, expected: string[], what: string): Promise<void> {
  let last: string[] = [];
  try {
    await pollUntil(
      async () => {
        last = await waitingRows(page);
        return JSON.stringify(last) === JSON.stringify(expected);
      },
      { timeoutMs: 15_000, what },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}: the list shows ${JSON.stringify(last)}`);
  }
}

async function waitForAgentState(page: Page, terminalId: string, state: string): Promise<void> {
  await sidebarItem(page, terminalId).locator(`.agent-state-line[data-agent-state="${state}"]`).waitFor({ timeout: 15_000 });
}

/** The pane whose terminal has the keyboard (its xterm.js input), or null: typing goes nowhere else. */
function keyboardPane(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const active = document.activeElement;
    return active?.classList.contains('xterm-helper-textarea') ? (active.closest('[data-terminal-id]')?.getAttribute('data-terminal-id') ?? null) : null;
  });
}

function focusedPane(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.closest('[data-terminal-id]')?.getAttribute('data-terminal-id') ?? null);
}

/** Starts the stand-in in a pane, as a person types `claude` at the prompt. */
async function startClaude(page: Page, terminalId: string, bin: string): Promise<void> {
  await waitForPaneText(page, terminalId, '$');
  await typeInPane(page, terminalId, join(bin, 'claude'));
  await waitForPaneText(page, terminalId, 'Claude Code (stand-in for tests)');
}

describe('agents in the UI', () => {
  it('shows each agent’s state and time, lists the asking ones first, jumps to them, answers them and gives the keyboard back', async (t) => {
    const { app, page, firstPane: first } = await openFreshApp(browser(), t);
    const bin = installStandInClaude(app.home);
    // Nothing waits yet: no list, the plain title.
    assert.equal(await page.getByRole('region', { name: 'Waiting for you' }).count(), 0);
    assert.equal(await page.title(), 'Switchboard');

    await startClaude(page, first, bin);
    await waitForAgentState(page, first, 'idle');
    // The working spinner turns when the agent starts working, then rests; it stands still for a
    // person who asked for less motion. No mark moves for ever (forty of them kept the page from
    // drawing at 60 frames a second): a busy terminal's dot pulses a few times, like the spinner.
    const motion = async () =>
      page.evaluate(() => {
        const probes = [
          ['agent-state-mark', 'agentState', 'working'],
          ['status-dot', 'status', 'busy'],
        ].map(([className, key, value]) => {
          const probe = document.createElement('span');
          probe.className = className!;
          probe.dataset[key!] = value;
          document.querySelector('.sidebar')!.append(probe);
          return probe;
        });
        const styles = probes.map((probe) => {
          const style = getComputedStyle(probe);
          return `${style.animationName} × ${style.animationIterationCount}`;
        });
        for (const probe of probes) probe.remove();
        return styles;
      });
    assert.deepEqual(await motion(), ['agent-spin × 3', 'pulse × 3']);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    assert.deepEqual(await motion(), ['none × 1', 'none × 1']);
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    const firstLine = sidebarItem(page, first).locator('.agent-state-line');
    assert.match(await firstLine.innerText(), /Claude Code\s*done\s*\d+ s/);
    // The time in it moves on by itself.
    const shownAt = await firstLine.locator('.agent-elapsed').innerText();
    await pollUntil(async () => (await firstLine.locator('.agent-elapsed').innerText()) !== shownAt, { what: 'the time in the state to move on' });

    // A turn: working (the spinner), then a permission prompt with its command as the reason.
    await typeInPane(page, first, 'run touch marker.txt');
    await waitForAgentState(page, first, 'working');
    assert.equal(await sidebarItem(page, first).locator('.agent-state-mark[data-agent-state="working"]').count(), 1);
    // With an agent working and its terminal busy, nothing on the page animates for ever but the
    // focused pane's blinking cursor (xterm.js's blink_* keyframes; one pane has focus at a time).
    const endless = await page.evaluate(() =>
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().endTime === Infinity)
        .map((animation) => (animation as Partial<CSSAnimation>).animationName ?? `an animation with id "${animation.id}"`)
        .filter((name) => !name.startsWith('blink_')),
    );
    assert.deepEqual(endless, []);
    await waitForAgentState(page, first, 'needs-input');
    await waitForRows(page, [`${first}:needs-input`], 'the asking agent in the list');
    const firstRow = waitingList(page).locator(`[data-waiting-terminal="${first}"]`);
    assert.match(await firstRow.innerText(), /Claude Code[\s\S]*Bash: touch marker\.txt/);
    const banner = page.locator(`[data-terminal-id="${first}"]`).getByRole('group', { name: 'Claude Code asks' });
    assert.match(await banner.innerText(), /Bash: touch marker\.txt/);

    // A second agent, started later, finishes its first turn at once: it waits too, after the first.
    await page.keyboard.press('Control+Shift+D');
    const second = (await waitForPanes(page, 2)).find((id) => id !== first)!;
    await startClaude(page, second, bin);
    await waitForRows(page, [`${first}:needs-input`, `${second}:idle`], 'both agents, oldest first');
    assert.equal(await page.title(), '(2) Switchboard');

    // Ctrl+Shift+U jumps to the first of the list, from the other pane.
    assert.equal(await focusedPane(page), second);
    await page.keyboard.press('Control+Shift+U');
    await pollUntil(async () => (await focusedPane(page)) === first, { what: 'the keyboard in the oldest waiting pane' });

    // Escape in a pane does not clear its row; only the agent's state does.
    await page.locator(`[data-terminal-id="${second}"] .pane-body`).click();
    await page.keyboard.press('Escape');
    // Keys reach the program in order: once the next one is on its screen, Escape was read.
    await page.keyboard.type('q');
    await waitForPaneText(page, second, /❯\s*q/);
    await page.keyboard.press('Backspace');
    await waitForRows(page, [`${first}:needs-input`, `${second}:idle`], 'both still waiting after Escape');

    // A click on a row jumps to its pane.
    await firstRow.locator('.waiting-main').click();
    await pollUntil(async () => (await focusedPane(page)) === first, { what: 'the clicked agent’s pane focused' });

    // Approve in the list: the command runs, the turn ends, and the agent waits again — newest now.
    await firstRow.getByRole('button', { name: 'Approve' }).click();
    await waitForPaneText(page, first, 'Ran touch marker.txt (ran).');
    assert.ok(existsSync(join(app.workspace, 'marker.txt')), 'the approved command ran');
    await waitForRows(page, [`${second}:idle`, `${first}:idle`], 'the answered agent after the other one');
    await banner.waitFor({ state: 'detached' });
    // The keyboard went back to the pane that had it, not to <body> with the row's buttons.
    await pollUntil(async () => (await keyboardPane(page)) === first, { what: 'the keyboard back in the pane after Approve in the list' });

    // Deny on the pane's banner: nothing runs.
    await typeInPane(page, first, 'run touch denied.txt');
    await banner.waitFor();
    // Blocked on a prompt, it leads the list, above the agent that finished its turn earlier.
    await waitForRows(page, [`${first}:needs-input`, `${second}:idle`], 'the asking agent above the older idle one');
    await page.locator(`[data-terminal-id="${second}"] .pane-body`).click();
    await banner.getByRole('button', { name: 'Deny' }).click();
    // The keyboard goes to the agent's pane the banner belongs to.
    await pollUntil(async () => (await keyboardPane(page)) === first, { what: 'the keyboard in the agent’s pane after Deny on its banner' });
    await waitForPaneText(page, first, 'Denied; not run.');
    await banner.waitFor({ state: 'detached' });
    assert.equal(existsSync(join(app.workspace, 'denied.txt')), false, 'a denied command does not run');

    // The second agent quits with a code: the sidebar says so, and it no longer waits.
    await typeInPane(page, second, '/exit 3');
    await waitForAgentState(page, second, 'exited');
    await pollUntil(async () => /exited 3/.test(await sidebarItem(page, second).locator('.agent-state-line').innerText()), { what: 'the exit code in the sidebar' });
    await waitForRows(page, [`${first}:idle`], 'only the first agent waiting');
    assert.equal(await page.title(), '(1) Switchboard');
  });

  it('notifies once per wait while the window is away, and not at all with Do not disturb', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);
    await page.context().grantPermissions(['notifications'], { origin: app.origin });
    // Record what the app shows, and let the test say whether the window has focus (a headless
    // page always has it; a person's window does not while they are elsewhere).
    await page.evaluate(() => {
      const seen: Array<{ title: string; body: string }> = [];
      const state = { seen, away: true };
      (globalThis as unknown as { __notes: typeof state }).__notes = state;
      const Native = window.Notification;
      class Recording extends Native {
        constructor(title: string, options?: NotificationOptions) {
          seen.push({ title, body: options?.body ?? '' });
          super(title, options);
        }
      }
      Object.defineProperty(Recording, 'permission', { get: () => Native.permission });
      window.Notification = Recording as typeof Notification;
      const hasFocus = Document.prototype.hasFocus;
      Document.prototype.hasFocus = function (this: Document) {
        return state.away ? false : hasFocus.call(this);
      };
    });
    const notes = () => page.evaluate(() => (globalThis as unknown as { __notes: { seen: Array<{ title: string; body: string }> } }).__notes.seen);
    const bin = installStandInClaude(app.home);
    const paneName = (await sidebarItem(page, firstPane).locator('.name-text').innerText()).trim();

    await startClaude(page, firstPane, bin);
    await pollUntil(async () => (await notes()).length === 1, { what: 'a notification for the finished turn' });
    assert.deepEqual((await notes())[0], { title: 'Claude Code finished its turn', body: `${paneName}: Finished its turn` });

    await typeInPane(page, firstPane, 'run true');
    await pollUntil(async () => (await notes()).length === 2, { what: 'a notification for the permission prompt' });
    assert.deepEqual((await notes())[1], { title: 'Claude Code needs you', body: `${paneName}: Bash: true` });
    // One per wait: the prompt stays up and is re-read, with no second notification.
    const row = waitingList(page).locator(`[data-waiting-terminal="${firstPane}"]`);
    await page.getByRole('region', { name: 'Waiting for you' }).waitFor();
    await pollUntil(async () => /\b[2-9] s\b/.test(await row.innerText()), { what: 'the prompt to stand a while' });
    assert.equal((await notes()).length, 2);

    // Do not disturb: the next wait raises nothing, but the list and the title still show it.
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Do not disturb').check();
    await pollUntil(async () => (await page.getByLabel('Do not disturb').isChecked()) === true, { what: 'the switch on' });
    await row.getByRole('button', { name: 'Approve' }).click();
    await pollUntil(async () => (await row.getAttribute('data-agent-state').catch(() => null)) === 'idle', { what: 'the answered agent waiting again' });
    assert.equal(await page.title(), '(1) Switchboard');
    assert.equal((await notes()).length, 2, 'no notification with Do not disturb');
  });

  it('refuses an answer to a prompt that has gone, says so, and types nothing', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);
    const bin = installStandInClaude(app.home);
    await startClaude(page, firstPane, bin);
    await typeInPane(page, firstPane, 'run touch stale.txt');
    const banner = page.locator(`[data-terminal-id="${firstPane}"]`).getByRole('group', { name: 'Claude Code asks' });
    await banner.waitFor();

    // The person clicks Approve, but the answer is held on its way while the prompt is answered in
    // the pane (Escape denies it): by the time it reaches the Hub, the prompt it answers is gone.
    await page.evaluate(() => {
      const state = { held: [] as Array<() => void> };
      (globalThis as unknown as { __answers: typeof state }).__answers = state;
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (this: WebSocket, data: Parameters<WebSocket['send']>[0]) {
        if (typeof data === 'string' && data.includes('"agent.answer"')) state.held.push(() => send.call(this, data));
        else send.call(this, data);
      };
    });
    await banner.getByRole('button', { name: 'Approve' }).click();
    await pollUntil(() => page.evaluate(() => (globalThis as unknown as { __answers: { held: unknown[] } }).__answers.held.length === 1), { what: 'the answer held' });
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.keyboard.press('Escape');
    await waitForPaneText(page, firstPane, 'Denied; not run.');
    await waitForAgentState(page, firstPane, 'idle');
    await page.evaluate(() => (globalThis as unknown as { __answers: { held: Array<() => void> } }).__answers.held.splice(0).forEach((send) => send()));

    const toast = page.getByRole('alert').filter({ hasText: 'Not sent to Claude Code' });
    await toast.waitFor();
    assert.match(await toast.innerText(), /nothing was typed/);
    // Nothing reached the agent: the idle prompt is empty and the command never ran.
    const screen = await waitForPaneText(page, firstPane, 'Denied; not run.');
    assert.doesNotMatch(screen, /Ran touch stale\.txt/);
    assert.match(screen.split('\n').filter((line) => line.startsWith('❯')).at(-1) ?? '', /^❯\s*$/);
    assert.equal(existsSync(join(app.workspace, 'stale.txt')), false);
  });

  it('lists a pending review above agents done with their turn, and opens it with Ctrl+Shift+U', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t, { workspaceFiles: { 'notes.md': 'keep\n' } });
    const bin = installStandInClaude(app.home);
    await startClaude(page, firstPane, bin);
    await waitForRows(page, [`${firstPane}:idle`], 'the agent that finished its turn');

    const requester = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
    t.after(() => requester.dispose());
    // Decided by nobody here: the request ends with the test's connection.
    requester.request('review.request', { path: join(app.workspace, 'notes.md'), newContents: 'changed\n', title: 'Change the notes' }, { timeoutMs: 120_000 }).catch(() => {});
    // A pending review holds its agent up (it waits for the decision): it leads, above the agent
    // that merely finished its turn earlier.
    await waitForRows(page, ['review', `${firstPane}:idle`], 'the review, then the agent done before it');
    assert.equal(await page.title(), '(2) Switchboard');
    const reviewRow = waitingList(page).locator('[data-waiting-kind="review"]');
    assert.match(await reviewRow.innerText(), /Review\s*Change the notes[\s\S]*e2e-agent/);

    // Ctrl+Shift+U from a pane: to the first of the list, the review.
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.keyboard.press('Control+Shift+U');
    await page.getByRole('article', { name: 'Review of Change the notes' }).waitFor();

    // A click on the agent's row from the Review view: back to its pane.
    await waitingList(page).locator(`[data-waiting-terminal="${firstPane}"] .waiting-main`).click();
    await pollUntil(async () => (await focusedPane(page)) === firstPane, { what: 'the waiting agent’s pane focused' });
    assert.equal(await page.getByRole('article', { name: 'Review of Change the notes' }).count(), 0);
  });
});
