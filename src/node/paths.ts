/**
 * Where Switchboard keeps its files. The Electron app, the CLI and browser mode agree on one data
 * dir so that `switchboard serve` and the desktop app see the same settings and socket.
 */
import { constants as fsConstants } from 'node:fs';
import { chmod, link, lstat, mkdir, open, rename, rm, stat } from 'node:fs/promises';
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

/** A directory we were asked to make private is not one we may use: a symbolic link, not a directory, or another user's. */
export class UnsafeDirectoryError extends Error {
  readonly code = 'UNSAFE_DIRECTORY';
  readonly path: string;
  constructor(path: string, why: string) {
    super(`${path} ${why}; refusing to use it (nothing was changed there)`);
    this.name = 'UnsafeDirectoryError';
    this.path = path;
  }
}

export interface EnsurePrivateDirOptions {
  /**
   * The directory must be a real directory owned by this user: a symbolic link there (a
   * repository can carry one, e.g. `.claws` -> some other folder) or another user's directory is
   * refused with an `UnsafeDirectoryError` instead of being followed, chmod'ed or used. For
   * directories inside folders we do not control; the data dir may be a link the user made.
   */
  refuseLinks?: boolean;
}

/**
 * Create the directory (and parents) with mode 0700, and tighten it to 0700 if it already exists
 * with looser permissions (another tool, or an old umask, may have made it group-readable).
 */
export async function ensurePrivateDir(dir: string, options: EnsurePrivateDirOptions = {}): Promise<void> {
  if (options.refuseLinks) {
    await ensureRealPrivateDir(dir);
    return;
  }
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (process.platform === 'win32') return; // POSIX modes mean nothing there; ACLs are inherited.
  const info = await stat(dir);
  if ((info.mode & 0o777) !== PRIVATE_DIR_MODE) await chmod(dir, PRIVATE_DIR_MODE);
}

async function ensureRealPrivateDir(dir: string): Promise<void> {
  // Look before mkdir: `mkdir -p` is happy with a link to a directory (and fails unclearly on a dangling one).
  const existing = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (existing?.isSymbolicLink()) throw new UnsafeDirectoryError(dir, 'is a symbolic link');
  if (existing && !existing.isDirectory()) throw new UnsafeDirectoryError(dir, 'exists and is not a directory');
  if (!existing) await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (process.platform === 'win32') return;
  // Check and tighten through a descriptor opened without following a link, so a link swapped in
  // after the lstat above is refused (ELOOP) rather than chmod'ed.
  let handle;
  try {
    handle = await open(dir, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new UnsafeDirectoryError(dir, 'is a symbolic link');
    if (code === 'ENOTDIR') throw new UnsafeDirectoryError(dir, 'exists and is not a directory');
    throw error;
  }
  try {
    const info = await handle.stat();
    const uid = process.getuid?.();
    if (uid !== undefined && info.uid !== uid) throw new UnsafeDirectoryError(dir, `is owned by uid ${info.uid}, not by this user (uid ${uid})`);
    if ((info.mode & 0o777) !== PRIVATE_DIR_MODE) await handle.chmod(PRIVATE_DIR_MODE);
  } finally {
    await handle.close();
  }
}

/**
 * Write a file with mode 0600 atomically: write a sibling temp file, fsync, then rename over the
 * target, so a crash never leaves a half-written settings or serve.json behind. With `exclusive`,
 * the temp file is hard-linked into place instead, which fails with `EEXIST` if anything is at the
 * path (a file someone else wrote there is never replaced, even one that appears at the last moment).
 */
export async function writePrivateFileAtomic(path: string, contents: string, options: { exclusive?: boolean } = {}): Promise<void> {
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
    if (options.exclusive) {
      await link(temp, path);
      await rm(temp, { force: true });
    } else {
      await rename(temp, path);
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** A file we were about to trust belongs to another user. */
export class UntrustedFileError extends Error {
  readonly code = 'UNTRUSTED_FILE';
  readonly path: string;
  constructor(path: string, why: string) {
    super(`${path} ${why}; not using it`);
    this.name = 'UntrustedFileError';
    this.path = path;
  }
}

/**
 * Read a file of the data dir the app acts on (settings name the commands agent profiles run; the
 * token file decides who may use the socket). One owned by another user is refused
 * (`UntrustedFileError`); one of ours that group or others may read or write is tightened to 0600
 * first, like the data dir itself (`tightenedFrom`: its mode before, for a warning, when group or
 * others could write it). Checked and
 * tightened on the open descriptor, so the file checked is the file read; a symbolic link is
 * followed (the user may keep settings in a dotfiles repository). Other errors (ENOENT…) are
 * thrown as they are.
 */
export async function readOwnFile(path: string): Promise<{ text: string; tightenedFrom: number | null }> {
  const handle = await open(path, 'r');
  try {
    const info = await handle.stat();
    let tightenedFrom: number | null = null;
    if (process.platform !== 'win32') {
      const uid = process.getuid?.();
      if (uid !== undefined && info.uid !== uid) throw new UntrustedFileError(path, `is owned by uid ${info.uid}, not by this user (uid ${uid})`);
      if ((info.mode & 0o077) !== 0) {
        await handle.chmod(PRIVATE_FILE_MODE);
        // Worth a warning only if others could have written it; a file an editor made 0644 is just tidied.
        if ((info.mode & 0o022) !== 0) tightenedFrom = info.mode & 0o777;
      }
    }
    return { text: await handle.readFile('utf8'), tightenedFrom };
  } finally {
    await handle.close();
  }
}

/**
 * Move a file aside as `<path>.<tag>-<time>` (never over an existing one), so it is kept for the
 * user to look at and the next write does not replace it. Returns the new path.
 */
export async function moveAside(path: string, tag: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let target = `${path}.${tag}-${stamp}`;
  // rename, not link: the kernel refuses hard links to another user's file (protected_hardlinks).
  for (let n = 2; await lstat(target).then(() => true, () => false); n++) target = `${path}.${tag}-${stamp}-${n}`;
  await rename(path, target);
  return target;
}
