/**
 * The user's settings, persisted as `$SWITCHBOARD_HOME/settings.json` (0600). The file is
 * validated with the contract's `Settings` schema; a missing file means defaults, and an unreadable
 * or invalid one also means defaults, with a warning (the app must start even if someone mangled
 * the file by hand). Writes are atomic and serialised so concurrent updates never interleave.
 */
import { readFile } from 'node:fs/promises';
import { defaultSettings, Settings } from '../../common/api/contract.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import { writePrivateFileAtomic } from '../paths.ts';

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
      text = await readFile(this.#filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
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
    // Fill keys added in newer versions with defaults, then validate the whole object strictly.
    const merged = typeof json === 'object' && json !== null && !Array.isArray(json) ? { ...defaultSettings, ...json } : json;
    const parsed = Settings.safeParse(merged);
    if (!parsed.success) {
      this.#logger.warn('settings file is invalid; using defaults', {
        file: this.#filePath,
        issues: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
      });
      this.#current = { ...defaultSettings };
      return this.current;
    }
    this.#current = parsed.data;
    return this.current;
  }

  /** Apply an already-validated partial update, persist it, and fire onDidChange. */
  async update(patch: Partial<Settings>): Promise<Settings> {
    const next = Settings.parse({ ...this.#current, ...patch });
    this.#current = next;
    const write = this.#writeQueue.then(() => writePrivateFileAtomic(this.#filePath, JSON.stringify(next, null, 2) + '\n'));
    // Keep the queue alive after a failed write; the caller still sees the failure.
    this.#writeQueue = write.catch(() => {});
    await write;
    this.#onDidChange.fire(this.current);
    return this.current;
  }

  /** Resolves when every queued write has reached the disk. */
  async flush(): Promise<void> {
    await this.#writeQueue;
  }

  dispose(): void {
    this.#onDidChange.dispose();
  }
}
