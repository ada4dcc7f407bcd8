/** The claws/2 bus's limits and timings, with the reason beside each. */
export const BusConstants = {
  /** Events kept for `fromCursor` replay: enough for an orchestrator to catch up after a restart. */
  logMaxEvents: 10_000,
  /** Bytes (serialized) kept for replay, so a few huge payloads cannot make the log unbounded. */
  logMaxBytes: 8 * 1024 * 1024,
  /**
   * The file may grow to this many times the bound before it is rewritten with only what is kept:
   * compacting on every append past the bound would rewrite 8 MiB per event.
   */
  logCompactFactor: 2,
  /** claws' heartbeat period (claws.md: `system.heartbeat` (60 s)). */
  heartbeatIntervalMs: 60_000,
  /**
   * A `terminal.<id>.output` stream skips chunks while this much is already queued for its
   * connection, instead of growing memory (the connection's hard drop limit is 8 MiB).
   */
  outputSkipQueuedBytes: 1024 * 1024,
  /** Subscriptions per connection: a client looping on subscribe cannot grow the Hub without bound. */
  maxSubscriptionsPerPeer: 1000,
} as const;
