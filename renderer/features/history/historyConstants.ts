/** Every tuning number of the History browser, with the reason beside it. */
export const HistoryUiConstants = {
  /** Sessions per `history.list` page; "Load more" fetches the next page with a `before` cursor. */
  sessionsPageSize: 100,
  /** Commands per `history.commands` page. */
  commandsPageSize: 200,
  /**
   * A refresh re-reads as many items as are listed (so "Load more" pages stay), up to the
   * contract's largest page: `history.list` takes 1000, `history.commands` 5000.
   */
  maxSessionsRefresh: 1_000,
  maxCommandsRefresh: 5_000,
  /** Commands of one session asked for its timeline marks (the contract's largest page). */
  sessionCommandsLimit: 5_000,
  /** Search hits asked for per query; the store ranks them, so the first ones are the best. */
  searchLimit: 100,
  /** Lists refetch this long after the last `history.changed` of a burst (a closing terminal sends a few)… */
  refreshCoalesceMs: 300,
  /** …but at least this often while the notices keep coming (agents opening terminals steadily). */
  refreshMaxWaitMs: 1_000,
  /** Wait this long after the last keystroke before searching: one query per typed word, not per key. */
  searchDebounceMs: 250,
  /**
   * Recorded events fetched per `history.events` call. A chunk is at most 64 KiB of output, so a
   * page stays in the tens of MiB even for a flood, and a normal session loads in one or two calls.
   */
  eventsPageSize: 1_000,
  /** Replay speeds offered (multiples of real time). */
  replaySpeeds: [1, 2, 4, 8, 16] as const,
  /**
   * "Skip idle" caps every pause between two outputs at this. Half a second still shows that the
   * program paused (asciinema's `--idle-time-limit` is usually set to 0.5–2 s) without making
   * anyone watch someone think for a minute.
   */
  skipIdleCapMs: 500,
  /** Arrow keys on the timeline move by this much play time. */
  timelineStepMs: 5_000,
  /**
   * The viewer holds the whole transcript as scrollback, but at most this many lines: xterm keeps
   * ~12 bytes per cell, so 100 000 lines of 120 columns is ~140 MB, the most worth spending on one view.
   */
  maxTranscriptScrollback: 100_000,
  /** The viewer never shrinks its font below this to fit a wide session; past it the box scrolls. */
  minViewerFontSize: 7,
  /**
   * To fit a tall session (more rows than the box has room for) the font shrinks only this far;
   * past it the box scrolls, so a recording from a full-height pane stays readable in the viewer.
   */
  minHeightFitFontSize: 10,
  /**
   * "Run again" types the command once the new shell shows its prompt (shell integration reports
   * it). A shell without integration gets it after this long instead, so nothing waits forever.
   */
  runAgainPromptWaitMs: 5_000,
  /** How often "Run again" looks whether the new pane has attached (panes appear a render later). */
  runAgainPollMs: 50,
  /**
   * "Run and hand to agent" looks this often whether the command it ran has ended (History
   * records its end mark). Each look is one indexed query; a person waits on it, so it is brisk.
   */
  runAndHandPollMs: 250,
  /** How long it waits for the terminal's recorded session to appear before giving up. */
  runAndHandSessionWaitMs: 10_000,
} as const;
