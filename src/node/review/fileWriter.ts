/**
 * Writing a reviewed or edited file the way editors do: a temp file beside it, then a rename, so a
 * crash never leaves half a file; an existing file keeps its permission bits, and a symbolic link
 * keeps being a link (the file it points to is the one written, as VS Code and vim do). Used by
 * file tabs (`editor.saveFile`, Claude Code's `saveDocument`) and by control/MCP reviews that
 * asked the Hub to apply the accepted contents (`applyReviewedChange`, which first checks that the
 * file still holds the bytes the person reviewed).
 */
import { randomBytes } from 'node:crypto';
import { chmod, lstat, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiError } from '../../common/api/errors.ts';

/** New files get the usual 0644 (before the umask), as editors create them. */
const newFileMode = 0o666;

export const FileWriteErrors = {
  /** `applyError` of a review whose file is no longer what the person reviewed (exact text: agents and the MCP tool match it). */
  changedSinceReview: 'changed on disk since the review was opened',
} as const;

/**
 * Atomically replace `path` with `contents`. `expectedMtimeMs` (a file tab's mtime from its last
 * read or save): refuse when the file on disk has another mtime, or was deleted — VS Code's
 * "the content of the file is newer" conflict: the caller decides whether to overwrite.
 */
export async function writeFileAtomically(path: string, contents: Buffer | string, options: { expectedMtimeMs?: number | undefined } = {}): Promise<{ size: number; mtimeMs: number }> {
  const target = await writeTarget(path);
  let mode: number | null = null;
  try {
    const info = await stat(target);
    if (info.isDirectory()) throw new ApiError('INVALID_PARAMS', `${path} is a directory`);
    if (!info.isFile()) throw new ApiError('INVALID_PARAMS', `${path} is not a regular file`);
    if (options.expectedMtimeMs !== undefined && Math.abs(info.mtimeMs - options.expectedMtimeMs) > 1) {
      throw new ApiError('INVALID_PARAMS', `${path} changed on disk since it was opened; reload it before saving`);
    }
    mode = info.mode & 0o7777;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new ApiError('INVALID_PARAMS', `cannot write ${path}: ${(error as Error).message}`);
    if (options.expectedMtimeMs !== undefined) throw new ApiError('INVALID_PARAMS', `${path} was deleted on disk since it was opened`);
  }
  // Beside the target, so the rename stays on one file system and replaces the target, not a link to it.
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode ?? newFileMode);
    try {
      await handle.writeFile(contents);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== null) await chmod(temp, mode);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw new ApiError('INVALID_PARAMS', `cannot write ${path}: ${(error as Error).message}`);
  }
  const written = await stat(target);
  return { size: written.size, mtimeMs: written.mtimeMs };
}

export async function deleteFile(path: string): Promise<void> {
  try {
    await rm(path);
  } catch (error) {
    throw new ApiError('INVALID_PARAMS', `cannot delete ${path}: ${(error as Error).message}`);
  }
}

/**
 * Apply an accepted review: write `contents` (null: delete the file), but only while the file
 * still holds exactly `reviewed` (null: it still does not exist). Otherwise something else — often
 * the agent's own later edit — changed it after the review was opened, and writing would silently
 * throw that away: refuse with FileWriteErrors.changedSinceReview. (A change in the instant between
 * this check and the rename cannot be caught; editors have the same window.)
 */
export async function applyReviewedChange(path: string, contents: Buffer | null, reviewed: Buffer | null): Promise<void> {
  const current = await currentBytes(path, reviewed?.length ?? 0);
  const unchanged = current === 'other' ? false : current === null || reviewed === null ? current === reviewed : current.equals(reviewed);
  if (!unchanged) throw new ApiError('INVALID_PARAMS', FileWriteErrors.changedSinceReview);
  if (contents) await writeFileAtomically(path, contents);
  else await deleteFile(path);
}

/** The file's bytes (null when it does not exist); 'other' when it is not the size the caller expects, without reading it. */
async function currentBytes(path: string, expectedSize: number): Promise<Buffer | 'other' | null> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new ApiError('INVALID_PARAMS', `cannot write ${path}: it is not a regular file`);
    if (info.size !== expectedSize) return 'other';
    return await readFile(path);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new ApiError('INVALID_PARAMS', `cannot read ${path}: ${(error as Error).message}`);
  }
}

/** The file a write to `path` should replace: `path` itself, or the file a symbolic link at `path` points to. */
async function writeTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new ApiError('INVALID_PARAMS', `cannot write ${path}: ${(error as Error).message}`);
  }
  // A new file; or a link whose target is missing, which an editor would create — refuse instead of guessing.
  const link = await lstat(path).catch(() => null);
  if (link?.isSymbolicLink()) throw new ApiError('INVALID_PARAMS', `cannot write ${path}: it is a symbolic link to a file that does not exist`);
  return path;
}
