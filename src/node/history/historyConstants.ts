/**
 * Every tuning number of History (the recorded-session store) in one place, with the reason beside
 * it. The user-facing caps (total size, age, per session) are settings; their defaults live in
 * `defaultSettings` (src/common/api/contract.ts).
 */
const MiB = 1024 * 1024;

export const HistoryConstants = {
  /** `$SWITCHBOARD_HOME/<this>`: one SQLite file in WAL mode (DESIGN.md §3). */
  databaseFileName: 'switchboard.db',
  /** Written into `PRAGMA application_id` so a foreign SQLite file is told apart from ours ("SwBd"). */
  applicationId: 0x53774264,
  /**
   * Output of one terminal is coalesced for this long before it is written: at most one chunk per
   * terminal per window, and all terminals' chunks go in one transaction (the issue's ~16 ms).
   */
  coalesceMs: 16,
  /**
   * Stored output rows are cut at this size (a flood then writes several chunks per batch, still
   * in one transaction). Small rows keep a search hit's snippet cheap: it reads the one or two rows
   * under its text block (64 KiB rows made snippets 6× slower), and a row this size fits one 16 KiB
   * page (pageSize) without an overflow page.
   */
  maxChunkBytes: 16_000,
  /**
   * Pending output (all terminals) past which a batch is written at once instead of waiting for
   * the timer, so a flood cannot grow the Hub's memory without bound between two ticks.
   */
  maxPendingBytes: 16 * MiB,
  /**
   * Pending output is copied into reusable slabs of this size (byteArena.ts): a fresh buffer per
   * batch cost a flood more in malloc, page faults and V8's sweeper than the copy itself. At most
   * recordSpareSlabs stay allocated between transactions (a flood needs one or two per 16 ms).
   */
  recordSlabBytes: 1 * MiB,
  recordSpareSlabs: 4,
  /** After a failed write (disk full, I/O error), recording stays paused this long before it tries again. */
  retryAfterFailureMs: 15_000,
  /** Full-text index: text blocks are cut near this many bytes of output, at a line or word boundary. */
  searchBlockChars: 8 * 1024,
  /** The indexer works in slices of at most this long, so the Hub's thread stays responsive. */
  indexSliceMs: 12,
  /**
   * While output is being recorded (a flood), indexing waits; but it runs at least once this
   * often, so a long-running build still becomes searchable as it goes.
   */
  indexMaxDeferMs: 1_000,
  /** Indexing waits until no batch was written for this long (output has gone quiet). */
  indexQuietMs: 150,
  /** Retention (total size, age) is checked this often, and at start. */
  retentionIntervalMs: 5 * 60_000,
  /**
   * Pruning removes a little more than the excess, down to this fraction of a cap, so that a full
   * store does not prune on every check (per-session and total caps alike).
   */
  pruneToFraction: 0.9,
  /** Freed pages returned to the file system per retention pass (`PRAGMA incremental_vacuum`), in pages. */
  vacuumPagesPerPass: 64 * 1024,
  /** `history.read` default byte count (the contract caps a request at 16 MiB). */
  readDefaultBytes: 1 * MiB,
  /** `history.events`: default event count, and the bytes of output one response carries at most (at least one event). */
  eventsDefaultLimit: 2000,
  eventsMaxBytes: 4 * MiB,
  /** `history.list` and `history.commands` defaults. */
  listDefaultLimit: 200,
  commandsDefaultLimit: 500,
  searchDefaultLimit: 50,
  /** Words of context a search snippet shows around the match (FTS5 allows at most 64). */
  snippetTokens: 24,
  /**
   * Database page size, set when the file is created. Most of the file is output chunks of up to
   * maxChunkBytes: larger pages mean shorter overflow chains (measured: ~10% faster ingest than 4 KiB).
   */
  pageSize: 16_384,
  /** SQLite's page cache for the connection, in KiB (its default is 2 MiB; search reads many small ranges). */
  cacheKiB: 32 * 1024,
  /**
   * The WAL is copied into the database file by a worker thread (walCheckpointer.ts): once writes
   * have been quiet this long, and during a long flood after every `checkpointEveryBytes` of
   * output, which bounds the WAL (and what crash recovery replays) to about twice that.
   */
  checkpointQuietMs: 500,
  checkpointEveryBytes: 96 * MiB,
  /**
   * A WAL file larger than this is given back to the file system: by the checkpoint worker once
   * output is quiet (then to nothing), or — without the worker — by the COMMIT that restarts the
   * WAL (`PRAGMA journal_size_limit`, down to this size).
   */
  walKeepBytes: 64 * MiB,
  /** The recording connection's page cache, in KiB (see openRecordingConnection). */
  recordingCacheKiB: 2 * 1024,
  /** Statement time SQLite may wait for a lock held by another connection (a CLI reading the file). */
  busyTimeoutMs: 5_000,
  /** Transcript files written by `history.reference` go in `$SWITCHBOARD_HOME/<this>/`. */
  referencesDirName: 'references',
  /** Longest command line shown in the pasted one-line pointer. */
  pointerCommandChars: 80,
  /** Byte counts, for settings given in MiB. */
  bytesPerMiB: MiB,
  /**
   * An imported .cast's header `timestamp` (Unix seconds) is refused past the last second of the
   * year 9999: later ones are not dates (JavaScript's Date ends at 275760) and, once in
   * milliseconds, are integers SQLite hands back as numbers JavaScript cannot hold — which broke
   * every later `list` of History (a fuzzed cast found it).
   */
  castMaxTimestampSeconds: 253_402_300_799,
  /** An imported event's `time` and the header's `duration`, in seconds after the start: 100 years, far beyond any recording, and start plus this stays a date. */
  castMaxTimeSeconds: 100 * 365.25 * 24 * 60 * 60,
} as const;
