/**
 * Whether a path lies outside every workspace folder, judged by where it really is: a symbolic
 * link inside the workspace that points to /etc makes its files outside, and a link elsewhere that
 * points into the workspace makes them inside. A file that does not exist yet is judged by the
 * nearest existing folder above it.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';

export async function isOutsideWorkspace(path: string, workspaceFolders: readonly string[]): Promise<boolean> {
  const [real, ...folders] = await Promise.all([realPathOf(resolve(path)), ...workspaceFolders.map((folder) => realPathOf(resolve(folder)))]);
  return !folders.some((folder) => isWithin(real!, folder));
}

/** `path` and `folder` are normalized absolute paths. */
export function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** The real path, resolving links; for a missing file, the real path of its nearest existing ancestor plus the rest. */
async function realPathOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    // The root always exists; one that cannot be resolved (permissions) is taken as written.
    if (parent === path) return path;
    return join(await realPathOf(parent), basename(path));
  }
}
