/**
 * Records every terminal of a PtyHost into the HistoryStore.
 *
 * The output hot path only copies each batch's bytes into the terminal's pending chunk. A timer
 * (HistoryConstants.coalesceMs after the first pending byte) writes everything pending — one
 * chunk per terminal, markers, commands, session changes of every terminal — in ONE transaction.
 *
 * Decisions where the issue leaves room:
 * - Input: node-pty cannot tell whether the terminal echoes (no termios), and a heuristic that
 *   guesses echo from the following output can be fooled into storing a password. So the content
 *   of input is never stored: an `input` event marks when input arrived (at most one per terminal
 *   per batch), and the session's `receivedInput` is set. Whatever the terminal echoed is in the
 *   output anyway, so replay loses nothing a viewer would have seen.
 * - The no-input rule ("a session that never received input and printed only its prompt leaves
 *   no trace"): applies to interactive shells (a known shell without a command to run). When one
 *   ends having received no input and run no command, it is deleted. A program started directly
 *   (`file: 'npm', args: ['test']`) or a shell with `-c` is kept: what it printed is its work.
 * - "Don't record" drops what was recorded of the terminal so far and records nothing more until
 *   it is recorded again, which starts a new session from that point (`firstOffset` > 0).
 * - A failed write (disk full, I/O error) pauses recording: pending output is dropped (memory must
 *   not grow while the disk is full), but session rows, commands and exits are kept for the retry
 *   every HistoryConstants.retryAfterFailureMs. The stored output then has a gap, which reads and
 *   replays skip over. Terminals never notice.
 */
import { basename } from 'node:path';
import type { TerminalInfo } from '../../common/api/contract.ts';
import { Emitter, type Event } from '../../common/event.ts';
import { DisposableStore, type IDisposable } from '../../common/lifecycle.ts';
import { isExecSentinelLine } from '../../common/terminal/execSentinel.ts';
import type { ILogger } from '../logger.ts';
import type { PtyHost } from '../pty/ptyHost.ts';
import { isInteractiveShell } from '../pty/shellLaunch.ts';
import type { CommandEvent, PtySession } from '../pty/ptySession.ts';
import { ByteArena } from './byteArena.ts';
import { HistoryConstants } from './historyConstants.ts';
import { describe } from './historyDatabase.ts';
import type { BatchOutcome, BatchWriter } from './historyRecordingWriter.ts';
import { newSessionId, type NewSession, type RecordedCommand, type RecordedEvent, type SessionPatch, type SessionWrites } from './historyStore.ts';

export interface HistoryRecorderOptions {
  ptyHost: PtyHost;
  /** Writes each batch in one transaction, on the Hub's thread or off it (historyRecordingWriter.ts). */
  writer: BatchWriter;
  /** Deletes sessions (the no-input rule, "don't record"). */
  deleteSessions: (ids: string[]) => void;
  /** Whether an interactive shell that got no input and ran no command is dropped at its end (default on). */
  dropIdleSessions: () => boolean;
  logger: ILogger;
  now?: () => number;
}

export interface CommittedBatch {
  /** Per session: how many output chunks and bytes this transaction stored. */
  sessions: Array<{ id: string; chunks: number; bytes: number; created: boolean; ended: boolean }>;
}

interface Recording {
  readonly terminal: PtySession;
  readonly listeners: DisposableStore;
  /** "Don't record" was chosen for this terminal. */
  excluded: boolean;
  /** The session being recorded, or null while not recording. */
  sessionId: string | null;
  /** Row not written yet: the next batch creates it. */
  create: NewSession | null;
  startPerf: number;
  idleShell: boolean;
  // Pending, written by the next batch:
  events: RecordedEvent[];
  pieces: Buffer[];
  pieceBytes: number;
  pieceOffset: number;
  pieceAt: number;
  inputMarked: boolean;
  commands: RecordedCommand[];
  patch: SessionPatch | null;
  ended: boolean;
  // What the store has, to write only changes:
  recordedName: string;
  recordedCwd: string;
  cols: number;
  rows: number;
  receivedInput: boolean;
  commandCount: number;
  /** Batches with writes of this terminal sent and not answered yet: it is not let go before they are. */
  inFlight: number;
}

/** A batch sent to the writer: its writes and, for each, the terminal it came from. */
interface SentBatch {
  writes: SessionWrites[];
  included: Recording[];
}

export class HistoryRecorder implements IDisposable {
  readonly #options: HistoryRecorderOptions;
  readonly #logger: ILogger;
  readonly #now: () => number;
  readonly #store = new DisposableStore();
  readonly #recordings = new Map<string, Recording>();
  #enabled = false;
  #paused = false;
  #pendingBytes = 0;
  /** Copies of pending output; they live until the transaction that stores them. */
  readonly #copies = new ByteArena({ slabBytes: HistoryConstants.recordSlabBytes, maxSpareSlabs: HistoryConstants.recordSpareSlabs });
  #timer: NodeJS.Timeout | undefined;
  /** Batches that failed, kept until every batch in flight is answered; then their rows, commands and exits wait for the retry. */
  readonly #failed: SentBatch[] = [];
  #inFlight = 0;
  #inAfterEnds = false;
  #disposed = false;

  readonly #onDidCommit = new Emitter<CommittedBatch>();
  /** A batch was committed (it survives a crash from now on). */
  readonly onDidCommit: Event<CommittedBatch> = this.#onDidCommit.event;
  readonly #onDidChangeSessions = new Emitter<string[]>();
  /** Sessions were created, ended or deleted by recording. */
  readonly onDidChangeSessions: Event<string[]> = this.#onDidChangeSessions.event;
  readonly #onDidFail = new Emitter<string>();
  /** A write failed: recording is paused until `resume()` (the reason is for people). */
  readonly onDidFail: Event<string> = this.#onDidFail.event;

  constructor(options: HistoryRecorderOptions) {
    this.#options = options;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  /** Follow the PtyHost's terminals (those running now and every new one). */
  start(enabled: boolean): void {
    this.#enabled = enabled;
    this.#store.add(this.#options.ptyHost.onDidAddTerminal((info) => this.#follow(info.id)));
    for (const info of this.#options.ptyHost.list()) this.#follow(info.id);
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** The History setting changed: off ends every session being recorded; on starts new ones. */
  setEnabled(enabled: boolean): void {
    if (enabled === this.#enabled) return;
    this.#enabled = enabled;
    for (const recording of this.#recordings.values()) {
      if (enabled) this.#beginSession(recording);
      else this.#endSession(recording, { endedAt: this.#now(), live: false });
    }
    this.flush();
  }

  /** Try writing again after a failure. Returns whether recording works again (a new failure pauses it again). */
  resume(): boolean {
    if (!this.#paused) return true;
    this.#paused = false;
    this.#options.writer.resume();
    return this.flush();
  }

  /** The session recording this terminal now, if any. */
  sessionOfTerminal(terminalId: string): string | null {
    return this.#recordings.get(terminalId)?.sessionId ?? null;
  }

  /** Open terminals marked "don't record". */
  excludedTerminals(): string[] {
    return [...this.#recordings].filter(([, recording]) => recording.excluded).map(([id]) => id);
  }

  isRecording(terminalId: string): boolean {
    const recording = this.#recordings.get(terminalId);
    return recording !== undefined && !recording.excluded;
  }

  /**
   * "Don't record" (`record: false`) drops what was recorded of the terminal and stops; `true`
   * records it again from now on in a new session. Throws for an unknown terminal.
   */
  setRecording(terminalId: string, record: boolean): void {
    const recording = this.#recordings.get(terminalId);
    if (!recording) throw new Error(`no terminal ${terminalId}`);
    if (recording.excluded === !record) return;
    recording.excluded = !record;
    if (record) {
      this.#beginSession(recording);
      this.flush();
      return;
    }
    const sessionId = recording.sessionId;
    const wasCreated = sessionId !== null && recording.create === null;
    this.#clearPending(recording);
    recording.sessionId = null;
    recording.create = null;
    if (sessionId && wasCreated) {
      this.#options.deleteSessions([sessionId]);
      this.#onDidChangeSessions.fire([sessionId]);
    }
  }

  /**
   * Write everything pending now, in one transaction, and wait until every batch sent is
   * committed. Returns false when a write failed (recording is paused).
   */
  flush(): boolean {
    this.#send();
    this.#options.writer.drain();
    return !this.#paused;
  }

  /** flush() without holding up the Hub's thread: resolves once everything pending now is committed. */
  async caughtUp(): Promise<boolean> {
    this.#send();
    await this.#options.writer.settled();
    return !this.#paused;
  }

  /** Hand everything pending to the writer; its outcome comes in #onOutcome (at once, or later). */
  #send(): void {
    try {
      this.#write();
    } finally {
      // The writer stored, copied or (failing) dropped every copy of output: their memory is reused.
      if (!this.#holdsOutput()) this.#copies.reset();
    }
  }

  #write(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#paused) return; // resume() retries
    const writes: SessionWrites[] = [];
    const included: Recording[] = [];
    const writtenAt = this.#now();
    for (const recording of this.#recordings.values()) {
      this.#closeChunk(recording);
      this.#notePatchFromInfo(recording);
      if (!recording.sessionId) continue;
      if (!recording.create && recording.events.length === 0 && recording.commands.length === 0 && !recording.patch) continue;
      const write: SessionWrites = { id: recording.sessionId, events: recording.events, commands: recording.commands, writtenAt };
      if (recording.create) write.create = recording.create;
      if (recording.patch) write.patch = recording.patch;
      writes.push(write);
      included.push(recording);
      // Sent: what comes next is the next batch's. A failed batch gives its rows back (#restoreFailed).
      recording.create = null;
      recording.events = [];
      recording.commands = [];
      recording.patch = null;
      recording.inputMarked = false;
      recording.inFlight++;
    }
    this.#pendingBytes = 0;
    if (writes.length === 0) {
      this.#afterEnds();
      return;
    }
    this.#inFlight++;
    this.#options.writer.send(writes, (outcome) => this.#onOutcome({ writes, included }, outcome));
  }

  #onOutcome(batch: SentBatch, outcome: BatchOutcome): void {
    this.#inFlight--;
    for (const recording of batch.included) recording.inFlight--;
    if (outcome.ok) {
      this.#committed(batch, outcome.result.missing);
    } else {
      this.#failed.push(batch);
      if (!this.#paused) {
        this.#paused = true;
        clearTimeout(this.#timer);
        this.#timer = undefined;
        this.#logger.warn('recording paused: cannot write to the history database', { reason: outcome.error });
        this.#onDidFail.fire(outcome.error);
      }
    }
    // Once nothing is in flight the failed batches are all known: they go back in the order sent.
    if (this.#inFlight === 0) this.#restoreFailed();
    this.#afterEnds();
    if (!this.#paused && this.#hasPending()) this.#schedule();
  }

  #committed({ writes, included }: SentBatch, missing: readonly string[]): void {
    const committed: CommittedBatch = { sessions: [] };
    const changed: string[] = [];
    for (const [index, recording] of included.entries()) {
      const write = writes[index]!;
      const chunks = write.events.filter((event) => event.kind === 'output');
      committed.sessions.push({
        id: write.id,
        chunks: chunks.length,
        bytes: chunks.reduce((sum, event) => sum + (event.kind === 'output' ? event.data.byteLength : 0), 0),
        created: write.create !== undefined,
        ended: write.patch?.live === false,
      });
      if (write.create || write.patch?.live === false) changed.push(write.id);
      if (recording.sessionId !== write.id) continue;
      if (missing.includes(write.id)) {
        // Deleted from History while live: what comes next goes into a new session.
        this.#clearPending(recording);
        recording.sessionId = null;
        if (!recording.excluded && !recording.ended && this.#enabled) this.#beginSession(recording);
      }
      // Ended by switching History off (the terminal runs on): a later switch on starts a new session.
      else if (write.patch?.live === false && !recording.ended) recording.sessionId = null;
    }
    this.#onDidCommit.fire(committed);
    if (changed.length > 0) this.#onDidChangeSessions.fire(changed);
  }

  /**
   * Failed batches give back what must not be lost — the session's row, its commands, its
   * changes and exit — in front of what came after them; their output is dropped (the stored
   * output has a gap), as are events pending behind them. Output read after the last batch sent
   * (still in pieces) stays: it is written, after the gap, when recording resumes.
   */
  #restoreFailed(): void {
    for (const { writes, included } of this.#failed.splice(0).reverse()) {
      for (const [index, recording] of included.entries()) {
        const write = writes[index]!;
        recording.events = [];
        recording.inputMarked = false;
        if (recording.sessionId !== write.id) continue;
        if (write.create) recording.create = write.create;
        recording.commands = [...write.commands, ...recording.commands];
        if (write.patch) recording.patch = { ...write.patch, ...recording.patch };
      }
    }
  }

  /**
   * Stop following terminals. Terminals still open (a hard Hub dispose) are recorded as ended now,
   * with the status their PtySession reports; everything pending is written.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#store.dispose();
    // The outcomes of batches in flight first (a failed one gives its rows back), then one last
    // attempt even when paused: the exits of the terminals are worth it.
    this.#options.writer.drain();
    if (this.#paused) this.#options.writer.resume();
    this.#paused = false;
    for (const recording of this.#recordings.values()) {
      if (!recording.ended) {
        const status = recording.terminal.exitStatus;
        recording.ended = true;
        this.#endSession(recording, { endedAt: this.#now(), live: false, exitCode: status?.exitCode ?? null, signal: status?.signal ?? null });
      }
    }
    this.flush();
    for (const recording of this.#recordings.values()) recording.listeners.dispose();
    this.#recordings.clear();
    clearTimeout(this.#timer);
    this.#onDidCommit.dispose();
    this.#onDidChangeSessions.dispose();
    this.#onDidFail.dispose();
  }

  // --- following a terminal -------------------------------------------------------------------

  #follow(terminalId: string): void {
    if (this.#recordings.has(terminalId) || this.#disposed) return;
    const terminal = this.#options.ptyHost.get(terminalId);
    if (!terminal) return;
    const info = terminal.info;
    const recording: Recording = {
      terminal,
      listeners: new DisposableStore(),
      excluded: false,
      sessionId: null,
      create: null,
      startPerf: performance.now(),
      idleShell: isInteractiveShell(info.file, info.args),
      events: [],
      pieces: [],
      pieceBytes: 0,
      pieceOffset: 0,
      pieceAt: 0,
      inputMarked: false,
      commands: [],
      patch: null,
      ended: false,
      recordedName: info.name,
      recordedCwd: info.cwd,
      cols: info.cols,
      rows: info.rows,
      receivedInput: false,
      commandCount: 0,
      inFlight: 0,
    };
    this.#recordings.set(terminalId, recording);
    const listeners = recording.listeners;
    listeners.add(terminal.onDidOutput(({ bytes, startOffset }) => this.#onOutput(recording, bytes, startOffset)));
    listeners.add(terminal.onDidWrite(() => this.#onInput(recording)));
    listeners.add(terminal.onDidCommand((event) => this.#onCommand(recording, event)));
    listeners.add(terminal.onDidChangeInfo((changed) => this.#onInfo(recording, changed)));
    listeners.add(terminal.onDidExit((status) => this.#onExit(recording, status.exitCode, status.signal)));
    if (this.#enabled) this.#beginSession(recording, info.createdAt);
    if (info.state === 'exited') this.#onExit(recording, info.exitCode, info.signal);
  }

  #beginSession(recording: Recording, startedAt = this.#now()): void {
    if (recording.excluded || recording.ended || recording.sessionId) return;
    const info = recording.terminal.info;
    const id = newSessionId(startedAt);
    recording.sessionId = id;
    // `at` of every event counts from the session's start, on the monotonic clock.
    recording.startPerf = performance.now() - Math.max(0, this.#now() - startedAt);
    recording.receivedInput = false;
    recording.commandCount = 0;
    recording.recordedName = info.name;
    recording.recordedCwd = info.cwd;
    recording.cols = info.cols;
    recording.rows = info.rows;
    recording.create = {
      id,
      terminalId: info.id,
      name: info.name,
      cwd: info.cwd,
      file: info.file,
      args: info.args,
      createdBy: info.createdBy,
      startedAt,
      cols: info.cols,
      rows: info.rows,
      firstOffset: recording.terminal.offset,
      source: 'recorded',
      idleShell: recording.idleShell,
      live: true,
    };
    this.#schedule();
  }

  #endSession(recording: Recording, patch: SessionPatch): void {
    if (!recording.sessionId) return;
    this.#closeChunk(recording);
    recording.patch = { ...recording.patch, ...patch };
    this.#schedule();
  }

  // --- hot path -------------------------------------------------------------------------------

  #onOutput(recording: Recording, bytes: Uint8Array, startOffset: number): void {
    if (!recording.sessionId || this.#paused) return;
    if (recording.pieceBytes > 0 && startOffset !== recording.pieceOffset + recording.pieceBytes) this.#closeChunk(recording);
    if (recording.pieceBytes === 0) {
      recording.pieceOffset = startOffset;
      recording.pieceAt = performance.now() - recording.startPerf;
    }
    // The view is reused by the batcher after this call: copy.
    recording.pieces.push(this.#copies.copy(bytes));
    recording.pieceBytes += bytes.byteLength;
    this.#pendingBytes += bytes.byteLength;
    if (recording.pieceBytes >= HistoryConstants.maxChunkBytes) this.#closeChunk(recording);
    if (this.#pendingBytes >= HistoryConstants.maxPendingBytes) this.#send();
    else this.#schedule();
  }

  #onInput(recording: Recording): void {
    if (!recording.sessionId) return;
    if (!recording.receivedInput) {
      recording.receivedInput = true;
      recording.patch = { ...recording.patch, receivedInput: true };
    }
    if (!recording.inputMarked && !this.#paused) {
      recording.inputMarked = true;
      recording.events.push({ kind: 'input', at: performance.now() - recording.startPerf, offset: recording.terminal.offset });
    }
    this.#schedule();
  }

  #onCommand(recording: Recording, event: CommandEvent): void {
    // An exec's wrapper, reported by a shell whose integration started after it was typed: the
    // command the agent ran is in the output; the wrapper around it is not a command of the session.
    if (!recording.sessionId || isExecSentinelLine(event.commandLine)) return;
    recording.commandCount++;
    recording.commands.push({ ...event });
    this.#schedule();
  }

  #onInfo(recording: Recording, info: TerminalInfo): void {
    if (!recording.sessionId) return;
    if (info.cols !== recording.cols || info.rows !== recording.rows) {
      recording.cols = info.cols;
      recording.rows = info.rows;
      if (!this.#paused) {
        // Output before this offset was produced for the old size: it ends the chunk.
        this.#closeChunk(recording);
        recording.events.push({ kind: 'resize', at: performance.now() - recording.startPerf, offset: recording.terminal.offset, cols: info.cols, rows: info.rows });
      }
      this.#schedule();
    }
  }

  #onExit(recording: Recording, exitCode: number | null, signal: string | null): void {
    if (recording.ended) return;
    recording.ended = true;
    this.#endSession(recording, { endedAt: recording.terminal.info.endedAt ?? this.#now(), exitCode, signal, live: false });
    this.#send();
  }

  // --- batching -------------------------------------------------------------------------------

  #closeChunk(recording: Recording): void {
    if (recording.pieceBytes === 0) return;
    const data = recording.pieces.length === 1 ? recording.pieces[0]! : this.#copies.concat(recording.pieces, recording.pieceBytes);
    recording.events.push({ kind: 'output', at: recording.pieceAt, offset: recording.pieceOffset, data });
    recording.pieces = [];
    recording.pieceBytes = 0;
  }

  /** Name and cwd are written when they changed (cheap to compare once per batch). */
  #notePatchFromInfo(recording: Recording): void {
    if (!recording.sessionId || recording.ended) return;
    const info = recording.terminal.info;
    if (info.name !== recording.recordedName) {
      recording.recordedName = info.name;
      recording.patch = { ...recording.patch, name: info.name };
    }
    if (info.cwd !== recording.recordedCwd) {
      recording.recordedCwd = info.cwd;
      recording.patch = { ...recording.patch, cwd: info.cwd };
    }
  }

  /** Ended terminals: drop the session under the no-input rule, stop following them. */
  #afterEnds(): void {
    // Dropping a session waits for the batches in flight (the writer drains), whose outcomes come here again.
    if (this.#inAfterEnds) return;
    this.#inAfterEnds = true;
    try {
      this.#dropEnded();
    } finally {
      this.#inAfterEnds = false;
    }
  }

  #dropEnded(): void {
    const dropped: string[] = [];
    for (const recording of [...this.#recordings.values()]) {
      if (!recording.ended || recording.inFlight > 0) continue;
      if (recording.create || recording.patch || recording.commands.length > 0 || recording.events.length > 0) continue; // not written yet (paused)
      const sessionId = recording.sessionId;
      if (sessionId && recording.idleShell && !recording.receivedInput && recording.commandCount === 0 && this.#options.dropIdleSessions()) {
        try {
          this.#options.deleteSessions([sessionId]);
          dropped.push(sessionId);
        } catch (error) {
          this.#logger.warn('cannot drop an idle session', { sessionId, error: describe(error) });
        }
      }
      recording.listeners.dispose();
      this.#recordings.delete(recording.terminal.id);
    }
    if (dropped.length > 0) this.#onDidChangeSessions.fire(dropped);
  }

  #clearPending(recording: Recording): void {
    this.#pendingBytes -= recording.pieceBytes;
    recording.pieces = [];
    recording.pieceBytes = 0;
    recording.events = [];
    recording.commands = [];
    recording.patch = null;
    recording.inputMarked = false;
  }

  /** Whether output copied into #copies still waits to be written. */
  #holdsOutput(): boolean {
    for (const recording of this.#recordings.values()) {
      if (recording.pieceBytes > 0 || recording.events.some((event) => event.kind === 'output')) return true;
    }
    return false;
  }

  #hasPending(): boolean {
    for (const recording of this.#recordings.values()) {
      if (recording.pieceBytes > 0 || recording.events.length > 0 || recording.create || recording.patch || recording.commands.length > 0) return true;
    }
    return false;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#disposed || this.#paused) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#send();
    }, HistoryConstants.coalesceMs);
  }
}
