/**
 * Where the Hub keeps this machine's relay token: never in settings.json, the database or a log.
 *
 * - With a `TokenCipher` (Electron main passes one backed by `safeStorage`, i.e. the OS keychain)
 *   the token is encrypted and only the ciphertext is written, base64, to
 *   `$SWITCHBOARD_HOME/relay-token.keychain` (0600).
 * - Without one (browser mode, tests, a Linux desktop without a keyring) it is written as is to
 *   `$SWITCHBOARD_HOME/relay-token` (0600, in the 0700 data dir), like ssh keeps its keys.
 *
 * A plain file found by a host that has a keychain is moved into the keychain. A keychain file
 * found by a host without one (`switchboard serve` on the desktop's data dir) cannot be read
 * there: `unreadableReason` says so and the user saves the token again or passes it in
 * SWITCHBOARD_RELAY_TOKEN.
 */
import { chmod, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ILogger } from '../logger.ts';
import { PRIVATE_FILE_MODE, writePrivateFileAtomic } from '../paths.ts';

/** A host capability: encrypt small secrets with the OS keychain (Electron `safeStorage`). */
export interface TokenCipher {
  /** False when the keychain cannot be used now (then the token goes to a 0600 file). */
  isAvailable(): Promise<boolean>;
  encrypt(plainText: string): Promise<Uint8Array>;
  decrypt(cipherText: Uint8Array): Promise<string>;
}

export type TokenStorageKind = 'keychain' | 'file';

export function relayTokenFilePath(dataDir: string): string {
  return join(dataDir, 'relay-token');
}

export function relayKeychainTokenFilePath(dataDir: string): string {
  return join(dataDir, 'relay-token.keychain');
}

export class RelayTokenStore {
  readonly #plainPath: string;
  readonly #keychainPath: string;
  readonly #cipher: TokenCipher | undefined;
  readonly #logger: ILogger;
  #useKeychain = false;
  #token: string | undefined;
  #unreadableReason: string | undefined;

  constructor(options: { dataDir: string; cipher?: TokenCipher | undefined; logger: ILogger }) {
    this.#plainPath = relayTokenFilePath(options.dataDir);
    this.#keychainPath = relayKeychainTokenFilePath(options.dataDir);
    this.#cipher = options.cipher;
    this.#logger = options.logger;
  }

  get storage(): TokenStorageKind {
    return this.#useKeychain ? 'keychain' : 'file';
  }

  /** The token, once `load()` resolved (undefined: none stored, or unreadable here). */
  get token(): string | undefined {
    return this.#token;
  }

  /** Why a stored token could not be read on this host, if so. */
  get unreadableReason(): string | undefined {
    return this.#unreadableReason;
  }

  /** Read the stored token. Never throws: a broken store means "no token", with the reason logged (never the token). */
  async load(): Promise<string | undefined> {
    this.#useKeychain = (await this.#cipher?.isAvailable().catch(() => false)) ?? false;
    this.#token = undefined;
    this.#unreadableReason = undefined;
    try {
      return await this.#read();
    } catch (error) {
      this.#token = undefined;
      this.#unreadableReason = `the saved token cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
      this.#logger.warn('cannot read the relay token', { error: (error as Error).message });
      return undefined;
    }
  }

  async #read(): Promise<string | undefined> {
    const sealed = await readIfExists(this.#keychainPath);
    if (sealed !== undefined) {
      if (!this.#useKeychain) {
        this.#unreadableReason = 'the token was saved in the desktop app\'s OS keychain, which this process cannot open; save it again here or set SWITCHBOARD_RELAY_TOKEN';
        this.#logger.warn('the relay token is in the OS keychain, unavailable here', { file: this.#keychainPath });
        return undefined;
      }
      try {
        this.#token = await this.#cipher!.decrypt(Buffer.from(sealed.trim(), 'base64'));
      } catch (error) {
        this.#unreadableReason = 'the OS keychain could not decrypt the saved token; save it again';
        this.#logger.warn('cannot decrypt the relay token', { file: this.#keychainPath, error: (error as Error).message });
      }
      return this.#token;
    }
    const plain = await readIfExists(this.#plainPath);
    if (plain === undefined) return undefined;
    await this.#tightenMode(this.#plainPath);
    const token = plain.trim();
    if (!token) return undefined;
    this.#token = token;
    if (this.#useKeychain) {
      // A token saved before the keychain was available (or by browser mode): move it in.
      try {
        await this.save(token);
        this.#logger.info('moved the relay token into the OS keychain');
      } catch (error) {
        this.#logger.warn('could not move the relay token into the OS keychain; keeping the file', { error: (error as Error).message });
      }
    }
    return this.#token;
  }

  /** Store the token (undefined or "" removes it). */
  async save(token: string | undefined): Promise<void> {
    if (!token) {
      await rm(this.#keychainPath, { force: true });
      await rm(this.#plainPath, { force: true });
      this.#token = undefined;
      this.#unreadableReason = undefined;
      return;
    }
    if (this.#useKeychain) {
      const sealed = await this.#cipher!.encrypt(token);
      await writePrivateFileAtomic(this.#keychainPath, Buffer.from(sealed).toString('base64') + '\n');
      await rm(this.#plainPath, { force: true });
    } else {
      await writePrivateFileAtomic(this.#plainPath, token + '\n');
      // An unreadable keychain copy would otherwise win at the next load.
      await rm(this.#keychainPath, { force: true });
    }
    this.#token = token;
    this.#unreadableReason = undefined;
  }

  async #tightenMode(path: string): Promise<void> {
    if (process.platform === 'win32') return;
    try {
      const info = await stat(path);
      if ((info.mode & 0o777) !== PRIVATE_FILE_MODE) {
        await chmod(path, PRIVATE_FILE_MODE);
        this.#logger.warn('the relay token file was readable by others; made it 0600', { file: path });
      }
    } catch (error) {
      this.#logger.warn('cannot check the relay token file mode', { file: path, error: (error as Error).message });
    }
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
