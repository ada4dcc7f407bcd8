/**
 * The desktop app for real: Playwright launches Electron with the built main/preload/renderer,
 * and the test runs one command through the preload bridge. Skipped, with the reason printed,
 * where no Electron binary is installed (ELECTRON_SKIP_BINARY_DOWNLOAD machines).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findElectronBinary } from '../../scripts/start.ts';
import { createTempHome, testEnv } from '../helpers/tempHome.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const mainBundle = join(root, 'dist', 'main', 'main.cjs');

it('opens the window and runs a command in a terminal', async (t) => {
  const electronBinary = findElectronBinary();
  if (!electronBinary) {
    t.skip('no Electron binary: node_modules/electron has no downloaded dist (ELECTRON_SKIP_BINARY_DOWNLOAD)');
    return;
  }
  for (const file of [mainBundle, join(root, 'dist', 'preload', 'preload.cjs'), join(root, 'dist', 'renderer', 'index.html')]) {
    if (!existsSync(file)) {
      t.skip(`not built: ${file} is missing (run npm run build)`);
      return;
    }
  }
  const { _electron } = await import('playwright-core');
  const temp = createTempHome();
  t.after(() => temp.dispose());
  const app = await _electron.launch({
    executablePath: electronBinary,
    args: [mainBundle, temp.workspace],
    env: { ...testEnv(temp.home), SWITCHBOARD_HOME: temp.dataDir, ...(process.env.DISPLAY ? { DISPLAY: process.env.DISPLAY } : {}) },
    timeout: 30_000,
  });
  t.after(() => app.close());
  const window = await app.firstWindow();
  await window.waitForLoadState('domcontentloaded');

  // The page sees exactly the bridge and nothing of Node.
  const exposure = await window.evaluate(() => ({
    bridge: typeof (window as any).switchboard?.call,
    require: typeof (globalThis as any).require,
    process: typeof (globalThis as any).process,
  }));
  assert.deepEqual(exposure, { bridge: 'function', require: 'undefined', process: 'undefined' });

  const output = await window.evaluate(async () => {
    const bridge = (window as any).switchboard;
    let text = '';
    bridge.onEvent((event: string, payload: any) => {
      if (event === 'terminal.output') text += payload.data;
    });
    const created = await bridge.call('terminal.create', { file: 'bash', args: ['--norc', '--noprofile'], shellIntegration: false });
    if (!created.ok) throw new Error(created.error.message);
    const attached = await bridge.call('terminal.attach', { id: created.result.id });
    if (!attached.ok) throw new Error(attached.error.message);
    await bridge.call('terminal.write', { id: created.result.id, data: 'echo smoke-$((40+2))\r' });
    const deadline = Date.now() + 10_000;
    while (!text.includes('smoke-42') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    return text;
  });
  assert.match(output, /smoke-42/);
});
