/**
 * Hands PTY output to xterm.js with the person's pane first. One page parses and draws every
 * pane, and xterm parses each terminal's writes in its own 12 ms slices: three flooding panes
 * kept the main thread busy 29 s of 30 and a keystroke's echo in a fourth pane waited behind up
 * to 250 000 unparsed chars of each (docs/benchmarks.md, isolation).
 *
 * A pane is in the foreground while its terminal has keyboard focus or took a keystroke in the
 * last second: its output goes straight to xterm, never queued behind anyone's. The other panes'
 * output waits here and is handed to xterm in batches sized by a time budget, one round at a time
 * (a round's writes parsed before the next starts): while someone is typing, a small budget once
 * per animation frame, so the frame that draws the echo is never far away; otherwise a budget of
 * xterm's own slice, as fast as xterm would take it. Nothing is dropped: a pane's write callback
 * (its flow-control ack) fires only once xterm has parsed those chars, so a background flood is
 * slowed at the Hub by flow control while it waits here.
 */
import type { Terminal } from '@xterm/xterm';
import { TerminalConstants } from '../../../src/common/constants.ts';
import { Disposable, toDisposable, type IDisposable } from '../../../src/common/lifecycle.ts';
import type { RenderPace } from './renderPacing.ts';

/** Called once xterm has parsed `chars` of what was written (a write may be handed over in pieces). */
export type OnParsed = (chars: number) => void;

/** Also how often the pane should be redrawn: at a pace while output floods in (renderPacing.ts). */
export interface PaneOutput extends IDisposable, RenderPace {
  /** Output for this pane, in order; `onParsed` fires as xterm parses it. */
  write(data: string, onParsed?: OnParsed): void;
  /** A keystroke went to this pane: it is in the foreground for a while, and what waits here goes to xterm now. */
  noteInput(): void;
  /** The pane's terminal took focus: what waits here goes to xterm now. */
  promote(): void;
}

interface Pending {
  data: string;
  onParsed: OnParsed | undefined;
}

/** Chars received in the current and the previous 100 ms window: whether output floods in. */
class ArrivalRate {
  static readonly windowMs = 100;
  #windowStart = -Infinity;
  #current = 0;
  #previous = 0;

  add(chars: number, now: number): void {
    this.#roll(now);
    this.#current += chars;
  }

  /** Chars received in the last 100–200 ms. */
  recent(now: number): number {
    this.#roll(now);
    return this.#current + this.#previous;
  }

  #roll(now: number): void {
    const age = now - this.#windowStart;
    if (age < ArrivalRate.windowMs) return;
    this.#previous = age < 2 * ArrivalRate.windowMs ? this.#current : 0;
    this.#current = 0;
    this.#windowStart = age < 2 * ArrivalRate.windowMs ? this.#windowStart + ArrivalRate.windowMs : now;
  }
}

class Pane implements PaneOutput {
  readonly queue: Pending[] = [];
  queuedChars = 0;
  lastInputAt = -Infinity;
  disposed = false;
  readonly #arrivals = new ArrivalRate();

  readonly terminal: Terminal;
  readonly scheduler: OutputScheduler;

  constructor(terminal: Terminal, scheduler: OutputScheduler) {
    this.terminal = terminal;
    this.scheduler = scheduler;
  }

  get focused(): boolean {
    const textarea = this.terminal.textarea;
    return textarea !== undefined && textarea === document.activeElement;
  }

  get foreground(): boolean {
    return this.focused || performance.now() - this.lastInputAt < TerminalConstants.outputForegroundAfterInputMs;
  }

  renderIntervalMs(now: number): number {
    if (now - this.lastInputAt < TerminalConstants.floodPacingAfterInputMs) return 0;
    return this.#arrivals.recent(now) >= TerminalConstants.floodChars ? TerminalConstants.floodRenderIntervalMs : 0;
  }

  write(data: string, onParsed?: OnParsed): void {
    if (this.disposed) return;
    this.#arrivals.add(data.length, performance.now());
    if (this.foreground) {
      // Anything still waiting goes first, so xterm sees the output in order.
      this.flush();
      this.terminal.write(data, onParsed && (() => onParsed(data.length)));
      return;
    }
    this.queue.push({ data, onParsed });
    this.queuedChars += data.length;
    this.scheduler.schedule();
  }

  noteInput(): void {
    this.lastInputAt = performance.now();
    this.scheduler.noteInput(this.lastInputAt);
    this.flush();
  }

  promote(): void {
    this.flush();
  }

  flush(): void {
    for (const { data, onParsed } of this.queue.splice(0)) this.terminal.write(data, onParsed && (() => onParsed(data.length)));
    this.queuedChars = 0;
  }

  /** Up to `limit` chars off the front of the queue, as pieces each with the callback for its own length. */
  take(limit: number): Pending[] {
    const taken: Pending[] = [];
    let left = limit;
    while (left > 0 && this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.data.length <= left) {
        this.queue.shift();
        taken.push(head);
        left -= head.data.length;
        continue;
      }
      let cut = left;
      // Never split a surrogate pair between two writes.
      if (isHighSurrogate(head.data.charCodeAt(cut - 1))) cut--;
      if (cut === 0) break;
      taken.push({ data: head.data.slice(0, cut), onParsed: head.onParsed });
      head.data = head.data.slice(cut);
      left -= cut;
    }
    for (const piece of taken) this.queuedChars -= piece.data.length;
    return taken;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.queue.length = 0;
    this.queuedChars = 0;
    this.scheduler.close(this);
  }
}

/** The next round: a timer, a frame, or a frame with a fallback timer beside it. */
interface Scheduled {
  frame: number | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class OutputScheduler extends Disposable {
  readonly #panes = new Set<Pane>();
  /** Background panes with a batch handed to xterm and not parsed yet: the next round waits for them. */
  readonly #inFlight = new Set<Pane>();
  #scheduled: Scheduled | undefined;
  #lastRoundAt = -Infinity;
  #lastInputAt = -Infinity;
  /** Where the next round starts, so no background pane is always served last. */
  #rotation = 0;
  /** xterm's parse speed here, measured on background batches (chars per ms). */
  #charsPerMs: number = TerminalConstants.outputInitialCharsPerMs;

  constructor() {
    super();
    this.register(toDisposable(() => this.#cancel()));
  }

  open(terminal: Terminal): PaneOutput {
    const pane = new Pane(terminal, this);
    this.#panes.add(pane);
    return pane;
  }

  /** Internal to panes. */
  close(pane: Pane): void {
    this.#panes.delete(pane);
    // A disposed terminal never calls back: its batch must not hold the others up.
    if (this.#inFlight.delete(pane)) this.#next();
  }

  /** Internal to panes. */
  noteInput(at: number): void {
    this.#lastInputAt = at;
  }

  get #typing(): boolean {
    return performance.now() - this.#lastInputAt < TerminalConstants.outputForegroundAfterInputMs;
  }

  /** Internal to panes: some background pane has output waiting. */
  schedule(): void {
    if (this.store.isDisposed || this.#scheduled || this.#inFlight.size > 0) return;
    const run = () => {
      this.#cancel();
      this.#round();
    };
    if (!this.#typing || document.visibilityState !== 'visible') {
      this.#scheduled = { frame: undefined, timer: setTimeout(run, 0) };
      return;
    }
    // While someone types, a round at most every outputBackgroundTypingIntervalMs, at the start
    // of a frame; a frame that never comes (a window the browser stopped drawing) must not stall
    // the panes, hence the timer beside it.
    const scheduled: Scheduled = { frame: undefined, timer: undefined };
    this.#scheduled = scheduled;
    const inFrame = () => {
      scheduled.frame = requestAnimationFrame(run);
      scheduled.timer = setTimeout(run, TerminalConstants.outputFrameFallbackMs);
    };
    const wait = this.#lastRoundAt + TerminalConstants.outputBackgroundTypingIntervalMs - performance.now();
    if (wait > 0) scheduled.timer = setTimeout(inFrame, wait);
    else inFrame();
  }

  #cancel(): void {
    if (!this.#scheduled) return;
    if (this.#scheduled.frame !== undefined) cancelAnimationFrame(this.#scheduled.frame);
    // The timer is either the wait before the frame or the fallback beside it: never both.
    clearTimeout(this.#scheduled.timer);
    this.#scheduled = undefined;
  }

  #round(): void {
    const waiting: Pane[] = [];
    for (const pane of this.#panes) {
      if (pane.queue.length === 0) continue;
      // It came to the foreground since its output was queued.
      if (pane.foreground) pane.flush();
      else waiting.push(pane);
    }
    if (waiting.length === 0) return;
    this.#lastRoundAt = performance.now();
    const budgetMs = this.#typing ? TerminalConstants.outputBackgroundBudgetTypingMs : TerminalConstants.outputBackgroundBudgetMs;
    const share = Math.max(TerminalConstants.outputMinBatchChars, Math.floor((budgetMs * this.#charsPerMs) / waiting.length));
    const start = this.#rotation++ % waiting.length;
    for (let index = 0; index < waiting.length; index++) this.#hand(waiting[(start + index) % waiting.length]!, share);
  }

  /** One batch of a background pane to xterm, timed by an empty write just before it. */
  #hand(pane: Pane, limit: number): void {
    const pieces = pane.take(limit);
    const chars = pieces.reduce((sum, piece) => sum + piece.data.length, 0);
    let startedAt = 0;
    this.#inFlight.add(pane);
    // The empty write's callback runs as xterm starts on this batch (the pane's xterm buffer is
    // empty: nothing else is handed to it while it is in the background).
    pane.terminal.write('', () => (startedAt = performance.now()));
    pieces.forEach((piece, index) => {
      const last = index === pieces.length - 1;
      pane.terminal.write(piece.data, () => {
        piece.onParsed?.(piece.data.length);
        if (last) this.#parsed(pane, chars, performance.now() - startedAt);
      });
    });
  }

  #parsed(pane: Pane, chars: number, elapsedMs: number): void {
    if (!this.#inFlight.delete(pane)) return;
    // A batch too small to time says nothing about the speed.
    if (chars >= TerminalConstants.outputMinBatchChars && elapsedMs > 0.5) {
      const measured = chars / elapsedMs;
      this.#charsPerMs = clampRate(this.#charsPerMs * 0.7 + measured * 0.3);
    }
    this.#next();
  }

  #next(): void {
    if (this.#inFlight.size === 0 && [...this.#panes].some((pane) => pane.queue.length > 0)) this.schedule();
  }
}

function clampRate(charsPerMs: number): number {
  return Math.min(TerminalConstants.outputMaxCharsPerMs, Math.max(TerminalConstants.outputMinCharsPerMs, charsPerMs));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
