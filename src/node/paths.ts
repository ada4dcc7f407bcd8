/**
 * Where Switchboard keeps its files. The Electron app, the CLI and browser mode agree on one data
 * dir so that `switchboard serve` and the desktop app see the same settings and socket.
 */
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AppConstants } from '../common/constants.ts';

/** Private to the user: the data dir and every file in it hold tokens and terminal history. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export interface PathEnvironment {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homeDir: string;
}

function currentEnvironment(): PathEnvironment {
  return { env: process.env, platform: process.platform, homeDir: homedir() };
}

/**
 * The directory Electron's `app.getPath('userData')` returns for an app named Switchboard. Computed
 * here (not asked of Electron) so the CLI, which never loads Electron, lands in the same place.
 */
export function defaultUserDataDir(at: PathEnvironment = currentEnvironment()): string {
  const { env, platform, homeDir } = at;
  switch (platform) {
    case 'darwin':
      return join(homeDir, 'Library', 'Application Support', AppConstants.appName);
    case 'win32':
      return join(env.APPDATA && env.APPDATA.length > 0 ? env.APPDATA : join(homeDir, 'AppData', 'Roaming'), AppConstants.appName);
    default: {
      // Electron follows the XDG spec on Linux and ignores a relative XDG_CONFIG_HOME, as the spec says.
      const xdg = env.XDG_CONFIG_HOME;
      const configHome = xdg && xdg.startsWith('/') ? xdg : join(homeDir, '.config');
      return join(configHome, AppConstants.appName);
    }
  }
}

/** `$SWITCHBOARD_HOME` if set, else the default user-data dir. Always absolute. */
export function resolveDataDir(at: PathEnvironment = currentEnvironment()): string {
  const override = at.env.SWITCHBOARD_HOME;
  if (override !== undefined && override.length > 0) return resolve(override);
  return defaultUserDataDir(at);
}

/** The control socket: `SWITCHBOARD_SOCKET` if set, else `<dataDir>/control.sock`. */
export function controlSocketPath(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const override = env.SWITCHBOARD_SOCKET;
  if (override !== undefined && override.length > 0) return resolve(override);
  return join(dataDir, 'control.sock');
}

export function settingsFilePath(dataDir: string): string {
  return join(dataDir, 'settings.json');
}

export function serveInfoFilePath(dataDir: string): string {
  return join(dataDir, 'serve.json');
}

/**
 * Create the directory (and parents) with mode 0700, and tighten it to 0700 if it already exists
 * with looser permissions (another tool, or an old umask, may have made it group-readable).
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (process.platform === 'win32') return; // POSIX modes mean nothing there; ACLs are inherited.
  const info = await stat(dir);
  if ((info.mode & 0o777) !== PRIVATE_DIR_MODE) await chmod(dir, PRIVATE_DIR_MODE);
}

/**
 * Write a file with mode 0600 atomically: write a sibling temp file, fsync, then rename over the
 * target, so a crash never leaves a half-written settings or serve.json behind.
 */
export async function writePrivateFileAtomic(path: string, contents: string): Promise<void> {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(contents, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    // `open` applies the umask to the mode; set it exactly.
    await chmod(temp, PRIVATE_FILE_MODE);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
