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
