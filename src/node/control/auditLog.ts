/**
 * What agents did to terminals through the control socket: create, send, exec, close, signal,
 * resize, rename. Bounded (`ControlConstants.auditEntries`, oldest dropped) and kept across
 * restarts in the data dir (`audit-log.ndjson`, 0600), so the Activity view still shows what
 * agents did before the app was restarted.
 *
 * The file is NDJSON, appended in batches (one write per turn) on one ordered chain, and rewritten
 * with only the kept entries once it holds `auditFileCompactFactor` times the bound. `load()` reads
 * it back through a schema, skipping (with a warning) lines that are not valid entries; sequence
 * numbers continue from the newest. `dispose()` writes what is still queued synchronously, so a
 * clean shutdown loses nothing. The constructor does no I/O.
 */
import { appendFileSync, chmodSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ControlConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { type ILogger, nullLogger } from '../logger.ts';
import { PRIVATE_FILE_MODE, writePrivateFileAtomic } from '../paths.ts';

export interface AuditEntry {
  seq: number;
  /** Epoch ms. */
  at: number;
  /** The client's name (`clientName`), or "socket client". */
  peer: string;
  cmd: string;
  terminalId: string;
  /** The terminal's name when the entry was recorded: entries outlive their terminals (and restarts). */
  terminalName: string | null;
  /** One line for people: what was typed, which signal, the new size… */
  summary: string;
}

export interface AuditQuery {
  limit?: number | undefined;
  peer?: string | undefined;
  terminalId?: string | undefined;
}

/** Longest summary kept; a 1 MiB `send` is not worth keeping whole in an audit line. */
const maxSummaryChars = 200;

/** One line of `audit-log.ndjson`. Bounds are generous: they only keep a damaged file from costing memory. */
const StoredAuditEntry = z.object({
  seq: z.number().int().positive(),
  at: z.number().finite(),
  peer: z.string().max(1000),
  cmd: z.string().min(1).max(200),
  terminalId: z.string().max(200),
  terminalName: z.string().max(1000).nullable().default(null),
  summary: z.string().max(4 * maxSummaryChars),
});

export const auditLogFileName = 'audit-log.ndjson';

export interface AuditLogOptions {
  /** null or absent: kept in memory only. */
  filePath?: string | null;
  logger?: ILogger;
  capacity?: number;
  /** A terminal's name now, stored with each entry. */
  terminalName?: (terminalId: string) => string | undefined;
}

export class AuditLog implements IDisposable {
  readonly #capacity: number;
  readonly #filePath: string | null;
  readonly #logger: ILogger;
  readonly #terminalName: (terminalId: string) => string | undefined;
  readonly #entries: AuditEntry[] = [];
  #nextSeq = 1;
  /** Lines in the file, to know when to rewrite it with only the kept entries. */
  #fileLines = 0;
  #queued: string[] = [];
  #rewrite = false;
  #flushScheduled = false;
  #writing: Promise<void> = Promise.resolve();
  #disposed = false;
  readonly #onDidRecord = new Emitter<AuditEntry>();
  readonly onDidRecord: Event<AuditEntry> = this.#onDidRecord.event;

  constructor(options: AuditLogOptions = {}) {
    this.#capacity = options.capacity ?? ControlConstants.auditEntries;
    this.#filePath = options.filePath ?? null;
    this.#logger = options.logger ?? nullLogger;
    this.#terminalName = options.terminalName ?? (() => undefined);
  }

  /**
   * Read the persisted entries, before anything is recorded (sequence numbers continue from them).
   * A missing file is an empty log; an unreadable one is logged and left alone.
   */
  async load(): Promise<void> {
    if (this.#entries.length > 0) throw new Error('AuditLog.load() must come before the first record()');
    if (this.#filePath === null) return;
    let text: string;
    try {
      text = await readFile(this.#filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#logger.warn('audit log: cannot read it; starting empty', { file: this.#filePath, error });
      return;
    }
    const loaded: AuditEntry[] = [];
    let skipped = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      const parsed = StoredAuditEntry.safeParse(value);
      if (parsed.success) loaded.push(parsed.data);
      else skipped++;
    }
    if (skipped > 0) this.#logger.warn('audit log: skipped unreadable lines', { file: this.#filePath, skipped });
    // The final synchronous write at shutdown may land before an async one still in flight: order by seq.
    loaded.sort((a, b) => a.seq - b.seq);
    for (const entry of loaded) {
      if (entry.seq <= (this.#entries.at(-1)?.seq ?? 0)) continue; // a duplicate
      this.#entries.push(entry);
    }
    this.#fileLines = loaded.length + skipped;
    this.#nextSeq = (this.#entries.at(-1)?.seq ?? 0) + 1;
    this.#trim();
    // Unreadable lines are not carried along forever.
    if (skipped > 0) this.#scheduleRewrite();
  }

  record(entry: { peer: string; cmd: string; terminalId: string; summary: string; at?: number }): AuditEntry {
    const full: AuditEntry = {
      seq: this.#nextSeq++,
      at: entry.at ?? Date.now(),
      peer: entry.peer,
      cmd: entry.cmd,
      terminalId: entry.terminalId,
      terminalName: (entry.terminalId && this.#terminalName(entry.terminalId)) || null,
      summary: summarize(entry.summary),
    };
    this.#entries.push(full);
    this.#trim();
    if (this.#filePath !== null && !this.#disposed) {
      this.#queued.push(JSON.stringify(full) + '\n');
      this.#fileLines++;
      if (this.#fileLines > this.#capacity * ControlConstants.auditFileCompactFactor) this.#rewrite = true;
      this.#scheduleFlush();
    }
    this.#onDidRecord.fire(full);
    return full;
  }

  /** The newest matching entries (at most `limit`), oldest first. */
  query(query: AuditQuery = {}): AuditEntry[] {
    const limit = query.limit ?? 100;
    const result: AuditEntry[] = [];
    for (let index = this.#entries.length - 1; index >= 0 && result.length < limit; index--) {
      const entry = this.#entries[index]!;
      if (query.peer !== undefined && entry.peer !== query.peer) continue;
      if (query.terminalId !== undefined && entry.terminalId !== query.terminalId) continue;
      result.push(entry);
    }
    return result.reverse();
  }

  /**
   * Panes restored after a restart are new terminals with new ids (old id → new id): what agents
   * did to a pane before the restart stays attached to it, so the Activity view's terminal filter
   * and its link lead to the pane as it is now.
   */
  followRestoredTerminals(newIds: ReadonlyMap<string, string>): void {
    let changed = false;
    for (const entry of this.#entries) {
      const id = newIds.get(entry.terminalId);
      if (id === undefined) continue;
      entry.terminalId = id;
      changed = true;
    }
    if (changed) this.#scheduleRewrite();
  }

  /** Wait until everything recorded so far is on disk (tests, shutdown). */
  async flush(): Promise<void> {
    this.#flushScheduled = false;
    this.#writing = this.#writing.then(() => this.#writeQueued());
    await this.#writing;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#flushScheduled = false;
    // What the async chain has not written yet goes out now, synchronously: the process may be exiting.
    const rest = this.#queued.join('');
    this.#queued = [];
    if (this.#filePath !== null && rest.length > 0) {
      try {
        appendFileSync(this.#filePath, rest, { mode: PRIVATE_FILE_MODE });
        chmodSync(this.#filePath, PRIVATE_FILE_MODE);
      } catch (error) {
        this.#logger.error('audit log: final write failed', { file: this.#filePath, error });
      }
    }
    this.#onDidRecord.dispose();
  }

  #trim(): void {
    if (this.#entries.length > this.#capacity) this.#entries.splice(0, this.#entries.length - this.#capacity);
  }

  #scheduleRewrite(): void {
    if (this.#filePath === null || this.#disposed) return;
    this.#rewrite = true;
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // Every entry of this turn in one write.
    setImmediate(() => {
      if (!this.#flushScheduled) return;
      this.#flushScheduled = false;
      this.#writing = this.#writing.then(() => this.#writeQueued());
    });
  }

  async #writeQueued(): Promise<void> {
    const filePath = this.#filePath;
    if (filePath === null || (this.#queued.length === 0 && !this.#rewrite)) return;
    const appended = this.#queued.join('');
    this.#queued = [];
    try {
      if (this.#rewrite) {
        this.#rewrite = false;
        // The kept entries include everything queued.
        const text = this.#entries.map((entry) => JSON.stringify(entry) + '\n').join('');
        this.#fileLines = this.#entries.length;
        await writePrivateFileAtomic(filePath, text);
      } else {
        await appendFile(filePath, appended, { mode: PRIVATE_FILE_MODE });
      }
    } catch (error) {
      this.#logger.error('audit log: write failed', { file: filePath, error });
    }
  }
}

/** Control chars made visible (\r, \n, \x1b…) and the length capped, so a summary is one readable line. */
export function summarize(text: string): string {
  const visible = text.replace(/[\x00-\x1f\x7f]/g, (char) => {
    if (char === '\r') return '\\r';
    if (char === '\n') return '\\n';
    if (char === '\t') return '\\t';
    return '\\x' + char.charCodeAt(0).toString(16).padStart(2, '0');
  });
  return visible.length > maxSummaryChars ? visible.substring(0, maxSummaryChars - 1) + '…' : visible;
}
