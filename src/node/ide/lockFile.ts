/**
 * The lock file Claude Code discovers the app by (claude-ide.md, "Discovery"):
 * `<configDir>/ide/<port>.lock`, `<configDir>` = `$CLAUDE_CONFIG_DIR`, else `~/.claude`. Written
 * atomically (temp file + rename) with mode 0600 (it holds the auth token), its directory created
 * 0700 when we create it. Stale lock files of ours (ideName "Switchboard", pid dead) left by a
 * crashed app are removed at the next start; other IDEs' files are never touched. A lock file is
 * never written over one already at its port (it may be another app's: the bridge takes another
 * port), and on shutdown it is removed only while it still holds our pid and token.
 */
import { lstatSync, readFileSync, rmSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { IdeConstants } from '../../common/constants.ts';
import { PRIVATE_DIR_MODE, UnsafeDirectoryError, writePrivateFileAtomic } from '../paths.ts';
import { isProcessAlive } from '../processAlive.ts';

export interface IdeLockContents {
  pid: number;
  workspaceFolders: string[];
  ideName: string;
  transport: 'ws';
  runningInWindows: boolean;
  authToken: string;
}

/** Just enough of a lock file to tell whether it is a stale one of ours. */
const LockFileIdentity = z.looseObject({ pid: z.number().int().positive(), ideName: z.string() });

/**
 * Where lock files go: `$CLAUDE_CONFIG_DIR/ide`, else `$HOME/.claude/ide`, from the Hub's
 * environment. null when the environment names neither (a test Hub with `env: {}`): then no lock
 * file is written rather than one in the real home of the process running the tests.
 */
export function resolveIdeLockDir(env: NodeJS.ProcessEnv): string | null {
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (configDir !== undefined && configDir.length > 0) return join(configDir, 'ide');
  const home = env.HOME ?? env.USERPROFILE;
  if (home !== undefined && home.length > 0) return join(home, '.claude', 'ide');
  return null;
}

export function lockFilePath(lockDir: string, port: number): string {
  return join(lockDir, `${port}.lock`);
}

/**
 * Write the lock file for `port`. Fails with `EEXIST` if anything is already there: that is not
 * ours (stale ones of ours are gone by now), and a client reading it would be sent elsewhere.
 */
export async function writeLockFile(lockDir: string, port: number, contents: IdeLockContents): Promise<string> {
  // Creates the directory (and a missing config dir) 0700; an existing one keeps its mode: it is Claude Code's.
  await mkdir(lockDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const path = lockFilePath(lockDir, port);
  await writePrivateFileAtomic(path, JSON.stringify(contents), { exclusive: true });
  return path;
}

/**
 * Make sure the lock directory is one only this user can write to before anything is read from,
 * written to or deleted in it: in a directory others may write to, they could plant or swap lock
 * files between our check and our removal. It is Claude Code's directory, so it is not made 0700:
 * a missing one is created 0700; one of ours writable by group or others loses those write bits
 * (returned, for a warning); one owned by another user is refused (`UnsafeDirectoryError`).
 */
export async function prepareLockDir(lockDir: string): Promise<{ tightenedFrom: number | null }> {
  await mkdir(lockDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (process.platform === 'win32') return { tightenedFrom: null };
  // Followed on purpose: ~/.claude may be a link into the user's dotfiles; what counts is the directory written to.
  const info = await stat(lockDir);
  if (!info.isDirectory()) throw new UnsafeDirectoryError(lockDir, 'exists and is not a directory');
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) throw new UnsafeDirectoryError(lockDir, `is owned by uid ${info.uid}, not by this user (uid ${uid})`);
  const mode = info.mode & 0o7777;
  if ((mode & 0o022) === 0) return { tightenedFrom: null };
  await chmod(lockDir, mode & ~0o022);
  return { tightenedFrom: mode & 0o777 };
}

/** Is there anything (a file, a link, a directory) at `<port>.lock`? */
export async function lockFileExists(lockDir: string, port: number): Promise<boolean> {
  try {
    await lstat(lockFilePath(lockDir, port));
    return true;
  } catch {
    return false;
  }
}

/** Just enough of a lock file to tell whether it is still the one we wrote. */
const LockFileOwner = z.looseObject({ pid: z.number(), authToken: z.string() });

/**
 * Remove the lock file at `path` only if it is still ours: a regular file holding our pid and our
 * auth token. Another app may have written its own at the same port since (after a restart of
 * ours, or while we were suspended); that one is left alone. Throws only if removing ours fails.
 */
export function removeOwnLockFile(path: string, owner: { pid: number; authToken: string }): 'removed' | 'not ours' | 'gone' {
  try {
    if (!lstatSync(path).isFile()) return 'not ours';
    const parsed = LockFileOwner.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success || parsed.data.pid !== owner.pid || parsed.data.authToken !== owner.authToken) return 'not ours';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    return 'not ours'; // unreadable or not JSON: not provably ours
  }
  rmSync(path, { force: true });
  return 'removed';
}

/** Remove lock files of ours whose app is gone. Returns the paths removed. Never throws. */
export async function removeStaleLockFiles(lockDir: string, options: { isAlive?: (pid: number) => boolean } = {}): Promise<string[]> {
  const isAlive = options.isAlive ?? isProcessAlive;
  let names: string[];
  try {
    names = await readdir(lockDir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!/^\d+\.lock$/.test(name)) continue;
    const path = join(lockDir, name);
    try {
      const identity = LockFileIdentity.safeParse(JSON.parse(await readFile(path, 'utf8')));
      if (!identity.success || identity.data.ideName !== IdeConstants.ideName) continue;
      if (isAlive(identity.data.pid)) continue;
      await rm(path, { force: true });
      removed.push(path);
    } catch {
      // Unreadable or not JSON: not provably ours, so not ours to delete.
    }
  }
  return removed;
}
