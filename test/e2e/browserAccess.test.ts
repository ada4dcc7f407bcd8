/** Browser mode only serves the app to a page that presented the token. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { chromiumArgs, startServedApp, type ServedApp } from '../helpers/servedApp.ts';

let app: ServedApp;
let browser: Browser;

before(async () => {
  app = await startServedApp();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumArgs });
});

after(async () => {
  await browser?.close();
  await app?.stop();
});

describe('browser mode access', () => {
  it('refuses a wrong token with 401 and shows no app', async (t) => {
    const context = await browser.newContext();
    t.after(() => context.close());
    const page = await context.newPage();
    const response = await page.goto(`${app.origin}/?token=${'0'.repeat(app.token.length || 64)}`);
    assert.equal(response?.status(), 401);
    assert.match(await page.locator('body').innerText(), /not authori[sz]ed/i);
    assert.equal(await page.locator('#root').count(), 0, 'the app is not served');
    assert.equal(await page.locator('[data-terminal-id]').count(), 0);
  });

  it('refuses a page without the token or its cookie', async (t) => {
    const context = await browser.newContext();
    t.after(() => context.close());
    const page = await context.newPage();
    const response = await page.goto(`${app.origin}/`);
    assert.equal(response?.status(), 401);
    assert.equal(await page.locator('#root').count(), 0);
  });
});
