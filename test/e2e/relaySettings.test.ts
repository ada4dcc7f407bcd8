/**
 * Remote access from the UI, in real Chromium against `switchboard serve` and a real
 * `switchboard relay` (in-process RelayServer): the Settings section saves the URL, machine id and
 * the write-only token, the sidebar indicator says refused (and why) then connected, and the tab
 * bar's "Share to relay" toggle announces the pane to a real viewer.
 * SWITCHBOARD_E2E_SCREENSHOTS=DIR saves screenshots (dark and light) for a person to look at.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { openFreshApp, useSharedBrowser } from '../helpers/servedApp.ts';
import { startTestRelay, TestViewer } from '../integration/relay/relayTestKit.ts';

const browser = useSharedBrowser();
const screenshotDir = process.env.SWITCHBOARD_E2E_SCREENSHOTS;

async function screenshot(page: Page, name: string, target?: { screenshot(options: { path: string }): Promise<unknown> }): Promise<void> {
  if (!screenshotDir) return;
  await (target ?? page).screenshot({ path: join(screenshotDir, name) });
}

describe('Settings: remote access', () => {
  it('saves the relay settings and token, shows refused then connected, and shares a pane from its tab bar', async (t) => {
    const relay = await startTestRelay({ machines: ['home'] });
    t.after(() => relay.close());
    const { daemonToken, viewerToken } = relay.tokens.get('home')!;
    const { page, firstPane } = await openFreshApp(browser(), t, { viewport: { width: 1280, height: 900 } });

    const indicator = page.locator('.relay-indicator');
    assert.equal(await indicator.count(), 0, 'no remote access indicator until it is set up');
    assert.equal(await page.getByRole('button', { name: 'Share to relay' }).count(), 0, 'nor a share toggle');

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    if (screenshotDir) await page.getByRole('radio', { name: 'Dark' }).click();
    const section = page.getByRole('region', { name: 'Settings' }).getByRole('region', { name: 'Remote access' });
    await section.waitFor();
    const status = section.getByRole('status', { name: 'Remote access status' });
    assert.match(await status.innerText(), /Off/);

    // A bad URL is refused in place, with the reason, and not saved.
    const url = section.getByLabel('Relay URL');
    await url.fill('ftp://relay.example.com');
    await url.press('Enter');
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    await section.getByText('the relay URL starts with wss://').waitFor();

    await url.fill(relay.url);
    await url.press('Enter');
    const machineId = section.getByLabel('Machine id');
    await machineId.fill('home');
    await machineId.press('Enter');

    // A wrong token first: the sidebar says refused, and why.
    const token = section.getByLabel('Token', { exact: true });
    assert.equal(await token.getAttribute('type'), 'password');
    await token.fill('sbrd_wrong-token');
    await section.getByRole('button', { name: 'Save token' }).click();
    await section.locator('[data-token-state="saved"]').waitFor();
    assert.match(await section.locator('#setting-relay-token-help').innerText(), /^Saved in a private file \(0600\)/);
    assert.equal(await token.inputValue(), '', 'the field empties: the token is never shown again');
    await section.getByLabel('Connect on start').check();
    await page.locator('.relay-indicator[data-relay-state="refused"]').waitFor({ timeout: 20_000 });
    assert.match(await indicator.innerText(), /Refused\s+HTTP 401: wrong machine id or token/);
    await screenshot(page, 'relay-refused-dark.png');

    // The right token: connected.
    await token.fill(daemonToken);
    await section.getByRole('button', { name: 'Save token' }).click();
    await page.locator('.relay-indicator[data-relay-state="connected"]').waitFor({ timeout: 20_000 });
    assert.match(await indicator.innerText(), /Remote\s+Connected/);
    assert.match(await status.innerText(), /Connected/);
    assert.ok(!(await page.content()).includes(daemonToken), 'the token is nowhere in the page');
    await screenshot(page, 'relay-settings-dark.png', section);

    // Share the first pane from its tab bar: a viewer of the relay hears of it.
    const viewer = await TestViewer.connect(relay, 'home', viewerToken, { name: 'e2e viewer' });
    t.after(() => viewer.close());
    await viewer.waitFor((frame) => frame.type === 'machineStatus' && frame.state === 'online', { what: 'online' });
    await page.getByRole('button', { name: 'Terminals', exact: true }).click();
    const toggle = page.getByRole('button', { name: 'Share to relay' });
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await screenshot(page, 'relay-pane-actions-unshared-dark.png', page.locator('.pane-actions'));
    await toggle.click();
    await page.locator('.relay-share-toggle[aria-pressed="true"]').waitFor();
    await page.locator('.tab [data-relay-shared]').waitFor();
    await viewer.waitFor((frame) => frame.type === 'agentTerminalStarted' && frame.terminalId === firstPane, { what: 'the pane announced' });
    await screenshot(page, 'relay-shared-pane-dark.png');
    await screenshot(page, 'relay-pane-actions-shared-dark.png', page.locator('.pane-actions'));

    await toggle.click();
    await page.locator('.relay-share-toggle[aria-pressed="false"]').waitFor();
    await viewer.waitFor((frame) => frame.type === 'terminalExit' && frame.terminalId === firstPane, { what: 'the pane withdrawn' });
    assert.equal(await page.locator('.tab [data-relay-shared]').count(), 0);

    if (screenshotDir) {
      await toggle.click();
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.getByRole('radio', { name: 'Light' }).click();
      await page.locator('html[data-theme="light"]').waitFor();
      await screenshot(page, 'relay-settings-light.png', section);
      await page.getByRole('button', { name: 'Terminals', exact: true }).click();
      await screenshot(page, 'relay-shared-pane-light.png');
    }
  });
});
