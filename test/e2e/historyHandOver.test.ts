/**
 * Handing past work to an agent pane, in real Chromium against `switchboard serve`: several
 * sessions and commands picked in History with notes go over in one message, and "Run and hand
 * to agent…" runs a command and hands over its recorded output and exit code in one gesture.
 * With SWITCHBOARD_SCREENSHOTS=/dir, each screen is shot at 1280×800 and 1000×700, light and dark.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, readPane, shootEverySize, typeInPane, useSharedBrowser, waitForPanes, waitForPaneText } from '../helpers/servedApp.ts';

const browser = useSharedBrowser();

async function waitForPrompt(page: Page, terminalId: string, after: string): Promise<void> {
  await pollUntil(
    async () => {
      const screen = (await readPane(page, terminalId)) ?? '';
      const lines = screen.split('\n').map((line) => line.trimEnd()).filter(Boolean);
      return screen.includes(after) && lines.at(-1) === '$';
    },
    { timeoutMs: 15_000, what: `a prompt after ${after}` },
  );
}

describe('handing History to an agent pane', () => {
  it('selects sessions and commands, adds notes, and hands them to a pane in one message', async (t) => {
    const { page, firstPane } = await openFreshApp(browser(), t);
    await typeInPane(page, firstPane, 'echo "alpha-$((2*3))"');
    await waitForPrompt(page, firstPane, 'alpha-6');
    await typeInPane(page, firstPane, 'sh -c "exit 5"');
    await waitForPrompt(page, firstPane, 'exit 5');
    await page.getByRole('button', { name: 'Split right' }).click();
    const [, agentPane] = await waitForPanes(page, 2);
    assert.ok(agentPane);

    await page.getByRole('button', { name: 'History', exact: true }).click();
    const view = page.getByRole('region', { name: 'History' });
    await view.getByRole('tab', { name: 'Commands' }).click();
    const failing = view.getByRole('checkbox', { name: 'Select sh -c "exit 5"' });
    await failing.waitFor({ timeout: 15_000 });
    await failing.check();
    await view.getByRole('checkbox', { name: 'Select echo "alpha-$((2*3))"' }).check();
    await view.getByRole('tab', { name: 'Sessions' }).click();
    const sessionBoxes = view.locator('table[aria-label="Sessions"] tbody tr .history-select');
    await sessionBoxes.first().waitFor();
    // The agent's own pane is a session too; pick the one the commands ran in.
    const firstSessionRow = view.locator('table[aria-label="Sessions"] tbody tr', { hasText: '2 commands' });
    await firstSessionRow.locator('.history-select').check();
    const bar = view.getByRole('region', { name: 'Selection' });
    assert.equal(await bar.getByRole('status').innerText(), '1 session and 2 commands selected');
    // A row's checkbox does not open the session.
    assert.equal(await view.locator('.history-viewer').count(), 0);
    await shootEverySize(page, 'history-selection');

    await bar.getByRole('button', { name: 'Hand to agent…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reference 3 items in agent' });
    await dialog.getByRole('list', { name: 'Items to hand over' }).waitFor();
    await dialog.getByLabel('Notes for the agent (optional)').fill('The second command fails.\nWhy?');
    await shootEverySize(page, 'history-hand-over-dialog');
    await dialog.locator(`[data-terminal-choice="${agentPane}"]`).click();
    await dialog.getByText(/^Typed into/).waitFor();
    const pointer = await dialog.getByLabel('Pointer').innerText();
    assert.match(pointer, /^# switchboard: 3 transcripts from History/);
    assert.match(pointer, /# 1\. "sh -c "exit 5"" \(exit 5, /);
    assert.match(pointer, /# 2\. "echo "alpha-\$\(\(2\*3\)\)"" \(exit 0, /);
    assert.match(pointer, /# 3\. session "/);
    assert.match(pointer, /# notes: The second command fails\.\n# {3}Why\?$/);
    assert.doesNotMatch(pointer, /alpha-6/, 'the pointer never carries output');
    assert.equal(await dialog.getByRole('list', { name: 'Transcript files' }).getByRole('listitem').count(), 3);
    await shootEverySize(page, 'history-hand-over-done');
    await dialog.getByRole('button', { name: 'Done' }).click();
    // Handed over: the selection starts again.
    assert.equal(await view.getByRole('region', { name: 'Selection' }).count(), 0);

    await page.getByRole('button', { name: 'Terminals', exact: true }).click();
    const agentScreen = await waitForPaneText(page, agentPane, '# notes: The second command fails.');
    assert.match(agentScreen, /# switchboard: 3 transcripts from History/);
  });

  it('"Run and hand to agent…" runs a command in a new terminal and hands its output and exit code to the agent pane', async (t) => {
    const { page, firstPane } = await openFreshApp(browser(), t);
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.getByRole('button', { name: 'Run and hand to agent…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run and hand to agent' });
    await dialog.getByLabel('Command').fill('echo "ran-$((4*5))"; sh -c "exit 7"');
    await dialog.getByLabel('Notes for the agent (optional)').fill('Fix this.');
    // The pane it was opened from is the agent's.
    assert.equal(await dialog.getByLabel("Hand to (the agent's terminal)").inputValue(), firstPane);
    await shootEverySize(page, 'run-and-hand-dialog');
    await dialog.getByRole('button', { name: 'Run and hand over' }).click();
    await dialog.getByText(/^Typed into/).waitFor({ timeout: 30_000 });
    const pointer = await dialog.getByLabel('Pointer').innerText();
    assert.match(pointer, /^# switchboard: a transcript from History/);
    assert.match(pointer, /# 1\. "echo "ran-\$\(\(4\*5\)\)"; sh -c "exit 7"" \(exit 7, .*\): \/.*-cmd\d+\.txt\n# notes: Fix this\.$/);
    await shootEverySize(page, 'run-and-hand-done');
    await dialog.getByRole('button', { name: 'Done' }).click();

    const panes = await waitForPanes(page, 2);
    const runPane = panes.find((id) => id !== firstPane)!;
    await waitForPaneText(page, runPane, 'ran-20');
    await waitForPaneText(page, firstPane, '# notes: Fix this.');

    // In a terminal the person picks: the command runs there, at its prompt.
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.getByRole('button', { name: 'Run and hand to agent…' }).click();
    const inPicked = page.getByRole('dialog', { name: 'Run and hand to agent' });
    await inPicked.getByLabel('Command').fill('echo "second-$((1+1))"');
    await inPicked.getByLabel('Run in').selectOption(runPane);
    await inPicked.getByRole('button', { name: 'Run and hand over' }).click();
    await inPicked.getByText(/^Typed into/).waitFor({ timeout: 30_000 });
    assert.match(await inPicked.getByLabel('Pointer').innerText(), /^# switchboard: transcript of "echo "second-\$\(\(1\+1\)\)"" \(exit 0, .*\) at \/.*-cmd\d+\.txt$/);
    await inPicked.getByRole('button', { name: 'Done' }).click();
    await waitForPaneText(page, runPane, 'second-2');
    assert.equal((await waitForPanes(page, 2)).length, 2, 'no new terminal');

    // A line the person left half typed there is theirs: the command is not joined to it (it goes
    // through exec's turn-taking), the dialog says why, and nothing is typed.
    await page.locator(`[data-terminal-id="${runPane}"] .pane-body`).click();
    await page.keyboard.type('echo half');
    await waitForPaneText(page, runPane, 'echo half');
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.getByRole('button', { name: 'Run and hand to agent…' }).click();
    const refused = page.getByRole('dialog', { name: 'Run and hand to agent' });
    await refused.getByLabel('Command').fill('echo "third-$((1+2))"');
    await refused.getByLabel('Run in').selectOption(runPane);
    await refused.getByRole('button', { name: 'Run and hand over' }).click();
    await refused.getByRole('status').getByText(/^Typing it into .* at its prompt/).waitFor({ timeout: 10_000 });
    await shootEverySize(page, 'run-and-hand-typing');
    await refused.getByRole('alert').getByText(/has a line left half typed at its prompt: "echo half"\. Send or clear it there, then try again; nothing was typed\./).waitFor({ timeout: 30_000 });
    await shootEverySize(page, 'run-and-hand-refused');
    const lines = ((await readPane(page, runPane)) ?? '').split('\n').map((line) => line.trimEnd()).filter(Boolean);
    assert.equal(lines.at(-1), '$ echo half', 'the half-typed line is left as the person left it');
    assert.doesNotMatch((await readPane(page, runPane)) ?? '', /third-/);
    await refused.getByRole('button', { name: 'Cancel' }).click();
    await refused.waitFor({ state: 'detached' });

    // "Stop waiting" before it was typed: it is never typed, not even once the line is cleared.
    await page.getByRole('button', { name: 'Run and hand to agent…' }).click();
    const stopped = page.getByRole('dialog', { name: 'Run and hand to agent' });
    await stopped.getByLabel('Command').fill('echo "third-$((1+2))"');
    await stopped.getByLabel('Run in').selectOption(runPane);
    await stopped.getByRole('button', { name: 'Run and hand over' }).click();
    await stopped.getByRole('status').getByText(/^Typing it into/).waitFor({ timeout: 10_000 });
    await stopped.getByRole('button', { name: 'Stop waiting' }).click();
    await stopped.waitFor({ state: 'detached' });
    await page.locator(`[data-terminal-id="${runPane}"] .pane-body`).click();
    await page.keyboard.press('Control+U');
    await typeInPane(page, runPane, 'echo "fourth-$((2+2))"');
    await waitForPaneText(page, runPane, 'fourth-4');
    assert.doesNotMatch((await readPane(page, runPane)) ?? '', /third-/, 'the stopped command was never typed');

    // Nothing to run: nothing to press. Escape closes the dialog.
    await page.keyboard.press('Control+Shift+Y');
    const again = page.getByRole('dialog', { name: 'Run and hand to agent' });
    await again.getByLabel('Command').fill('   ');
    assert.equal(await again.getByRole('button', { name: 'Run and hand over' }).isDisabled(), true);
    await page.keyboard.press('Escape');
    await again.waitFor({ state: 'detached' });
  });
});
