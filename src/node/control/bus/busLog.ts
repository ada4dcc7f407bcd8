/**
 * The event log behind `subscribe {fromCursor}`: every logged bus message, numbered, bounded in
 * count and bytes, and persisted as NDJSON in the data dir (`bus-log.ndjson`, 0600) so a client
 * can catch up across a restart and sequence numbers keep growing.
 *
 * The file is an NdjsonLogFile (batched appends, rewritten with only the kept events when it grows
 * past `logCompactFactor` times the bound). `load()` reads it back, skipping (with a warning) any
 * line that is not a valid event. `dispose()` writes what is still queued synchronously, so a clean
 * shutdown loses nothing.
 */
import { z } from 'zod';
import type { IDisposable } from '../../../common/lifecycle.ts';
import type { ILogger } from '../../logger.ts';
import { NdjsonLogFile } from '../../ndjsonLogFile.ts';
import { BusConstants } from './busConstants.ts';
import type { LogFill } from '../logFill.ts';

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
  /** null: kept in memory only. */
  readonly #file: NdjsonLogFile<BusEvent> | null;
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #entries: Entry[] = [];
  /** Index of the first kept entry in #entries (dropping from the front without shifting every time). */
  #head = 0;
  #bytes = 0;
  #lastSequence = 0;

  constructor(options: BusLogOptions) {
    const maxEvents = options.maxEvents ?? BusConstants.logMaxEvents;
    const maxBytes = options.maxBytes ?? BusConstants.logMaxBytes;
    this.#maxEvents = maxEvents;
    this.#maxBytes = maxBytes;
    this.#file =
      options.filePath === null
        ? null
        : new NdjsonLogFile<BusEvent>({
            filePath: options.filePath,
            logger: options.logger,
            name: 'bus log',
            schema: StoredEvent as z.ZodType<BusEvent>,
            sequenceOf: (event) => event.sequence,
            shouldCompact: (fileLines, fileBytes) => fileLines > maxEvents * BusConstants.logCompactFactor || fileBytes > maxBytes * BusConstants.logCompactFactor,
            keptLines: () => {
              const lines: string[] = [];
              for (let index = this.#head; index < this.#entries.length; index++) lines.push(this.#entries[index]!.line);
              return lines;
            },
          });
  }

  /** Read the persisted log (a missing file is an empty log). */
  async load(): Promise<void> {
    if (this.#file === null) return;
    const { entries } = await this.#file.read();
    for (const { value, line } of entries) {
      if (value.sequence <= this.#lastSequence) continue; // older than what this log already holds
      this.#keep({ event: value, line });
    }
    this.#trim();
  }

  /** The sequence of the newest event ever logged (0 when none). */
  get lastSequence(): number {
    return this.#lastSequence;
  }

  get size(): number {
    return this.#entries.length - this.#head;
  }

  get fill(): LogFill {
    const size = this.size;
    // Full by bytes: an entry of the average size kept now would push an older one out.
    const full = size >= this.#maxEvents || (size > 0 && this.#bytes + this.#bytes / size > this.#maxBytes);
    return { kept: size, capacity: this.#maxEvents, full };
  }

  /** Number, keep and persist a new event. */
  append(event: Omit<BusEvent, 'sequence'>): BusEvent {
    const stored: BusEvent = { sequence: this.#lastSequence + 1, ...event };
    const line = JSON.stringify(stored);
    this.#keep({ event: stored, line });
    this.#trim();
    this.#file?.append(line);
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
    await this.#file?.flush();
  }

  dispose(): void {
    this.#file?.dispose();
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
}
