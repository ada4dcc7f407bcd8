/**
 * The desktop app for real: Playwright launches Electron with the built main/preload/renderer,
 * and the test runs one command through the preload bridge; a second start with the same data dir
 * hands over to the running app. Skipped, with the reason printed,
 * where no Electron binary is installed (ELECTRON_SKIP_BINARY_DOWNLOAD machines).
 */
import { it, type TestContext } from 'node:test';
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findElectronBinary } from '../../scripts/start.ts';
import { pollUntil } from '../helpers/poll.ts';
import { createTempHome, testEnv } from '../helpers/tempHome.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const mainBundle = join(root, 'dist', 'main', 'main.cjs');

/** The Electron binary, or null after telling `t` why the test is skipped (no binary, or nothing built). */
function electronOrSkip(t: TestContext): string | null {
  const electronBinary = findElectronBinary();
  if (!electronBinary) {
    t.skip('no Electron binary: node_modules/electron has no downloaded dist (ELECTRON_SKIP_BINARY_DOWNLOAD)');
    return null;
  }
  for (const file of [mainBundle, join(root, 'dist', 'preload', 'preload.cjs'), join(root, 'dist', 'renderer', 'index.html')]) {
    if (!existsSync(file)) {
      t.skip(`not built: ${file} is missing (run npm run build)`);
      return null;
    }
  }
  return electronBinary;
}

function appEnv(temp: ReturnType<typeof createTempHome>): Record<string, string> {
  return { ...testEnv(temp.home), SWITCHBOARD_HOME: temp.dataDir, ...(process.env.DISPLAY ? { DISPLAY: process.env.DISPLAY } : {}) };
}

/** The app on a fresh temp home, its first window loaded; closed and removed after the test. */
async function launchApp(t: TestContext, electronBinary: string) {
  const { _electron } = await import('playwright-core');
  const temp = createTempHome();
  t.after(() => temp.dispose());
  const app = await _electron.launch({ executablePath: electronBinary, args: [mainBundle, temp.workspace], env: appEnv(temp), timeout: 30_000 });
  t.after(() => app.close());
  const window = await app.firstWindow();
  await window.waitForLoadState('domcontentloaded');
  return { app, window, temp };
}

it('opens the window and runs a command in a terminal', async (t) => {
  const electronBinary = electronOrSkip(t);
  if (!electronBinary) return;
  const { window } = await launchApp(t, electronBinary);

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

it('starting it again with the same data dir brings the running window forward instead of a second app', async (t) => {
  const electronBinary = electronOrSkip(t);
  if (!electronBinary) return;
  const { app, window, temp } = await launchApp(t, electronBinary);
  await app.evaluate(({ app: electronApp }) => {
    (globalThis as { secondStarts?: number }).secondStarts = 0;
    electronApp.on('second-instance', () => ((globalThis as { secondStarts?: number }).secondStarts! += 1));
  });

  const second = spawn(electronBinary, [mainBundle, temp.workspace], { env: appEnv(temp), stdio: 'ignore' });
  const exitCode = await new Promise<number | null>((resolve) => second.on('exit', (code) => resolve(code)));
  assert.equal(exitCode, 0, 'the second start ends at once, without an error');
  await pollUntil(async () => (await app.evaluate(() => (globalThis as { secondStarts?: number }).secondStarts)) === 1, { what: 'the running app to hear of the second start' });
  assert.equal((await app.windows()).length, 1);
  // And the running app still works.
  const result = await window.evaluate(async () => (await (window as any).switchboard.call('terminal.list', {})).ok);
  assert.equal(result, true);
});

it('denies window.open in the running window: no second window', async (t) => {
  const electronBinary = electronOrSkip(t);
  if (!electronBinary) return;
  const { app, window } = await launchApp(t, electronBinary);
  // The options and handlers themselves are unit-tested (test/unit/main/windowPolicy.test.ts); this is Electron applying them.
  const denied = await window.evaluate(() => (globalThis as unknown as { open(url: string): unknown }).open('about:blank') === null);
  assert.equal(denied, true, 'window.open returns null');
  assert.equal((await app.windows()).length, 1);
});
