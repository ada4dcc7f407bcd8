/**
 * How full a log that is bounded by design is: the bus log, the audit log, the command events.
 * Each keeps its newest entries up to a cap; `npm run soak` waits until they are full before it
 * judges the Hub's memory, so that a log filling up is not mistaken for a leak.
 */
export interface LogFill {
  /** Entries kept now. */
  kept: number;
  /** Entries kept at most. */
  capacity: number;
  /** The next entry drops an older one (the log is at its entry cap, or at its byte cap). */
  full: boolean;
}
