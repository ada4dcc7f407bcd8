/**
 * A Unix domain socket that only its user can reach: the directory is 0700, the socket 0600
 * (created under umask 077, then chmod'ed, so it is never reachable by others, not even briefly).
 *
 * A socket file left behind by a crashed server is replaced; one that a live server still answers
 * on is not: two servers on one path would split clients between them, so we refuse with a
 * message naming the path. (Same policy and probe timing as claws.)
 */
import { lstatSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chmod, link, lstat, mkdir, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { ControlConstants } from '../../common/constants.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { ensurePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../paths.ts';

export class SocketInUseError extends Error {
  readonly path: string;
  constructor(path: string) {
    super(`another server is already listening on ${path} (is Switchboard or a claws extension running there?); stop it, or remove the socket if you are sure it is stale`);
    this.name = 'SocketInUseError';
    this.path = path;
  }
}

export type ProbeResult = 'absent' | 'live' | 'dead';

/** Is something accepting connections on `path`? A connect that fails or does not finish in time means no. */
export async function probeSocket(path: string, timeoutMs: number = ControlConstants.staleProbeMs): Promise<ProbeResult> {
  try {
    await lstat(path);
  } catch {
    return 'absent';
  }
  return new Promise<ProbeResult>((resolve) => {
    const socket = createConnection(path);
    const finish = (result: ProbeResult) => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish('dead'), timeoutMs);
    socket.once('connect', () => finish('live'));
    socket.once('error', () => finish('dead'));
  });
}

export interface UnixSocketListenerOptions {
  path: string;
  /** Sockets are half-open capable: the owner ends its side when it has answered. */
  onConnection: (socket: Socket) => void;
  /**
   * Tighten an existing parent directory to 0700 as well (for directories that are ours, like the
   * data dir or `.claws`). A directory we create is always 0700; a directory the user chose for a
   * `SWITCHBOARD_SOCKET` override (maybe /tmp) is left as it is.
   */
  ownsDirectory: boolean;
  /**
   * The parent directory must be a real directory of this user's: a symbolic link or another
   * user's directory is refused (`UnsafeDirectoryError`), never chmod'ed or bound through. For
   * directories inside folders we do not control, like a repository's `.claws`.
   */
  refuseLinkedDirectory?: boolean;
  probeTimeoutMs?: number;
}

export class UnixSocketListener implements IDisposable {
  readonly path: string;
  readonly #server: Server;
  /** The inode we bound, so dispose never removes a socket another server created since. */
  readonly #inode: number;
  #disposed = false;

  private constructor(path: string, server: Server, inode: number) {
    this.path = path;
    this.#server = server;
    this.#inode = inode;
  }

  static async listen(options: UnixSocketListenerOptions): Promise<UnixSocketListener> {
    const { path } = options;
    const pathBytes = Buffer.byteLength(path);
    if (pathBytes > ControlConstants.maxSocketPathBytes) {
      throw new Error(`socket path is too long (${pathBytes} bytes; Unix sockets allow ${ControlConstants.maxSocketPathBytes}): ${path}`);
    }
    const directory = dirname(path);
    if (options.ownsDirectory) await ensurePrivateDir(directory, { refuseLinks: options.refuseLinkedDirectory === true });
    else await mkdir(directory, { recursive: true, mode: PRIVATE_DIR_MODE });

    await removeStaleSocket(path, options.probeTimeoutMs);

    // Bind under a temporary name, then link the socket into place. libuv unlinks the name it
    // bound when the server closes, whatever is there by then; bound at `path`, our shutdown
    // would delete a socket another server put there since. The temporary name is gone by then.
    // (A path too close to the length limit for any temporary name is bound directly, as before.)
    const temporary = temporarySocketPath(path);
    const server = createServer({ allowHalfOpen: true }, options.onConnection);
    await bindServer(server, temporary ?? path, path);
    try {
      if (temporary !== null) {
        try {
          await chmod(temporary, PRIVATE_FILE_MODE);
          await link(temporary, path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new SocketInUseError(path);
          throw error;
        } finally {
          await unlink(temporary).catch(() => {});
        }
      }
      await chmod(path, PRIVATE_FILE_MODE);
      const { ino } = await lstat(path);
      return new UnixSocketListener(path, server, ino);
    } catch (error) {
      server.close();
      throw error;
    }
  }

  /** Stop accepting connections and remove the socket file. Open connections belong to their owner. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#server.close();
    try {
      if (lstatSync(this.path).ino === this.#inode) unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}

/**
 * A sibling of `path` to bind first: `.<name>.<random>` where it fits in a socket address, else the
 * shorter `.<random>` (9 bytes, no longer than `control.sock` or `claws.sock`, so every path that
 * fits has one); null only for a path within a few bytes of the limit with a name under 9 bytes.
 */
function temporarySocketPath(path: string): string | null {
  const random = randomBytes(4).toString('hex');
  for (const name of [`.${basename(path)}.${random}`, `.${random}`]) {
    const temporary = join(dirname(path), name);
    if (Buffer.byteLength(temporary) <= ControlConstants.maxSocketPathBytes) return temporary;
  }
  return null;
}

/** listen(2) on `bindPath` with the socket created 0600 from the start; errors name `path`. */
async function bindServer(server: Server, bindPath: string, path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(error.code === 'EADDRINUSE' ? new SocketInUseError(path) : new Error(`cannot listen on ${path}: ${error.message}`));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    // The socket file is created by bind(2), synchronously inside listen(): restoring the
    // umask right after covers exactly that creation.
    const previousUmask = process.umask(0o077);
    try {
      server.listen(bindPath);
    } finally {
      process.umask(previousUmask);
    }
  });
}

async function removeStaleSocket(path: string, probeTimeoutMs: number | undefined): Promise<void> {
  let info;
  try {
    info = await lstat(path);
  } catch {
    return;
  }
  if (!info.isSocket()) throw new Error(`${path} exists and is not a socket; refusing to replace it`);
  const state = await probeSocket(path, probeTimeoutMs);
  if (state === 'live') throw new SocketInUseError(path);
  if (state === 'dead') {
    try {
      await unlink(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot remove the stale socket ${path}: ${(error as Error).message}`);
    }
  }
}
