/**
 * One open session in the viewer: loads its recorded events and commands, builds the read-only
 * terminal and the replay clock over them, and answers the controls (play/pause, speed, skip
 * idle, seek, jump to a search match). The view renders its observables.
 */
import type { ITheme } from '@xterm/xterm';
import type { ISearchOptions } from '@xterm/addon-search';
import type { Settings } from '../../../src/common/api/contract.ts';
import type { HistoryCommand, HistorySession } from '../../../src/common/api/historyContract.ts';
import type { IHubClient } from '../../../src/common/api/hubClient.ts';
import { Disposable, toDisposable } from '../../../src/common/lifecycle.ts';
import { ObservableValue } from '../../app/observable.ts';
import { HistoryUiConstants } from './historyConstants.ts';
import { ReplayScheduler, type ReplayState } from './replayScheduler.ts';
import { ReplayTimeline, commandMarks, type CommandMark } from './replayTimeline.ts';
import { countLineFeeds, eventsBeforeOffset, loadTranscript, totalOutputBytes, type TranscriptEvent } from './transcript.ts';
import type { TranscriptTerminal, TranscriptTerminalOptions } from './transcriptTerminal.ts';

export type ReplayLoadState =
  | { kind: 'loading'; loadedEvents: number }
  | { kind: 'ready'; eventCount: number }
  | { kind: 'failed'; message: string };

export interface PlaybackState {
  state: ReplayState;
  speed: number;
  skipIdle: boolean;
  /** Play time of the whole replay, ms. */
  duration: number;
}

export interface JumpTarget {
  offset: number;
  terms: readonly string[];
}

export interface SessionReplayOptions {
  client: IHubClient;
  session: HistorySession;
  settings: Settings;
  theme: ITheme;
  searchDecorations(): ISearchOptions['decorations'];
  isViewerKey(event: KeyboardEvent): boolean;
  /** Builds the read-only terminal once the transcript is in (the view passes `new TranscriptTerminal`). */
  createTerminal(options: TranscriptTerminalOptions): TranscriptTerminal;
}

export class SessionReplay extends Disposable {
  readonly session: HistorySession;
  readonly loadState = this.register(new ObservableValue<ReplayLoadState>({ kind: 'loading', loadedEvents: 0 }));
  readonly playback = this.register(
    new ObservableValue<PlaybackState>({ state: 'paused', speed: 1, skipIdle: true, duration: 0 }),
  );
  readonly marks = this.register(new ObservableValue<readonly CommandMark[]>([]));
  readonly commands = this.register(new ObservableValue<readonly HistoryCommand[]>([]));
  /** Created once the transcript is loaded (its scrollback is sized to it). */
  readonly terminal = this.register(new ObservableValue<TranscriptTerminal | null>(null));
  /** Whether the last jump found the searched words in the transcript (null: no jump asked). */
  readonly jumpFound = this.register(new ObservableValue<boolean | null>(null));

  readonly #options: SessionReplayOptions;
  #events: TranscriptEvent[] = [];
  #scheduler: ReplayScheduler | undefined;
  #terminal: TranscriptTerminal | undefined;
  #skipIdle = true;
  #started = false;

  constructor(options: SessionReplayOptions) {
    super();
    this.#options = options;
    this.session = options.session;
  }

  /** Loads everything, shows the whole transcript (paused at its end), then jumps to `jump` if given. */
  async start(jump?: JumpTarget): Promise<void> {
    // Once per replay: a second start would load and build a second terminal over the first.
    if (this.#started || this.store.isDisposed) return;
    this.#started = true;
    const { client, session } = this.#options;
    let events: TranscriptEvent[] | null;
    let commands: HistoryCommand[];
    // Set when either load fails, so the other stops fetching pages nobody will show.
    let failed = false;
    try {
      // Together, so a failure of either is handled here (a deleted session fails both).
      [events, { commands }] = await Promise.all([
        loadTranscript(client, session.id, {
          isCancelled: () => failed || this.store.isDisposed,
          onProgress: (loadedEvents) => {
            if (!failed && !this.store.isDisposed) this.loadState.set({ kind: 'loading', loadedEvents });
          },
        }),
        client.call('history.commands', { sessionId: session.id, limit: HistoryUiConstants.sessionCommandsLimit }),
      ]);
    } catch (error) {
      failed = true;
      if (!this.store.isDisposed) this.loadState.set({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
      return;
    }
    if (!events || this.store.isDisposed) return;
    this.#events = events;
    this.commands.set(commands);

    const terminal = this.register(
      this.#options.createTerminal({
        settings: this.#options.settings,
        theme: this.#options.theme,
        cols: session.cols,
        rows: session.rows,
        // Line feeds, plus room for long lines that wrap (an upper bound: every byte a column).
        lineCount: countLineFeeds(events) + Math.ceil(totalOutputBytes(events) / Math.max(1, session.cols)),
        isViewerKey: this.#options.isViewerKey,
      }),
    );
    terminal.setEvents(events);
    this.#terminal = terminal;
    const scheduler = new ReplayScheduler({ timeline: this.#timeline(), sink: terminal });
    this.#scheduler = scheduler;
    this.register(toDisposable(() => scheduler.dispose()));
    this.register(scheduler.onDidChange(() => this.#publishPlayback()));
    this.#publishMarks();

    if (jump) this.#showEndAt(jump);
    else scheduler.showEnd();
    this.terminal.set(terminal);
    this.loadState.set({ kind: 'ready', eventCount: events.length });
    this.#publishPlayback();
  }

  /** The current play time (moves while playing). */
  get position(): number {
    return this.#scheduler?.position ?? 0;
  }

  toggle(): void {
    this.#scheduler?.toggle();
  }

  seek(playTime: number): void {
    this.#scheduler?.seek(playTime);
  }

  /** Seek by a fraction of the timeline (a click on it). */
  seekToFraction(fraction: number): void {
    const scheduler = this.#scheduler;
    if (scheduler) scheduler.seek(scheduler.timeline.playTimeAtFraction(fraction));
  }

  /** Seek to the previous (-1) or next (+1) command mark from the current position. */
  seekToAdjacentCommand(direction: 1 | -1): void {
    const position = this.position;
    const marks = this.marks.value;
    // A small tolerance: "previous" right after seeking to a mark goes to the one before it.
    const tolerance = 1;
    const target =
      direction > 0 ? marks.find((mark) => mark.playTime > position + tolerance) : [...marks].reverse().find((mark) => mark.playTime < position - tolerance);
    if (target) this.seek(target.playTime);
    else if (direction < 0) this.seek(0);
  }

  setSpeed(speed: number): void {
    this.#scheduler?.setSpeed(speed);
  }

  setSkipIdle(skipIdle: boolean): void {
    if (skipIdle === this.#skipIdle) return;
    this.#skipIdle = skipIdle;
    this.#scheduler?.setTimeline(this.#timeline());
    this.#publishMarks();
  }

  /** Scrolls the whole transcript to the text at `offset` and highlights the words (a search result). */
  jumpTo(target: JumpTarget): void {
    if (!this.#scheduler) return;
    this.#showEndAt(target);
  }

  /**
   * Shows the whole session, with the line where byte `offset` was printed marked on the way:
   * apply the events before it, mark the cursor line, apply the rest, then search onward from
   * the mark for the matched words.
   */
  #showEndAt({ offset, terms }: JumpTarget): void {
    const scheduler = this.#scheduler;
    const terminal = this.#terminal;
    if (!scheduler || !terminal) return;
    scheduler.seekToEventCount(eventsBeforeOffset(this.#events, offset));
    terminal.markCursorLine((marker) => {
      if (this.store.isDisposed) return;
      scheduler.showEnd();
      terminal.whenParsed(() => {
        if (this.store.isDisposed) return;
        // A marker whose line scrolled out of the scrollback is disposed: search from the top.
        const line = marker && !marker.isDisposed ? marker.line : 0;
        // One line up: a command's own line is printed just before its output starts.
        this.jumpFound.set(terminal.revealTerms(terms, Math.max(0, line - 1), this.#options.searchDecorations()));
        marker?.dispose();
      });
    });
  }

  #timeline(): ReplayTimeline {
    const times = this.#events.map((event) => event.at);
    const offsets = this.#events.map((event) => event.offset);
    return new ReplayTimeline(times, this.#skipIdle ? HistoryUiConstants.skipIdleCapMs : null, offsets);
  }

  #publishMarks(): void {
    const scheduler = this.#scheduler;
    if (!scheduler) return;
    this.marks.set(commandMarks(this.commands.value, this.session.startedAt, scheduler.timeline));
  }

  #publishPlayback(): void {
    const scheduler = this.#scheduler;
    if (!scheduler) return;
    this.playback.set({ state: scheduler.state, speed: scheduler.speed, skipIdle: this.#skipIdle, duration: scheduler.timeline.duration });
  }
}
