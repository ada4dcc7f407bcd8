/**
 * `browseDir`, `readFile` and `mkDir` for remote viewers, confined to the workspace folders the
 * user shares. A path is served only when
 * - it is absolute (or starts with `~`, the user's home);
 * - it has no `..` segment (traversal is refused outright, not normalised away);
 * - no segment of it, before or after resolving symlinks, is `.ssh`, `.aws`, `.gnupg` or
 *   `.config`, and it is not `/etc/shadow` (spec: `path "<p>" is blocked`);
 * - after resolving every symlink (realpath), it lies inside one of the shared roots (also
 *   resolved): a symlink inside a root that points outside is refused
 *   (spec: `path "<p>" is outside allowed root "<r>"`).
 * Answers are values (`{ok:false, error}`), never throws, so one bad request only fails itself.
 */
import type { Dirent } from 'node:fs';
import { lstat, mkdir, open, opendir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RelayConstants } from '../../common/constants.ts';
import type { BrowseEntry } from '../../common/protocol/relay/messages.ts';
import { rfc3339 } from '../../common/protocol/relay/frames.ts';
import { incompleteUtf8TailLength } from '../../common/terminal/utf8Boundaries.ts';

const blockedSegments = new Set(['.ssh', '.aws', '.gnupg', '.config']);
const blockedFiles = new Set(['/etc/shadow']);

export type FileResult<T> = ({ ok: true } & T) | { ok: false; error: string };

export interface FileAccessOptions {
  /** The shared roots (absolute). */
  roots: readonly string[];
  homeDir: string;
}

export class FileAccess {
  readonly #roots: readonly string[];
  readonly #homeDir: string;

  constructor(options: FileAccessOptions) {
    this.#roots = options.roots.map((root) => resolve(root));
    this.#homeDir = options.homeDir;
  }

  get roots(): readonly string[] {
    return this.#roots;
  }

  async browseDir(path: string, options: { limit?: number | undefined; cursor?: string | undefined }): Promise<FileResult<{ entries: BrowseEntry[]; hasMore: boolean; nextCursor?: string }>> {
    const limit = options.limit === undefined || options.limit <= 0 ? RelayConstants.browseDefaultLimit : Math.min(options.limit, RelayConstants.browseMaxLimit);
    let offset = 0;
    if (options.cursor !== undefined && options.cursor !== '') {
      if (!/^\d{1,9}$/.test(options.cursor)) return { ok: false, error: `invalid cursor ${JSON.stringify(options.cursor)}: expected a decimal offset` };
      offset = Number(options.cursor);
    }
    const target = await this.#resolve(path);
    if (!target.ok) return target;
    const info = await stat(target.real).catch(() => undefined);
    if (!info) return { ok: false, error: `path ${JSON.stringify(path)} does not exist` };
    if (!info.isDirectory()) return { ok: false, error: `path ${JSON.stringify(path)} is not a directory` };

    // Bounded: a directory of a million entries lists its first browseMaxScanEntries.
    const dirents: Dirent[] = [];
    try {
      const dir = await opendir(target.real);
      for await (const dirent of dir) {
        if (blockedSegments.has(dirent.name)) continue; // not even listed
        if (dirents.length >= RelayConstants.browseMaxScanEntries) break;
        dirents.push(dirent);
      }
    } catch (error) {
      return { ok: false, error: `cannot list ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
    }
    const rows = await Promise.all(
      dirents.map(async (dirent) => {
        const full = join(target.real, dirent.name);
        // lstat: a symlink is listed as what it is; following it is checked when it is browsed.
        const entryInfo = await lstat(full).catch(() => undefined);
        let isDirectory = dirent.isDirectory();
        if (dirent.isSymbolicLink()) isDirectory = (await stat(full).catch(() => undefined))?.isDirectory() ?? false;
        return {
          name: dirent.name,
          path: join(target.shown, dirent.name),
          isDirectory,
          size: entryInfo?.size ?? 0,
          modifiedAt: rfc3339(entryInfo?.mtimeMs ?? 0),
        };
      }),
    );
    rows.sort((a, b) => (a.isDirectory === b.isDirectory ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.isDirectory ? -1 : 1));
    const page = rows.slice(offset, offset + limit);
    const hasMore = offset + limit < rows.length;
    return { ok: true, entries: page, hasMore, ...(hasMore ? { nextCursor: String(offset + limit) } : {}) };
  }

  async readFile(path: string, options: { maxBytes?: number | undefined }): Promise<FileResult<{ content: string; truncated: boolean }>> {
    const maxBytes = options.maxBytes === undefined || options.maxBytes <= 0 ? RelayConstants.readFileDefaultMaxBytes : Math.min(options.maxBytes, RelayConstants.readFileDefaultMaxBytes);
    const target = await this.#resolve(path);
    if (!target.ok) return target;
    let handle;
    try {
      handle = await open(target.real, 'r');
    } catch (error) {
      return { ok: false, error: `cannot read ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { ok: false, error: `path ${JSON.stringify(path)} is not a file` };
      const buffer = Buffer.allocUnsafe(Math.min(maxBytes, info.size));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      let bytes = buffer.subarray(0, filled);
      if (bytes.includes(0)) return { ok: false, error: `path ${JSON.stringify(path)} is not a text file` };
      const truncated = info.size > filled;
      // Never end inside a UTF-8 sequence when the file was cut.
      if (truncated) bytes = bytes.subarray(0, bytes.length - incompleteUtf8TailLength(bytes));
      return { ok: true, content: bytes.toString('utf8'), truncated };
    } catch (error) {
      return { ok: false, error: `cannot read ${JSON.stringify(path)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
    } finally {
      await handle.close();
    }
  }

  async mkDir(path: string): Promise<FileResult<object>> {
    const absolute = this.#absolute(path);
    if (!absolute.ok) return absolute;
    const parent = await this.#resolve(dirname(absolute.path), path);
    if (!parent.ok) return parent;
    const name = basename(absolute.path);
    if (blockedSegments.has(name)) return { ok: false, error: `path ${JSON.stringify(path)} is blocked` };
    try {
      await mkdir(join(parent.real, name));
      return { ok: true };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return { ok: false, error: `path ${JSON.stringify(path)} already exists` };
      if (code === 'ENOENT') return { ok: false, error: `parent of ${JSON.stringify(path)} does not exist` };
      return { ok: false, error: `cannot create ${JSON.stringify(path)}: ${code ?? (error as Error).message}` };
    }
  }

  /** Absolute, `~`-expanded, without `..`, not blocked: the path as the viewer meant it. */
  #absolute(path: string, asked: string = path): FileResult<{ path: string }> {
    const quoted = JSON.stringify(asked);
    if (path === '' || path.includes('\0')) return { ok: false, error: `path ${quoted} is invalid` };
    let expanded = path;
    if (path === '~') expanded = this.#homeDir;
    else if (path.startsWith('~/')) expanded = join(this.#homeDir, path.slice(2));
    if (!isAbsolute(expanded)) return { ok: false, error: `path ${quoted} must be absolute` };
    const segments = expanded.split(/[\\/]+/);
    if (segments.includes('..')) return { ok: false, error: `path ${quoted} is blocked` };
    const normalized = resolve(expanded);
    if (isBlocked(normalized)) return { ok: false, error: `path ${quoted} is blocked` };
    return { ok: true, path: normalized };
  }

  /** The checks of the class comment; `shown` is the path as the viewer gave it (normalised), `real` the resolved one. */
  async #resolve(path: string, asked: string = path): Promise<FileResult<{ shown: string; real: string }>> {
    const absolute = this.#absolute(path, asked);
    if (!absolute.ok) return absolute;
    let real: string;
    try {
      real = await realpath(absolute.path);
    } catch {
      return { ok: false, error: `path ${JSON.stringify(asked)} does not exist` };
    }
    if (isBlocked(real)) return { ok: false, error: `path ${JSON.stringify(asked)} is blocked` };
    for (const root of this.#roots) {
      const realRoot = await realpath(root).catch(() => undefined);
      if (realRoot !== undefined && isInside(realRoot, real)) return { ok: true, shown: absolute.path, real };
    }
    const roots = this.#roots.map((root) => JSON.stringify(root));
    return {
      ok: false,
      error: roots.length === 1 ? `path ${JSON.stringify(asked)} is outside allowed root ${roots[0]}` : `path ${JSON.stringify(asked)} is outside allowed roots ${roots.join(', ')}`,
    };
  }
}

function isBlocked(absolutePath: string): boolean {
  if (blockedFiles.has(absolutePath)) return true;
  return absolutePath.split(sep).some((segment) => blockedSegments.has(segment));
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

