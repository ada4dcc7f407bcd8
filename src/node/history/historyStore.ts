/**
 * Everything History reads and writes in switchboard.db, over one `DatabaseSync` connection.
 * Writers (the recorder, the indexer, retention, import) hand over whole batches; each batch is
 * one transaction. Readers get contract-shaped values. No method here knows about PTYs or timers.
 */
import { randomBytes } from 'node:crypto';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { Creator } from '../../common/api/contractTypes.ts';
import type { HistoryCommand, HistoryEvent, HistoryFilter, HistorySearchHit, HistorySession } from '../../common/api/historyContract.ts';
import { leadingContinuationLength } from '../../common/terminal/utf8Boundaries.ts';
import { HistoryConstants } from './historyConstants.ts';
import { EventKind, SearchSource } from './historySchema.ts';
import { buildSnippet, parseSearchQuery, type SearchTerm } from './searchQuery.ts';
import { plainText } from '../../common/terminal/ansiStrip.ts';
import { isProcessAlive } from '../processAlive.ts';

export interface NewSession {
  id: string;
  terminalId: string | null;
  name: string;
  cwd: string | null;
  file: string;
  args: string[];
  createdBy: Creator;
  startedAt: number;
  cols: number;
  rows: number;
  /** Offset of the first byte this session will record (a terminal recorded from the middle on). */
  firstOffset: number;
  source: 'recorded' | 'imported';
  /** An interactive shell: subject to the no-input rule (see historyRecorder.ts). */
  idleShell: boolean;
  live: boolean;
}

/** One event to store; `at` is ms since the session started. */
export type RecordedEvent =
  | { kind: 'output'; at: number; offset: number; data: Uint8Array }
  | { kind: 'resize'; at: number; offset: number; cols: number; rows: number }
  | { kind: 'input'; at: number; offset: number };

export interface RecordedCommand {
  commandLine: string;
  cwd: string | null;
  exitCode: number | null;
  startOffset: number;
  endOffset: number | null;
  startedAt: number;
  endedAt: number | null;
}

export interface SessionPatch {
  name?: string;
  cwd?: string | null;
  receivedInput?: boolean;
  endedAt?: number;
  exitCode?: number | null;
  signal?: string | null;
  live?: boolean;
}

/** What one batch writes for one session, in order: create it (first batch only), its events, commands, then the patch. */
export interface SessionWrites {
  id: string;
  create?: NewSession;
  events: RecordedEvent[];
  commands: RecordedCommand[];
  patch?: SessionPatch;
  /** Epoch ms of this batch: crash recovery ends a session that was live at its last batch. */
  writtenAt: number;
}

export interface BatchResult {
  /** Sessions that no longer exist (deleted meanwhile): their writes were dropped. */
  missing: string[];
  /** Sessions whose oldest output was dropped by the per-session cap in this batch. */
  truncated: string[];
}

export interface ListParams {
  limit?: number;
  before?: number;
  filter?: HistoryFilter;
}

export interface CommandsParams extends ListParams {
  sessionId?: string;
  query?: string;
}

export interface ReadResult {
  data: Buffer;
  offset: number;
  nextOffset: number;
  endOffset: number;
  truncated: boolean;
}

/** An output chunk as the indexer reads it. */
export interface StoredChunk {
  offset: number;
  at: number;
  data: Uint8Array;
}

interface SessionRow {
  key: number;
  id: string;
  terminal_id: string | null;
  name: string;
  cwd: string | null;
  file: string;
  args: string;
  creator_kind: Creator['kind'];
  creator_name: string;
  started_at: number;
  ended_at: number | null;
  exit_code: number | null;
  signal: string | null;
  cols: number;
  rows: number;
  received_input: number;
  byte_count: number;
  first_offset: number;
  end_offset: number;
  truncated: number;
  command_count: number;
  live: number;
  source: 'recorded' | 'imported';
  indexed_offset: number;
  interrupted: number;
}

export function newSessionId(now = Date.now()): string {
  return `s-${now.toString(36)}-${randomBytes(4).toString('hex')}`;
}

const sessionColumns =
  'key, id, terminal_id, name, cwd, file, args, creator_kind, creator_name, started_at, ended_at, exit_code, signal, cols, rows, received_input, byte_count, first_offset, end_offset, truncated, command_count, live, source, indexed_offset, interrupted';

export class HistoryStore {
  readonly db: DatabaseSync;
  readonly #keys: Map<string, number>;
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync, keys = new Map<string, number>()) {
    this.db = db;
    this.#keys = keys;
  }

  /**
   * The same store over another connection to the same file, sharing the cache of session keys (a
   * session deleted through either is gone for both). History records through its own connection.
   */
  onConnection(db: DatabaseSync): HistoryStore {
    return new HistoryStore(db, this.#keys);
  }

  /** A cached prepared statement. */
  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  /** Run `work` in one write transaction (BEGIN IMMEDIATE … COMMIT; rolled back if it throws). */
  transaction<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    let result: T;
    try {
      result = work();
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
    this.db.exec('COMMIT');
    return result;
  }

  // --- writing --------------------------------------------------------------------------------

  /** Write a batch of every session's pending events in one transaction. */
  applyBatch(writes: readonly SessionWrites[], maxSessionBytes: number): BatchResult {
    const result: BatchResult = { missing: [], truncated: [] };
    this.transaction(() => {
      for (const write of writes) {
        if (write.create) this.#insertSession(write.create);
        const key = this.#keyOf(write.id);
        if (key === undefined) {
          result.missing.push(write.id);
          continue;
        }
        let outputBytes = 0;
        let endOffset = -1;
        for (const event of write.events) {
          switch (event.kind) {
            case 'output':
              // Rows never exceed maxChunkBytes, whoever wrote the event: reads rely on it.
              for (let start = 0; start < event.data.byteLength; start += HistoryConstants.maxChunkBytes) {
                const data = event.data.subarray(start, start + HistoryConstants.maxChunkBytes);
                this.#sql('INSERT INTO events (session, kind, at, offset, data) VALUES (?, ?, ?, ?, ?)').run(key, EventKind.output, Math.round(event.at), event.offset + start, data);
              }
              outputBytes += event.data.byteLength;
              endOffset = event.offset + event.data.byteLength;
              break;
            case 'resize':
              this.#sql('INSERT INTO events (session, kind, at, offset, cols, rows) VALUES (?, ?, ?, ?, ?, ?)').run(key, EventKind.resize, Math.round(event.at), event.offset, event.cols, event.rows);
              break;
            case 'input':
              this.#sql('INSERT INTO events (session, kind, at, offset) VALUES (?, ?, ?, ?)').run(key, EventKind.input, Math.round(event.at), event.offset);
              break;
          }
        }
        if (outputBytes > 0) {
          this.#sql('UPDATE sessions SET byte_count = byte_count + ?, end_offset = max(end_offset, ?) WHERE key = ?').run(outputBytes, endOffset, key);
        }
        for (const command of write.commands) this.#insertCommand(key, command);
        if (write.patch) this.#patchSession(key, write.patch);
        this.#sql('UPDATE sessions SET last_event_at = ? WHERE key = ?').run(write.writtenAt, key);
        if (outputBytes > 0 && this.#enforceSessionCap(key, maxSessionBytes)) result.truncated.push(write.id);
      }
    });
    return result;
  }

  #insertSession(session: NewSession): void {
    const info = this.#sql(
      `INSERT INTO sessions (id, terminal_id, name, cwd, file, args, creator_kind, creator_name, started_at, cols, rows, first_offset, end_offset, indexed_offset, live, source, idle_shell, last_event_at, owner_pid)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      session.id,
      session.terminalId,
      session.name,
      session.cwd,
      session.file,
      JSON.stringify(session.args),
      session.createdBy.kind,
      session.createdBy.name,
      session.startedAt,
      session.cols,
      session.rows,
      session.firstOffset,
      session.firstOffset,
      session.firstOffset,
      session.live ? 1 : 0,
      session.source,
      session.idleShell ? 1 : 0,
      session.startedAt,
      process.pid,
    );
    this.#keys.set(session.id, Number(info.lastInsertRowid));
  }

  #insertCommand(key: number, command: RecordedCommand): void {
    const info = this.#sql(
      'INSERT INTO commands (session, command_line, cwd, exit_code, started_at, ended_at, start_offset, end_offset) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(key, command.commandLine, command.cwd, command.exitCode, command.startedAt, command.endedAt, command.startOffset, command.endOffset);
    this.#sql('UPDATE sessions SET command_count = command_count + 1 WHERE key = ?').run(key);
    if (command.commandLine.trim().length > 0) {
      this.#insertSearchBlock(key, SearchSource.command, command.startOffset, command.startOffset, command.startedAt, Number(info.lastInsertRowid), command.commandLine);
    }
  }

  #insertSearchBlock(key: number, source: number, offset: number, endOffset: number, at: number, commandId: number | null, text: string): void {
    const info = this.#sql('INSERT INTO search_blocks (session, source, offset, end_offset, at, command_id) VALUES (?, ?, ?, ?, ?, ?)').run(key, source, offset, endOffset, at, commandId);
    this.#sql('INSERT INTO search (rowid, text) VALUES (?, ?)').run(info.lastInsertRowid, text);
  }

  #patchSession(key: number, patch: SessionPatch): void {
    const sets: string[] = [];
    const values: SQLInputValue[] = [];
    const set = (column: string, value: SQLInputValue) => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (patch.name !== undefined) set('name', patch.name);
    if (patch.cwd !== undefined) set('cwd', patch.cwd);
    if (patch.receivedInput) set('received_input', 1);
    if (patch.endedAt !== undefined) set('ended_at', patch.endedAt);
    if (patch.exitCode !== undefined) set('exit_code', patch.exitCode);
    if (patch.signal !== undefined) set('signal', patch.signal);
    if (patch.live !== undefined) set('live', patch.live ? 1 : 0);
    if (sets.length === 0) return;
    this.db.prepare(`UPDATE sessions SET ${sets.join(', ')} WHERE key = ?`).run(...values, key);
  }

  /**
   * The per-session cap keeps the newest output: once a session stores more than `maxBytes`, its
   * oldest output (and the search blocks over it) is dropped down to `pruneToFraction` of the cap.
   * Resize markers stay, so replay from the first kept byte still knows the terminal's size.
   */
  #enforceSessionCap(key: number, maxBytes: number): boolean {
    const row = this.#sql('SELECT byte_count FROM sessions WHERE key = ?').get(key) as { byte_count: number };
    if (row.byte_count <= maxBytes) return false;
    const target = Math.floor(maxBytes * HistoryConstants.pruneToFraction);
    let remaining = row.byte_count;
    let cut: number | null = null;
    for (const chunk of this.#sql('SELECT offset, length(data) AS size FROM events WHERE session = ? AND kind = ? ORDER BY offset').iterate(key, EventKind.output) as Iterable<{ offset: number; size: number }>) {
      if (remaining <= target) {
        cut = chunk.offset;
        break;
      }
      remaining -= chunk.size;
    }
    if (cut === null) return false; // one chunk larger than the cap: keep it rather than nothing
    this.#sql('DELETE FROM events WHERE session = ? AND offset < ? AND kind != ?').run(key, cut, EventKind.resize);
    this.#deleteSearchBlocks('WHERE session = ? AND source = ? AND offset < ?', key, SearchSource.output, cut);
    this.#sql('UPDATE sessions SET byte_count = ?, first_offset = ?, truncated = 1, indexed_offset = max(indexed_offset, ?) WHERE key = ?').run(remaining, cut, cut, key);
    return true;
  }

  #deleteSearchBlocks(where: string, ...values: SQLInputValue[]): void {
    this.db.prepare(`DELETE FROM search WHERE rowid IN (SELECT id FROM search_blocks ${where})`).run(...values);
    this.db.prepare(`DELETE FROM search_blocks ${where}`).run(...values);
  }

  /** Add text blocks (the stripped text of output bytes [offset, endOffset)) to the full-text index and move the session's indexed offset, in one transaction. */
  indexBlocks(sessionId: string, blocks: ReadonlyArray<{ offset: number; endOffset: number; at: number; text: string }>, indexedOffset: number): void {
    this.transaction(() => {
      const key = this.#keyOf(sessionId);
      if (key === undefined) return;
      for (const block of blocks) this.#insertSearchBlock(key, SearchSource.output, block.offset, block.endOffset, block.at, null, block.text);
      this.#sql('UPDATE sessions SET indexed_offset = max(indexed_offset, ?) WHERE key = ?').run(indexedOffset, key);
    });
  }

  /** Delete sessions and everything recorded of them. Returns how many existed. */
  deleteSessions(ids: readonly string[]): number {
    return this.transaction(() => {
      let deleted = 0;
      for (const id of ids) {
        const key = this.#keyOf(id);
        if (key === undefined) continue;
        this.#deleteByKey(key);
        this.#keys.delete(id);
        deleted++;
      }
      return deleted;
    });
  }

  #deleteByKey(key: number): void {
    this.#sql('DELETE FROM events WHERE session = ?').run(key);
    this.#sql('DELETE FROM commands WHERE session = ?').run(key);
    this.#deleteSearchBlocks('WHERE session = ?', key);
    this.#sql('DELETE FROM sessions WHERE key = ?').run(key);
  }

  /**
   * After a crash, sessions still marked live ended at their last batch (marked `interrupted`:
   * that is where recording stopped, not where they ended): those whose recording
   * process is gone (another Switchboard on the same data dir, e.g. `switchboard serve` beside the
   * app, keeps its live sessions). Interactive shells that never got input nor ran a command are
   * deleted (the no-input rule) when `dropIdleShells`. Returns the ids it ended and deleted.
   */
  recoverAfterCrash(dropIdleShells: boolean): { ended: string[]; deleted: string[] } {
    return this.transaction(() => {
      const live = this.#sql('SELECT key, id, idle_shell, received_input, command_count, owner_pid FROM sessions WHERE live = 1').all() as Array<{
        key: number;
        id: string;
        idle_shell: number;
        received_input: number;
        command_count: number;
        owner_pid: number | null;
      }>;
      const ended: string[] = [];
      const deleted: string[] = [];
      for (const row of live) {
        if (row.owner_pid !== null && row.owner_pid !== process.pid && isProcessAlive(row.owner_pid)) continue;
        if (dropIdleShells && row.idle_shell === 1 && row.received_input === 0 && row.command_count === 0) {
          this.#deleteByKey(row.key);
          deleted.push(row.id);
        } else {
          this.#sql('UPDATE sessions SET live = 0, ended_at = coalesce(ended_at, last_event_at), interrupted = 1 WHERE key = ?').run(row.key);
          ended.push(row.id);
        }
      }
      return { ended, deleted };
    });
  }

  // --- retention ------------------------------------------------------------------------------

  /** Bytes the database uses (pages in use, not the free list): what the total cap limits. */
  usedBytes(): number {
    const pageSize = this.#pragma('page_size');
    return (this.#pragma('page_count') - this.#pragma('freelist_count')) * pageSize;
  }

  #pragma(name: string): number {
    const row = this.#sql(`PRAGMA ${name}`).get() as Record<string, number>;
    return Number(row[name]);
  }

  /** Ended sessions, oldest first (`coalesce(ended_at, started_at)`), for retention. */
  oldestEndedSessions(limit: number, endedBefore = Number.MAX_SAFE_INTEGER): Array<{ id: string; byteCount: number }> {
    const rows = this.#sql(
      'SELECT id, byte_count FROM sessions WHERE live = 0 AND coalesce(ended_at, started_at) < ? ORDER BY coalesce(ended_at, started_at), key LIMIT ?',
    ).all(endedBefore, limit) as Array<{ id: string; byte_count: number }>;
    return rows.map((row) => ({ id: row.id, byteCount: row.byte_count }));
  }

  /** Give up to `pages` free pages back to the file system. */
  vacuum(pages: number): void {
    this.db.exec(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
  }

  /** Copy the WAL into the database file now (PASSIVE: never waits for other connections). */
  checkpoint(): void {
    this.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  }

  // --- reading --------------------------------------------------------------------------------

  get(id: string): HistorySession | null {
    const row = this.#sql(`SELECT ${sessionColumns} FROM sessions WHERE id = ?`).get(id) as SessionRow | undefined;
    return row ? toSession(row) : null;
  }

  list(params: ListParams = {}): HistorySession[] {
    const where: string[] = [];
    const values: SQLInputValue[] = [];
    addFilter(params.filter, where, values, '');
    if (params.before !== undefined) {
      where.push('started_at < ?');
      values.push(params.before);
    }
    const rows = this.#sql(`SELECT ${sessionColumns} FROM sessions ${whereClause(where)} ORDER BY started_at DESC, key DESC LIMIT ?`)
      .all(...values, params.limit ?? HistoryConstants.listDefaultLimit) as unknown as SessionRow[];
    return rows.map(toSession);
  }

  /** Raw output from `offset` (default: the first stored byte), at most `limit` bytes; stops at a gap in the recording. */
  read(id: string, offset: number | undefined, limit: number): ReadResult | null {
    const session = this.#sql('SELECT key, first_offset, end_offset FROM sessions WHERE id = ?').get(id) as
      | { key: number; first_offset: number; end_offset: number }
      | undefined;
    if (!session) return null;
    let start = offset ?? session.first_offset;
    const truncated = start < session.first_offset;
    if (truncated) start = session.first_offset;
    const empty = (at: number): ReadResult => ({ data: Buffer.alloc(0), offset: at, nextOffset: at, endOffset: session.end_offset, truncated });
    if (start >= session.end_offset) return empty(Math.max(start, session.end_offset));
    const pieces: Buffer[] = [];
    let size = 0;
    let position = start;
    const containing = this.#sql('SELECT offset, data FROM events WHERE session = ? AND kind = ? AND offset <= ? ORDER BY offset DESC LIMIT 1').get(
      session.key,
      EventKind.output,
      start,
    ) as { offset: number; data: Uint8Array } | undefined;
    if (containing && containing.offset + containing.data.byteLength > start) {
      const piece = Buffer.from(containing.data.buffer, containing.data.byteOffset + (start - containing.offset), Math.min(limit, containing.offset + containing.data.byteLength - start));
      pieces.push(piece);
      size += piece.length;
      position = start + piece.length;
    }
    if (size < limit) {
      const rows = this.#sql('SELECT offset, data FROM events WHERE session = ? AND kind = ? AND offset >= ? ORDER BY offset').iterate(
        session.key,
        EventKind.output,
        position,
      ) as Iterable<{ offset: number; data: Uint8Array }>;
      for (const row of rows) {
        if (row.data.byteLength === 0) continue;
        if (row.offset !== position) {
          // A gap (recording was paused): return what precedes it; the next read starts after it.
          if (size > 0) break;
          start = position = row.offset;
        }
        const piece = Buffer.from(row.data.buffer, row.data.byteOffset, Math.min(row.data.byteLength, limit - size));
        pieces.push(piece);
        size += piece.length;
        position += piece.length;
        if (size >= limit) break;
      }
    }
    if (size === 0) return empty(start);
    return { data: Buffer.concat(pieces, size), offset: start, nextOffset: start + size, endOffset: session.end_offset, truncated };
  }

  /**
   * The last `maxBytes` (at most) of a session's stored output with the sizes it was written at, for
   * a "last screen": bytes a shell wrote for one width (readline's wrap at the margin, a redraw after
   * a resize) garble the screen when parsed at another, so the tail is replayed as it happened.
   */
  tail(id: string, maxBytes: number): RecordedTail {
    const key = this.#keyOf(id);
    const session = key === undefined ? undefined : (this.#sql('SELECT cols, rows FROM sessions WHERE key = ?').get(key) as { cols: number; rows: number } | undefined);
    if (key === undefined || !session) return { cols: 0, rows: 0, steps: [] };
    const pieces: Array<{ offset: number; data: Uint8Array }> = [];
    let size = 0;
    if (maxBytes > 0) {
      for (const row of this.#sql('SELECT offset, data FROM events WHERE session = ? AND kind = ? ORDER BY offset DESC').iterate(key, EventKind.output) as Iterable<{
        offset: number;
        data: Uint8Array;
      }>) {
        pieces.push(row);
        size += row.data.byteLength;
        if (size >= maxBytes) break;
      }
    }
    pieces.reverse();
    if (size > maxBytes) {
      const first = pieces[0]!;
      const cut = size - maxBytes;
      pieces[0] = { offset: first.offset + cut, data: first.data.subarray(cut) };
    }
    const start = pieces[0]?.offset ?? 0;
    const resizes = this.#sql('SELECT offset, cols, rows FROM events WHERE session = ? AND kind = ? ORDER BY offset, id').all(key, EventKind.resize) as Array<{
      offset: number;
      cols: number;
      rows: number;
    }>;
    let cols = session.cols;
    let rows = session.rows;
    let next = 0;
    for (; next < resizes.length && resizes[next]!.offset <= start; next++) ({ cols, rows } = resizes[next]!);
    const steps: RecordedTail['steps'] = [];
    for (const piece of pieces) {
      let at = 0;
      const end = piece.offset + piece.data.byteLength;
      for (; next < resizes.length && resizes[next]!.offset < end; next++) {
        const resize = resizes[next]!;
        const split = resize.offset - piece.offset;
        if (split > at) steps.push({ kind: 'output', data: piece.data.subarray(at, split) });
        steps.push({ kind: 'resize', cols: resize.cols, rows: resize.rows });
        at = Math.max(at, split);
      }
      if (at < piece.data.byteLength) steps.push({ kind: 'output', data: piece.data.subarray(at) });
    }
    for (; next < resizes.length; next++) steps.push({ kind: 'resize', cols: resizes[next]!.cols, rows: resizes[next]!.rows });
    return { cols, rows, steps };
  }

  /** The newest session that recorded this terminal, with its last size. */
  latestSessionOfTerminal(terminalId: string): { id: string; endedAt: number | null; cols: number; rows: number } | null {
    const row = this.#sql('SELECT key, id, ended_at, cols, rows FROM sessions WHERE terminal_id = ? ORDER BY started_at DESC, key DESC LIMIT 1').get(terminalId) as
      | { key: number; id: string; ended_at: number | null; cols: number; rows: number }
      | undefined;
    if (!row) return null;
    const resize = this.#sql('SELECT cols, rows FROM events WHERE session = ? AND kind = ? ORDER BY offset DESC, id DESC LIMIT 1').get(row.key, EventKind.resize) as
      | { cols: number; rows: number }
      | undefined;
    return { id: row.id, endedAt: row.ended_at, cols: resize?.cols ?? row.cols, rows: resize?.rows ?? row.rows };
  }

  /**
   * Recorded events in order after `afterSeq`: at most `limit`, and at most `maxBytes` of data
   * (always at least one event). `done`: nothing more is stored after them (a live session may
   * record more later).
   */
  events(id: string, afterSeq: number, limit: number, maxBytes: number): { events: HistoryEvent[]; done: boolean } | null {
    const key = this.#keyOf(id);
    if (key === undefined) return null;
    let rows: Iterable<EventRow>;
    const after = afterSeq >= 0 ? (this.#sql('SELECT offset FROM events WHERE id = ? AND session = ?').get(afterSeq, key) as { offset: number } | undefined) : undefined;
    if (after) {
      rows = this.#sql('SELECT id, kind, at, offset, data, cols, rows FROM events WHERE session = ? AND (offset, id) > (?, ?) ORDER BY offset, id').iterate(
        key,
        after.offset,
        afterSeq,
      ) as Iterable<EventRow>;
    } else {
      // No cursor, or its event was pruned by the per-session cap: from the first stored event.
      rows = this.#sql('SELECT id, kind, at, offset, data, cols, rows FROM events WHERE session = ? ORDER BY offset, id').iterate(key) as Iterable<EventRow>;
    }
    const events: HistoryEvent[] = [];
    let bytes = 0;
    let done = true;
    for (const row of rows) {
      if (events.length >= limit || (events.length > 0 && bytes + (row.data?.byteLength ?? 0) > maxBytes)) {
        done = false;
        break;
      }
      events.push(toEvent(row));
      bytes += row.data?.byteLength ?? 0;
    }
    return { events, done };
  }

  /** Every output chunk of a session in order, from the one holding `fromOffset` on (export, indexing). */
  *chunks(id: string, fromOffset = 0): Generator<StoredChunk> {
    const key = this.#keyOf(id);
    if (key === undefined) return;
    const holding = this.#sql('SELECT offset FROM events WHERE session = ? AND kind = ? AND offset <= ? ORDER BY offset DESC LIMIT 1').get(key, EventKind.output, fromOffset) as
      | { offset: number }
      | undefined;
    const rows = this.#sql('SELECT offset, at, data FROM events WHERE session = ? AND kind = ? AND offset >= ? ORDER BY offset').iterate(
      key,
      EventKind.output,
      holding?.offset ?? fromOffset,
    ) as Iterable<StoredChunk>;
    yield* rows;
  }

  /** Every event of a session in order (export). */
  *allEvents(id: string): Generator<HistoryEvent & { bytes?: Uint8Array }> {
    const key = this.#keyOf(id);
    if (key === undefined) return;
    for (const row of this.#sql('SELECT id, kind, at, offset, data, cols, rows FROM events WHERE session = ? ORDER BY offset, id').iterate(key) as Iterable<EventRow>) {
      const event = toEvent(row, false);
      yield row.data ? { ...event, bytes: row.data } : event;
    }
  }

  /** Sessions whose stored output is not fully indexed yet (the indexer's work list), oldest first. */
  sessionsToIndex(limit: number): Array<{ id: string; startedAt: number; indexedOffset: number; firstOffset: number; endOffset: number; live: boolean }> {
    const rows = this.#sql(
      'SELECT id, started_at, indexed_offset, first_offset, end_offset, live FROM sessions WHERE indexed_offset < end_offset ORDER BY key LIMIT ?',
    ).all(limit) as Array<{ id: string; started_at: number; indexed_offset: number; first_offset: number; end_offset: number; live: number }>;
    return rows.map((row) => ({
      id: row.id,
      startedAt: row.started_at,
      indexedOffset: row.indexed_offset,
      firstOffset: row.first_offset,
      endOffset: row.end_offset,
      live: row.live === 1,
    }));
  }

  commands(params: CommandsParams = {}): HistoryCommand[] {
    const where: string[] = [];
    const values: SQLInputValue[] = [];
    addFilter(params.filter, where, values, 's.');
    if (params.sessionId !== undefined) {
      where.push('s.id = ?');
      values.push(params.sessionId);
    }
    if (params.query !== undefined) {
      where.push("c.command_line LIKE ? ESCAPE '\\'");
      values.push(`%${escapeLike(params.query)}%`);
    }
    if (params.before !== undefined) {
      where.push('c.started_at < ?');
      values.push(params.before);
    }
    const rows = this.#sql(
        `SELECT c.id, s.id AS session_id, s.name AS session_name, c.command_line, c.cwd, c.exit_code, c.started_at, c.ended_at, c.start_offset, c.end_offset
         FROM commands c JOIN sessions s ON s.key = c.session ${whereClause(where)} ORDER BY c.started_at DESC, c.id DESC LIMIT ?`,
      )
      .all(...values, params.limit ?? HistoryConstants.commandsDefaultLimit) as unknown as CommandRow[];
    return rows.map(toCommand);
  }

  /** One command of a session, or null. */
  command(sessionId: string, commandId: number): HistoryCommand | null {
    const row = this.#sql(
      `SELECT c.id, s.id AS session_id, s.name AS session_name, c.command_line, c.cwd, c.exit_code, c.started_at, c.ended_at, c.start_offset, c.end_offset
       FROM commands c JOIN sessions s ON s.key = c.session WHERE c.id = ? AND s.id = ?`,
    ).get(commandId, sessionId) as CommandRow | undefined;
    return row ? toCommand(row) : null;
  }

  /**
   * Full-text search, newest first. The query is words as typed (see searchQuery.ts); a query
   * with no searchable word finds nothing.
   */
  search(query: string, limit: number, filter?: HistoryFilter): HistorySearchHit[] {
    const parsed = parseSearchQuery(query);
    if (parsed.match === null) return [];
    const where: string[] = ['search MATCH ?'];
    const values: SQLInputValue[] = [parsed.match];
    addFilter(filter, where, values, 's.');
    const rows = this.#sql(
        `SELECT b.id, b.session, b.source, b.offset, b.end_offset, b.at, b.command_id, c.command_line, s.id AS session_id, s.name AS session_name
         FROM search JOIN search_blocks b ON b.id = search.rowid JOIN sessions s ON s.key = b.session LEFT JOIN commands c ON c.id = b.command_id
         ${whereClause(where)} ORDER BY search.rowid DESC LIMIT ?`,
      )
      .all(...values, limit) as Array<{
      id: number;
      session: number;
      source: number;
      offset: number;
      end_offset: number;
      at: number;
      command_id: number | null;
      command_line: string | null;
      session_id: string;
      session_name: string;
    }>;
    // The text is not stored twice: a snippet is cut from the block's raw bytes, stripped again.
    const raw = this.#blocksRaw(rows.filter((row) => row.source === SearchSource.output).map((row) => row.id));
    return rows.map((row) => {
      const text = row.source === SearchSource.command ? (row.command_line ?? '') : snippetText(raw.get(row.id) ?? Buffer.alloc(0), parsed.terms);
      return {
        sessionId: row.session_id,
        sessionName: row.session_name,
        source: row.source === SearchSource.command ? 'command' : 'output',
        snippet: buildSnippet(text, parsed.terms, HistoryConstants.snippetTokens),
        offset: row.offset,
        commandId: row.command_id,
        at: row.at,
      };
    });
  }

  /**
   * The stored output bytes of search blocks (by id), gaps left out: one statement for all of
   * them (a statement per block cost more than the reading). No row is longer than
   * maxChunkBytes, so the rows a block needs start after its offset - maxChunkBytes; `substr`
   * hands over only the bytes wanted.
   */
  #blocksRaw(ids: number[]): Map<number, Buffer> {
    const raw = new Map<number, Buffer>();
    if (ids.length === 0) return raw;
    const rows = this.#sql(
      `SELECT b.id AS block, substr(e.data, max(1, b.offset - e.offset + 1), min(b.end_offset, e.offset + length(e.data)) - max(e.offset, b.offset)) AS part
       FROM search_blocks b JOIN events e ON e.session = b.session AND e.kind = ${EventKind.output} AND e.offset > b.offset - ${HistoryConstants.maxChunkBytes} AND e.offset < b.end_offset
       WHERE b.id IN (SELECT value FROM json_each(?)) ORDER BY b.id, e.offset`,
    ).all(JSON.stringify(ids)) as Array<{ block: number; part: Uint8Array | null }>;
    const parts = new Map<number, Uint8Array[]>();
    for (const row of rows) {
      if (!row.part || row.part.byteLength === 0) continue;
      const list = parts.get(row.block);
      if (list) list.push(row.part);
      else parts.set(row.block, [row.part]);
    }
    for (const [block, list] of parts) {
      const first = list[0]!;
      raw.set(block, list.length === 1 ? Buffer.from(first.buffer, first.byteOffset, first.byteLength) : Buffer.concat(list));
    }
    return raw;
  }

  #keyOf(id: string): number | undefined {
    const cached = this.#keys.get(id);
    if (cached !== undefined) return cached;
    const row = this.#sql('SELECT key FROM sessions WHERE id = ?').get(id) as { key: number } | undefined;
    if (row) this.#keys.set(id, row.key);
    return row?.key;
  }

  /** Forget cached ids (after rows were deleted behind this object's back, e.g. by another connection). */
  forgetCachedKeys(): void {
    this.#keys.clear();
  }
}

interface EventRow {
  id: number;
  kind: number;
  at: number;
  offset: number;
  data: Uint8Array | null;
  cols: number | null;
  rows: number | null;
}

interface CommandRow {
  id: number;
  session_id: string;
  session_name: string;
  command_line: string;
  cwd: string | null;
  exit_code: number | null;
  started_at: number;
  ended_at: number | null;
  start_offset: number;
  end_offset: number | null;
}

function toEvent(row: EventRow, encode = true): HistoryEvent {
  const base = { seq: row.id, at: row.at, offset: row.offset };
  if (row.kind === EventKind.resize) return { kind: 'resize', ...base, cols: row.cols ?? 0, rows: row.rows ?? 0 };
  const data = encode && row.data ? Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength).toString('base64') : '';
  return row.kind === EventKind.input ? { kind: 'input', ...base, data: '' } : { kind: 'output', ...base, data };
}

function toSession(row: SessionRow): HistorySession {
  return {
    id: row.id,
    terminalId: row.terminal_id,
    name: row.name,
    cwd: row.cwd,
    file: row.file,
    args: parseArgs(row.args),
    createdBy: { kind: row.creator_kind, name: row.creator_name },
    startedAt: row.started_at,
    endedAt: row.ended_at,
    exitCode: row.exit_code,
    signal: row.signal,
    cols: row.cols,
    rows: row.rows,
    receivedInput: row.received_input === 1,
    byteCount: row.byte_count,
    truncated: row.truncated === 1,
    firstOffset: row.first_offset,
    commandCount: row.command_count,
    live: row.live === 1,
    source: row.source,
    interrupted: row.interrupted === 1,
  };
}

function toCommand(row: CommandRow): HistoryCommand {
  return {
    id: row.id,
    sessionId: row.session_id,
    sessionName: row.session_name,
    commandLine: row.command_line,
    cwd: row.cwd,
    exitCode: row.exit_code,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    startOffset: row.start_offset,
    endOffset: row.end_offset,
  };
}

function parseArgs(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/** SQL conditions for the shared list/search/commands filter, on the sessions table aliased by `prefix`. */
function addFilter(filter: HistoryFilter | undefined, where: string[], values: SQLInputValue[], prefix: string): void {
  if (!filter) return;
  if (filter.from !== undefined) {
    where.push(`${prefix}started_at >= ?`);
    values.push(filter.from);
  }
  if (filter.to !== undefined) {
    where.push(`${prefix}started_at < ?`);
    values.push(filter.to);
  }
  if (filter.cwd !== undefined) {
    const folder = filter.cwd.length > 1 ? filter.cwd.replace(/\/+$/, '') : filter.cwd;
    where.push(`(${prefix}cwd = ? OR ${prefix}cwd LIKE ? ESCAPE '\\')`);
    values.push(folder, `${escapeLike(folder === '/' ? '' : folder)}/%`);
  }
  if (filter.creator !== undefined) {
    where.push(`(${prefix}creator_name = ? OR ${prefix}creator_kind = ?)`);
    values.push(filter.creator, filter.creator);
  }
  if (filter.exit === 'success') where.push(`(${prefix}live = 0 AND ${prefix}exit_code = 0 AND ${prefix}signal IS NULL)`);
  // SIGHUP is how closing a terminal ends its program: the person chose that, it did not fail
  // (History's view labels it "the terminal was closed", see historyFormat.ts). A program that
  // ignores SIGHUP is then ended by SIGTERM or SIGKILL, which do count.
  else if (filter.exit === 'failure') where.push(`(${prefix}live = 0 AND (${prefix}exit_code != 0 OR (${prefix}signal IS NOT NULL AND ${prefix}signal != 'SIGHUP')))`);
  else if (filter.exit === 'running') where.push(`${prefix}live = 1`);
}

/** Raw bytes on either side of a match that a snippet may need (its words are a few hundred bytes at most). */
const snippetWindowBytes = 768;

/**
 * The text a snippet is cut from: the block's raw bytes, decoded and stripped; only a window around
 * the first (ASCII, case-insensitive) occurrence of a query word when there is one, since decoding
 * and stripping the whole block for each of 50 hits is most of a search's time.
 */
function snippetText(raw: Buffer, terms: readonly SearchTerm[]): string {
  if (raw.length > 3 * snippetWindowBytes) {
    const first = firstOccurrence(raw, terms);
    if (first !== -1) {
      let start = Math.max(0, first - snippetWindowBytes);
      start += leadingContinuationLength(raw, start); // not inside a UTF-8 character
      raw = raw.subarray(start, Math.min(raw.length, first + 2 * snippetWindowBytes));
    }
  }
  return plainText(raw.toString('utf8'));
}

/**
 * Where the first query word (ASCII, any case) occurs in `raw`, or -1. The spellings output
 * mostly has (lower, Capitalized, UPPER) are looked up without copying the block; only when none
 * is there is a lowercased copy searched.
 */
function firstOccurrence(raw: Buffer, terms: readonly SearchTerm[]): number {
  const words = terms.map((term) => term.tokens[0]!).filter((word) => /^[\x00-\x7f]+$/.test(word));
  let first = -1;
  const consider = (at: number) => {
    if (at !== -1 && (first === -1 || at < first)) first = at;
  };
  for (const word of words) {
    for (const spelling of new Set([word, word[0]!.toUpperCase() + word.slice(1), word.toUpperCase()])) consider(raw.indexOf(spelling, 0, 'latin1'));
  }
  if (first !== -1 || words.length === 0) return first;
  const lower = Buffer.from(raw);
  for (let index = 0; index < lower.length; index++) {
    const byte = lower[index]!;
    if (byte >= 0x41 && byte <= 0x5a) lower[index] = byte + 0x20;
  }
  for (const word of words) consider(lower.indexOf(word, 0, 'latin1'));
  return first;
}

function whereClause(conditions: string[]): string {
  return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** A tail of recorded output: the size where it starts, then output and resizes in the order they happened. */
export interface RecordedTail {
  cols: number;
  rows: number;
  steps: Array<{ kind: 'output'; data: Uint8Array } | { kind: 'resize'; cols: number; rows: number }>;
}
