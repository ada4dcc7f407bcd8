/**
 * Access tokens for the control socket, persisted as `$SWITCHBOARD_HOME/control-tokens.json`
 * (0600, written atomically). Only a SHA-256 hash of each secret is stored: the secret is shown
 * once, when the token is created. Verification hashes the presented secret and compares hashes in
 * constant time. A missing file means no tokens; an unreadable or invalid one also means none, with
 * a warning (the app must start; enforcement then refuses every token, which fails closed).
 *
 * Owned by the Hub. The constructor does no I/O; `load()` reads the file.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { ControlTokenInfo, type CreateControlTokenParams } from '../../common/api/contract.ts';
import { ApiError } from '../../common/api/errors.ts';
import { ControlConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { matchTerminalRef, type NamedTerminal } from '../../common/terminal/terminalRef.ts';
import type { ILogger } from '../logger.ts';
import { moveAside, readOwnFile, UntrustedFileError, writePrivateFileAtomic } from '../paths.ts';

/** Secrets start with this, so a leaked one is recognisable (secret scanners, logs). */
export const tokenSecretPrefix = 'sbt_';
const secretBytes = 32;
const dayMs = 24 * 60 * 60 * 1000;

export function controlTokensFilePath(dataDir: string): string {
  return join(dataDir, 'control-tokens.json');
}

const StoredToken = ControlTokenInfo.extend({ secretSha256: z.string().regex(/^[0-9a-f]{64}$/) });
type StoredToken = z.infer<typeof StoredToken>;
const TokenFile = z.object({ version: z.literal(1), tokens: z.array(StoredToken) });

export type TokenVerification = { ok: true; token: ControlTokenInfo } | { ok: false };

export interface TokenStoreOptions {
  filePath: string;
  logger: ILogger;
  /** Epoch ms; tests move time forward to expire tokens. */
  now?: () => number;
  /**
   * The open terminals, to resolve the names and id prefixes a token is limited to (the app's
   * field and `--terminal` take names). Without it the terminals are kept as given (the store's
   * own tests).
   */
  terminals?: () => readonly NamedTerminal[];
}

export class TokenStore implements IDisposable {
  readonly #filePath: string;
  readonly #logger: ILogger;
  readonly #now: () => number;
  readonly #terminals: (() => readonly NamedTerminal[]) | undefined;
  #tokens: StoredToken[] = [];
  /** Writes are serialised so two quick changes never land out of order. */
  #writeQueue: Promise<void> = Promise.resolve();
  readonly #onDidChange = new Emitter<ControlTokenInfo[]>();
  readonly onDidChange: Event<ControlTokenInfo[]> = this.#onDidChange.event;

  constructor(options: TokenStoreOptions) {
    this.#filePath = options.filePath;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#terminals = options.terminals;
  }

  async load(): Promise<void> {
    let text: string;
    try {
      const read = await readOwnFile(this.#filePath);
      text = read.text;
      if (read.tightenedFrom !== null) this.#logger.warn('control tokens file was writable by other users; made it 0600', { file: this.#filePath, mode: read.tightenedFrom.toString(8) });
    } catch (error) {
      if (error instanceof UntrustedFileError) {
        // Its owner could add a token of their own: not used (fails closed), kept aside.
        const movedTo = await moveAside(this.#filePath, 'untrusted').catch(() => null);
        this.#logger.warn('control tokens file belongs to another user; starting with none', { file: this.#filePath, why: error.message, movedTo });
      } else if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#logger.warn('cannot read control tokens; starting with none', { error });
      return;
    }
    try {
      this.#tokens = TokenFile.parse(JSON.parse(text)).tokens;
    } catch (error) {
      this.#logger.warn('control tokens file is invalid; starting with none', { file: this.#filePath, error: (error as Error).message });
    }
  }

  /** Every token, newest first, without secrets (revoked and expired ones too, so the UI can show them). */
  list(): ControlTokenInfo[] {
    return this.#tokens.map(toInfo).reverse();
  }

  async create(params: CreateControlTokenParams): Promise<{ token: ControlTokenInfo; secret: string }> {
    const terminals = params.terminals ? this.#resolveTerminals(params.name, params.terminals) : null;
    this.#makeRoom();
    const secret = tokenSecretPrefix + randomBytes(secretBytes).toString('base64url');
    const createdAt = this.#now();
    const stored: StoredToken = {
      id: randomBytes(6).toString('hex'),
      name: params.name,
      scopes: [...new Set(params.scopes)],
      terminals,
      createdAt,
      expiresAt: params.expiresInDays === undefined ? null : createdAt + params.expiresInDays * dayMs,
      revokedAt: null,
      secretSha256: sha256(secret),
    };
    this.#tokens.push(stored);
    await this.#persist();
    return { token: toInfo(stored), secret };
  }

  /** Under ControlConstants.maxStoredTokens before one more: the oldest tokens that can no longer be used go; else TOKEN_LIMIT. */
  #makeRoom(): void {
    const max = ControlConstants.maxStoredTokens;
    let excess = this.#tokens.length - max + 1;
    if (excess <= 0) return;
    this.#tokens = this.#tokens.filter((token) => {
      if (excess <= 0 || this.#isGood(token)) return true;
      excess--;
      return false;
    });
    if (excess > 0) throw new ApiError('TOKEN_LIMIT', `tokens.create: ${max} access tokens exist and all are still good, the most kept; revoke one first`);
  }

  /**
   * Each of the token's terminals as an id: given as an id, a name or a unique id prefix (one rule
   * with the CLI's TERMINAL). A token for a terminal that does not exist would let nothing through,
   * so one that names none is refused, saying which.
   */
  #resolveTerminals(tokenName: string, refs: readonly string[]): string[] {
    const open = this.#terminals?.();
    if (!open) return [...new Set(refs)];
    const ids = refs.map((ref) => {
      const match = matchTerminalRef(open, ref);
      if (match.kind === 'found') return match.terminal.id;
      const what = `cannot limit token ${JSON.stringify(tokenName)} to terminal ${JSON.stringify(ref)}`;
      if (match.kind === 'ambiguous') {
        throw new ApiError('INVALID_PARAMS', `${what}: it matches ${match.matches.length} terminals by ${match.by} (${match.matches.map((terminal) => `${terminal.id} "${terminal.name}"`).join(', ')}); give the id`);
      }
      const near = match.near.length > 0 ? `; did you mean ${match.near.map((terminal) => JSON.stringify(terminal.name)).join(' or ')}?` : ' (give the id or name of an open terminal)';
      throw new ApiError('INVALID_PARAMS', `${what}: no open terminal has that id or name${near}`);
    });
    return [...new Set(ids)];
  }

  /** Revoke a token; revoking twice keeps the first time. Returns null when no token has that id. */
  async revoke(id: string): Promise<ControlTokenInfo | null> {
    const stored = this.#tokens.find((token) => token.id === id);
    if (!stored) return null;
    if (stored.revokedAt === null) {
      stored.revokedAt = this.#now();
      await this.#persist();
    }
    return toInfo(stored);
  }

  /** The token whose secret this is, if it is neither revoked nor expired. */
  verify(secret: string): TokenVerification {
    const presented = Buffer.from(sha256(secret), 'hex');
    let match: StoredToken | undefined;
    // Compare against every token (no early exit), so timing says nothing about which one matched.
    for (const token of this.#tokens) {
      if (timingSafeEqual(presented, Buffer.from(token.secretSha256, 'hex'))) match = token;
    }
    if (!match || !this.isActive(match.id)) return { ok: false };
    return { ok: true, token: toInfo(match) };
  }

  /** The token's current info (its terminals change when restored panes get new ids). */
  get(id: string): ControlTokenInfo | undefined {
    const stored = this.#tokens.find((token) => token.id === id);
    return stored && toInfo(stored);
  }

  /**
   * Panes restored after a restart are new terminals with new ids: a token limited to a pane
   * follows it to the terminal that replaces it (`newIds`: old id → new id). Ids with no
   * replacement stay as they are — their terminals are gone, the token reaches nothing in their
   * place, and requests for them say so (accessControl.ts).
   */
  async followRestoredTerminals(newIds: ReadonlyMap<string, string>): Promise<void> {
    let changed = false;
    for (const token of this.#tokens) {
      if (token.terminals === null || !token.terminals.some((id) => newIds.has(id))) continue;
      token.terminals = [...new Set(token.terminals.map((id) => newIds.get(id) ?? id))];
      changed = true;
    }
    if (changed) await this.#persist();
  }

  /** Whether the token still exists, is not revoked and has not expired (checked on every request). */
  isActive(id: string): boolean {
    const token = this.#tokens.find((candidate) => candidate.id === id);
    return token !== undefined && this.#isGood(token);
  }

  /** Not revoked and not expired. */
  #isGood(token: StoredToken): boolean {
    return token.revokedAt === null && (token.expiresAt === null || token.expiresAt > this.#now());
  }

  /** When the next token that is still good expires (epoch ms), or null when none will. */
  nextExpiry(): number | null {
    let next: number | null = null;
    for (const token of this.#tokens) {
      if (token.expiresAt === null || !this.isActive(token.id)) continue;
      if (next === null || token.expiresAt < next) next = token.expiresAt;
    }
    return next;
  }

  dispose(): void {
    this.#onDidChange.dispose();
  }

  #persist(): Promise<void> {
    const contents = JSON.stringify({ version: 1, tokens: this.#tokens }, null, 2) + '\n';
    this.#onDidChange.fire(this.list());
    const write = this.#writeQueue.then(() => writePrivateFileAtomic(this.#filePath, contents));
    this.#writeQueue = write.catch(() => {});
    return write;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function toInfo(stored: StoredToken): ControlTokenInfo {
  return {
    id: stored.id,
    name: stored.name,
    scopes: [...stored.scopes],
    terminals: stored.terminals ? [...stored.terminals] : null,
    createdAt: stored.createdAt,
    expiresAt: stored.expiresAt,
    revokedAt: stored.revokedAt,
  };
}
