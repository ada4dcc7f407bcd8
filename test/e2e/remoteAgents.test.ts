/**
 * Answering an agent from a phone (issue 19), in real Chromium: a real `switchboard relay` and a
 * real `switchboard serve --relay … --share-all` (child processes), the machine's own UI in one
 * page and the relay's remote view in another at a phone's size, the Claude Code stand-in
 * (test/helpers/standInClaude.ts) in the machine's pane under the Hub's real agent detection. The
 * remote view shows the same "Waiting for you" list; Approve in it runs the command on the machine;
 * a question's option picks it; an answer to a prompt the person at the machine answered first is
 * refused and said so, and nothing is typed; the pane's own card answers too; a pending review
 * joins the list in order and opens Reviews.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { ControlClient } from '../../src/cli/controlClient.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openRemote, slow, startRemoteSetup } from '../helpers/remoteRelay.ts';
import { newPage, openApp, shootEverySize, typeInPane, useSharedBrowser, waitForPaneText } from '../helpers/servedApp.ts';
import { installStandInClaude } from '../helpers/standInClaude.ts';

const browser = useSharedBrowser();
const phone = { width: 390, height: 844 };
const shotSizes = [
  [390, 844],
  [1000, 700],
] as const;

function waitingRow(page: Page, terminalId: string, state: string): Locator {
  return page.getByRole('list', { name: 'Waiting for you' }).locator(`li[data-waiting-terminal="${terminalId}"][data-agent-state="${state}"]`);
}

/**
 * Frames from the relay to the remote page on the broadcast channel ("*": the machine's news for
 * every viewer) are held while `holding` is set, so the page keeps showing a prompt that has in
 * fact gone — as a phone on a slow link would. Frames for the page's own channel still pass.
 */
async function holdableRelay(page: Page): Promise<{ hold(): void; release(): void }> {
  let holding = false;
  const held: Array<() => void> = [];
  await page.routeWebSocket(/\/ws\/ui/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => server.send(message));
    server.onMessage((message) => {
      const broadcast = typeof message === 'string' && /"channelId":"\*"/.test(message);
      if (holding && broadcast) held.push(() => ws.send(message));
      else ws.send(message);
    });
  });
  return {
    hold: () => (holding = true),
    release: () => {
      holding = false;
      for (const send of held.splice(0)) send();
    },
  };
}

describe('remote view: agents that wait for you (real relay, real serve, Claude Code stand-in)', () => {
  it('lists the waiting agent, approves its command, answers its question, and refuses a stale answer', async (t) => {
    const setup = await startRemoteSetup(t);
    const bin = installStandInClaude(setup.dirs.home);
    const local = await newPage(t, browser());
    const pane = await openApp(local, setup.serve.url);
    await waitForPaneText(local, pane, '$', slow);
    await typeInPane(local, pane, join(bin, 'claude'));
    await waitForPaneText(local, pane, 'Claude Code (stand-in for tests)', slow);

    // What the machine's pane goes through (its size and its agent's state), said when a wait fails.
    const control = new ControlClient({ socketPath: join(setup.dirs.dataDir, 'control.sock'), clientName: 'e2e-observer' });
    t.after(() => control.dispose());
    const seen: string[] = [];
    let lastChangeAt = Date.now();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        // The machine stops when the test ends (its after hooks may come first).
        const state = await control.request('list').then(
          (answer) => {
            const terminal = (answer as { terminals: Array<{ id: string; cols: number; rows: number; agent?: { state: string; since: number; reason: string | null } | null }> }).terminals.find((candidate) => candidate.id === pane);
            return JSON.stringify(terminal && { cols: terminal.cols, rows: terminal.rows, state: terminal.agent?.state, since: terminal.agent?.since, reason: terminal.agent?.reason });
          },
          () => undefined,
        );
        if (state === undefined) return;
        if (seen.at(-1)?.slice(seen.at(-1)!.indexOf(' ') + 1) !== state) {
          seen.push(`${Date.now() % 100_000} ${state}`);
          lastChangeAt = Date.now();
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    t.after(async () => {
      watching = false;
      await watch;
    });
    const history = (error: unknown) => {
      throw new Error(`${(error as Error).message}\nthe machine's pane: ${seen.slice(-12).join(' → ')}`);
    };
    const waitForRow = (state: string) => waitingRow(remote, pane, state).waitFor({ timeout: slow }).catch(history);

    const remote = await newPage(t, browser(), phone);
    const relay = await holdableRelay(remote);
    await openRemote(remote, setup.viewerLink);
    // Done with its turn: it waits for the person, on the phone too, and its pane says so.
    await waitForRow('idle');
    await remote.locator(`[data-terminal-item="${pane}"] .agent-state-line[data-agent-state="idle"]`).waitFor();

    // A permission prompt: the row says what it asks, with Approve / Deny.
    await typeInPane(local, pane, 'run touch from-phone.txt');
    const asking = waitingRow(remote, pane, 'needs-input');
    await asking.waitFor({ timeout: slow }).catch(history);
    assert.equal(await asking.locator('.waiting-reason').innerText(), 'Bash: touch from-phone.txt');
    assert.equal(await asking.locator('.waiting-agent').innerText(), 'Claude Code');
    assert.equal(await asking.locator('.waiting-name').innerText(), 'bash', 'the pane’s name leads the row');
    assert.match(await remote.title(), /^\(1\) home — Switchboard remote$/);
    await shootEverySize(remote, 'remote-agent-permission', shotSizes);
    await asking.getByRole('button', { name: 'Approve', exact: true }).click();
    await pollUntil(() => existsSync(join(setup.dirs.workspace, 'from-phone.txt')) || undefined, { timeoutMs: slow, what: 'the approved command to run on the machine' });
    await waitForRow('idle');
    await waitForPaneText(local, pane, 'Ran touch from-phone.txt (ran).', slow);

    // A question: its options are the buttons.
    await typeInPane(local, pane, 'ask Which colour should the button be? | Red | Green | Blue');
    const question = waitingRow(remote, pane, 'needs-input');
    await question.waitFor({ timeout: slow }).catch(history);
    assert.equal(await question.locator('.waiting-reason').innerText(), 'Which colour should the button be?');
    assert.deepEqual(await question.locator('.agent-answer').allInnerTexts(), ['Red', 'Green', 'Blue']);
    await shootEverySize(remote, 'remote-agent-question', shotSizes);
    await question.getByRole('button', { name: 'Green', exact: true }).click();
    await waitForPaneText(local, pane, 'You picked: Green', slow);
    await waitForRow('idle');

    // The person at the machine answers first; the phone, not yet told, answers too: refused, said, nothing typed.
    await typeInPane(local, pane, 'run touch stale.txt');
    const stale = waitingRow(remote, pane, 'needs-input');
    await stale.waitFor({ timeout: slow }).catch(history);
    relay.hold();
    const localRow = local.getByRole('list', { name: 'Waiting for you' }).locator(`li[data-waiting-terminal="${pane}"][data-agent-state="needs-input"]`);
    await localRow.getByRole('button', { name: 'Deny', exact: true }).click();
    await waitForPaneText(local, pane, 'Denied; not run.', slow);
    await stale.getByRole('button', { name: 'Approve', exact: true }).click();
    const refusal = stale.locator('.agent-answer-refusal');
    await refusal.waitFor({ timeout: slow });
    assert.match(await refusal.innerText(), /^Not sent: the prompt .*(answered|gone).*\(nothing was typed\)$/);
    // Said in a toast too (the row may be gone by the time the answer comes back).
    const toast = remote.getByRole('alert').filter({ hasText: 'Not sent to Claude Code in' });
    await toast.waitFor();
    await shootEverySize(remote, 'remote-agent-refused', shotSizes);
    await toast.getByRole('button', { name: 'Dismiss' }).click();
    relay.release();
    await waitForRow('idle');
    assert.equal(existsSync(join(setup.dirs.workspace, 'stale.txt')), false, 'the refused approval ran nothing');
    // Nothing reached the agent: its next prompt is exactly what the person types (a stray "1" would prefix it).
    await typeInPane(local, pane, 'run touch after.txt');
    const after = waitingRow(remote, pane, 'needs-input');
    await after.waitFor({ timeout: slow }).catch(history);
    assert.equal(await after.locator('.waiting-reason').innerText(), 'Bash: touch after.txt');

    // The pane itself, opened on the phone, floats the same prompt with its answers.
    await remote.locator(`[data-terminal-item="${pane}"] .terminal-item-main`).click();
    const banner = remote.locator(`[data-terminal-id="${pane}"] .agent-prompt-banner`);
    await banner.waitFor({ timeout: slow });
    await shootEverySize(remote, 'remote-agent-pane', shotSizes);
    // Opening the pane on the phone (and the screenshots' sizes) resizes the machine's pane — and the
    // machine's own window may take it back to its size: each time the agent redraws its prompt, a
    // new prompt as far as answers go (one tapped meanwhile is refused). Answer once it stands.
    await pollUntil(() => Date.now() - lastChangeAt > 2000, { timeoutMs: slow, what: 'the pane to stand still' }).catch(history);
    seen.push(`${Date.now() % 100_000} click`);
    await banner.getByRole('button', { name: 'Deny', exact: true }).click();
    // Done (the agent's turn ends), or refused (said on the card): which, and in what words.
    const outcome = await pollUntil(
      async () => {
        if (await waitingRow(remote, pane, 'idle').count()) return 'done';
        const refusal = banner.locator('.agent-answer-refusal');
        return (await refusal.count()) ? `refused: ${await refusal.innerText()}` : undefined;
      },
      { timeoutMs: slow, what: 'the answer from the pane’s card to be taken or refused' },
    ).catch((error: unknown) => `${(error as Error).message}; the machine's pane: ${seen.slice(-12).join(' → ')}`);
    assert.equal(outcome, 'done');
    assert.equal(existsSync(join(setup.dirs.workspace, 'after.txt')), false);

    // A pending review joins the same list, oldest first (it waits longer than the agent that asks after it); it opens Reviews.
    writeFileSync(join(setup.dirs.workspace, 'notes.md'), 'old\n');
    control.request('review.request', { path: join(setup.dirs.workspace, 'notes.md'), newContents: 'new\n', title: 'Change the notes' }, { timeoutMs: 120_000 }).catch(() => {});
    const list = remote.getByRole('list', { name: 'Waiting for you' });
    const review = list.locator('li[data-waiting-kind="review"]');
    await review.waitFor({ timeout: slow });
    await typeInPane(local, pane, 'run touch later.txt');
    await waitForRow('needs-input');
    assert.deepEqual(await list.locator('> li').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-waiting-kind'))), ['review', 'agent']);
    assert.match(await review.innerText(), /Review\s+Change the notes[\s\S]*e2e-observer/);
    assert.match(await remote.title(), /^\(2\) home — Switchboard remote$/);
    await shootEverySize(remote, 'remote-agent-and-review', shotSizes);
    await review.getByRole('button').click();
    await remote.locator('.remote-review', { hasText: 'Change the notes' }).waitFor({ timeout: slow });
  });
});
