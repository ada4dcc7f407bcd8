/**
 * The Review part of the API contract: the diff review queue (fed by Claude Code's `openDiff`
 * through the IDE bridge, the control socket's `review.request` and the `review_request` MCP
 * tool), the IDE bridge's state (which panes have Claude Code connected), and the editor side the
 * bridge's tools need from the UI (file tabs, selections, "Send to Claude"). Spread into
 * `hubMethods`/`hubEvents` by contract.ts.
 *
 * Conventions:
 * - Paths are absolute and the Hub normalizes them; a path outside every workspace folder is
 *   allowed but flagged (`outsideWorkspace`).
 * - Positions are 0-based `{line, character}` (as in `selection_changed`); `character` counts
 *   UTF-16 code units, as CodeMirror and Claude Code do.
 * - File contents travel as strings. A file that is not text (NUL bytes, invalid UTF-8) never
 *   travels: only its size does (`binary`), and the UI shows "binary file, N bytes".
 * - Proposed files above `ReviewConstants.maxFileBytes` never reach the queue: the requester gets a
 *   clear error instead.
 */
import { z } from 'zod';
import { ReviewConstants } from '../constants.ts';
import { TerminalId } from './contractTypes.ts';

/** Review ids are opaque: `rv-` + random hex. */
export const ReviewId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/, 'review ids are [A-Za-z0-9_.-]');
export type ReviewId = z.infer<typeof ReviewId>;

/** An absolute POSIX (`/…`) or Windows (`C:\…`) path without NUL characters. */
export const AbsolutePath = z
  .string()
  .min(1)
  .max(ReviewConstants.maxPathChars)
  .refine((path) => !path.includes('\0'), 'paths may not contain NUL characters')
  .refine((path) => /^(\/|[A-Za-z]:[\\/])/.test(path), 'expected an absolute path');

/** Largest file text a method accepts (chars; the Hub also checks the UTF-8 byte size). */
const FileText = z.string().max(ReviewConstants.maxFileBytes);

export const Position = z
  .object({
    /** 0-based line. */
    line: z.number().int().min(0).max(100_000_000),
    /** 0-based column in UTF-16 code units. */
    character: z.number().int().min(0).max(100_000_000),
  })
  .strict();
export type Position = z.infer<typeof Position>;

export const Range = z.object({ start: Position, end: Position }).strict();
export type Range = z.infer<typeof Range>;

// ---- review items -------------------------------------------------------------------------

export const ReviewSourceKind = z.enum(['ide', 'control', 'mcp']);
export type ReviewSourceKind = z.infer<typeof ReviewSourceKind>;

/** Who asked for the review. */
export const ReviewSource = z.object({
  /** `ide`: Claude Code's openDiff; `control`: `review.request` on the control socket; `mcp`: the `review_request` tool of `switchboard mcp`. */
  kind: ReviewSourceKind,
  /**
   * The requester's name: the IDE client's title ("Claude Code"), the control peer's name (its
   * `clientName`, or the request's `from`), or the MCP server's client ("switchboard-mcp").
   */
  name: z.string(),
  /** The pane the requester runs in (IDE: matched through its process tree; control/MCP: as the requester said), when known. */
  terminalId: TerminalId.nullable(),
  /** That pane's name when the review was created (the pane may be closed since). */
  terminalName: z.string().nullable(),
  /** IDE reviews: Claude Code's `tab_name` (the CLI closes the review by this name); null otherwise. */
  tabName: z.string().nullable(),
  /**
   * What Accept does to the file. true: the app writes the accepted contents (a control/MCP
   * request with `apply`). Absent or false: the requester gets them and writes the file itself,
   * as Claude Code always does; the app writes nothing.
   */
  apply: z.boolean().optional(),
});
export type ReviewSource = z.infer<typeof ReviewSource>;

/** What the proposal does to the file. */
export const ReviewChange = z.enum([
  /** The file exists and gets new contents. */
  'modify',
  /** The file does not exist yet: `oldContents` is null (empty left side). */
  'create',
  /** The file is to be deleted: `newContents` is null. Only `review.request` can propose this (Claude Code's openDiff cannot). */
  'delete',
]);
export type ReviewChange = z.infer<typeof ReviewChange>;

/**
 * Set when either side is not text. Sizes in bytes; null for a side that does not exist (a new
 * or deleted file). Both sides' text is then withheld; accept/reject still work (accept returns the
 * proposed bytes unchanged: a binary side cannot be edited).
 */
export const ReviewBinaryInfo = z.object({
  oldBytes: z.number().int().min(0).nullable(),
  newBytes: z.number().int().min(0).nullable(),
});
export type ReviewBinaryInfo = z.infer<typeof ReviewBinaryInfo>;

export const ReviewState = z.enum(['pending', 'accepted', 'rejected']);
export type ReviewState = z.infer<typeof ReviewState>;

/** A reviewer's decision as lists show it (no contents). */
export const ReviewDecisionSummary = z.object({
  decision: z.enum(['accepted', 'rejected']),
  /** Who decided: "you" (the local app), or a remote viewer's name. */
  by: z.string(),
  /** Epoch ms. */
  at: z.number(),
  /** The reviewer's comment (a reject reason, a note), or null. */
  comment: z.string().nullable(),
  /** The accepted contents differ from the proposal (the reviewer edited them or accepted only some hunks). */
  edited: z.boolean(),
});
export type ReviewDecisionSummary = z.infer<typeof ReviewDecisionSummary>;

/** A decision with its contents, as `review.get` returns it. */
export const ReviewDecision = ReviewDecisionSummary.extend({
  /**
   * Accepted: exactly the contents the requester received (FILE_SAVED's text, byte for byte);
   * null for a rejection, an accepted deletion, or an accepted binary file.
   */
  finalContents: z.string().nullable(),
  /**
   * A unified diff (`diff -u` style, with `--- a/…`/`+++ b/…` headers) of what was decided:
   * accepted: old contents → final contents; rejected: old contents → the proposal that was
   * rejected. "" for binary files. On a review stored without its texts (`contentsPruned`): cut
   * short at ReviewConstants.maxStoredReviewBytes, ending with a `[diff cut short: …]` line, or ""
   * once pruned for space.
   */
  unifiedDiff: z.string(),
});
export type ReviewDecision = z.infer<typeof ReviewDecision>;

/** A review as lists show it: everything but contents. */
export const ReviewSummary = z.object({
  id: ReviewId,
  source: ReviewSource,
  /** A short human title: the IDE tab name, the requester's title, else the file name. */
  title: z.string(),
  /** The file the proposal is for (absolute, normalized). */
  path: z.string(),
  /** The path lies outside every workspace folder of the app: the view flags it. */
  outsideWorkspace: z.boolean(),
  change: ReviewChange,
  /** null: both sides are text. */
  binary: ReviewBinaryInfo.nullable(),
  /**
   * Added and removed lines (0/0 for binary files), for the list: of the proposal while pending and
   * once rejected; of the change made once accepted (with changes left out or lines edited, not
   * the proposal's).
   */
  stats: z.object({
    added: z.number().int().min(0),
    removed: z.number().int().min(0),
    /**
     * Present (true) when the diff was too costly to compute exactly (a huge file on a loaded
     * machine): the counts then take the differing middle of the file as one replaced block, so
     * they are upper bounds. The UI may show them as "~+N −M".
     */
    approximate: z.boolean().optional(),
  }),
  state: ReviewState,
  /** Epoch ms. */
  createdAt: z.number(),
  /** null while pending. */
  decision: ReviewDecisionSummary.nullable(),
});
export type ReviewSummary = z.infer<typeof ReviewSummary>;

/** A review with its contents, as `review.get` returns it. */
export const ReviewItem = ReviewSummary.extend({
  /** The file's contents when the review was created; null for a new file or a binary side. */
  oldContents: z.string().nullable(),
  /** The proposed contents; null for a deletion or a binary side. */
  newContents: z.string().nullable(),
  /** The decision with its contents; null while pending. */
  decision: ReviewDecision.nullable(),
  /**
   * Present (true) on a decided review stored without its texts, though the file had some: one
   * bigger than ReviewConstants.maxStoredReviewBytes (its diff is kept, cut short), or an old one
   * dropped to keep the database within ReviewConstants.maxDecidedContentBytes (no diff either).
   * `oldContents`, `newContents` and `finalContents` are null; the summary fields remain.
   */
  contentsPruned: z.boolean().optional(),
});
export type ReviewItem = z.infer<typeof ReviewItem>;

/**
 * Why a pending review left the queue without a reviewer's decision (its requester got
 * DIFF_REJECTED / a "withdrawn" answer if it was still listening). Such reviews are not kept in
 * the decided list: nobody decided them.
 */
export const ReviewRemovalReason = z.enum([
  /** The requester opened a new review with the same tab name (Claude Code re-proposing an edit). */
  'superseded',
  /** The requester closed it (`close_tab`, `closeAllDiffTabs`). */
  'closed',
  /** The requester went away (Claude Code disconnected or cancelled the call, the control connection closed). */
  'requester-gone',
  /** The requester's own deadline passed (`review.request {timeoutMs}`, the MCP tool's timeout). */
  'timed-out',
  /** The app is shutting down. */
  'shutdown',
]);
export type ReviewRemovalReason = z.infer<typeof ReviewRemovalReason>;

// ---- IDE bridge --------------------------------------------------------------------------

/** A Claude Code CLI connected to the IDE bridge. */
export const IdeClient = z.object({
  /** Per-app-run connection id (`ide-1`, `ide-2`…). */
  id: z.string(),
  /** The client's name as it introduced itself (`clientInfo.title`, e.g. "Claude Code"). */
  name: z.string(),
  version: z.string().nullable(),
  /** The CLI's process id from `ide_connected`; null until it sent it. */
  pid: z.number().int().nullable(),
  /** The pane whose process tree contains that pid; null when it runs outside Switchboard's panes. */
  terminalId: TerminalId.nullable(),
  terminalName: z.string().nullable(),
  /** Epoch ms. */
  connectedAt: z.number(),
  /** Its reviews waiting for a decision. */
  pendingReviews: z.number().int().min(0),
});
export type IdeClient = z.infer<typeof IdeClient>;

export const IdeState = z.object({
  /** The bridge's WebSocket port on 127.0.0.1 (exported to every PTY as CLAUDE_CODE_SSE_PORT); null when the bridge is off. */
  port: z.number().int().nullable(),
  /** The lock file Claude Code discovers the app by; null when none was written (bridge off, no config dir). */
  lockFile: z.string().nullable(),
  clients: z.array(IdeClient),
});
export type IdeState = z.infer<typeof IdeState>;

// ---- editors (file tabs) -------------------------------------------------------------------

/** A file as a file tab opens it. */
export const EditorFile = z.object({
  path: z.string(),
  /** The text; null when the file is binary. */
  contents: z.string().nullable(),
  /** Set when the file is binary: its size (the tab shows "binary file, N bytes"). */
  binary: z.object({ bytes: z.number().int().min(0) }).nullable(),
  size: z.number().int().min(0),
  /** mtime when read, epoch ms: pass it back to `editor.saveFile` to refuse overwriting a newer file. */
  mtimeMs: z.number(),
  /** A VS Code language id guessed from the file name ("typescript", "python", "plaintext"…). */
  languageId: z.string(),
  outsideWorkspace: z.boolean(),
});
export type EditorFile = z.infer<typeof EditorFile>;

/** The Hub asks the UI to open (or focus) a file tab: Claude Code's `openFile`. */
export const OpenFileRequest = z.object({
  path: z.string(),
  /** Select (and scroll to) this range; null: just open, keep any previous cursor. */
  selection: Range.nullable(),
  /** A preview tab (replaced by the next preview), as VS Code's single-click open. */
  preview: z.boolean(),
  /** Bring the tab (and the window) to the front and focus it; false: open it in the background. */
  focus: z.boolean(),
});
export type OpenFileRequest = z.infer<typeof OpenFileRequest>;

/** One file tab as the UI reports it. */
export const OpenEditor = z
  .object({
    path: AbsolutePath,
    /** The tab that has focus among the file tabs (at most one should). */
    active: z.boolean(),
    /** Unsaved edits. */
    dirty: z.boolean(),
    /** The current text, required while dirty (so `saveDocument` can write it), omitted when clean. */
    text: FileText.optional(),
    /** The language the tab highlights with, if the UI knows better than the file name. */
    languageId: z.string().max(64).optional(),
    /**
     * The file's mtime the tab's text is based on (`EditorFile.mtimeMs` from `editor.readFile`, or
     * the last save's). `saveDocument` refuses to write over a file whose mtime differs (changed
     * on disk since), as VS Code refuses to save over a newer file. Without it the Hub uses the
     * mtime of its own last read or save of that path.
     */
    mtimeMs: z.number().optional(),
  })
  .strict();
export type OpenEditor = z.infer<typeof OpenEditor>;

/** Where a selection was made. */
export const SelectionSource = z.enum(['file', 'diff', 'terminal']);

/** A selection the UI reports (debounced by the UI; the Hub debounces `selection_changed` again). */
export const SelectionReport = z
  .object({
    source: SelectionSource,
    /** The file of a file tab or diff view; null for a pane (terminal) selection. */
    path: AbsolutePath.nullable(),
    /** The pane of a terminal selection. */
    terminalId: TerminalId.optional(),
    /** The selected text ("" for a bare cursor). */
    text: z.string().max(ReviewConstants.maxSelectionChars),
    /** null when the source has no line/column model (a pane selection may omit it). */
    range: Range.nullable(),
  })
  .strict();
export type SelectionReport = z.infer<typeof SelectionReport>;

const Ok = z.object({ ok: z.literal(true) });

export const reviewMethods = {
  /**
   * Pending reviews (oldest first) and decided ones (newest first). Next page: `decidedBefore` =
   * the last one's `decision.at` and `decidedBeforeId` = its `id` (without the id, reviews decided
   * in that same millisecond are skipped).
   */
  'review.list': {
    params: z
      .object({
        decidedLimit: z.number().int().min(0).max(1000).optional(),
        decidedBefore: z.number().optional(),
        decidedBeforeId: ReviewId.optional(),
      })
      .strict(),
    result: z.object({ pending: z.array(ReviewSummary), decided: z.array(ReviewSummary) }),
  },
  /** One review with its contents (pending, or decided from the database). NOT_FOUND for an unknown id. */
  'review.get': { params: z.object({ id: ReviewId }).strict(), result: ReviewItem },
  /**
   * Decide a pending review. Accept: `finalContents` is what the requester receives (IDE:
   * FILE_SAVED with exactly this text); omit it to accept the proposal unchanged (do so when
   * unedited: browser mode caps a message at 2 MiB). Not allowed with reject, a deletion or a
   * binary file. The Hub never writes the file for IDE reviews (Claude Code writes it) nor for
   * control/MCP reviews unless their requester asked it to (`apply`). INVALID_PARAMS when it
   * was already decided (another window or viewer was first: the message says by whom);
   * NOT_FOUND when it is unknown or was withdrawn by its requester (see `review.removed`).
   */
  'review.decide': {
    params: z
      .object({
        id: ReviewId,
        decision: z.enum(['accept', 'reject']),
        finalContents: FileText.optional(),
        comment: z.string().max(ReviewConstants.maxCommentChars).optional(),
      })
      .strict(),
    result: ReviewSummary,
  },
  /** The IDE bridge: port, lock file, connected Claude Code clients. */
  'ide.getState': { params: z.object({}).strict(), result: IdeState },
  /**
   * "Send to Claude" (nothing is submitted: the person presses Enter in the pane):
   * - with `path` (optional 0-based `lineStart`/`lineEnd`) and a Claude Code connected in that
   *   pane: `at_mentioned` to it (a selection in a file tab or diff view sends its path, lines and text);
   * - otherwise `text` is pasted into the pane, never submitted: control characters (but tab)
   *   are dropped; as a bracketed paste when the program asked for one (line breaks stay in the
   *   text), else with line breaks joined into spaces (`newlinesCollapsed: true`), since each would
   *   press Enter; INTERNAL when the pane's screen mirror cannot tell which (nothing is sent);
   * - a `path` without `text` and without a connected Claude Code is typed as `@path#L1-5 `.
   */
  'ide.sendToClaude': {
    params: z
      .object({
        terminalId: TerminalId,
        path: AbsolutePath.optional(),
        lineStart: z.number().int().min(0).optional(),
        lineEnd: z.number().int().min(0).optional(),
        text: z.string().min(1).max(ReviewConstants.maxSelectionChars).optional(),
      })
      .strict(),
    result: z.object({
      deliveredAs: z.enum(['at_mentioned', 'paste']),
      /** Present (true) when the pasted text's line breaks were joined into spaces (the program in the pane did not enable bracketed paste). */
      newlinesCollapsed: z.boolean().optional(),
    }),
  },
  /** Read a file for a file tab. INVALID_PARAMS for a directory or a file over maxFileBytes; NOT_FOUND when missing. */
  'editor.readFile': { params: z.object({ path: AbsolutePath }).strict(), result: EditorFile },
  /**
   * Save a file tab (atomic write, keeping the file's mode). `expectedMtimeMs` (from readFile or
   * the last save): refuse with INVALID_PARAMS when the file changed on disk since.
   */
  'editor.saveFile': {
    params: z.object({ path: AbsolutePath, contents: FileText, expectedMtimeMs: z.number().optional() }).strict(),
    result: z.object({ path: z.string(), size: z.number().int().min(0), mtimeMs: z.number() }),
  },
  /** The UI's file tabs, the whole list each time it changes (open, close, focus, dirty, edit while dirty). */
  'editor.setOpenEditors': {
    params: z.object({ editors: z.array(OpenEditor).max(ReviewConstants.maxOpenEditors) }).strict(),
    result: Ok,
  },
  /** The selection changed in a file tab, a diff view or a pane. */
  'editor.setSelection': { params: SelectionReport, result: Ok },
} as const;

export const reviewEvents = {
  /** A review entered the queue (pending). */
  'review.added': ReviewSummary,
  /** A pending review was accepted or rejected (by anyone: another window, a remote viewer). */
  'review.decided': ReviewSummary,
  /** A pending review left the queue without a decision (see ReviewRemovalReason). */
  'review.removed': z.object({ id: ReviewId, reason: ReviewRemovalReason }),
  /** Claude Code clients connected, disconnected, were matched to a pane, or their pending count changed: the whole state. */
  'ide.changed': IdeState,
  /** Open (or focus) a file tab, selecting a range (Claude Code's `openFile`). */
  'editor.openFile': OpenFileRequest,
  /**
   * A file was written on disk by the Hub (`saveDocument` from Claude Code, or another window's
   * save): a tab showing it takes these contents and is clean.
   */
  'editor.saved': z.object({ path: z.string(), contents: z.string(), mtimeMs: z.number() }),
} as const;
