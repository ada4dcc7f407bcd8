/**
 * The machines a `switchboard relay` accepts, and their tokens: a JSON file (mode 0600, default
 * `$SWITCHBOARD_HOME/relay-tokens.json`) mapping each machine id to the SHA-256 of its daemon
 * token and of its viewer token. The tokens themselves are printed once by
 * `switchboard relay add-machine ID` and never stored.
 *
 *   {"version":1,"machines":{"home-box":{"daemonTokenSha256":"…","viewerTokenSha256":"…","createdAt":"…"}}}
 *
 * The running relay re-reads the file when it changed (checked on each connection attempt), so
 * adding, rotating or removing a machine takes effect without a restart.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { rfc3339 } from '../../../common/protocol/relay/frames.ts';
import type { ILogger } from '../../logger.ts';
import { PRIVATE_DIR_MODE, writePrivateFileAtomic } from '../../paths.ts';
import { MachineId } from '../relayUrl.ts';

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 hex digest');

const MachineEntry = z.object({
  daemonTokenSha256: Sha256Hex,
  viewerTokenSha256: Sha256Hex,
  createdAt: z.string(),
});

const TokensFile = z.object({
  version: z.literal(1),
  machines: z.record(MachineId, MachineEntry),
});
type TokensFile = z.infer<typeof TokensFile>;

export type RelayRole = 'daemon' | 'viewer';

export interface MachineTokens {
  machineId: string;
  daemonToken: string;
  viewerToken: string;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** 32 random bytes, base64url, with a prefix saying what the token is for. */
function newToken(role: RelayRole): string {
  return `${role === 'daemon' ? 'sbrd_' : 'sbrv_'}${randomBytes(32).toString('base64url')}`;
}

export class RelayTokenStore {
  readonly filePath: string;
  readonly #logger: ILogger | undefined;
  #machines = new Map<string, z.infer<typeof MachineEntry>>();
  /** mtime+size of the file last loaded, to reload only when it changed. */
  #loadedStamp = '';
  /** The last problem refresh() logged, so a broken file is reported once, not on every request. */
  #lastRefreshError: string | undefined;

  constructor(options: { filePath: string; logger?: ILogger }) {
    this.filePath = options.filePath;
    this.#logger = options.logger;
  }

  get machineIds(): string[] {
    return [...this.#machines.keys()].sort();
  }

  /** Load the file (a missing file is an empty set of machines). Throws with a clear message when it is malformed. */
  async load(): Promise<void> {
    const info = await stat(this.filePath).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!info) {
      this.#machines.clear();
      this.#loadedStamp = 'missing';
      return;
    }
    const stamp = `${info.mtimeMs}:${info.size}`;
    if (stamp === this.#loadedStamp) return;
    if (process.platform !== 'win32') {
      // Whoever can write it can put their own viewer hash on any machine: a shell there. Refused
      // (at start the relay does not start; later the last good version is kept). Readable only
      // gives away hashes of random tokens: warned.
      const uid = process.getuid?.();
      if (uid !== undefined && info.uid !== uid) throw new Error(`relay tokens file ${this.filePath} is owned by uid ${info.uid}, not by this user (uid ${uid}); refusing to use it`);
      if ((info.mode & 0o022) !== 0) throw new Error(`relay tokens file ${this.filePath} is writable by other users (mode ${(info.mode & 0o777).toString(8)}); refusing to use it: chmod 600 it`);
      if ((info.mode & 0o077) !== 0) {
        this.#logger?.warn('the relay tokens file is readable by other users; chmod 600 it', { file: this.filePath, mode: (info.mode & 0o777).toString(8) });
      }
    }
    let json: unknown;
    try {
      json = JSON.parse(await readFile(this.filePath, 'utf8'));
    } catch (error) {
      throw new Error(`cannot read relay tokens file ${this.filePath}: ${(error as Error).message}`);
    }
    const parsed = TokensFile.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`malformed relay tokens file ${this.filePath}: ${issue.path.join('.')}: ${issue.message}`);
    }
    this.#machines = new Map(Object.entries(parsed.data.machines));
    this.#loadedStamp = stamp;
  }

  /** Re-read the file if it changed; keeps the last good version (and logs) when the new one is broken. */
  async refresh(): Promise<void> {
    try {
      await this.load();
      this.#lastRefreshError = undefined;
    } catch (error) {
      // Every request re-reads a broken file (it may be fixed any moment): say so once per problem, not per request.
      const message = (error as Error).message;
      if (message === this.#lastRefreshError) return;
      this.#lastRefreshError = message;
      this.#logger?.error('relay tokens file is broken; still using the last good version', { error: message });
    }
  }

  /** Whether `token` is the `role` token of `machineId` (constant time in the token). */
  verify(machineId: string, role: RelayRole, token: string | undefined): boolean {
    if (!token) return false;
    const entry = this.#machines.get(machineId);
    const candidate = Buffer.from(hashToken(token), 'hex');
    // Compare against something of the same length even for unknown machines.
    const expected = Buffer.from(entry ? (role === 'daemon' ? entry.daemonTokenSha256 : entry.viewerTokenSha256) : hashToken(''), 'hex');
    return timingSafeEqual(candidate, expected) && entry !== undefined;
  }

  /** Create (or with `rotate`, replace) a machine's tokens; returns them (the only time they exist in clear). */
  async addMachine(machineId: string, options: { rotate?: boolean } = {}): Promise<MachineTokens> {
    const id = MachineId.parse(machineId);
    await this.load();
    if (this.#machines.has(id) && !options.rotate) throw new Error(`machine ${id} already exists (use --rotate to issue new tokens)`);
    const tokens = { machineId: id, daemonToken: newToken('daemon'), viewerToken: newToken('viewer') };
    this.#machines.set(id, { daemonTokenSha256: hashToken(tokens.daemonToken), viewerTokenSha256: hashToken(tokens.viewerToken), createdAt: rfc3339() });
    await this.#save();
    return tokens;
  }

  async removeMachine(machineId: string): Promise<boolean> {
    await this.load();
    if (!this.#machines.delete(machineId)) return false;
    await this.#save();
    return true;
  }

  async #save(): Promise<void> {
    // Create a missing directory privately; never re-mode an existing one (it may be the user's home).
    await mkdir(dirname(this.filePath), { recursive: true, mode: PRIVATE_DIR_MODE });
    const file: TokensFile = { version: 1, machines: Object.fromEntries([...this.#machines].sort(([a], [b]) => (a < b ? -1 : 1))) };
    await writePrivateFileAtomic(this.filePath, JSON.stringify(file, null, 2) + '\n');
    this.#loadedStamp = '';
    await this.load();
  }
}
