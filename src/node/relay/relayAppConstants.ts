/**
 * Numbers of the app's side of remote access (the Hub-owned relay client, approvals, remote typing
 * shown locally), with the reason for each. The protocol's own numbers are `RelayConstants` in
 * src/common/constants.ts.
 */
export const RelayAppConstants = {
  /**
   * A remote viewer's typing is shown under the pane at most this often per viewer and pane: often
   * enough to follow along, rarely enough that the pane header does not flash on every key.
   */
  remoteInputEchoIntervalMs: 400,
  /** Characters of the typed line shown (the end of it), as for agents' `terminal.agentInput` (the contract's max). */
  remoteInputPreviewChars: 200,
  /**
   * Unified diff carried in an approval request (`permissionRequest` toolInput.diff), UTF-8 bytes.
   * Larger diffs are cut at a line end and flagged `diffTruncated`: a frame may not exceed 1 MiB,
   * and JSON escaping can double a diff's size. The decision still applies to the whole file.
   */
  approvalDiffMaxBytes: 256 * 1024,
  /** An approval frame is shrunk (its diff halved) until it is at most this big, well under the 1 MiB frame limit. */
  approvalFrameMaxBytes: 900 * 1024,
} as const;
