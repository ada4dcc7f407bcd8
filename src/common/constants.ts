/**
 * Every tuning number of the terminal pipeline in one place, with the reason beside it.
 * The flow-control scheme is VS Code's (src/vs/platform/terminal/common/terminal.ts); its
 * watermarks were widened for browser mode (below).
 */
export const TerminalConstants = {
  /**
   * Pause the PTY when a lossless subscriber has this many unacknowledged chars, and resume it once
   * every one is back below the low mark. VS Code's 100 000 / 5 000 let a pane's pipe run dry
   * before it refilled (resume only once the pane had drawn nearly everything, then a round trip
   * through the socket, the PTY and the batcher before the next bytes): in browser mode the pane
   * sat idle most of a `seq 1 300000` flood. Resuming with 100 000 still to draw keeps it fed;
   * a higher mark puts more output between Ctrl-C and the prompt (Ctrl-C during `yes` → prompt
   * drawn: 178–571 ms with 1 000 000 / 500 000; with 250 000 / 150 000 p95 74–94 ms, with these
   * 62–63 ms, the flood as fast within the noise; 43–145 ms with 100 000 / 5 000, whose flood
   * starved; docs/benchmarks.md).
   */
  highWatermarkChars: 150_000,
  lowWatermarkChars: 100_000,
  /** The renderer acknowledges in steps of this many chars (from xterm.js write callbacks). */
  ackBatchChars: 5_000,
  /**
   * Output pacing in the page (renderer/features/terminals/outputScheduler.ts). A pane whose
   * terminal has focus, or that took a keystroke this recently, gets its output parsed first; and
   * while any pane took one this recently, the other panes are paced per frame.
   */
  outputForegroundAfterInputMs: 1_000,
  /**
   * Parse time per animation frame for all background panes together while someone types: with
   * the DOM renderer drawing the scrolling panes too, the frame that draws the echo stays near.
   */
  outputBackgroundBudgetTypingMs: 4,
  /**
   * …in a round at most this often while someone types: each round makes the DOM renderer redraw
   * every scrolled row of the panes it fed, which costs the echo's frame more than the parsing.
   */
  outputBackgroundTypingIntervalMs: 50,
  /** …and per turn while nobody types: xterm's own slice (WRITE_TIMEOUT_MS), so a flood runs as fast as xterm takes it. */
  outputBackgroundBudgetMs: 12,
  /** A background pane's batch is never smaller than this, so a slow estimate still makes progress. */
  outputMinBatchChars: 2_048,
  /** xterm's parse speed is measured as it goes; these bound the estimate (chars per ms). */
  outputInitialCharsPerMs: 1_000,
  outputMinCharsPerMs: 200,
  outputMaxCharsPerMs: 50_000,
  /** A round waits for the next frame, or this long if the browser stopped drawing frames. */
  outputFrameFallbackMs: 100,
  /**
   * A pane is flooded while it received at least `floodChars` in the last 100–200 ms (200–400 KB/s:
   * a build log or `cat` of a big file; an agent's TUI redrawing or forty agents' 20 lines a second
   * are far below). A flooded pane is redrawn at most every `floodRenderIntervalMs`, so xterm keeps
   * the page's time for parsing (renderer/features/terminals/renderPacing.ts) — except for
   * `floodPacingAfterInputMs` after a keystroke in it, so an echo or the prompt after Ctrl-C is
   * drawn at the next frame.
   */
  floodChars: 40_000,
  floodRenderIntervalMs: 33,
  floodPacingAfterInputMs: 250,
  /**
   * The headless mirror may fall this far behind before the PTY is paused (and must catch up to
   * the low mark before it resumes). Output waits for the mirror in a pile of up to 8 MiB (so a
   * flood's lines that only scroll through the scrollback are skipped, lazyMirror.ts) plus a
   * 2 MiB batch on its way: the low mark is above that, so a pile that waits never keeps a PTY
   * paused once its panes have caught up. Parsed on a worker thread, far below xterm's 50 MB
   * discard limit.
   */
  mirrorHighWatermarkChars: 16_000_000,
  mirrorLowWatermarkChars: 12_000_000,
  /** Flush a batch at once when it reaches this size. */
  batchMaxBytes: 64 * 1024,
  /** Under sustained output, flush at least this often so panes stay live. */
  batchMaxDelayMs: 8,
  /** Raw output ring per terminal, addressed by absolute byte offsets. */
  ringBytes: 4 * 1024 * 1024,
  /** Default scrollback of panes and of the headless mirror. */
  scrollbackLines: 10_000,
  defaultCols: 80,
  defaultRows: 24,
  /** Resize bounds: 0×0 is refused; the upper bound stops a runaway client allocating gigabytes. */
  minCols: 2,
  minRows: 1,
  maxCols: 1000,
  maxRows: 500,
  /** Kill escalation: SIGHUP, then SIGTERM, then SIGKILL after these delays. */
  killTermDelayMs: 250,
  killForceDelayMs: 1500,
  /** Largest single write accepted from a client. */
  maxWriteChars: 1024 * 1024,
  /**
   * Input typed into a terminal that cannot take it yet (a pane still attaching, a window
   * reconnecting, a remote viewer's terminal still starting) is held up to this many UTF-8 bytes,
   * then refused: far more than anyone types ahead, and a paste bigger than this into a terminal
   * that is not there yet is more likely a mistake than something to replay later.
   */
  typeAheadMaxBytes: 64 * 1024,
} as const;

export const AppConstants = {
  appName: 'Switchboard',
  /** Browser-mode session cookie, set after the one-time URL token was accepted. */
  tokenCookieName: 'switchboard_token',
  /**
   * Largest WebSocket message the browser-mode server accepts. Big enough for a review decision
   * on a 10 MiB file (JSON escaping can double it), a large paste or a `.cast` import; the socket
   * only talks to an authenticated page on loopback, and one message this size is cheap to parse.
   */
  maxWebSocketMessageBytes: 64 * 1024 * 1024,
  /**
   * Browser mode pings each WebSocket this often and drops one that missed a pong: a client gone
   * silently (a closed laptop behind an SSH tunnel) would otherwise hold its lossless attachments
   * and, once 100 000 chars are unacknowledged, pause the PTY for everyone.
   */
  webSocketHeartbeatMs: 30_000,
} as const;

/** The control socket (claws-compatible NDJSON; see docs/protocol.md and ../shared/protocols/claws.md). */
export const ControlConstants = {
  /** claws framing rule: a connection whose unparsed input exceeds this gets `request too large` and is closed. */
  maxRequestBytes: 1024 * 1024,
  /**
   * A client that does not read its responses: once this much is queued for it in the kernel and
   * in Node's write buffer, it is dropped, so it cannot grow the Hub's memory without bound.
   */
  maxPendingResponseBytes: 8 * 1024 * 1024,
  /** Requests of one connection in progress at once; past this the connection stops being read until some finish. */
  maxInFlightRequests: 256,
  /**
   * A client that ended its side with requests in progress is sent a blank line (which the framing
   * skips) this often until they are answered: a client that only half-closed reads on, one that is
   * gone makes the write fail, so its connection closes and its waiting requests (an exec not yet
   * typed) give up instead of acting for nobody.
   */
  endedClientProbeMs: 1000,
  /**
   * Request lines are handled in turns (src/node/control/requestTurns.ts): each connection with lines
   * waiting gets a slice of requestSliceMs (at least one line, however long), connections in a round,
   * until requestTurnBudgetMs of the turn are spent; then the event loop runs (sockets are read, PTY
   * output flows) before the next turn. Slices are measured in time, not lines, so a client of cheap
   * requests (`ping`) gets through all it sent in its slice while another's slice holds few costly
   * lines: a ping stays answered within milliseconds while 16 clients pipe thousands of lines (issue
   * 23: it once waited > 1 s).
   */
  requestSliceMs: 1,
  requestTurnBudgetMs: 10,
  /** How long a stale-socket probe waits for a connect (claws' value: a live local server answers in milliseconds). */
  staleProbeMs: 250,
  /** Linux sun_path holds 108 bytes including the terminating NUL. */
  maxSocketPathBytes: 107,
  /** claws' default `exec` timeout. */
  execDefaultTimeoutMs: 180_000,
  /** How long a person's `terminal.run` may wait for its turn to type before it is refused (nothing typed). */
  personRunTypeWithinMs: 30_000,
  /** Upper bound for any timeout a client asks for (a day): keeps timers sane. */
  maxTimeoutMs: 24 * 60 * 60 * 1000,
  /**
   * Per connection: terminals opened (`create`, `agent.start`) at once, then per second
   * (src/node/control/clientLimits.ts). A claws fleet of a dozen workers starts at once; a
   * create/close loop is slowed to the steady rate and told when to retry.
   */
  createBurst: 24,
  createPerSecond: 5,
  /** Per connection: `exec`s in progress at once (sent without waiting for answers); serial use is never limited. */
  execMaxInProgress: 32,
  /**
   * Control-socket access tokens kept (control-tokens.json). Past it the oldest revoked or expired
   * ones are forgotten; when all are still good, `tokens.create` is refused with TOKEN_LIMIT — so a
   * client looping on `tokens.create` cannot grow the file and its rewrites without end.
   */
  maxStoredTokens: 256,
  /** Defaults of the settings socketMaxTerminals / socketMaxTerminalsPerClient. */
  socketMaxTerminals: 64,
  socketMaxTerminalsPerClient: 24,
  /** `exec` output kept in a response; the tail is kept (errors and summaries come last). */
  execMaxOutputBytes: 256 * 1024,
  /** claws' readLog cap per request. */
  readLogMaxBytes: 512 * 1024,
  /** claws' server cap for `poll`. */
  pollMaxEvents: 100,
  /** Command events kept for `poll` (oldest dropped first). */
  commandLogEvents: 1000,
  /** Output kept per command event in the poll log (tail); `exec` responses carry up to execMaxOutputBytes. */
  commandLogOutputBytes: 16 * 1024,
  /** Audit entries kept, in memory and in `audit-log.ndjson` (oldest dropped first). */
  auditEntries: 2000,
  /**
   * The audit file is appended to and rewritten with only the kept entries once it holds this many
   * times `auditEntries` lines: rare rewrites, and the file stays bounded.
   */
  auditFileCompactFactor: 2,
  /** After a bracketed paste, Enter goes as its own write this much later: Ink TUIs (Claude Code) take a `\r` inside the paste chunk as text. */
  pasteEnterDelayMs: 30,
  /**
   * Longest an agent's `send` waits for a person to stop typing into the pane before it gives up
   * with the busy error: someone typing for half a minute is not going to pause for the agent.
   */
  agentSendMaxWaitMs: 30_000,
  /**
   * Longest an agent's `send`/`exec` waits for a person to finish (Enter) or clear a line they
   * left half typed at the prompt, before it is refused with "unsent input at the prompt": long
   * enough for someone finishing a line, short enough that an agent hears back while it matters.
   */
  unsentInputMaxWaitMs: 10_000,
  /**
   * Longest an agent's `send`/`exec` waits for a shell started with our integration to draw its
   * first prompt (slow rc files: pyenv, nvm, conda take seconds). A shell that never reports
   * (its rc `exec`s another shell) is typed into after this, as one without integration.
   */
  firstPromptMaxWaitMs: 15_000,
  /** `wait` without timeoutMs. */
  waitDefaultTimeoutMs: 30_000,
  /** ANSI-stripped output a `wait` pattern is matched against (the newest part is kept). */
  waitPatternWindowChars: 256 * 1024,
  /** Without shell integration, `wait {prompt}` looks at the screen once output has been quiet this long. */
  promptQuietMs: 100,
  /**
   * How long after input was written a `wait` pattern keeps skipping output while it looks for
   * the input's echo. Shells echo within milliseconds; one that does not echo (`stty -echo`, a
   * password prompt, a TUI that draws the text elsewhere) only delays a match by this much, and
   * then everything from the write on counts.
   */
  echoWaitMs: 1000,
  /** Plain output a `wait` looks through for an echo before it gives up and lets it all count. */
  echoSearchMaxChars: 64 * 1024,
  /** Pieces of sent text (runs between control chars) looked for in the echo: the last ones, which end it. */
  echoMaxPieces: 64,
  /** Longest piece looked for (its tail): a typed line past the kernel's 4095-byte line limit is no ordinary echo. */
  echoPieceMaxChars: 4096,
  /** Sends remembered per terminal for `wait`: enough for a burst of sends before a wait with an earlier `since`. */
  sentInputsKept: 16,
  /**
   * A `wait` looks this far back before its start for the last send, whose echo may still be
   * arriving (or be redrawn by the shell once it reads a line typed ahead).
   */
  echoLookbackBytes: 64 * 1024,
} as const;

/** The diff review queue and the editor side of the IDE bridge (see reviewContract.ts). */
export const ReviewConstants = {
  /**
   * Largest proposed file (and file a file tab opens or saves), in bytes. A 10 MiB diff is already
   * past what a person reviews; beyond it the requester gets a clear error instead of the UI
   * freezing on a merge view of a generated file.
   */
  maxFileBytes: 10 * 1024 * 1024,
  /** Paths longer than Linux's PATH_MAX cannot name a file. */
  maxPathChars: 4096,
  /** A reviewer's comment. */
  maxCommentChars: 10_000,
  /** Selections and "Send to Claude" text: larger ones are not context a prompt can use. */
  maxSelectionChars: 1024 * 1024,
  /** File tabs the UI may report at once. */
  maxOpenEditors: 500,
  /** Decided reviews kept in the database; older ones are pruned (a year of busy use). */
  maxDecidedReviews: 5_000,
  /**
   * Contents (old, proposed and final text, unified diff) kept for the newest decided reviews, in
   * bytes; older ones keep metadata and line counts only. A 10 MiB review can take 40 MB, so 5 000
   * full rows could fill a disk; 256 MiB keeps the last few hundred ordinary reviews whole.
   */
  maxDecidedContentBytes: 256 * 1024 * 1024,
  /**
   * A decided review whose texts and diff are bigger than this is stored without its texts and
   * with its unified diff cut to this size (`contentsPruned`): writing tens of MB into SQLite
   * holds the Hub's thread (every pane) for most of a second on a slow disk, and nobody rereads a
   * 10 MiB file in the decided list. 2 MiB keeps a 10 000-line review whole.
   */
  maxStoredReviewBytes: 2 * 1024 * 1024,
  /** Decided reviews `review.list` returns by default. */
  defaultDecidedLimit: 100,
  /** A control client waiting on `review.request` is checked this often: gone, its review is withdrawn. */
  requesterCheckMs: 1_000,
  /**
   * Line diffs of files up to this many lines (both sides together) run on the Hub's thread: even
   * the worst case of the bounded search costs a few milliseconds, less than a worker round trip.
   * Larger ones run on the diff worker thread (src/node/review/reviewDiffer.ts).
   */
  diffInlineMaxLines: 2_000,
  /** …and up to this many characters (long lines cost string comparisons). */
  diffInlineMaxChars: 256 * 1024,
  /**
   * Files up to this many lines (both sides) get a first try on the Hub's thread with the search
   * capped at diffInlineTrialMaxEdits changed lines: at most ~(lines × edits) comparisons, about
   * 10 ms, and it succeeds for the usual edit of a few places, sparing a worker start (~200 ms).
   * Past the cap, the diff goes to the worker.
   */
  diffInlineTrialMaxLines: 24_000,
  diffInlineTrialMaxChars: 2 * 1024 * 1024,
  diffInlineTrialMaxEdits: 64,
  /**
   * A diff the worker has not finished in this long is given up (the worker is stopped) and
   * approximated in linear time. A 10 MiB worst case takes about 2 s on a loaded 2-core machine.
   */
  diffTimeoutMs: 30_000,
  /** The diff worker is stopped after this long without work, giving its memory back. */
  diffWorkerIdleMs: 60_000,
} as const;

/** The lock-file IDE bridge for Claude Code (../shared/protocols/claude-ide.md is the reference). */
export const IdeConstants = {
  /** The name Claude Code's `/ide` shows, and how our own lock files are told apart from other IDEs'. */
  ideName: 'Switchboard',
  /** Ping every client this often… */
  pingIntervalMs: 30_000,
  /** …and close one that has not answered a ping for this long (a CLI killed without a close frame). */
  pongTimeoutMs: 60_000,
  /** Largest WebSocket frame from a client: a 10 MiB proposed file is JSON-escaped (up to 6× for control characters) plus its envelope. */
  maxFrameBytes: 64 * 1024 * 1024,
  /** `selection_changed` is sent once selections have settled this long (claude-ide.md: ~100 ms). */
  selectionDebounceMs: 100,
  /** How far up the parent chain a connected CLI's pid is followed to find its pane's shell. */
  maxProcessTreeDepth: 64,
  /** MCP protocol version answered to a client that names none we know (older CLIs speak this one). */
  fallbackProtocolVersion: '2024-11-05',
} as const;

/**
 * The relay client and `switchboard relay` (GSD Cloud wire protocol; see docs/relay.md and
 * src/common/protocol/relay). Values marked "spec" are the protocol's / reference daemon's.
 */
export const RelayConstants = {
  /** spec: the relay must answer `hello` with `welcome` within this, else the connection is dropped. */
  welcomeTimeoutMs: 10_000,
  /** spec: `heartbeat` frame interval; also our WebSocket ping interval (a missed pong drops the link). */
  heartbeatIntervalMs: 30_000,
  /** spec: reconnect backoff starts here and doubles… */
  backoffInitialMs: 1_000,
  /** spec: …up to this… */
  backoffMaxMs: 60_000,
  /** spec: …with ±20 % jitter… */
  backoffJitter: 0.2,
  /**
   * spec: …and resets only after a connection that lived this long. A relay that accepts and then
   * drops us (closes right after welcome) therefore keeps the backoff growing: no tight loop.
   */
  backoffResetAfterMs: 120_000,
  /** spec: frames waiting to be written; a full queue means the relay stopped reading: the link is dropped. */
  sendQueueFrames: 512,
  /** spec: a write not flushed within this drops the connection. */
  writeTimeoutMs: 10_000,
  /** Stop pulling terminal output into the socket while this much is still unflushed (keeps latency low under floods). */
  socketHighWaterBytes: 256 * 1024,
  /** spec: raw bytes per `terminalOutput` frame (before base64). */
  outputChunkBytes: 8 * 1024,
  /** spec: bound of a `terminalSnapshot` (raw bytes before base64). */
  snapshotMaxBytes: 256 * 1024,
  /** Scrollback lines tried, largest first, until a serialized snapshot fits snapshotMaxBytes. */
  snapshotScrollbackSteps: [1000, 200, 0],
  /**
   * Output queued for one viewer of one terminal before it is skipped ahead with a fresh snapshot:
   * a slow viewer never holds more than this, and never slows the PTY (remote viewers are lossy).
   */
  viewerBufferBytes: 1024 * 1024,
  /** Viewer streams (terminal × channel) per connection; the least recently attached is dropped past this. */
  maxViewerStreams: 128,
  /** spec: terminals the browser may have open at once (`Terminal limit reached`). */
  maxRemoteTerminals: 8,
  /** spec: clamps of `terminalOpen` / `terminalResize`. */
  remoteMinCols: 20,
  remoteMaxCols: 300,
  remoteMinRows: 5,
  remoteMaxRows: 100,
  /** spec: a browser-opened terminal without input for this long ends (`disconnect_timeout`). */
  remoteIdleTimeoutMs: 5 * 60_000,
  /** spec: a browser-opened terminal ends after this at the latest (`max_lifetime`). */
  remoteMaxLifetimeMs: 4 * 60 * 60_000,
  /** Bounds for the idle / lifetime a `terminalOpen` asks for (keeps timers sane). */
  remoteMinTimeoutMs: 1_000,
  remoteMaxTimeoutMs: 24 * 60 * 60_000,
  /** spec: `browseDir` page size default and maximum. */
  browseDefaultLimit: 200,
  browseMaxLimit: 500,
  /** Entries of one directory read at most for a listing (a directory of a million files costs bounded memory). */
  browseMaxScanEntries: 10_000,
  /** spec: `readFile` default cap; also the most we ever read (the frame must stay under 1 MiB). */
  readFileDefaultMaxBytes: 512 * 1024,
  /** File requests (browse/read/mkdir) handled at once per connection; more are answered "busy". */
  maxFileRequestsInFlight: 16,
  /** Announcements of one shared terminal (`agentTerminalUpdated`) at most this often. */
  announceThrottleMs: 250,
  /** Refused frames are logged once per kind, then summarised at most this often. */
  refusalSummaryIntervalMs: 60_000,
  /** `switchboard relay`: a viewer socket with this much unsent is skipped ahead (its output dropped, then a fresh snapshot). */
  relayViewerLagBytes: 4 * 1024 * 1024,
  /** `switchboard relay`: … and closed (1013) when even control frames pile up past this. */
  relayViewerMaxBufferedBytes: 16 * 1024 * 1024,
  /** `switchboard relay`: viewers per machine. */
  relayMaxViewersPerMachine: 32,
  /** `switchboard relay`: shared-terminal announcements remembered per machine for viewers that join later. */
  relayAnnouncementCacheEntries: 512,

  // --- dev-server preview tunnel (gsd-relay.md "Dev-server preview tunnel", docs/relay.md) ---
  /** Advertised `previewChunkBytes`: body bytes per `previewStreamChunk` / `previewWebSocketData` before base64 (~342 KiB framed, well inside 1 MiB). */
  previewChunkBytes: 256 * 1024,
  /** Advertised `previewMaxFrameBytes`: the envelope's limit. */
  previewMaxFrameBytes: 1 << 20,
  /** A preview lives this long after `previewOpen` unless closed sooner (`expiresAt`). */
  previewLifetimeMs: 8 * 60 * 60_000,
  /** Previews open at once per machine (each one a port of a shared pane). */
  previewMaxOpenPerMachine: 16,
  /** HTTP requests and WebSockets in flight at once, per preview and per machine; more are answered 503. */
  previewMaxStreamsPerPreview: 64,
  previewMaxStreamsPerMachine: 256,
  /** A request body larger than this is refused (413) before a byte of it is sent on. */
  previewMaxRequestBodyBytes: 32 * 1024 * 1024,
  /** A response body larger than this is cut (the stream is cancelled): a download, not a dev page, past it. */
  previewMaxResponseBodyBytes: 1024 * 1024 * 1024,
  /** No byte either way on a stream for this long ends it (a dev server that hangs). */
  previewStreamIdleTimeoutMs: 60_000,
  /** An HTTP stream ends after this long whatever happens (WebSockets have no total limit; they close with the preview). */
  previewStreamTotalTimeoutMs: 10 * 60_000,
  /** How long `previewOpen` / `previewWebSocketOpen` / a response head may take before the relay answers 504. */
  previewOpenTimeoutMs: 15_000,
  /**
   * Back-pressure per stream: the reader side (the dev server's response on the machine, the
   * viewer's request or socket on the relay) pauses while more than this is queued unsent for it,
   * so a slow viewer costs bounded memory and stalls only its own stream.
   */
  previewStreamBufferBytes: 1024 * 1024,
} as const;
