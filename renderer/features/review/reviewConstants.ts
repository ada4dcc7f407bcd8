/** The Review view's and file tabs' tuning, with the reason beside each number. */
export const ReviewUiConstants = {
  /**
   * A selection is reported once it has stopped changing this long: a mouse drag changes it on
   * every move, and the Hub debounces `selection_changed` again (~100 ms) before Claude Code sees it.
   */
  selectionReportDelayMs: 150,
  /** While a file tab is dirty its text goes to the Hub (for `saveDocument`); typing bursts are sent once. */
  dirtyTextReportDelayMs: 300,
  /** Decided reviews loaded at first and per "Show older" click. */
  decidedPageSize: 50,
  /** "Sent ✓" stays on a Send to Claude button this long. */
  sentFeedbackMs: 2_000,
  /** Ages ("5 min ago") are redrawn this often while the view is open. */
  ageRefreshMs: 30_000,
  /** Notifications of one review replace each other (same tag) instead of stacking. */
  notificationTagPrefix: 'switchboard-review-',
  /** Unchanged stretches of a diff longer than `minSize` lines fold to `margin` lines of context (a click unfolds them). */
  collapseUnchanged: { margin: 3, minSize: 6 },
  /**
   * Below this width (px) of the diff area a side-by-side diff shows unified instead: each side
   * would get under ~300 px, a few dozen characters of code, and the per-change buttons fall off
   * the right edge. (VS Code's diff editor does the same below 900 px for the whole editor.)
   */
  narrowDiffPx: 600,
  /** Key in localStorage of the diff layout the person chose last (side by side or unified). */
  diffModeStorageKey: 'switchboard.review.diffMode',
  /** Key in localStorage of whether unchanged lines are folded. */
  collapseStorageKey: 'switchboard.review.collapseUnchanged',
} as const;
