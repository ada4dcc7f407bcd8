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

const browser = useSharedBrowser();

describe('agent terminals in the UI', () => {
  it('shows a terminal an agent created and the command it runs there', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);

    const agent = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
    t.after(() => agent.dispose());
    const created = await agent.request('create', { name: 'agent-build', show: true });
    const agentTerminal = String(created.id);

    // It opens in its own tab and becomes the visible pane; the person's pane is kept (hidden tab).
    const panes = await waitForPanes(page, 2);
    assert.deepEqual(new Set(panes), new Set([firstPane, agentTerminal]));
    await page.locator(`[data-terminal-id="${agentTerminal}"]`).waitFor({ state: 'visible' });
    assert.equal(await page.locator(`[data-terminal-id="${firstPane}"]`).isVisible(), false, 'the person\'s tab is in the background');
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
});
