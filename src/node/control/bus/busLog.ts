/**
 * The event log behind `subscribe {fromCursor}`: every logged bus message, numbered, bounded in
 * count and bytes, and persisted as NDJSON in the data dir (`bus-log.ndjson`, 0600) so a client
 * can catch up across a restart and sequence numbers keep growing.
 *
 * Appends are batched and written in order on one chain; the file is rewritten with only the kept
 * events when it grows past `logCompactFactor` times the bound. `load()` reads it back, skipping
 * (with a warning) any line that is not a valid event. `dispose()` writes what is still queued
 * synchronously, so a clean shutdown loses nothing.
 */
import { appendFileSync, chmodSync } from 'node:fs';
import { appendFile, chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { IDisposable } from '../../../common/lifecycle.ts';
import type { ILogger } from '../../logger.ts';
import { BusConstants } from './busConstants.ts';

export interface BusEvent {
  sequence: number;
  topic: string;
  /** The publisher's peerId, or `server`. */
  from: string;
  payload: unknown;
  /** Epoch ms. */
  sentAt: number;
}

const StoredEvent = z.object({
  sequence: z.number().int().positive(),
  topic: z.string().min(1),
  from: z.string(),
  payload: z.unknown(),
  sentAt: z.number(),
});

export interface BusLogOptions {
  /** null: keep the log in memory only. */
  filePath: string | null;
  logger: ILogger;
  maxEvents?: number;
  maxBytes?: number;
}

interface Entry {
  event: BusEvent;
  line: string;
}

export class BusLog implements IDisposable {
  readonly #filePath: string | null;
  readonly #logger: ILogger;
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #entries: Entry[] = [];
  /** Index of the first kept entry in #entries (dropping from the front without shifting every time). */
  #head = 0;
  #bytes = 0;
  #lastSequence = 0;
  /** Lines written to the file and not yet compacted away, to know when to compact. */
  #fileEvents = 0;
  #fileBytes = 0;
  #queued: string[] = [];
  #writing: Promise<void> = Promise.resolve();
  #flushScheduled = false;
  #disposed = false;

  constructor(options: BusLogOptions) {
    this.#filePath = options.filePath;
    this.#logger = options.logger;
    this.#maxEvents = options.maxEvents ?? BusConstants.logMaxEvents;
    this.#maxBytes = options.maxBytes ?? BusConstants.logMaxBytes;
  }

  /** Read the persisted log (a missing file is an empty log). */
  async load(): Promise<void> {
    if (this.#filePath === null) return;
    let text: string;
    try {
      text = await readFile(this.#filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    let skipped = 0;
    const events: Array<{ event: BusEvent; line: string }> = [];
    for (const line of text.split('\n')) {
      if (line.trim().length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      const parsed = StoredEvent.safeParse(value);
      if (!parsed.success) {
        skipped++;
        continue;
      }
      events.push({ event: parsed.data as BusEvent, line });
    }
    // The final synchronous write at shutdown may land before an async one still in flight: order by sequence.
    events.sort((a, b) => a.event.sequence - b.event.sequence);
    for (const entry of events) {
      if (entry.event.sequence <= this.#lastSequence) continue; // a duplicate
      this.#keep(entry);
      this.#fileEvents++;
      this.#fileBytes += entry.line.length + 1;
    }
    if (skipped > 0) this.#logger.warn('bus log: skipped unreadable lines', { file: this.#filePath, skipped });
    this.#trim();
  }

  /** The sequence of the newest event ever logged (0 when none). */
  get lastSequence(): number {
    return this.#lastSequence;
  }

  get size(): number {
    return this.#entries.length - this.#head;
  }

  /** Number, keep and persist a new event. */
  append(event: Omit<BusEvent, 'sequence'>): BusEvent {
    const stored: BusEvent = { sequence: this.#lastSequence + 1, ...event };
    const line = JSON.stringify(stored);
    this.#keep({ event: stored, line });
    this.#trim();
    if (this.#filePath !== null && !this.#disposed) {
      this.#queued.push(line + '\n');
      this.#fileEvents++;
      this.#fileBytes += line.length + 1;
      this.#scheduleFlush();
    }
    return stored;
  }

  /** Kept events with sequence > `cursor`, oldest first. */
  since(cursor: number): BusEvent[] {
    const result: BusEvent[] = [];
    // Binary search would be faster; replays are rare and the log is at most 10 000 entries.
    for (let index = this.#head; index < this.#entries.length; index++) {
      const entry = this.#entries[index]!;
      if (entry.event.sequence > cursor) result.push(entry.event);
    }
    return result;
  }

  /** Wait until everything appended so far is on disk (tests, shutdown). */
  async flush(): Promise<void> {
    this.#flushScheduled = false;
    this.#writing = this.#writing.then(() => this.#writeQueued());
    await this.#writing;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    // Whatever the async chain has not written yet goes out now, synchronously: the process may be exiting.
    const rest = this.#queued.join('');
    this.#queued = [];
    if (this.#filePath !== null && rest.length > 0) {
      try {
        appendFileSync(this.#filePath, rest, { mode: 0o600 });
        chmodSync(this.#filePath, 0o600);
      } catch (error) {
        this.#logger.error('bus log: final write failed', { file: this.#filePath, error });
      }
    }
  }

  #keep(entry: Entry): void {
    this.#entries.push(entry);
    this.#bytes += entry.line.length;
    this.#lastSequence = entry.event.sequence;
  }

  #trim(): void {
    // Never drop the newest event: it carries the sequence a restart continues from.
    while (this.size > 1 && (this.size > this.#maxEvents || this.#bytes > this.#maxBytes)) {
      this.#bytes -= this.#entries[this.#head]!.line.length;
      this.#entries[this.#head] = undefined as never;
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      this.#entries.splice(0, this.#head);
      this.#head = 0;
    }
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // Batch every append of this turn into one write.
    setImmediate(() => {
      if (!this.#flushScheduled) return;
      this.#flushScheduled = false;
      this.#writing = this.#writing.then(() => this.#writeQueued());
    });
  }

  async #writeQueued(): Promise<void> {
    const filePath = this.#filePath;
    if (filePath === null || this.#queued.length === 0) return;
    const data = this.#queued.join('');
    this.#queued = [];
    try {
      const overBound =
        this.#fileEvents > this.#maxEvents * BusConstants.logCompactFactor || this.#fileBytes > this.#maxBytes * BusConstants.logCompactFactor;
      if (overBound) {
        await this.#compact(filePath);
      } else {
        await appendFile(filePath, data, { mode: 0o600 });
      }
    } catch (error) {
      this.#logger.error('bus log: write failed', { file: filePath, error });
    }
  }

  /** Rewrite the file with exactly the kept events (they include everything queued). */
  async #compact(filePath: string): Promise<void> {
    const lines: string[] = [];
    for (let index = this.#head; index < this.#entries.length; index++) lines.push(this.#entries[index]!.line + '\n');
    const text = lines.join('');
    const temporary = `${filePath}.${process.pid}.tmp`;
    await writeFile(temporary, text, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, filePath);
    // Events appended while this ran are queued and will be appended after it.
    this.#fileEvents = lines.length + this.#queued.length;
    this.#fileBytes = text.length + this.#queued.reduce((total, line) => total + line.length, 0);
  }
}
