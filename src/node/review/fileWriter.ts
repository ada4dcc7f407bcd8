/**
 * Writing a reviewed or edited file the way editors do: a temp file beside it, then a rename, so a
 * crash never leaves half a file; an existing file keeps its permission bits. Used by file tabs
 * (`editor.saveFile`, Claude Code's `saveDocument`) and by control/MCP reviews that asked the Hub
 * to apply the accepted contents.
 */
import { randomBytes } from 'node:crypto';
import { chmod, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiError } from '../../common/api/errors.ts';

/** New files get the usual 0644 (before the umask), as editors create them. */
const newFileMode = 0o666;

export async function writeFileAtomically(path: string, contents: Buffer | string, options: { expectedMtimeMs?: number | undefined } = {}): Promise<{ size: number; mtimeMs: number }> {
  let mode: number | null = null;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new ApiError('INVALID_PARAMS', `${path} is a directory`);
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
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode ?? newFileMode);
    try {
      await handle.writeFile(contents);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== null) await chmod(temp, mode);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw new ApiError('INVALID_PARAMS', `cannot write ${path}: ${(error as Error).message}`);
  }
  const written = await stat(path);
  return { size: written.size, mtimeMs: written.mtimeMs };
}

export async function deleteFile(path: string): Promise<void> {
  try {
    await rm(path);
  } catch (error) {
    throw new ApiError('INVALID_PARAMS', `cannot delete ${path}: ${(error as Error).message}`);
  }
}
