/**
 * What agents did to terminals through the control socket: create, send, exec, close, signal,
 * resize, rename. Bounded (`ControlConstants.auditEntries`, oldest dropped) and kept across
 * restarts in the data dir (`audit-log.ndjson`, 0600), so the Activity view still shows what
 * agents did before the app was restarted.
 *
 * The file is an NdjsonLogFile (batched appends, rewritten with only the kept entries once it holds
 * `auditFileCompactFactor` times the bound). `load()` reads it back through a schema, skipping
 * (with a warning) lines that are not valid entries; sequence numbers continue from the newest.
 * `dispose()` writes what is still queued synchronously, so a clean shutdown loses nothing. The
 * constructor does no I/O.
 */
import { z } from 'zod';
import { ControlConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { type ILogger, nullLogger } from '../logger.ts';
import { NdjsonLogFile, type NdjsonRead } from '../ndjsonLogFile.ts';
import type { LogFill } from './logFill.ts';

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
  /** null: kept in memory only. */
  readonly #file: NdjsonLogFile<AuditEntry> | null;
  readonly #logger: ILogger;
  readonly #terminalName: (terminalId: string) => string | undefined;
  readonly #entries: AuditEntry[] = [];
  #nextSeq = 1;
  #disposed = false;
  readonly #onDidRecord = new Emitter<AuditEntry>();
  readonly onDidRecord: Event<AuditEntry> = this.#onDidRecord.event;

  constructor(options: AuditLogOptions = {}) {
    const capacity = options.capacity ?? ControlConstants.auditEntries;
    this.#capacity = capacity;
    this.#logger = options.logger ?? nullLogger;
    this.#terminalName = options.terminalName ?? (() => undefined);
    this.#file = options.filePath
      ? new NdjsonLogFile<AuditEntry>({
          filePath: options.filePath,
          logger: this.#logger,
          name: 'audit log',
          schema: StoredAuditEntry,
          sequenceOf: (entry) => entry.seq,
          shouldCompact: (fileLines) => fileLines > capacity * ControlConstants.auditFileCompactFactor,
          keptLines: () => this.#entries.map((entry) => JSON.stringify(entry)),
        })
      : null;
  }

  get fill(): LogFill {
    return { kept: this.#entries.length, capacity: this.#capacity, full: this.#entries.length >= this.#capacity };
  }

  /**
   * Read the persisted entries, before anything is recorded (sequence numbers continue from them).
   * A missing file is an empty log; an unreadable one is logged and left alone.
   */
  async load(): Promise<void> {
    if (this.#entries.length > 0) throw new Error('AuditLog.load() must come before the first record()');
    if (this.#file === null) return;
    let read: NdjsonRead<AuditEntry>;
    try {
      read = await this.#file.read();
    } catch (error) {
      this.#logger.warn('audit log: cannot read it; starting empty', { file: this.#file.filePath, error });
      return;
    }
    for (const { value } of read.entries) this.#entries.push(value);
    this.#nextSeq = (this.#entries.at(-1)?.seq ?? 0) + 1;
    this.#trim();
    // Unreadable lines are not carried along forever.
    if (read.skipped > 0) this.#file.requestRewrite();
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
    this.#file?.append(JSON.stringify(full));
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
    if (changed) this.#file?.requestRewrite();
  }

  /** Wait until everything recorded so far is on disk (tests, shutdown). */
  async flush(): Promise<void> {
    await this.#file?.flush();
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#file?.dispose();
    this.#onDidRecord.dispose();
  }

  #trim(): void {
    if (this.#entries.length > this.#capacity) this.#entries.splice(0, this.#entries.length - this.#capacity);
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
