/**
 * The Settings "Control socket" section in real Chromium against `switchboard serve`: switch
 * token auth on, create a token (its secret shown once), use it over the real socket, revoke it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ControlClient, ControlClientError } from '../../src/cli/controlClient.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, useSharedBrowser } from '../helpers/servedApp.ts';

const browser = useSharedBrowser();

async function serverError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ControlClientError) return error.message;
    throw error;
  }
  return 'no error';
}

describe('Settings: control socket tokens', () => {
  it('switches auth on, creates a token that works on the socket, and revokes it', async (t) => {
    const { app, page } = await openFreshApp(browser(), t, { viewport: { width: 1280, height: 900 } });
    const socketPath = join(app.dataDir, 'control.sock');

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    const section = settings.getByRole('region', { name: 'Control socket' });
    await section.waitFor();
    await section.getByText('No tokens yet.').waitFor();

    const anonymous = new ControlClient({ socketPath, clientName: 'e2e-anonymous' });
    t.after(() => anonymous.dispose());
    assert.ok(Array.isArray(await anonymous.list()), 'auth is off by default');

    await section.getByLabel('Require access tokens').check();
    // The switch flips at once; the Hub applies the setting a moment later.
    await pollUntil(async () => /auth:required/.test(await serverError(anonymous.list())), { what: 'auth:required once the switch is on' });

    await section.getByLabel('Token name').fill('e2e reader');
    await section.getByRole('button', { name: 'Create token' }).click();
    const secret = (await section.locator('.token-secret-value').innerText()).trim();
    assert.match(secret, /^sbt_[A-Za-z0-9_-]{43}$/);
    const row = section.getByRole('table', { name: 'Control tokens' }).locator('tbody tr');
    await row.filter({ hasText: 'e2e reader' }).waitFor();
    assert.match(await row.innerText(), /e2e reader\s+read\s+all/);
    // For a person to look at the section: SWITCHBOARD_E2E_SCREENSHOTS=DIR.
    const screenshotDir = process.env.SWITCHBOARD_E2E_SCREENSHOTS;
    if (screenshotDir) await section.screenshot({ path: join(screenshotDir, 'control-tokens.png') });

    const reader = new ControlClient({ socketPath, clientName: 'e2e-reader', token: secret });
    t.after(() => reader.dispose());
    assert.ok(Array.isArray(await reader.list()));
    assert.match(await serverError(reader.create()), /auth:forbidden create/);

    // The secret is shown once: gone after Done, and not in the list.
    await section.getByRole('button', { name: 'Done' }).click();
    assert.equal(await section.locator('.token-secret-value').count(), 0);
    assert.ok(!(await section.innerText()).includes(secret));

    await section.getByRole('button', { name: 'Revoke e2e reader' }).click();
    await row.getByText('revoked').waitFor();
    assert.match(await serverError(reader.list()), /auth:invalid/);
  });

  it('limits a token to terminals by the names the sidebar shows, spaces and all, and says which name matched nothing', async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t, { viewport: { width: 1000, height: 700 } });
    const agent = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
    t.after(() => agent.dispose());
    await agent.rename(firstPane, 'web server');

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const section = page.getByRole('region', { name: 'Settings' }).getByRole('region', { name: 'Control socket' });
    await section.getByLabel('Token name').fill('for the web server');
    await section.getByLabel('Terminals').fill('web server');
    await section.getByRole('button', { name: 'Create token' }).click();
    const row = section.getByRole('table', { name: 'Control tokens' }).locator('tbody tr').filter({ hasText: 'for the web server' });
    await row.waitFor();
    assert.match(await row.innerText(), /for the web server\s+read\s+web server\s/, 'the table names the pane');
    const [token] = (await agent.request('tokens.list', {})).tokens as Array<{ terminals: string[] | null }>;
    assert.deepEqual(token?.terminals, [firstPane], 'and the token holds its id');
    await section.getByRole('button', { name: 'Done' }).click();

    // A name without its space matches nothing: the app says so and suggests the name.
    await section.getByLabel('Token name').fill('typo');
    await section.getByLabel('Terminals').fill('webserver');
    await section.getByRole('button', { name: 'Create token' }).click();
    const alert = page.locator('.toast[role="alert"]');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Could not create the token[\s\S]*no open terminal has that id or name; did you mean "web server"\?/);
    assert.equal(await section.getByRole('table', { name: 'Control tokens' }).locator('tbody tr').count(), 1, 'nothing was created');
  });
});
