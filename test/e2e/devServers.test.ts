/**
 * Dev servers in the UI (issue 21), in real Chromium against `switchboard serve`: a Node HTTP +
 * WebSocket dev server typed into a real pane shows as a `:PORT` chip in the sidebar row and the
 * pane header; a click opens its URL in a new tab (browser mode); the chips go when the server stops.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { openFreshApp, shootEverySize, typeInPane, useSharedBrowser, waitForPaneText } from '../helpers/servedApp.ts';
import { freePort } from '../helpers/freePort.ts';

const browser = useSharedBrowser();

const wsModule = createRequire(import.meta.url).resolve('ws');
/** Prints its URL the way Vite does, then serves a page; WebSocket messages are echoed (hot reload's channel). */
const devServer = `
const http = require('node:http');
const { WebSocketServer } = require(${JSON.stringify(wsModule)});
const server = http.createServer((request, response) => {
  response.setHeader('content-type', 'text/html');
  response.end('<title>dev page</title><h1>served by the dev server</h1>');
});
new WebSocketServer({ server }).on('connection', (socket) => socket.on('message', (data) => socket.send(data)));
server.listen(Number(process.argv[2]), () => console.log('  \\x1b[32m➜\\x1b[0m  Local:   \\x1b[36mhttp://localhost:' + process.argv[2] + '/app/\\x1b[0m'));
`;

describe('dev servers in the UI', () => {
  it('shows a pane’s server as :PORT in the sidebar and the pane header, opens it in a new tab, and drops it when it stops', async (t) => {
    const { page, firstPane } = await openFreshApp(browser(), t, { workspaceFiles: { 'dev-server.cjs': devServer } });
    const sidebarChip = page.locator(`[data-terminal-item="${firstPane}"] .server-chip`);
    const headerChip = page.locator(`[data-terminal-id="${firstPane}"] .pane-header .server-chip`);
    assert.equal(await sidebarChip.count(), 0);
    assert.equal(await page.locator(`[data-terminal-id="${firstPane}"] .pane-header`).count(), 0, 'a lone pane has no header until it has something to show');

    const port = await freePort();
    await typeInPane(page, firstPane, `node dev-server.cjs ${port}`);
    await waitForPaneText(page, firstPane, `http://localhost:${port}/app/`);
    await sidebarChip.waitFor({ timeout: 10_000 });
    assert.equal(await sidebarChip.textContent(), `:${port}`);
    assert.equal(await sidebarChip.getAttribute('href'), `http://localhost:${port}/app/`, 'the printed URL, path and all');
    await headerChip.waitFor({ timeout: 5000 });
    assert.equal(await headerChip.textContent(), `:${port}`);
    assert.match((await headerChip.getAttribute('title')) ?? '', new RegExp(`http://localhost:${port}/app/`));
    await shootEverySize(page, 'dev-servers');

    // A click opens the server in a new tab; the app's own page stays where it was.
    const appUrl = page.url();
    const [opened] = await Promise.all([page.context().waitForEvent('page'), sidebarChip.click()]);
    await opened.waitForLoadState();
    assert.equal(opened.url(), `http://localhost:${port}/app/`);
    assert.equal(await opened.locator('h1').textContent(), 'served by the dev server');
    assert.equal(await opened.evaluate(() => window.opener), null, 'opened without a way back to the app');
    assert.equal(page.url(), appUrl);
    await opened.close();

    // Ctrl-C ends the server: both chips go, and the lone pane's header with them.
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.keyboard.press('Control+C');
    await sidebarChip.waitFor({ state: 'detached', timeout: 10_000 });
    await headerChip.waitFor({ state: 'detached', timeout: 5000 });
  });
});
