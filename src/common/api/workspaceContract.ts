/**
 * The agent-workspace part of the API contract (issue 20): agent profiles (which CLI to start and
 * how), starting an agent in one step (optionally in its own git worktree), the worktrees'
 * changes against their base, and finishing them (merge, keep the branch, discard). Spread into
 * `hubMethods`/`hubEvents` by contract.ts; the control socket's `agent.start` and `worktree.*`
 * commands (src/common/protocol/control/workspaceCommands.ts) take the same params.
 *
 * Conventions:
 * - A worktree is named by its absolute path (`path`); Switchboard keeps a record of the worktrees
 *   it made (in the data dir), and `worktree.*` only act on those.
 * - Diffs are against the merge base of the worktree's HEAD and its base branch, so commits that
 *   land on the base after the worktree was made do not show as the agent's changes.
 * - Expected failures are coded ApiErrors (errors.ts): NOT_A_GIT_REPO, GIT_MISSING,
 *   BRANCH_EXISTS, INVALID_BRANCH, PROFILE_NOT_INSTALLED, SETUP_FAILED, SETUP_TIMEOUT,
 *   AGENT_LIMIT, BASE_DIRTY, MERGE_CONFLICT, UNMERGED_WORK, GIT_FAILED, plus the general
 *   INVALID_PARAMS and NOT_FOUND.
 */
import { z } from 'zod';
import { TerminalId } from './contractTypes.ts';

export const WorkspaceLimits = {
  /** Agents started from a profile that may run at once; one more is refused with AGENT_LIMIT. */
  maxConcurrentAgents: 50,
  /** Custom profiles (plus overrides of built-in ones) kept in the settings. */
  maxProfiles: 50,
  /** A task (first prompt): room for a long mission, small enough to pass on a command line. */
  promptChars: 32 * 1024,
  /** Branch names git allows are longer; this keeps paths and UI rows sane. */
  branchChars: 200,
  /**
   * Each agent gets this many ports of its own, from `portBase` up: `PORT` is the first one,
   * `SWITCHBOARD_PORT_BASE` the first one too, so a repository's dev scripts can add offsets.
   */
  portsPerAgent: 10,
  /** The first agent's range starts here: above the usual dev-server ports (3000, 5173, 8080) and below Linux's ephemeral range (32768+). */
  firstPortBase: 20_000,
  /** Default for the `agentSetupTimeoutSec` setting: long enough for an `npm ci` on a big repository. */
  defaultSetupTimeoutSec: 600,
  /** Largest unified diff text returned for one file; past it the file says `truncated` (the rest is not sent). */
  maxFileDiffChars: 1024 * 1024,
  /** Largest file contents returned by `worktree.diff {file}` for the Review view. */
  maxFileContentsChars: 10 * 1024 * 1024,
  /** Files listed for a worktree (`worktree.list`, `worktree.changed`); past it `filesTruncated`. */
  maxListedFiles: 2000,
  /** Debounce of file-change events before a worktree's changes are read again with git. */
  refreshDebounceMs: 300,
  /** …and changes that never pause are read at least this often. */
  refreshMaxWaitMs: 2_000,
  /**
   * Claude Code with "Review edits in Switchboard" gets its task typed once it has connected to
   * the app's IDE bridge (a task on its command line runs before it connects, and that turn's
   * edits would be asked in the terminal, not in Review). It connects within a few seconds; past
   * this the task is typed anyway.
   */
  firstPromptIdeWaitMs: 10_000,
  /** How long the task waits for Claude Code's input box (its first screen, a first-run question answered); then it is not typed. */
  firstPromptReadyWaitMs: 60_000,
  /** Between the pasted task and its Enter: Ink takes an Enter inside the paste as text, and drops a key typed right after it redraws. */
  firstPromptEnterDelayMs: 200,
} as const;

/** A profile id: lowercase letters, digits and dashes (`claude`, `codex`, `my-agent`). */
export const AgentProfileId = z
  .string()
  .min(1)
  .max(40)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'profile ids are lowercase letters, digits and "-" (starting with a letter or digit)');
export type AgentProfileId = z.infer<typeof AgentProfileId>;

/** An absolute POSIX path (worktrees and repositories; Windows is not a target of worktree support). */
export const WorkspacePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => !path.includes('\0'), 'paths may not contain NUL characters')
  .refine((path) => path.startsWith('/'), 'expected an absolute path');

/**
 * How a first prompt (the task) reaches the agent:
 * - `argument`: as the last command-line argument (`claude "task"`, `codex "task"`);
 * - `flag`: after a flag (`gemini -i "task"`, `opencode --prompt "task"`);
 * - `none`: the CLI has no way to start interactively with a prompt (Aider: `--message` runs once
 *   and exits); the task then only names the pane and the branch.
 */
export const PromptPassing = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('argument') }).strict(),
  z.object({ kind: z.literal('flag'), flag: z.string().min(1).max(100) }).strict(),
  z.object({ kind: z.literal('none') }).strict(),
]);
export type PromptPassing = z.infer<typeof PromptPassing>;

/**
 * How an agent is brought back after a restart, in the same folder:
 * - `session`: Switchboard picks a session uuid at start and passes `startArgs` (with
 *   `{sessionId}` replaced), and resumes with `resumeArgs` (Claude Code: `--session-id {sessionId}`
 *   and `--resume {sessionId}`);
 * - `args`: resumed with these arguments instead of the prompt (`codex resume --last`,
 *   `opencode --continue`): the CLI's own "latest session in this folder";
 * - `none`: cannot be resumed; the pane shows its last screen and a Start again button.
 */
export const ResumeSpec = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('session'),
      startArgs: z.array(z.string().max(1000)).min(1).max(16),
      resumeArgs: z.array(z.string().max(1000)).min(1).max(16),
    })
    .strict(),
  z.object({ kind: z.literal('args'), resumeArgs: z.array(z.string().max(1000)).min(1).max(16) }).strict(),
  z.object({ kind: z.literal('none') }).strict(),
]);
export type ResumeSpec = z.infer<typeof ResumeSpec>;

/** Which CLI a profile starts; built-in kinds get their CLI's own options (e.g. Claude Code's permission mode). */
export const AgentProfileKind = z.enum(['claude-code', 'codex', 'gemini', 'aider', 'opencode', 'custom']);
export type AgentProfileKind = z.infer<typeof AgentProfileKind>;

/**
 * A profile as stored in the settings (`agentProfiles`): a custom one, or an override of a built-in
 * one with the same id (its fields replace the built-in's).
 */
export const AgentProfileSetting = z
  .object({
    id: AgentProfileId,
    name: z.string().trim().min(1).max(100),
    kind: AgentProfileKind.default('custom'),
    /** The program: a name looked up on PATH (`claude`) or an absolute path. No shell is involved. */
    command: z.string().trim().min(1).max(4096),
    /** Arguments always passed, before any of Switchboard's. */
    args: z.array(z.string().max(4096)).max(64).default([]),
    /** Extra environment. Kept in settings.json in plain text: put secrets in the CLI's own config, not here. */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment names are [A-Za-z_][A-Za-z0-9_]*'), z.string().max(32 * 1024)).default({}),
    prompt: PromptPassing.default({ kind: 'argument' }),
    resume: ResumeSpec.default({ kind: 'none' }),
    /**
     * Claude Code only: start it in the asking permission mode (`--permission-mode default`), so its
     * edits come to Switchboard's Review view (in auto mode it decides about edits itself and no
     * review appears). On by default.
     */
    reviewEditsInSwitchboard: z.boolean().default(true),
  })
  .strict();
export type AgentProfileSetting = z.infer<typeof AgentProfileSetting>;
export type AgentProfileSettingInput = z.input<typeof AgentProfileSetting>;

/** A profile as the UI sees it: merged (built-in + override), with whether its program is installed. */
export const AgentProfile = z.object({
  id: AgentProfileId,
  name: z.string(),
  kind: AgentProfileKind,
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  prompt: PromptPassing,
  resume: ResumeSpec,
  reviewEditsInSwitchboard: z.boolean(),
  /** Shipped with Switchboard (an override in the settings may have changed its fields). */
  builtIn: z.boolean(),
  /** A built-in profile whose fields the settings override. */
  overridden: z.boolean(),
});
export type AgentProfile = z.infer<typeof AgentProfile>;

/** Whether a profile's program can be started: looked up on the Hub's PATH (no shell is run). */
export const AgentProfileAvailability = z.object({
  profile: AgentProfile,
  installed: z.boolean(),
  /** What was looked for (the profile's `command`). */
  command: z.string(),
  /** Where it was found; null when not installed. */
  resolvedPath: z.string().nullable(),
  /** Why not, e.g. "not found on PATH (/usr/bin:/bin)"; null when installed. */
  reason: z.string().nullable(),
});
export type AgentProfileAvailability = z.infer<typeof AgentProfileAvailability>;

/** A branch name as typed; git's own rules (`git check-ref-format --branch`) are checked by the Hub. */
export const BranchName = z
  .string()
  .trim()
  .min(1)
  .max(WorkspaceLimits.branchChars)
  .refine((name) => !/[\0\s]/.test(name), 'branch names have no spaces or control characters');

export const AgentStartParams = z
  .object({
    profile: AgentProfileId,
    /** The repository (any folder inside it) or, without `worktree`, any folder to start in. */
    folder: WorkspacePath,
    /**
     * Work in a new git worktree: a new branch (default: derived from the task or the name, e.g.
     * `fix-login-timeout`) made from `base` (default: the branch checked out in `folder`).
     */
    worktree: z.object({ branch: BranchName.optional(), base: BranchName.optional() }).strict().optional(),
    /** The task: passed to the agent as its first prompt (see the profile's `prompt`). */
    prompt: z.string().trim().min(1).max(WorkspaceLimits.promptChars).optional(),
    /** The pane's name; default: from the task (its first line, cut), else the profile's name. */
    name: z.string().trim().min(1).max(200).optional(),
    cols: z.number().int().min(2).max(1000).optional(),
    rows: z.number().int().min(1).max(500).optional(),
  })
  .strict();
export type AgentStartParams = z.infer<typeof AgentStartParams>;
export type AgentStartInput = z.input<typeof AgentStartParams>;

export const AgentStartResult = z.object({
  terminalId: TerminalId,
  /** The pane's name (unique among panes: a taken name gets " (2)"…). */
  name: z.string(),
  profile: AgentProfileId,
  /** The folder the agent runs in: the worktree, or `folder`. */
  cwd: z.string(),
  worktree: z.object({ path: z.string(), branch: z.string(), base: z.string() }).optional(),
  /** The session uuid Switchboard chose (profiles with `resume.kind: "session"`); null otherwise. */
  sessionId: z.string().nullable(),
  /** The first of this agent's ports (`PORT`, `SWITCHBOARD_PORT_BASE`). */
  portBase: z.number().int(),
  /** `.switchboard/setup` ran (in the pane, before the agent). */
  setupRan: z.boolean(),
});
export type AgentStartResult = z.infer<typeof AgentStartResult>;

/**
 * A pane started from a profile, as the UI shows it (the sidebar's agent group, "Back after a
 * restart"). Panes brought back after a restart are `resumed` (the profile's resume command, in
 * the same folder) or `not-resumed` (a shell under the last screen; `reason` says why, and
 * `agent.restart` is the Start again button).
 */
export const AgentPaneInfo = z.object({
  terminalId: TerminalId,
  profile: AgentProfileId,
  profileName: z.string(),
  sessionId: z.string().nullable(),
  /** The worktree it works in; null when started in a plain folder. */
  worktreePath: z.string().nullable(),
  cwd: z.string(),
  /** The task it was started with. */
  prompt: z.string().nullable(),
  origin: z.enum(['started', 'resumed', 'not-resumed']),
  /** not-resumed: the profile cannot resume, its program is not installed (any more), the profile is gone, or the worktree's folder is. */
  reason: z.enum(['cannot-resume', 'not-installed', 'profile-missing', 'worktree-missing']).nullable(),
  /** not-resumed: the same for people ("the worktree /src/app-worktrees/x is gone"). */
  message: z.string().nullable(),
  portBase: z.number().int().nullable(),
});
export type AgentPaneInfo = z.infer<typeof AgentPaneInfo>;

export const FileChangeStatus = z.enum(['added', 'modified', 'deleted', 'renamed', 'copied', 'typechange']);
export type FileChangeStatus = z.infer<typeof FileChangeStatus>;

/** One file the agent changed, against the base (committed and uncommitted together). */
export const WorktreeChangedFile = z.object({
  /** Relative to the worktree, `/`-separated. */
  path: z.string(),
  /** Renames: where it came from. */
  oldPath: z.string().nullable(),
  status: FileChangeStatus,
  /** Lines added/removed; null for binary files. */
  additions: z.number().int().nullable(),
  deletions: z.number().int().nullable(),
  binary: z.boolean(),
  /** Not committed yet (differs from the worktree's HEAD, or untracked). */
  uncommitted: z.boolean(),
});
export type WorktreeChangedFile = z.infer<typeof WorktreeChangedFile>;

export const WorktreeInfo = z.object({
  path: z.string(),
  branch: z.string(),
  /** The branch it was made from, and is merged into. */
  base: z.string(),
  /** The main checkout of the repository. */
  repoRoot: z.string(),
  /** Commits on the branch that are not on the base. */
  ahead: z.number().int(),
  /** Commits on the base since the worktree's merge base. */
  behind: z.number().int(),
  files: z.array(WorktreeChangedFile),
  filesTruncated: z.boolean(),
  additions: z.number().int(),
  deletions: z.number().int(),
  /** Files not committed yet (tracked changes and untracked files). */
  uncommittedCount: z.number().int(),
  /** The agent pane that runs there (null when none runs now). */
  terminalId: TerminalId.nullable(),
  profile: AgentProfileId.nullable(),
  /** The task's name (the pane's name when it was started). */
  name: z.string(),
  createdAt: z.number(),
  /** The worktree's folder is gone (deleted by hand): only `worktree.finish {mode:"discard"}` works. */
  missing: z.boolean(),
  /** Reading its state failed (git's message); the other fields are then zero/empty. */
  error: z.string().nullable(),
});
export type WorktreeInfo = z.infer<typeof WorktreeInfo>;

export const WorktreeRef = z.object({ path: WorkspacePath }).strict();

export const DiffScope = z.enum(['all', 'committed', 'uncommitted']);
export type DiffScope = z.infer<typeof DiffScope>;

export const WorktreeDiffParams = z
  .object({
    path: WorkspacePath,
    /** `all` (default): base → working tree; `committed`: base → HEAD; `uncommitted`: HEAD → working tree. */
    scope: DiffScope.optional(),
    /** Only this file (relative path); its old and new contents come too, for the Review view. */
    file: z.string().min(1).max(4096).optional(),
  })
  .strict();
export type WorktreeDiffParams = z.infer<typeof WorktreeDiffParams>;

export const DiffHunk = z.object({
  /** `@@ -a,b +c,d @@ …` */
  header: z.string(),
  /** The hunk as in the diff: its header line and body, newline-terminated. `worktree.discard` takes it back as is. */
  text: z.string(),
  oldStart: z.number().int(),
  oldLines: z.number().int(),
  newStart: z.number().int(),
  newLines: z.number().int(),
});
export type DiffHunk = z.infer<typeof DiffHunk>;

export const WorktreeDiffFile = WorktreeChangedFile.extend({
  /** The file's unified diff (`diff --git` header, hunks), cut at `maxFileDiffChars`. */
  diff: z.string(),
  hunks: z.array(DiffHunk),
  truncated: z.boolean(),
  /** With `file` only: the text at the diff's old side (null: absent or binary) and at its new side. */
  oldContents: z.string().nullable().optional(),
  newContents: z.string().nullable().optional(),
});
export type WorktreeDiffFile = z.infer<typeof WorktreeDiffFile>;

export const WorktreeDiff = z.object({
  path: z.string(),
  scope: DiffScope,
  base: z.string(),
  /** The commit the diff starts from (`all`, `committed`: the merge base; `uncommitted`: HEAD). */
  fromCommit: z.string(),
  files: z.array(WorktreeDiffFile),
});
export type WorktreeDiff = z.infer<typeof WorktreeDiff>;

/**
 * Undo part of the agent's work in the working tree (nothing is committed or rewritten): a whole
 * file back to how it is at the diff's old side, or one hunk (`git apply -R` of it).
 */
export const WorktreeDiscardParams = z
  .object({
    path: WorkspacePath,
    file: z.string().min(1).max(4096),
    /** A hunk's `text` from `worktree.diff` of the same scope; absent: the whole file. */
    hunk: z.string().min(1).max(WorkspaceLimits.maxFileDiffChars).optional(),
    /** `all` (default): back to the base; `uncommitted`: back to the worktree's HEAD. */
    scope: z.enum(['all', 'uncommitted']).optional(),
  })
  .strict();
export type WorktreeDiscardParams = z.infer<typeof WorktreeDiscardParams>;

export const FinishMode = z.enum(['merge', 'branch', 'discard']);
export type FinishMode = z.infer<typeof FinishMode>;

export const WorktreeFinishParams = z
  .object({
    path: WorkspacePath,
    /**
     * `merge`: commit what is uncommitted, merge the branch into the base in the checkout that has
     * the base (fast-forward when possible, else a merge commit), then remove the worktree and the
     * branch. `branch`: commit what is uncommitted, remove the worktree, keep the branch.
     * `discard`: remove the worktree and the branch.
     */
    mode: FinishMode,
    /** The commit message for uncommitted work; default: "<task name> (Switchboard agent)". */
    message: z.string().trim().min(1).max(10_000).optional(),
    /**
     * Any mode while the worktree's agent works or waits for an answer: refused (BUSY) unless true.
     * `discard` of a worktree with uncommitted changes or unmerged commits: refused (UNMERGED_WORK) unless true.
     */
    confirm: z.boolean().optional(),
  })
  .strict();
export type WorktreeFinishParams = z.infer<typeof WorktreeFinishParams>;

export const WorktreeFinishResult = z.object({
  mode: FinishMode,
  path: z.string(),
  branch: z.string(),
  base: z.string(),
  /** The commit made of uncommitted work, if any. */
  committed: z.string().nullable(),
  /** merge: how it went. */
  merge: z.enum(['fast-forward', 'merge-commit', 'up-to-date']).nullable(),
  /** The base's commit after the merge. */
  mergedCommit: z.string().nullable(),
  worktreeRemoved: z.boolean(),
  branchDeleted: z.boolean(),
  /** The agent pane that ran there and was closed. */
  closedTerminalId: TerminalId.nullable(),
});
export type WorktreeFinishResult = z.infer<typeof WorktreeFinishResult>;

export const workspaceMethods = {
  /** Every profile (built-in, overridden, custom) and whether its program is installed. */
  'agent.profiles': { params: z.object({}).strict(), result: z.array(AgentProfileAvailability) },
  /** Start an agent from a profile, in a new worktree or in `folder`; the pane is announced by `terminal.added`. */
  'agent.start': { params: AgentStartParams, result: AgentStartResult },
  /** The worktrees Switchboard made, with their changes; `repoRoot` filters to one repository. */
  'worktree.list': { params: z.object({ repoRoot: WorkspacePath.optional() }).strict(), result: z.array(WorktreeInfo) },
  'worktree.diff': { params: WorktreeDiffParams, result: WorktreeDiff },
  /** Per-file or per-hunk discard in the working tree; answers the worktree as it is after. */
  'worktree.discard': { params: WorktreeDiscardParams, result: WorktreeInfo },
  'worktree.finish': { params: WorktreeFinishParams, result: WorktreeFinishResult },
  /** The panes started from a profile that are open now (started this run, resumed, or not resumed after a restart). */
  'agent.panes': { params: z.object({}).strict(), result: z.array(AgentPaneInfo) },
  /**
   * Start again: the pane's profile started afresh in the same folder (its worktree kept), with a
   * new session, in a new pane under the same name; the old pane is closed (`terminal.removed`), so
   * the UI puts the new one where it was. `prompt: true` sends the original task again.
   */
  'agent.restart': { params: z.object({ terminalId: TerminalId, prompt: z.boolean().optional() }).strict(), result: AgentStartResult },
  /** The branch name `agent.start` would derive from a task (for the New agent dialog's editable field). */
  'worktree.suggestBranch': {
    params: z.object({ folder: WorkspacePath, task: z.string().max(WorkspaceLimits.promptChars) }).strict(),
    result: z.object({ branch: z.string(), base: z.string().nullable(), isRepository: z.boolean(), reason: z.string().nullable() }),
  },
} as const;

export const workspaceEvents = {
  /** The list `agent.panes` answers changed (an agent started, was resumed, its pane closed). */
  'agent.panesChanged': z.array(AgentPaneInfo),
  /** A worktree's changes, ahead count or pane changed (after file changes settle, debounced); or it was made. */
  'worktree.changed': WorktreeInfo,
  /** A worktree was finished (merged, kept as a branch, discarded) or its record dropped. */
  'worktree.removed': z.object({ path: z.string(), mode: FinishMode }),
} as const;
