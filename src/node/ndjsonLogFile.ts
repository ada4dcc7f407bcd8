/**
 * A bounded, append-only NDJSON file in the data dir (0600) that backs an in-memory log: the
 * audit log (control/auditLog.ts) and the bus's event log (control/bus/busLog.ts).
 *
 * Appends are batched (the lines of appendBatchMs in one write) and written in order on one chain.
 * The owner keeps the entries; once the file holds more than the owner's bound (`shouldCompact`),
 * or when the owner asks (`requestRewrite`), the file is rewritten atomically with only the lines
 * the owner still keeps. `read()` parses the file back through a schema, skipping lines that are
 * not valid, in sequence order without duplicates. `dispose()` writes what is still queued
 * synchronously, so a clean shutdown loses nothing. The constructor does no I/O.
 */
import { appendFileSync, chmodSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import type { z } from 'zod';
import type { IDisposable } from '../common/lifecycle.ts';
import type { ILogger } from './logger.ts';
import { PRIVATE_FILE_MODE, writePrivateFileAtomic } from './paths.ts';

export interface NdjsonLogFileOptions<T> {
  filePath: string;
  logger: ILogger;
  /** Names the log in messages: "audit log: write failed". */
  name: string;
  /** What one line must hold; anything else is skipped when reading. */
  schema: z.ZodType<T>;
  /** Each entry's sequence number: reading orders by it and drops repeats. */
  sequenceOf: (entry: T) => number;
  /** Whether a file of this many lines and bytes should be rewritten with only the kept lines. */
  shouldCompact: (fileLines: number, fileBytes: number) => boolean;
  /** The lines (without newline) the owner keeps now; they include everything appended so far. */
  keptLines: () => string[];
}

export interface NdjsonRead<T> {
  /** Valid entries, oldest first, one per sequence number, each with the line it was read from. */
  entries: Array<{ value: T; line: string }>;
  /** Lines that were not JSON or did not match the schema. */
  skipped: number;
}

/**
 * Lines appended within this long go out in one write. Each write opens, appends and closes the
 * file (fs/promises appendFile), and a busy Hub audits hundreds of requests a second: written
 * every turn, opening the file alone took 1.5 % of the Hub's thread in the soak. A crash loses
 * at most this much of the log (History's recording batches lose up to 100 ms of output).
 */
const appendBatchMs = 50;

export class NdjsonLogFile<T> implements IDisposable {
  readonly #options: NdjsonLogFileOptions<T>;
  /** Lines and bytes in the file, counted as they are written, to know when to compact. */
  #fileLines = 0;
  #fileBytes = 0;
  #queued: string[] = [];
  #rewrite = false;
  #flushTimer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #disposed = false;

  constructor(options: NdjsonLogFileOptions<T>) {
    this.#options = options;
  }

  get filePath(): string {
    return this.#options.filePath;
  }

  /** The file's entries; a missing file is empty. Other read errors are thrown. */
  async read(): Promise<NdjsonRead<T>> {
    const { filePath, schema, sequenceOf, logger, name } = this.#options;
    let text: string;
    try {
      text = await readFile(filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], skipped: 0 };
      throw error;
    }
    const entries: Array<{ value: T; line: string }> = [];
    let skipped = 0;
    let lines = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      lines++;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      const parsed = schema.safeParse(value);
      if (parsed.success) entries.push({ value: parsed.data, line });
      else skipped++;
    }
    this.#fileLines = lines;
    this.#fileBytes = Buffer.byteLength(text);
    if (skipped > 0) logger.warn(`${name}: skipped unreadable lines`, { file: filePath, skipped });
    // The final synchronous write at shutdown may land before an async one still in flight: order by sequence.
    entries.sort((a, b) => sequenceOf(a.value) - sequenceOf(b.value));
    const unique = entries.filter((entry, index) => index === 0 || sequenceOf(entry.value) > sequenceOf(entries[index - 1]!.value));
    return { entries: unique, skipped };
  }

  /** Queue one line (without newline) for the next batched write. */
  append(line: string): void {
    if (this.#disposed) return;
    this.#queued.push(line + '\n');
    this.#fileLines++;
    this.#fileBytes += Buffer.byteLength(line) + 1;
    this.#scheduleFlush();
  }

  /** Rewrite the file with the kept lines at the next write (entries changed, or unreadable lines to drop). */
  requestRewrite(): void {
    if (this.#disposed) return;
    this.#rewrite = true;
    this.#scheduleFlush();
  }

  /** Wait until everything appended so far is on disk (tests, shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#writing = this.#writing.then(() => this.#write());
    await this.#writing;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    // What the async chain has not written yet goes out now, synchronously: the process may be exiting.
    const rest = this.#queued.join('');
    this.#queued = [];
    if (rest.length === 0) return;
    const { filePath, logger, name } = this.#options;
    try {
      appendFileSync(filePath, rest, { mode: PRIVATE_FILE_MODE });
      chmodSync(filePath, PRIVATE_FILE_MODE);
    } catch (error) {
      logger.error(`${name}: final write failed`, { file: filePath, error });
    }
  }

  #scheduleFlush(): void {
    if (this.#flushTimer) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.#writing = this.#writing.then(() => this.#write());
    }, appendBatchMs);
  }

  async #write(): Promise<void> {
    const { filePath, logger, name, shouldCompact, keptLines } = this.#options;
    if (this.#queued.length === 0 && !this.#rewrite) return;
    const appended = this.#queued.join('');
    this.#queued = [];
    try {
      if (this.#rewrite || shouldCompact(this.#fileLines, this.#fileBytes)) {
        this.#rewrite = false;
        // The kept lines include everything queued until now.
        const kept = keptLines();
        const text = kept.map((line) => line + '\n').join('');
        await writePrivateFileAtomic(filePath, text);
        // Lines appended while it was written are queued and go after it.
        this.#fileLines = kept.length + this.#queued.length;
        this.#fileBytes = Buffer.byteLength(text) + this.#queued.reduce((total, line) => total + Buffer.byteLength(line), 0);
      } else {
        await appendFile(filePath, appended, { mode: PRIVATE_FILE_MODE });
      }
    } catch (error) {
      logger.error(`${name}: write failed`, { file: filePath, error });
    }
  }
}
