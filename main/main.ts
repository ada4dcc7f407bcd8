/**
 * Electron main process: windows, IPC wiring and security settings only. All the work happens in
 * the Hub, created here with host 'electron'. Usage: `npm start -- [DIR...]` (workspace folders,
 * default: the current directory).
 */
import { app, BrowserWindow, dialog, ipcMain, safeStorage } from 'electron';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import packageJson from '../package.json' with { type: 'json' };
import { AppConstants } from '../src/common/constants.ts';
import { Hub } from '../src/node/hub.ts';
import { createLogger } from '../src/node/logger.ts';
import type { TokenCipher } from '../src/node/relay/relayTokenStore.ts';
import { installAppSecurity } from './security.ts';
import { BridgeChannels } from '../src/common/api/bridge.ts';
import { WindowBridge } from './windowBridge.ts';
import { createIpcCallHandler, windowWebPreferences } from './windowPolicy.ts';

const logger = createLogger({ subsystem: 'main' });
// Bundled to dist/main/main.cjs; the renderer and preload are built beside it.
const rendererIndex = join(__dirname, '..', 'renderer', 'index.html');
const rendererUrl = pathToFileURL(rendererIndex).href;
const preloadPath = join(__dirname, '..', 'preload', 'preload.cjs');

// Same data dir as the CLI computes (paths.ts): <appData>/Switchboard, whatever package.json's name,
// or SWITCHBOARD_HOME. Electron keeps its own files there too, and with them its single-instance
// lock: one app per data dir, and a run with a SWITCHBOARD_HOME of its own is an app of its own.
app.setName(AppConstants.appName);
const dataDir = process.env.SWITCHBOARD_HOME ? resolve(process.env.SWITCHBOARD_HOME) : join(app.getPath('appData'), AppConstants.appName);
app.setPath('userData', dataDir);

const bridges = new Map<number, WindowBridge>();
let hub: Hub | undefined;
let quitting: 'no' | 'waiting' | 'done' = 'no';

function workspaceFoldersFromArgv(): string[] {
  // argv is [app, ...] when packaged and [electron, <switches>, main.cjs or app dir, ...] in
  // development (Playwright, for one, puts --inspect and --remote-debugging-port first).
  const entry = app.isPackaged ? 0 : process.argv.findIndex((arg, index) => index > 0 && isAppEntry(arg));
  const args = process.argv.slice(entry === -1 ? 2 : entry + 1).filter((arg) => !arg.startsWith('-'));
  if (args.length === 0) return [process.cwd()];
  return args.map((arg) => {
    const absolute = resolve(arg);
    let isDirectory = false;
    try {
      isDirectory = statSync(absolute).isDirectory();
    } catch {
      // reported below
    }
    if (!isDirectory) throw new Error(`not a directory: ${arg}`);
    return absolute;
  });
}

function isAppEntry(arg: string): boolean {
  const absolute = resolve(arg);
  return absolute === __filename || absolute === app.getAppPath();
}

function createWindow(activeHub: Hub): void {
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    title: AppConstants.appName,
    show: false,
    webPreferences: windowWebPreferences(preloadPath),
  });
  const contentsId = window.webContents.id;
  const bridge = new WindowBridge({ window, hub: activeHub, rendererUrl, logger: logger.child('ipc') });
  bridges.set(contentsId, bridge);
  window.on('closed', () => bridges.delete(contentsId));
  window.once('ready-to-show', () => window.show());
  window.loadFile(rendererIndex).catch((error: unknown) => {
    logger.error('cannot load the renderer; run npm run build', { rendererIndex, error });
  });
}

// Who is asking is checked before what they ask (windowPolicy.ts).
ipcMain.handle(BridgeChannels.call, createIpcCallHandler((senderId) => bridges.get(senderId), logger));

async function startApp(): Promise<void> {
  let workspaceFolders: string[];
  try {
    workspaceFolders = workspaceFoldersFromArgv();
  } catch (error) {
    process.stderr.write(`switchboard: ${(error as Error).message}\n`);
    app.exit(2);
    return;
  }
  // Shells source the integration scripts by path, so a packaged app keeps them unpacked (asarUnpack).
  const shellIntegrationDir = app.isPackaged ? join(process.resourcesPath, 'app.asar.unpacked', 'assets', 'shell-integration') : undefined;
  hub = new Hub({
    dataDir,
    workspaceFolders,
    host: 'electron',
    logger,
    version: packageJson.version,
    // Built beside main.cjs by scripts/buildElectron.ts.
    mirrorWorkerPath: join(__dirname, 'mirrorWorker.cjs'),
    ...(shellIntegrationDir ? { shellIntegrationDir } : {}),
    // The relay token goes to the OS keychain where there is one.
    relay: { tokenCipher: keychainTokenCipher() },
  });
  try {
    await hub.start();
  } catch (error) {
    dialog.showErrorBox('Switchboard could not start', error instanceof Error ? error.message : String(error));
    app.exit(1);
    return;
  }
  installAppSecurity(logger.child('security'));
  createWindow(hub);
  const activeHub = hub;
  app.on('activate', () => {
    if (quitting === 'no' && BrowserWindow.getAllWindows().length === 0) createWindow(activeHub);
  });
  // Starting the app again (a second click, `npm start` in another shell) lands here: the window
  // comes forward (the folders that start was given are not added). Only now, once the Hub runs
  // and the window security is in place; a start before that finds the first window opening.
  app.on('second-instance', () => {
    if (quitting !== 'no') return;
    const [window] = BrowserWindow.getAllWindows();
    if (!window) {
      createWindow(activeHub);
      return;
    }
    if (window.isMinimized()) window.restore();
    window.focus();
  });
}

/**
 * The OS keychain (macOS Keychain, Windows DPAPI, libsecret/kwallet on Linux) through safeStorage,
 * for secrets the Hub stores (the relay token). On a Linux desktop without a keyring Electron falls
 * back to a hard-coded key ("basic_text"): no better than a 0600 file, so the Hub is told there is
 * no keychain rather than given a false sense of one.
 */
function keychainTokenCipher(): TokenCipher {
  return {
    isAvailable: async () => {
      if (!(await safeStorage.isAsyncEncryptionAvailable())) return false;
      return process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text';
    },
    encrypt: async (plainText) => await safeStorage.encryptStringAsync(plainText),
    decrypt: async (cipherText) => (await safeStorage.decryptStringAsync(Buffer.from(cipherText))).result,
  };
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('will-quit', (event) => {
  if (quitting === 'done' || !hub) return;
  event.preventDefault();
  if (quitting === 'waiting') return;
  quitting = 'waiting';
  const activeHub = hub;
  for (const bridge of bridges.values()) bridge.dispose();
  // shutdown() is bounded: terminals get SIGHUP (shells save history), then are killed.
  void activeHub.shutdown().finally(() => {
    quitting = 'done';
    app.quit();
  });
});

// One app per data dir: a second start hands over to the running app ('second-instance' in
// startApp) instead of finding the data dir's control socket taken and failing.
if (app.requestSingleInstanceLock()) {
  app.whenReady().then(startApp, (error: unknown) => {
    logger.error('electron failed to start', { error });
    app.exit(1);
  });
} else {
  logger.info('Switchboard already runs with this data dir; it was asked to bring its window forward', { dataDir });
  app.quit();
}
