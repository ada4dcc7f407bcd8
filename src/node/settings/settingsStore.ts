/**
 * The user's settings, persisted as `$SWITCHBOARD_HOME/settings.json` (0600). The file is
 * validated with the contract's `Settings` schema; a missing file means defaults, and an unreadable
 * or invalid one also means defaults, with a warning (the app must start even if someone mangled
 * the file by hand). So does another user's file: it is moved aside, never read; one of ours
 * open to group or others is made 0600 first (readOwnFile). Writes are atomic and serialised so concurrent updates never interleave.
 */
import { defaultSettings, Settings } from '../../common/api/contract.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { moveAside, readOwnFile, UntrustedFileError, writePrivateFileAtomic } from '../paths.ts';

export interface SettingsStoreOptions {
  filePath: string;
  logger: ILogger;
}

export class SettingsStore implements IDisposable {
  readonly #filePath: string;
  readonly #logger: ILogger;
  #current: Settings = { ...defaultSettings };
  /** Chain of pending writes; each update waits for the previous one. */
  #writeQueue: Promise<void> = Promise.resolve();
  readonly #onDidChange = new Emitter<Settings>();
  readonly onDidChange: Event<Settings> = this.#onDidChange.event;

  constructor(options: SettingsStoreOptions) {
    this.#filePath = options.filePath;
    this.#logger = options.logger;
  }

  get current(): Settings {
    return { ...this.#current };
  }

  /** Read the file. Never throws for a bad file: it falls back to defaults and logs why. */
  async load(): Promise<Settings> {
    let text: string;
    try {
      const read = await readOwnFile(this.#filePath);
      text = read.text;
      if (read.tightenedFrom !== null) this.#logger.warn('settings file was writable by other users; made it 0600', { file: this.#filePath, mode: read.tightenedFrom.toString(8) });
    } catch (error) {
      if (error instanceof UntrustedFileError) {
        // It names the commands agent profiles run: another user's file is not used, and is kept
        // aside (not overwritten by the next change) for the user to look at.
        const movedTo = await moveAside(this.#filePath, 'untrusted').catch(() => null);
        this.#logger.warn('settings file belongs to another user; using defaults', { file: this.#filePath, why: error.message, movedTo });
      } else if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#logger.warn('cannot read settings; using defaults', { file: this.#filePath, error });
      }
      this.#current = { ...defaultSettings };
      return this.current;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      this.#logger.warn('settings file is not valid JSON; using defaults', { file: this.#filePath, error });
      this.#current = { ...defaultSettings };
      return this.current;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      this.#logger.warn('settings file is not a JSON object; using defaults', { file: this.#filePath });
      this.#current = { ...defaultSettings };
      return this.current;
    }
    // Key by key: one bad or unknown key (a newer version's, a typo) must not cost the user
    // every other setting. Bad values fall back to their default; unknown keys are ignored.
    const settings: Record<string, unknown> = { ...defaultSettings };
    const problems: string[] = [];
    for (const [key, value] of Object.entries(json)) {
      const field = Settings.shape[key as keyof Settings] as (typeof Settings.shape)[keyof Settings] | undefined;
      if (!field || !Object.hasOwn(Settings.shape, key)) {
        problems.push(`${key}: unknown setting (ignored)`);
        continue;
      }
      const parsed = field.safeParse(value);
      if (parsed.success) settings[key] = parsed.data;
      else problems.push(`${key}: ${parsed.error.issues[0]?.message ?? 'invalid'} (default used)`);
    }
    if (problems.length > 0) this.#logger.warn('settings file has problems', { file: this.#filePath, problems });
    this.#current = Settings.parse(settings);
    return this.current;
  }

  /** Apply an already-validated partial update, persist it, and fire onDidChange. */
  async update(patch: Partial<Settings>): Promise<Settings> {
    // Electron IPC keeps `undefined` values that JSON would drop; they mean "not given".
    const given = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    // Serialised: each update applies on top of the one before it, and only what reached the
    // disk becomes current, so memory and file never disagree.
    const applied = this.#writeQueue.then(async () => {
      const next = Settings.parse({ ...this.#current, ...given });
      await writePrivateFileAtomic(this.#filePath, JSON.stringify(next, null, 2) + '\n');
      this.#current = next;
      this.#onDidChange.fire(this.current);
      return this.current;
    });
    // Keep the queue alive after a failed write; the caller still sees the failure.
    this.#writeQueue = applied.then(
      () => {},
      () => {},
    );
    return applied;
  }

  /** Resolves when every queued write has reached the disk. */
  async flush(): Promise<void> {
    await this.#writeQueue;
  }

  dispose(): void {
    this.#onDidChange.dispose();
  }
}
