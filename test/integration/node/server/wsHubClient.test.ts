/**
 * The renderer's WebSocket client in real Chromium against a real `switchboard serve`: the page is
 * opened with the printed URL (token → cookie), and the bundled WsHubClient talks to /api.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { createTempHome } from '../../../helpers/tempHome.ts';
import { startServe, type ServeProcess } from './serveProcess.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const chromiumPath = '/usr/bin/chromium';
const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

describe('WsHubClient in Chromium against switchboard serve', () => {
  let temp: ReturnType<typeof createTempHome>;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    temp = createTempHome();
    const rendererDir = join(temp.home, 'renderer');
    mkdirSync(join(rendererDir, 'assets'), { recursive: true });
    await build({
      stdin: {
        contents: "import { createHubClient } from './src/browser/createHubClient.ts'; (window as any).createHubClient = createHubClient;",
        resolveDir: root,
        loader: 'ts',
      },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      outfile: join(rendererDir, 'assets', 'client.js'),
      logLevel: 'error',
    });
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>client test</title><script type="module" src="./assets/client.js"></script>');
    serve = await startServe({ args: ['--port', '0', temp.workspace], home: temp.home, dataDir: temp.dataDir, env: { SWITCHBOARD_RENDERER_DIR: rendererDir } });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    page = await browser.newPage();
    await page.goto(serve.url);
    await page.waitForFunction(() => typeof (window as any).createHubClient === 'function');
  });

  after(async () => {
    await browser?.close();
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGKILL');
      await serve.exited;
    }
    temp?.dispose();
  });

  it('lands on / with the token gone from the address bar', () => {
    assert.equal(page.url(), `http://127.0.0.1:${serve.port}/`);
  });

  it('calls the Hub, streams terminal output and maps refusals to ApiError codes', async () => {
    const result = await page.evaluate(async () => {
      const client = await (window as any).createHubClient();
      const state = await client.call('app.getState', {});
      let output = '';
      client.on('terminal.output', (payload: { data: string }) => (output += payload.data));
      const info = await client.call('terminal.create', { file: 'bash', args: ['--norc', '--noprofile'], shellIntegration: false });
      await client.call('terminal.attach', { id: info.id });
      await client.call('terminal.write', { id: info.id, data: 'echo page-$((40+2))\r' });
      const deadline = Date.now() + 10_000;
      while (!output.includes('page-42') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      const refusal = await client.call('terminal.resize', { id: info.id, cols: 0, rows: 0 }).then(
        () => null,
        (error: { name: string; code: string; message: string }) => ({ name: error.name, code: error.code, message: error.message }),
      );
      const missing = await client.call('terminal.write', { id: 'nope', data: 'x' }).catch((error: { code: string }) => error.code);
      client.dispose();
      return { host: state.host, sawOutput: output.includes('page-42'), refusal, missing };
    });
    assert.equal(result.host, 'browser');
    assert.equal(result.sawOutput, true);
    assert.deepEqual(result.refusal, { name: 'ApiError', code: 'INVALID_PARAMS', message: 'terminal.resize: cols: Too small: expected number to be >=2; rows: Too small: expected number to be >=1' });
    assert.equal(result.missing, 'NOT_FOUND');
  });

  it('fires onDidDisconnect and rejects calls with CONNECTION_CLOSED when the server goes away', async () => {
    await page.evaluate(async () => {
      const client = await (window as any).createHubClient();
      (window as any).testClient = client;
      (window as any).disconnected = false;
      client.onDidDisconnect(() => ((window as any).disconnected = true));
      await client.call('terminal.list', {});
    });
    serve.child.kill('SIGTERM');
    assert.equal((await serve.exited).code, 0);
    await page.waitForFunction(() => (window as any).disconnected === true, undefined, { timeout: 10_000 });
    const code = await page.evaluate(() => (window as any).testClient.call('terminal.list', {}).catch((error: { code: string }) => error.code));
    assert.equal(code, 'CONNECTION_CLOSED');
  });
});
