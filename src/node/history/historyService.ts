/**
 * History: every terminal session recorded into `$SWITCHBOARD_HOME/switchboard.db`, searchable,
 * replayable, exportable. This is the one object the Hub, the control socket, the CLI and
 * restore-after-restart talk to; it owns the database connection, the recorder (live terminals →
 * store), the indexer (stored output → full-text index) and retention (caps on size and age).
 *
 * API for in-process callers (all synchronous reads on the Hub's thread; each is one indexed query):
 *   status()                                 HistoryStatus (state, reason, stored bytes, cap, movedAside, interrupted)
 *   list / get / read / events / commands / search   as the `history.*` contract methods
 *   delete(ids) / exportSession / importCast / reference / setRecording
 *   sessionOfTerminal(terminalId)            the session recording a live terminal now
 *   latestSessionOfTerminal(terminalId)      newest session of a terminal id (live or ended) + last size
 *   tail(sessionId, maxBytes)                the last bytes of its output with their sizes (restore's "last screen")
 *   flush()                                  write pending output now (before reading what was just printed)
 * Reads return null / empty results while the database is unavailable (see status().reason).
 */
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Settings } from '../../common/api/contract.ts';
import type { Creator } from '../../common/api/contractTypes.ts';
import { ApiError } from '../../common/api/errors.ts';
import type {
  HistoryCommand,
  HistoryEvent,
  HistoryFilter,
  HistoryReferenceItem,
  HistoryReferenceResult,
  HistorySearchHit,
  HistorySession,
  HistoryStatus,
} from '../../common/api/historyContract.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import { exportCast, exportFileName, parseCast, PlainTextExporter } from './asciicast.ts';
import { HistoryConstants } from './historyConstants.ts';
import { describe, openHistoryDatabase, openRecordingConnection } from './historyDatabase.ts';
import { HistoryIndexer } from './historyIndexer.ts';
import { type CommittedBatch, HistoryRecorder } from './historyRecorder.ts';
import { RecordingWriter } from './historyRecordingWriter.ts';
import { type CheckpointOutcome, WalCheckpointer } from './walCheckpointer.ts';
import { referencePointer, removeReferenceFiles, type ResolvedReference, typePointer, writeReferenceFiles } from './references.ts';
import { type CommandsParams, HistoryStore, type ListParams, newSessionId, type ReadResult, type RecordedEvent, type RecordedTail, type SessionWrites } from './historyStore.ts';

export interface HistoryServiceOptions {
  dataDir: string;
  ptyHost: PtyHost;
  /** The user's settings now (History reads its switches and caps from them). */
  settings: () => Settings;
  logger: ILogger;
  /** The WAL checkpoint worker script, for bundles (`walCheckpointWorker.cjs`); null: none. Default: the source file. */
  checkpointWorkerPath?: string | null;
  /** The recording worker script, for bundles (`recordingWorker.cjs`); null: none (recording writes on the Hub's thread). Default: the source file. */
  recordingWorkerPath?: string | null;
  now?: () => number;
}

export class HistoryService implements IDisposable {
  readonly #options: HistoryServiceOptions;
  readonly #logger: ILogger;
  readonly #now: () => number;
  #store: HistoryStore | null = null;
  /** The recorder's connection (openRecordingConnection); `#store` when it could not be opened. */
  #recordingStore: HistoryStore | null = null;
  #recorder: HistoryRecorder | null = null;
  #writer: RecordingWriter | null = null;
  #indexer: HistoryIndexer | null = null;
  #checkpointer: WalCheckpointer | null = null;
  #state: HistoryStatus['state'] = 'disabled';
  #reason: string | null = null;
  #movedAside: string | null = null;
  #interrupted: HistoryStatus['interrupted'] = null;
  #retryTimer: NodeJS.Timeout | undefined;
  #retentionTimer: NodeJS.Timeout | undefined;
  #retentionRunning = false;
  /** Set while whenCaughtUp runs its read: what it waited for is committed, the read need not block for it. */
  #readingCaughtUp = false;
  #disposed = false;
  /**
   * Terminals "don't record" was chosen for, until they are closed. Kept here, not only in the
   * recorder: the recorder forgets a terminal once it has ended (its pane may stay on screen and be
   * restored), and there is none while the database cannot be opened — the choice must hold anyway.
   */
  readonly #notRecorded = new Set<string>();

  readonly #onDidChange = new Emitter<{ sessionIds: string[] }>();
  /** Sessions were added, ended, pruned, deleted or imported. */
  readonly onDidChange: Event<{ sessionIds: string[] }> = this.#onDidChange.event;
  readonly #onDidChangeStatus = new Emitter<HistoryStatus>();
  readonly onDidChangeStatus: Event<HistoryStatus> = this.#onDidChangeStatus.event;
  readonly #onDidChangeRecording = new Emitter<{ terminalId: string; record: boolean }>();
  readonly onDidChangeRecording: Event<{ terminalId: string; record: boolean }> = this.#onDidChangeRecording.event;
  readonly #onDidCommit = new Emitter<CommittedBatch>();
  /** A batch of recorded output was committed (for tests and tools that wait for durability). */
  readonly onDidCommit: Event<CommittedBatch> = this.#onDidCommit.event;

  constructor(options: HistoryServiceOptions) {
    this.#options = options;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  /** The open connection, for tools and tests (direct queries, a size limit); null while unavailable. */
  get database(): DatabaseSync | null {
    return this.#store?.db ?? null;
  }

  /** The connection recorded output is written through (tests that limit its size). */
  get recordingDatabase(): DatabaseSync | null {
    return this.#recordingStore?.db ?? null;
  }

  get databasePath(): string {
    return join(this.#options.dataDir, HistoryConstants.databaseFileName);
  }

  /** Open the database (creating, migrating or replacing it) and start recording. Never throws: a failure becomes the status. */
  start(): void {
    if (this.#disposed || this.#store) return;
    const outcome = openHistoryDatabase({ path: this.databasePath, logger: this.#logger, now: this.#now });
    this.#movedAside = outcome.movedAside;
    if (!outcome.ok) {
      this.#setStatus('paused', outcome.reason);
      return;
    }
    const store = (this.#store = new HistoryStore(outcome.db));
    const settings = this.#options.settings();
    try {
      const recovered = store.recoverAfterCrash(!settings.historyRecordIdleSessions);
      if (recovered.ended.length > 0) {
        const lastRecordedAt = Math.max(...recovered.ended.map((id) => store.get(id)?.endedAt ?? 0));
        this.#interrupted = { sessions: recovered.ended.length, lastRecordedAt };
        this.#logger.warn('the previous run stopped without closing its sessions (a crash or kill); they end where recording stopped, marked interrupted', {
          sessions: recovered.ended.length,
          lastRecordedAt: new Date(lastRecordedAt).toISOString(),
          dropped: recovered.deleted.length,
        });
      } else if (recovered.deleted.length > 0) {
        this.#logger.info('idle sessions of the previous run dropped', { dropped: recovered.deleted.length });
      }
    } catch (error) {
      this.#logger.warn('cannot close the previous run\'s sessions', { error: describe(error) });
    }
    let recordingStore = store;
    try {
      recordingStore = store.onConnection(openRecordingConnection(this.databasePath));
    } catch (error) {
      this.#logger.warn('cannot open a recording connection; recording shares the main one', { error: describe(error) });
    }
    this.#recordingStore = recordingStore;
    const checkpointer = (this.#checkpointer = new WalCheckpointer({
      connections: recordingStore === store ? [store.db] : [store.db, recordingStore.db],
      databasePath: this.databasePath,
      logger: this.#logger.child('checkpoint'),
      ...(this.#options.checkpointWorkerPath !== undefined ? { workerPath: this.#options.checkpointWorkerPath } : {}),
    }));
    const writer = (this.#writer = new RecordingWriter({
      databasePath: this.databasePath,
      commitInline: (writes) => this.#commit(writes),
      indexInline: (sessionId, blocks, indexedOffset) => store.indexBlocks(sessionId, blocks, indexedOffset),
      maxSessionBytes: () => this.#maxSessionBytes(),
      checkpointsInWorker: () => checkpointer.active,
      logger: this.#logger.child('recorder'),
      ...(this.#options.recordingWorkerPath !== undefined ? { workerPath: this.#options.recordingWorkerPath } : {}),
    }));
    this.#indexer = new HistoryIndexer({ store, writer, logger: this.#logger.child('index'), onDidWrite: () => checkpointer.noteCommitted(0) });
    const recorder = (this.#recorder = new HistoryRecorder({
      ptyHost: this.#options.ptyHost,
      writer,
      deleteSessions: (ids) => this.#deleteSessions(ids),
      dropIdleSessions: () => !this.#options.settings().historyRecordIdleSessions,
      logger: this.#logger.child('recorder'),
      now: this.#now,
    }));
    recorder.onDidCommit((batch) => {
      this.#indexer?.noteWritten();
      checkpointer.noteCommitted(batch.sessions.reduce((sum, session) => sum + session.bytes, 0));
      this.#onDidCommit.fire(batch);
    });
    recorder.onDidChangeSessions((ids) => this.#onDidChange.fire({ sessionIds: ids }));
    recorder.onDidFail((reason) => this.#paused(reason));
    recorder.start(settings.historyEnabled);
    this.#setStatus(settings.historyEnabled ? 'recording' : 'disabled', null);
    // Sessions recorded before an upgrade, or left unindexed by a crash, get indexed now.
    this.#indexer.noteWritten();
    this.#scheduleRetention(0);
  }

  /** The settings changed: History on/off, caps. */
  applySettings(settings: Settings): void {
    if (!this.#recorder) return;
    this.#recorder.setEnabled(settings.historyEnabled);
    if (this.#state !== 'paused') this.#setStatus(settings.historyEnabled ? 'recording' : 'disabled', null);
    this.#scheduleRetention(0);
  }

  status(): HistoryStatus {
    let storedBytes = 0;
    try {
      storedBytes = this.#store?.usedBytes() ?? 0;
    } catch {
      // A broken database has no size to report; the reason says why.
    }
    return {
      state: this.#state,
      reason: this.#reason,
      storedBytes,
      capBytes: this.#options.settings().historyMaxTotalMiB * HistoryConstants.bytesPerMiB,
      movedAside: this.#movedAside,
      interrupted: this.#interrupted,
      notRecorded: this.#openNotRecorded(),
    };
  }

  // --- reading --------------------------------------------------------------------------------
  // Reads first write what the recorder holds (at most one coalescing window of output), so a
  // caller sees everything a terminal printed before the call.

  list(params: ListParams = {}): HistorySession[] {
    this.#upToDate();
    return this.#store?.list(params) ?? [];
  }

  get(id: string): HistorySession | null {
    this.#upToDate();
    return this.#store?.get(id) ?? null;
  }

  /** Raw output bytes from `offset`; null for an unknown session. */
  read(id: string, offset?: number, limit: number = HistoryConstants.readDefaultBytes): ReadResult | null {
    this.#upToDate();
    return this.#store?.read(id, offset, limit) ?? null;
  }

  events(id: string, afterSeq = -1, limit: number = HistoryConstants.eventsDefaultLimit): { events: HistoryEvent[]; done: boolean } | null {
    this.#upToDate();
    return this.#store?.events(id, afterSeq, limit, HistoryConstants.eventsMaxBytes) ?? null;
  }

  commands(params: CommandsParams = {}): HistoryCommand[] {
    this.#upToDate();
    return this.#store?.commands(params) ?? [];
  }

  search(query: string, options: { limit?: number; filter?: HistoryFilter } = {}): HistorySearchHit[] {
    return this.#store?.search(query, options.limit ?? HistoryConstants.searchDefaultLimit, options.filter) ?? [];
  }

  sessionOfTerminal(terminalId: string): string | null {
    return this.#recorder?.sessionOfTerminal(terminalId) ?? null;
  }

  isRecording(terminalId: string): boolean {
    return this.#recorder?.isRecording(terminalId) ?? false;
  }

  /** Whether "don't record" was chosen for this terminal, running or ended (kept in the window state across restarts). */
  isExcluded(terminalId: string): boolean {
    return this.#notRecorded.has(terminalId) && this.#options.ptyHost.get(terminalId) !== undefined;
  }

  latestSessionOfTerminal(terminalId: string): { id: string; endedAt: number | null; cols: number; rows: number } | null {
    return this.#store?.latestSessionOfTerminal(terminalId) ?? null;
  }

  tail(sessionId: string, maxBytes: number): RecordedTail {
    this.#upToDate();
    return this.#store?.tail(sessionId, maxBytes) ?? { cols: 0, rows: 0, steps: [] };
  }

  /** The terminals marked "don't record" that are still open (closed ones are forgotten here). */
  #openNotRecorded(): string[] {
    for (const id of this.#notRecorded) if (!this.#options.ptyHost.get(id)) this.#notRecorded.delete(id);
    return [...this.#notRecorded];
  }

  #upToDate(): void {
    if (!this.#readingCaughtUp) this.#recorder?.flush();
  }

  /**
   * `read` (a read of this service) once everything printed before the call is committed — as
   * the reads do by themselves, but waiting for the recording worker without holding up the Hub's
   * thread meanwhile (the reads alone block it until the worker has committed: up to ~100 ms
   * behind floods, and every client's request waited with it). For clients' reads.
   */
  async whenCaughtUp<T>(read: () => T): Promise<T> {
    await this.#recorder?.caughtUp();
    this.#readingCaughtUp = true;
    try {
      return read();
    } finally {
      this.#readingCaughtUp = false;
    }
  }

  /** Write what is pending now. False when the write failed (recording is paused). */
  flush(): boolean {
    return this.#recorder?.flush() ?? true;
  }

  /**
   * Copy the WAL into the database file now, in the checkpoint worker (tests, benchmarks); with
   * `shrinkWal`, also give a large WAL file's space back, as the checkpoint once output is quiet
   * does. Rejects when there is no worker (the connection then checkpoints by itself) or the
   * checkpoint failed.
   */
  checkpointNow(options: { shrinkWal?: boolean } = {}): Promise<CheckpointOutcome> {
    if (!this.#checkpointer) return Promise.reject(new Error('History is not open'));
    return this.#checkpointer.checkpointNow(options);
  }

  /** Whether WAL checkpoints run in the worker thread (false: on the Hub's connection). */
  /** Whether recording transactions run in the recording worker (false before the first batch and without it). */
  get recordsInWorker(): boolean {
    return this.#writer?.inWorker ?? false;
  }

  get checkpointsInWorker(): boolean {
    return this.#checkpointer?.active ?? false;
  }

  /** Index everything stored now (tests, benchmarks, tools that search right after recording). */
  indexNow(): void {
    this.#indexer?.indexAll();
  }

  // --- changing -------------------------------------------------------------------------------

  delete(ids: readonly string[]): number {
    this.#requireStore();
    const deleted = this.#deleteSessions(ids);
    this.#checkpointer?.noteCommitted(0);
    if (deleted > 0) this.#onDidChange.fire({ sessionIds: [...ids] });
    return deleted;
  }

  setRecording(terminalId: string, record: boolean): void {
    const recorder = this.#recorder;
    const terminal = this.#options.ptyHost.get(terminalId);
    if (!terminal) throw new ApiError('NOT_FOUND', `no terminal with id ${terminalId}`);
    // Its recording ended with it: there is nothing to start or stop (History can delete the session).
    if (terminal.exitStatus) throw new ApiError('INVALID_PARAMS', `terminal ${terminalId} has ended; its session in History is complete (delete it there)`);
    if (this.#notRecorded.has(terminalId) === !record) return;
    // The recorder first: should it throw, the choice is not reported as made.
    recorder?.setRecording(terminalId, record);
    if (record) this.#notRecorded.delete(terminalId);
    else this.#notRecorded.add(terminalId);
    this.#onDidChangeRecording.fire({ terminalId, record });
  }

  exportSession(id: string, format: 'cast' | 'text'): { fileName: string; contents: string } {
    const store = this.#requireStore();
    this.#upToDate();
    const session = this.#requireSession(id);
    if (format === 'cast') return { fileName: exportFileName(session, 'cast'), contents: exportCast(session, store.allEvents(id)) };
    return { fileName: exportFileName(session, 'txt'), contents: this.#plainText(id) };
  }

  /** Import an asciicast v2 file as a session (created by `createdBy`). Throws INVALID_PARAMS naming the bad line. */
  importCast(fileName: string, contents: string, createdBy: Creator): HistorySession {
    const store = this.#requireStore();
    const cast = parseCast(contents);
    const startedAt = cast.header.timestamp !== undefined ? Math.round(cast.header.timestamp * 1000) : this.#now();
    const id = newSessionId(this.#now());
    const events: RecordedEvent[] = [];
    let offset = 0;
    let pending: { at: number; offset: number; parts: Buffer[]; size: number } | null = null;
    const closeChunk = () => {
      if (pending && pending.size > 0) events.push({ kind: 'output', at: pending.at, offset: pending.offset, data: Buffer.concat(pending.parts, pending.size) });
      pending = null;
    };
    let lastAt = 0;
    for (const event of cast.events) {
      const at = Math.round(event.time * 1000);
      lastAt = at;
      if (event.kind === 'output') {
        const bytes = Buffer.from(event.data, 'utf8');
        // Like recording: events within one coalescing window become one chunk.
        if (pending && (at - pending.at >= HistoryConstants.coalesceMs || pending.size + bytes.length > HistoryConstants.maxChunkBytes)) closeChunk();
        pending ??= { at, offset, parts: [], size: 0 };
        pending.parts.push(bytes);
        pending.size += bytes.length;
        offset += bytes.length;
      } else {
        closeChunk();
        events.push(event.kind === 'resize' ? { kind: 'resize', at, offset, cols: event.cols, rows: event.rows } : { kind: 'input', at, offset });
      }
    }
    closeChunk();
    const env = cast.header.env ?? {};
    const write: SessionWrites = {
      id,
      create: {
        id,
        terminalId: null,
        name: cast.header.title?.trim() || fileName.replace(/\.cast$/i, '').slice(0, 200) || 'imported',
        cwd: null,
        file: cast.header.command ?? env.SHELL ?? '',
        args: [],
        createdBy,
        startedAt,
        cols: cast.header.width,
        rows: cast.header.height,
        firstOffset: 0,
        source: 'imported',
        idleShell: false,
        live: false,
      },
      events,
      commands: [],
      patch: { endedAt: startedAt + Math.max(lastAt, Math.round((cast.header.duration ?? 0) * 1000)), receivedInput: cast.events.some((event) => event.kind === 'input') },
      writtenAt: this.#now(),
    };
    store.applyBatch([write], this.#maxSessionBytes());
    this.#checkpointer?.noteCommitted(0);
    this.#indexer?.noteWritten();
    this.#onDidChange.fire({ sessionIds: [id] });
    return this.#requireSession(id);
  }

  /**
   * Hand sessions (or commands of them) to an agent: every transcript goes to a private file (all
   * or none, see writeReferenceFiles) and the pointer names them. With `terminalId` the pointer
   * is typed there without Enter (the person chose it in the UI; the control socket types it
   * itself, through its typing guard, and passes none). A session still being recorded is
   * referenced as of now, with a warning saying so.
   */
  async reference(items: readonly HistoryReferenceItem[], notes?: string, terminalId?: string): Promise<HistoryReferenceResult> {
    const store = this.#requireStore();
    const terminal = terminalId === undefined ? undefined : this.#options.ptyHost.get(terminalId);
    if (terminalId !== undefined && !terminal) throw new ApiError('NOT_FOUND', `no terminal with id ${terminalId}`);
    if (terminal?.exitStatus) throw new ApiError('TERMINAL_EXITED', `terminal ${terminalId} has exited`);
    await this.#recorder?.caughtUp();
    const resolved = this.#resolveReferences(store, items);
    const files = await writeReferenceFiles(this.#options.dataDir, resolved);
    const pointer = referencePointer(resolved.map((item, index) => ({ item, path: files[index]!.path })), notes);
    const warnings = resolved
      .filter((item) => item.live)
      .map((item) =>
        item.command
          ? `command ${item.command.id} of session ${item.session.id} is still running: referenced as of now (its output so far)`
          : `session ${item.session.id} is still being recorded: referenced as of now (its output so far)`,
      );
    if (terminal) await typePointer(terminal, pointer);
    return { files, pointer, warnings, deliveredTo: terminal ? terminal.id : null };
  }

  /** Every item checked before anything is written: all unknown ids in one error. */
  #resolveReferences(store: HistoryStore, items: readonly HistoryReferenceItem[]): ResolvedReference[] {
    const seen = new Set<string>();
    const unique = items.filter((item) => {
      const key = `${item.sessionId}:${item.commandId ?? ''}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const sessions = new Map<string, HistorySession>();
    const missing: string[] = [];
    for (const { sessionId } of unique) {
      if (sessions.has(sessionId) || missing.includes(sessionId)) continue;
      const session = store.get(sessionId);
      if (session) sessions.set(sessionId, session);
      else missing.push(sessionId);
    }
    if (missing.length > 0) throw new ApiError('NOT_FOUND', `no history session ${missing.join(', ')}: nothing was written`);
    const now = this.#now();
    const resolved: ResolvedReference[] = [];
    const missingCommands: string[] = [];
    for (const item of unique) {
      const session = sessions.get(item.sessionId)!;
      const sessionEnd = session.firstOffset + session.byteCount;
      if (item.commandId === undefined) {
        resolved.push({ session, command: null, live: session.live, endOffset: sessionEnd, asOf: now, transcript: () => this.#plainText(session.id, undefined, sessionEnd) });
        continue;
      }
      const command = store.command(session.id, item.commandId);
      if (!command) {
        missingCommands.push(`session ${session.id} has no command ${item.commandId}`);
        continue;
      }
      const live = command.endOffset === null;
      const end = command.endOffset ?? sessionEnd;
      resolved.push({ session, command, live, endOffset: end, asOf: now, transcript: () => this.#plainText(session.id, command.startOffset, end) });
    }
    if (missingCommands.length > 0) throw new ApiError('NOT_FOUND', `${missingCommands.join('; ')}: nothing was written`);
    return resolved;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#retentionTimer);
    try {
      this.#recorder?.dispose();
    } catch (error) {
      this.#logger.warn('final history write failed', { error: describe(error) });
    }
    this.#writer?.dispose();
    this.#indexer?.dispose();
    this.#checkpointer?.dispose();
    try {
      if (this.#recordingStore !== this.#store && this.#recordingStore?.db.isOpen) this.#recordingStore.db.close();
      // The last connection to close copies what is left in the WAL into the file.
      if (this.#store?.db.isOpen) this.#store.db.close();
    } catch (error) {
      this.#logger.warn('closing the history database failed', { error: describe(error) });
    }
    this.#store = null;
    this.#recordingStore = null;
    this.#onDidChange.dispose();
    this.#onDidChangeStatus.dispose();
    this.#onDidChangeRecording.dispose();
    this.#onDidCommit.dispose();
  }

  // --- internals ------------------------------------------------------------------------------

  #commit(writes: SessionWrites[]) {
    if (!this.#recordingStore) throw this.#unavailable();
    return this.#recordingStore.applyBatch(writes, this.#maxSessionBytes());
  }

  /**
   * Deletes through the Hub's connection, after every recording batch in flight is committed (a
   * session created by one would otherwise outlive its deletion); the recording worker then
   * forgets their keys.
   */
  #deleteSessions(ids: readonly string[]): number {
    this.#writer?.drain();
    const deleted = this.#store?.deleteSessions(ids) ?? 0;
    this.#writer?.forget(ids);
    this.#indexer?.forget(ids);
    this.#forgetReferences(ids);
    return deleted;
  }

  /** A deleted or pruned session's transcript files go with it (off the caller's path; a failure is logged). */
  #forgetReferences(ids: readonly string[]): void {
    removeReferenceFiles(this.#options.dataDir, ids).catch((error: unknown) => this.#logger.warn('cannot remove reference files', { error: describe(error) }));
  }

  #maxSessionBytes(): number {
    return this.#options.settings().historyMaxSessionMiB * HistoryConstants.bytesPerMiB;
  }

  /** ANSI-stripped text of a session's output (or of the byte range [from, to)). */
  #plainText(id: string, from?: number, to?: number): string {
    const store = this.#requireStore();
    const exporter = new PlainTextExporter();
    const parts: string[] = [];
    for (const chunk of store.chunks(id)) {
      const end = chunk.offset + chunk.data.byteLength;
      if (from !== undefined && end <= from) continue;
      if (to !== undefined && chunk.offset >= to) break;
      const start = from !== undefined && chunk.offset < from ? from - chunk.offset : 0;
      const stop = to !== undefined && end > to ? to - chunk.offset : chunk.data.byteLength;
      parts.push(exporter.push(chunk.data.subarray(start, stop)));
    }
    parts.push(exporter.end());
    return parts.join('');
  }

  #requireStore(): HistoryStore {
    if (!this.#store) throw this.#unavailable();
    return this.#store;
  }

  #unavailable(): ApiError {
    return new ApiError('INTERNAL', `History is not available: ${this.#reason ?? 'the database is not open'}`);
  }

  #requireSession(id: string): HistorySession {
    const session = this.#requireStore().get(id);
    if (!session) throw new ApiError('NOT_FOUND', `no history session ${id}`);
    return session;
  }

  #paused(reason: string): void {
    this.#setStatus('paused', reason);
    this.#indexer?.pause();
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => this.#retry(), HistoryConstants.retryAfterFailureMs);
    this.#retryTimer.unref();
  }

  /** Try to record again after a failed write; the recorder's next failure pauses again. */
  #retry(): void {
    if (this.#disposed || !this.#recorder) return;
    if (this.#recorder.resume()) {
      this.#logger.info('recording resumed');
      this.#indexer?.resume();
      const enabled = this.#options.settings().historyEnabled;
      this.#setStatus(enabled ? 'recording' : 'disabled', null);
    }
  }

  /** For tests: retry a paused recorder now instead of after retryAfterFailureMs. */
  retryNow(): void {
    clearTimeout(this.#retryTimer);
    this.#retry();
  }

  #setStatus(state: HistoryStatus['state'], reason: string | null): void {
    if (state === this.#state && reason === this.#reason) return;
    this.#state = state;
    this.#reason = reason;
    this.#onDidChangeStatus.fire(this.status());
  }

  #scheduleRetention(delayMs: number): void {
    if (this.#disposed || !this.#store) return;
    clearTimeout(this.#retentionTimer);
    this.#retentionTimer = setTimeout(() => {
      void this.#enforceRetention().finally(() => this.#scheduleRetention(HistoryConstants.retentionIntervalMs));
    }, delayMs);
    this.#retentionTimer.unref();
  }

  /**
   * Age cap, then total size cap: ended sessions go oldest first, one per turn of the event loop
   * (deleting a big session takes a moment), then freed pages go back to the file system.
   * Returns the ids it pruned.
   */
  async #enforceRetention(): Promise<string[]> {
    if (this.#retentionRunning) return [];
    this.#retentionRunning = true;
    const pruned: string[] = [];
    try {
      const settings = this.#options.settings();
      const store = () => this.#store;
      const prune = (id: string) => {
        this.#deleteSessions([id]);
        pruned.push(id);
      };
      if (settings.historyMaxAgeDays > 0) {
        const cutoff = this.#now() - settings.historyMaxAgeDays * 24 * 60 * 60 * 1000;
        for (;;) {
          const old = store()?.oldestEndedSessions(16, cutoff) ?? [];
          if (old.length === 0) break;
          for (const session of old) {
            prune(session.id);
            await yieldToEventLoop();
          }
        }
      }
      const cap = settings.historyMaxTotalMiB * HistoryConstants.bytesPerMiB;
      const target = cap * HistoryConstants.pruneToFraction;
      if ((store()?.usedBytes() ?? 0) > cap) {
        while ((store()?.usedBytes() ?? 0) > target) {
          const [oldest] = store()?.oldestEndedSessions(1) ?? [];
          if (!oldest) break;
          prune(oldest.id);
          await yieldToEventLoop();
        }
      }
      if (pruned.length > 0) {
        this.#logger.info('history pruned', { sessions: pruned.length });
        store()?.vacuum(HistoryConstants.vacuumPagesPerPass);
        // The file shrinks when the whole WAL holding the vacuum is copied into it: now, on this
        // connection (retention is rare; the copy is what gives the space back), and when a reader
        // or the worker's own checkpoint was in the way, at the worker's quiet checkpoint.
        store()?.checkpoint();
        this.#checkpointer?.noteCommitted(0);
        this.#onDidChange.fire({ sessionIds: pruned });
      }
    } catch (error) {
      this.#logger.warn('history retention failed', { error: describe(error) });
    } finally {
      this.#retentionRunning = false;
    }
    return pruned;
  }

  /** Run retention now (tests; the CLI after changing caps). */
  pruneNow(): Promise<string[]> {
    return this.#enforceRetention();
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
