/**
 * Every tuning number of the terminal pipeline in one place, with the reason beside it.
 * Flow-control values are VS Code's (src/vs/platform/terminal/common/terminal.ts), which are
 * proven against real TUIs and floods.
 */
export const TerminalConstants = {
  /** Pause the PTY when a lossless subscriber has this many unacknowledged chars. */
  highWatermarkChars: 100_000,
  /** Resume the PTY once every lossless subscriber is back below this. */
  lowWatermarkChars: 5_000,
  /** The renderer acknowledges in steps of this many chars (from xterm.js write callbacks). */
  ackBatchChars: 5_000,
  /**
   * The headless mirror may fall this far behind before the PTY is paused (and must catch up to
   * the low mark before it resumes). It parses on a worker thread, so a deep queue keeps it busy
   * while the PTY is read in parallel; the bound stays far below xterm's 50 MB discard limit.
   */
  mirrorHighWatermarkChars: 1_000_000,
  mirrorLowWatermarkChars: 250_000,
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
} as const;

export const AppConstants = {
  appName: 'Switchboard',
  /** Browser-mode session cookie, set after the one-time URL token was accepted. */
  tokenCookieName: 'switchboard_token',
  /** Largest WebSocket message the browser-mode server accepts. */
  maxWebSocketMessageBytes: 2 * 1024 * 1024,
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
  /** How long a stale-socket probe waits for a connect (claws' value: a live local server answers in milliseconds). */
  staleProbeMs: 250,
  /** Linux sun_path holds 108 bytes including the terminating NUL. */
  maxSocketPathBytes: 107,
  /** claws' default `exec` timeout. */
  execDefaultTimeoutMs: 180_000,
  /** Upper bound for any timeout a client asks for (a day): keeps timers sane. */
  maxTimeoutMs: 24 * 60 * 60 * 1000,
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
  /** Audit entries kept in memory (oldest dropped first). */
  auditEntries: 2000,
  /** After a bracketed paste, Enter goes as its own write this much later: Ink TUIs (Claude Code) take a `\r` inside the paste chunk as text. */
  pasteEnterDelayMs: 30,
  /**
   * Longest an agent's `send` waits for a person to stop typing into the pane before it gives up
   * with the busy error: someone typing for half a minute is not going to pause for the agent.
   */
  agentSendMaxWaitMs: 30_000,
  /** `wait` without timeoutMs. */
  waitDefaultTimeoutMs: 30_000,
  /** ANSI-stripped output a `wait` pattern is matched against (the newest part is kept). */
  waitPatternWindowChars: 256 * 1024,
  /** Without shell integration, `wait {prompt}` looks at the screen once output has been quiet this long. */
  promptQuietMs: 100,
} as const;
