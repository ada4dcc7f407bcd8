/**
 * The lock file Claude Code discovers the app by (claude-ide.md, "Discovery"):
 * `<configDir>/ide/<port>.lock`, `<configDir>` = `$CLAUDE_CONFIG_DIR`, else `~/.claude`. Written
 * atomically (temp file + rename) with mode 0600 (it holds the auth token), its directory created
 * 0700 when we create it. Stale lock files of ours (ideName "Switchboard", pid dead) left by a
 * crashed app are removed at the next start; other IDEs' files are never touched.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { IdeConstants } from '../../common/constants.ts';
import { PRIVATE_DIR_MODE, writePrivateFileAtomic } from '../paths.ts';
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

export async function writeLockFile(lockDir: string, port: number, contents: IdeLockContents): Promise<string> {
  // Creates the directory (and a missing config dir) 0700; an existing one keeps its mode: it is Claude Code's.
  await mkdir(lockDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const path = lockFilePath(lockDir, port);
  await writePrivateFileAtomic(path, JSON.stringify(contents));
  return path;
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
