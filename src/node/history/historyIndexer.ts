/**
 * Feeds the full-text index from stored output, off the hot path: it reads chunks back from the
 * store (never from the PTY pipeline), strips ANSI sequences and adds text blocks to FTS5.
 *
 * When it runs: once output has been quiet for HistoryConstants.indexQuietMs, and during a
 * long flood at least every indexMaxDeferMs, each time for a slice of at most indexSliceMs, so
 * neither terminals nor the Hub's other work wait for it. A slice's budget covers handing its
 * blocks to the writer too: it stops reading once the time spent plus the expected cost of that
 * reaches the budget. Written on this thread, FTS5's insert costs about three times the reading
 * and stripping (measured: slices that only budgeted the reading blocked the Hub for ~45 ms during
 * a flood); handed to History's worker, it costs a copy of the text, and the estimate, learned
 * from each write, follows. No slice starts while writes are in flight.
 *
 * Blocks are the text of exact byte ranges of output, cut at line breaks near searchBlockChars
 * bytes, so a hit's snippet can be cut from the raw bytes later (the text is not stored twice).
 *
 * Resumable: `sessions.indexed_offset` is where un-indexed output starts; it moves in the same
 * transaction as the blocks it covers, so a crash re-indexes nothing twice and loses nothing. A
 * live session's last line waits in memory until a block is full, the session ends, or output
 * has been quiet for indexLiveDelayMs.
 */
import { StringDecoder } from 'node:string_decoder';
import { AnsiStripper } from '../../common/terminal/ansiStrip.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { incompleteUtf8TailLength } from '../../common/terminal/utf8Boundaries.ts';
import type { ILogger } from '../logger.ts';
import { HistoryConstants } from './historyConstants.ts';
import { describe } from './historyDatabase.ts';
import type { HistoryStore } from './historyStore.ts';

/** How long a live session's pending text may wait for more before it is indexed as it is. */
const indexLiveDelayMs = 1_000;
/** Sessions looked at per slice. */
const sessionsPerSlice = 32;
/**
 * Expected FTS5 insert cost per char of block text until the first insert was measured
 * (pessimistic for this kind of machine: ~12 ns measured on 2 vCPUs).
 */
const initialInsertMsPerChar = 25e-6;
/**
 * Inserts at least this long update the estimate. Smaller ones are mostly fixed costs; but it must
 * stay below what one stored chunk yields (16 000 bytes are ~5 000 chars of CJK text), or an
 * estimate raised by one slow insert (a GC pause) would never come down again.
 */
const minCharsToLearnFrom = 1024;

interface SessionState {
  /** Raw offset where reading continues. */
  nextOffset: number;
  /** Stripped text read but not indexed yet: the text of raw bytes [textOffset, nextOffset), begun at `textAt` (epoch ms). */
  text: string;
  textOffset: number;
  textAt: number;
  stripper: AnsiStripper;
  decoder: StringDecoder;
  /** The indexed offset last handed to the writer (the store shows it once the write is made). */
  writtenOffset: number;
}

export type Block = { offset: number; endOffset: number; at: number; text: string };

/** Where the index is written: at once, or in History's worker (historyRecordingWriter.ts). */
export interface BlockWriter {
  /**
   * A session's blocks and its new indexed offset, in one transaction: at once (throwing when it
   * fails), or later; `done` hears when it is made (`error` null) or failed.
   */
  index(sessionId: string, blocks: readonly Block[], indexedOffset: number, done: (error: string | null) => void): void;
  /** Blocks until every write handed over is made. */
  drain(): void;
}

export interface HistoryIndexerOptions {
  /** Where stored output is read from (and, without `writeBlocks`, the index written to). */
  store: HistoryStore;
  /** Default: the store's indexBlocks, on this thread. */
  writer?: BlockWriter;
  logger: ILogger;
  /** Blocks were written to the index (the WAL grew). */
  onDidWrite?: () => void;
  /** Clock for the slices' budgets (ms); default performance.now. */
  now?: () => number;
}

export class HistoryIndexer implements IDisposable {
  readonly #store: HistoryStore;
  readonly #writer: BlockWriter;
  readonly #logger: ILogger;
  readonly #onDidWrite: (() => void) | undefined;
  readonly #now: () => number;
  readonly #states = new Map<string, SessionState>();
  /** What inserting one char of block text into FTS5 costs (ms), as the last sizeable insert measured. */
  #insertMsPerChar = initialInsertMsPerChar;
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  #lastRunAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerDue = 0;
  /**
   * Writes handed over and not made yet. No slice starts while there are any: the index grows as
   * fast as the writer makes it, and text read ahead of it cannot pile up.
   */
  #writesInFlight = 0;
  /** A slice found more to do while writes were in flight: the next runs once they are made. */
  #moreAfterWrites = false;
  /** Recording failed (a full disk): no slice runs, so the space freed goes to recording first. */
  #paused = false;
  #disposed = false;

  constructor(options: HistoryIndexerOptions) {
    this.#store = options.store;
    this.#writer = options.writer ?? {
      index: (sessionId, blocks, indexedOffset, done) => {
        options.store.indexBlocks(sessionId, blocks, indexedOffset);
        done(null);
      },
      drain: () => {},
    };
    this.#logger = options.logger;
    this.#onDidWrite = options.onDidWrite;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Output was stored: index it once things are quiet. */
  noteWritten(): void {
    this.#lastWriteAt = this.#now();
    this.#scheduleIn(HistoryConstants.indexQuietMs);
  }

  /**
   * Index everything now (tests, benchmarks): pending text of live sessions included. It
   * runs the timer's bounded slices back to back rather than one unbounded slice, so a big backlog
   * never holds all its text in memory at once (50 MB of output grew the heap by ~300 MB).
   */
  indexAll(): void {
    // Each slice's writes are made before the next reads what is left to index.
    while (this.#slice(HistoryConstants.indexSliceMs, true)) this.#writer.drain();
    this.#writer.drain();
  }

  /**
   * Recording stopped after a failed write (a full disk): indexing waits too. It would fill the
   * space a person frees with index pages before recording could take it, and fail the same way.
   */
  pause(): void {
    this.#paused = true;
  }

  /** Recording works again: indexing goes on where it stopped. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#scheduleIn(0);
  }

  /** Forget state of deleted sessions. */
  forget(sessionIds: readonly string[]): void {
    for (const id of sessionIds) this.#states.delete(id);
  }

  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #scheduleIn(ms: number): void {
    if (this.#disposed) return;
    const due = this.#now() + ms;
    if (this.#timer !== undefined && this.#timerDue <= due) return;
    clearTimeout(this.#timer);
    this.#timerDue = due;
    this.#timer = setTimeout(() => this.#onTimer(), ms);
    // Indexing never keeps a process alive on its own.
    this.#timer.unref();
  }

  #onTimer(): void {
    this.#timer = undefined;
    if (this.#paused) return; // resume() starts again
    if (this.#writesInFlight > 0) {
      this.#moreAfterWrites = true;
      return;
    }
    const now = this.#now();
    const quietFor = now - this.#lastWriteAt;
    if (quietFor < HistoryConstants.indexQuietMs && now - this.#lastRunAt < HistoryConstants.indexMaxDeferMs) {
      this.#scheduleIn(Math.min(HistoryConstants.indexQuietMs - quietFor, HistoryConstants.indexMaxDeferMs - (now - this.#lastRunAt)));
      return;
    }
    this.#lastRunAt = now;
    let more: boolean;
    try {
      more = this.#slice(HistoryConstants.indexSliceMs, false);
    } catch (error) {
      this.#writeFailed(describe(error));
      return;
    }
    if (more) this.#continue();
    else if (this.#hasWaitingText()) this.#scheduleIn(indexLiveDelayMs);
  }

  #continue(): void {
    if (this.#writesInFlight > 0) this.#moreAfterWrites = true;
    else this.#scheduleIn(0);
  }

  #written(error: string | null): void {
    this.#writesInFlight--;
    if (error !== null) {
      this.#writeFailed(error);
      return;
    }
    if (this.#writesInFlight === 0 && this.#moreAfterWrites) {
      this.#moreAfterWrites = false;
      this.#scheduleIn(0);
    }
  }

  /** What was read since the stored indexed offsets is read again, after a while. */
  #writeFailed(error: string): void {
    if (this.#disposed) return;
    this.#logger.warn('indexing failed; retrying later', { error });
    this.#states.clear();
    this.#scheduleIn(HistoryConstants.retryAfterFailureMs);
  }

  /**
   * The latest sizeable insert is the estimate. One slowed by a GC pause only makes the next slice
   * read less (and that slice's insert corrects it); one that measured fast is still a true cost.
   */
  #learnInsertCost(ms: number, chars: number): void {
    if (chars >= minCharsToLearnFrom) this.#insertMsPerChar = ms / chars;
  }

  #hasWaitingText(): boolean {
    for (const state of this.#states.values()) if (state.text.length > 0) return true;
    return false;
  }

  /** Index for at most `budgetMs`, inserting the blocks included. Returns whether work is left. */
  #slice(budgetMs: number, flushLive: boolean): boolean {
    const deadline = this.#now() + budgetMs;
    /** Chars this slice read (into blocks or pending text) and has not inserted yet. */
    let pendingChars = 0;
    const outOfBudget = () => this.#now() + pendingChars * this.#insertMsPerChar >= deadline;
    const sessions = this.#store.sessionsToIndex(sessionsPerSlice);
    const listed = new Set(sessions.map((session) => session.id));
    // Sessions fully indexed (or deleted) need no state; a live one keeps its pending text.
    for (const [id, state] of this.#states) if (!listed.has(id) && state.text.length === 0) this.#states.delete(id);
    let more = sessions.length === sessionsPerSlice;
    for (const session of sessions) {
      if (outOfBudget()) return true;
      let state = this.#states.get(session.id);
      const resumeAt = Math.max(session.indexedOffset, session.firstOffset);
      if (!state || state.textOffset < resumeAt) {
        state = { nextOffset: resumeAt, text: '', textOffset: resumeAt, textAt: session.startedAt, stripper: new AnsiStripper(), decoder: new StringDecoder('utf8'), writtenOffset: resumeAt };
        this.#states.set(session.id, state);
      }
      const blocks: Block[] = [];
      let outOfTime = false;
      for (const stored of this.#store.chunks(session.id, state.nextOffset)) {
        let chunk = stored;
        if (chunk.offset < state.nextOffset) {
          // Resuming inside a chunk (a block ended there before a restart): its rest only.
          const skip = state.nextOffset - chunk.offset;
          if (skip >= chunk.data.byteLength) continue;
          chunk = { offset: state.nextOffset, at: chunk.at, data: chunk.data.subarray(skip) };
        }
        if (chunk.offset > state.nextOffset) {
          // A gap (recording was paused): what came before it is a block of its own.
          emit(state, blocks);
          state.nextOffset = state.textOffset = chunk.offset;
        }
        const textBefore = state.text.length;
        const blocksBefore = blocks.length;
        consumeChunk(state, blocks, chunk.offset, chunk.at + session.startedAt, chunk.data);
        pendingChars += state.text.length - textBefore + textLength(blocks, blocksBefore);
        if (outOfBudget()) {
          outOfTime = true;
          break;
        }
      }
      const atEnd = state.nextOffset >= session.endOffset;
      const quiet = this.#now() - this.#lastWriteAt >= indexLiveDelayMs;
      // The end of what is stored: a finished session's last text goes in; a live one's once output paused.
      if (atEnd && (!session.live || flushLive || quiet)) emit(state, blocks);
      if (blocks.length > 0 || state.textOffset > Math.max(session.indexedOffset, state.writtenOffset)) {
        const insertStarted = this.#now();
        this.#writesInFlight++;
        state.writtenOffset = state.textOffset;
        this.#writer.index(session.id, blocks, state.textOffset, (error) => this.#written(error));
        this.#learnInsertCost(this.#now() - insertStarted, textLength(blocks, 0));
        pendingChars = 0;
        this.#onDidWrite?.();
      }
      if (!session.live && atEnd) this.#states.delete(session.id);
      if (outOfTime || !atEnd) more = true;
      if (outOfTime) return true;
    }
    return more;
  }
}

const newline = 0x0a;
const space = 0x20;

/**
 * Add one stored chunk to the state's pending text, cutting a block each time the pending bytes
 * reach searchBlockChars: at the last line break before that point (else a space, else anywhere
 * that is not inside a UTF-8 character), so every block is the text of an exact byte range.
 */
function consumeChunk(state: SessionState, blocks: Block[], chunkOffset: number, at: number, data: Uint8Array): void {
  let position = 0;
  if (state.text.length === 0) state.textAt = at;
  while (chunkOffset + data.byteLength - state.textOffset >= HistoryConstants.searchBlockChars) {
    const limit = Math.min(data.byteLength, Math.max(position + 1, state.textOffset + HistoryConstants.searchBlockChars - chunkOffset));
    let cut = lastIndexOfByte(data, newline, position, limit);
    if (cut === -1) cut = lastIndexOfByte(data, space, position, limit);
    if (cut === -1) {
      cut = limit < data.byteLength ? Math.max(position + 1, limit - incompleteUtf8TailLength(data, limit)) : limit;
    } else {
      cut += 1;
    }
    state.text += strip(state, data.subarray(position, cut));
    position = cut;
    state.nextOffset = chunkOffset + cut;
    emit(state, blocks);
    state.textAt = at;
  }
  state.text += strip(state, data.subarray(position));
  state.nextOffset = chunkOffset + data.byteLength;
}

/** Text for the tokenizer only (snippets are cut from the raw bytes again): CRs may stay, they separate words anyway. */
function strip(state: SessionState, bytes: Uint8Array): string {
  return state.stripper.push(state.decoder.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
}

/** The pending text becomes a block (if it holds any word); indexing resumes after it. */
function emit(state: SessionState, blocks: Block[]): void {
  if (state.text.trim().length > 0) blocks.push({ offset: state.textOffset, endOffset: state.nextOffset, at: state.textAt, text: state.text });
  state.text = '';
  state.textOffset = state.nextOffset;
}

/** Chars of text in blocks[from…]. */
function textLength(blocks: readonly Block[], from: number): number {
  let chars = 0;
  for (let index = from; index < blocks.length; index++) chars += blocks[index]!.text.length;
  return chars;
}

/** Index of the last `byte` in data[from, to), or -1. */
function lastIndexOfByte(data: Uint8Array, byte: number, from: number, to: number): number {
  for (let index = to - 1; index >= from; index--) if (data[index] === byte) return index;
  return -1;
}
