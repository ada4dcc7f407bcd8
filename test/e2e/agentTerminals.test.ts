/**
 * People see what agents do: a terminal an agent creates over the control socket (claws `create`
 * with `show:true`) appears as a pane in the open window, and a command the agent runs in it is
 * visible there as it happens.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ControlClient } from '../../src/cli/controlClient.ts';
import { openFreshApp, useSharedBrowser, waitForPaneText, waitForPanes } from '../helpers/servedApp.ts';
import { pollUntil } from '../helpers/poll.ts';

const browser = useSharedBrowser();

describe('agent terminals in the UI', () => {
  it('shows a terminal an agent created and the command it runs there', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);

    const agent = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
    t.after(() => agent.dispose());
    const created = await agent.request('create', { name: 'agent-build', show: true });
    const agentTerminal = String(created.id);

    // It opens beside the person's pane, in view; the person's pane stays in view too.
    const panes = await waitForPanes(page, 2);
    assert.deepEqual(new Set(panes), new Set([firstPane, agentTerminal]));
    await page.locator(`[data-terminal-id="${agentTerminal}"]`).waitFor({ state: 'visible' });
    assert.equal(await page.locator(`[data-terminal-id="${firstPane}"]`).isVisible(), true, 'the person\'s pane is not hidden');
    await page.getByText('agent-build').first().waitFor();

    const result = await agent.exec(agentTerminal, 'echo agent-$((2+3))');
    assert.equal(result.exitCode, 0);
    assert.match(result.output, /agent-5/);
    // The person watches it happen in the pane: the typed command and its output.
    const screen = await waitForPaneText(page, agentTerminal, 'agent-5');
    assert.match(screen, /echo agent-\$\(\(2\+3\)\)/);

    // The person's own terminal is still there, one tab over.
    const listed = await agent.list();
    assert.ok(listed.some((terminal) => terminal.id === firstPane), 'the first terminal still runs');
  });

  it('a pane a claws client creates (show by default) comes into view while the person keeps typing in theirs', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);
    await waitForPaneText(page, firstPane, '$');
    await page.locator(`[data-terminal-id="${firstPane}"] .xterm`).click();
    await page.keyboard.type('echo typed-before-');

    // Exactly what claws' clients send: no show field (claws defaults it to true), null for unset fields.
    const agent = new ControlClient({ socketPath: join(app.workspace, '.claws', 'claws.sock'), clientName: 'claws-like' });
    t.after(() => agent.dispose());
    const created = await agent.request('create', { name: 'claws-worker', cwd: null, wrapped: true });
    const worker = String(created.id);

    await page.locator(`[data-terminal-id="${worker}"]`).waitFor({ state: 'visible' });
    assert.equal(await page.locator(`[data-terminal-id="${firstPane}"]`).isVisible(), true, 'the person\'s pane stays in view');
    // The keys the person goes on typing land in their pane, not in the new one.
    await page.keyboard.type('and-after');
    await page.keyboard.press('Enter');
    await waitForPaneText(page, firstPane, /^typed-before-and-after$/m);
    const workerScreen = (await agent.request('readScreen', { terminalId: worker })) as { lines: string[] };
    assert.equal(workerScreen.lines.join('\n').includes('and-after'), false, 'nothing the person typed reached the new pane');
    // And the app still says which pane has the keyboard: the person's.
    await pollUntil(async () => (await page.evaluate(() => document.activeElement?.closest('[data-terminal-id]')?.getAttribute('data-terminal-id'))) === firstPane, {
      what: 'the keyboard to stay in the person\'s pane',
    });
  });
});
