/**
 * People see what agents do, in real Chromium against `switchboard serve`: a terminal an agent
 * created says who created it, the agent's input is announced under the pane as it happens, and
 * the Activity view lists the audit log live, filterable by agent and by terminal. A person
 * typing in the browser holds an agent's send (the typing guard sees browser input as a person's).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ControlClient } from '../../src/cli/controlClient.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, useSharedBrowser, waitForPaneText, waitForPanes } from '../helpers/servedApp.ts';

const browser = useSharedBrowser();

describe('agent activity in the UI', () => {
  it('shows who created a terminal, what the agent sent, and the Activity view with filters', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);
    const socketPath = join(app.dataDir, 'control.sock');

    const agent = new ControlClient({ socketPath, clientName: 'e2e-agent' });
    t.after(() => agent.dispose());
    const created = await agent.request('create', { name: 'agent-build', show: true });
    const agentTerminal = String(created.id);
    await waitForPanes(page, 2);
    const pane = page.locator(`[data-terminal-id="${agentTerminal}"]`);
    await pane.waitFor({ state: 'visible' });

    // Through what it was created: in the sidebar and in the pane's header. No AGENT badge: that
    // word means a pane that runs an agent CLI, and a plain shell opened over the socket is not one.
    const item = page.locator(`[data-terminal-item="${agentTerminal}"]`);
    await item.getByText('via e2e-agent', { exact: true }).waitFor();
    await pane.locator('.pane-header').getByText('via e2e-agent', { exact: true }).waitFor();
    assert.equal(await item.locator('.creator-tag').count(), 0, 'no AGENT badge on a shell opened over the socket');
    assert.doesNotMatch(await item.innerText(), /^agent$/im);
    assert.equal(await item.locator('.agent-state-line').count(), 0);
    // The person's own terminal says nothing of the kind.
    assert.equal(await page.locator(`[data-terminal-item="${firstPane}"] .creator-name`).count(), 0);

    // The agent's input is announced as it happens, and the pane header flashes.
    await waitForPaneText(page, agentTerminal, '$');
    await agent.send(agentTerminal, { text: 'echo activity-$((6*7))' });
    const line = pane.locator('.agent-input-line');
    await line.waitFor({ state: 'visible' });
    assert.equal((await line.innerText()).replace(/\s+/g, ' ').trim(), '▸ e2e-agent sent: echo activity-$((6*7))');
    assert.equal(await pane.locator('.pane-header').getAttribute('data-agent-active'), 'true');
    await waitForPaneText(page, agentTerminal, 'activity-42');
    // It fades and goes by itself.
    await line.waitFor({ state: 'detached', timeout: 10_000 });

    // A second agent works in another terminal, out of view.
    const other = new ControlClient({ socketPath, clientName: 'other-agent' });
    t.after(() => other.dispose());
    const otherTerminal = String((await other.request('create', { name: 'other-work' })).id);
    const executed = await other.exec(otherTerminal, 'echo other-done');
    assert.equal(executed.exitCode, 0);

    // The Activity view: newest first, every action with its agent, terminal and summary.
    await page.getByRole('button', { name: 'Activity', exact: true }).click();
    const view = page.getByRole('region', { name: 'Activity' });
    await view.waitFor();
    const rows = view.locator('tbody tr[data-audit-seq]');
    await pollUntil(async () => (await rows.count()) === 4, { what: 'four activity rows' });
    assert.deepEqual(await rowCells(rows), [
      ['other-agent', 'exec', 'other-work', 'echo other-done'],
      ['other-agent', 'create', 'other-work', null],
      ['e2e-agent', 'send', 'agent-build', 'echo activity-$((6*7)) ⏎'],
      ['e2e-agent', 'create', 'agent-build', null],
    ]);

    // Filter by agent, then by terminal.
    await view.getByLabel('Filter by agent').selectOption('e2e-agent');
    await pollUntil(async () => (await rows.count()) === 2, { what: 'two rows for e2e-agent' });
    assert.deepEqual(
      (await rowCells(rows)).map((cells) => cells[0]),
      ['e2e-agent', 'e2e-agent'],
    );
    await view.getByLabel('Filter by agent').selectOption('');
    await view.getByLabel('Filter by terminal').selectOption({ label: 'other-work' });
    await pollUntil(async () => (await rows.count()) === 2, { what: 'two rows for other-work' });
    assert.deepEqual(
      (await rowCells(rows)).map((cells) => [cells[0], cells[1]]),
      [
        ['other-agent', 'exec'],
        ['other-agent', 'create'],
      ],
    );

    // Live: a new action appears at the top while the view is open (and passes the filter).
    await view.getByLabel('Filter by terminal').selectOption('');
    await other.request('close', { terminalId: otherTerminal });
    await pollUntil(async () => (await rows.count()) === 5, { what: 'the close to appear' });
    const [newest] = await rowCells(rows);
    assert.deepEqual(newest!.slice(0, 3), ['other-agent', 'close', 'other-work']);
  });

  it('holds an agent send while the person types in the pane', async (t) => {
    const { app, page, firstPane: pane } = await openFreshApp(browser(), t);
    const agent = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
    t.after(() => agent.dispose());

    // A long pause, set in Settings like a person would, so a busy machine cannot make the test race.
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const pauseField = page.getByLabel('Agent typing pause');
    const settingsFile = join(app.dataDir, 'settings.json');
    assert.equal(await pauseField.inputValue(), '500', 'the default');
    await pauseField.fill('3000');
    await pauseField.press('Enter');
    await pollUntil(() => existsSync(settingsFile) && JSON.parse(readFileSync(settingsFile, 'utf8')).agentSendIdleMs === 3000, { what: 'the setting to be saved' });
    await page.keyboard.press('Escape');

    await page.locator(`[data-terminal-id="${pane}"] .pane-body`).click();
    await page.keyboard.type('echo typed-by-');
    await waitForPaneText(page, pane, 'echo typed-by-');
    await assert.rejects(agent.request('send', { terminalId: pane, text: 'echo agent', wait: false }), /^.*terminal \S+ is busy: the user is typing$/);
    // Holding (the default): the agent waits for the person to pause, then types after them.
    let answeredAt = 0;
    const held = agent.send(pane, { text: 'echo agent-after' }).then(() => (answeredAt = Date.now()));
    await page.keyboard.type('person');
    await page.keyboard.press('Enter');
    const enteredAt = Date.now();
    await held;
    assert.ok(answeredAt - enteredAt >= 2_500, `the agent typed ${answeredAt - enteredAt} ms after the person's Enter`);
    const screen = await waitForPaneText(page, pane, /\nagent-after/);
    assert.ok(screen.indexOf('typed-by-person') < screen.indexOf('echo agent-after'), screen);
    assert.doesNotMatch(screen, /typed-by-echo/);
  });
});

/** Each row's agent, action, terminal and summary (null when the summary is not shown as typed text). */
async function rowCells(rows: import('playwright-core').Locator): Promise<Array<[string, string, string, string | null]>> {
  return rows.evaluateAll((elements) =>
    elements.map((row) => {
      const cells = [...row.querySelectorAll('td')].map((cell) => (cell.textContent ?? '').trim());
      const cmd = cells[2] ?? '';
      return [cells[1] ?? '', cmd, cells[3] ?? '', cmd === 'create' ? null : (cells[4] ?? '')] as [string, string, string, string | null];
    }),
  );
}
