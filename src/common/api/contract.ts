/**
 * The typed API contract between every client (renderer over Electron IPC or WebSocket, tests)
 * and the Hub. Each method has a params schema and a result schema; each event a payload schema.
 * The Hub parses params with these schemas before doing anything, so a client cannot reach Hub
 * code with malformed input.
 */
import { z } from 'zod';
import { ControlConstants, TerminalConstants } from '../constants.ts';
import { Creator, TerminalId } from './contractTypes.ts';
import { historyEvents, historyMethods } from './historyContract.ts';
import { relayEvents, relayMethods } from './relayContract.ts';
import { reviewEvents, reviewMethods } from './reviewContract.ts';
import { AgentDefinitionSetting, agentMethods, AgentStatus } from './agentContract.ts';
import { DevServer } from './devServerContract.ts';
import { taskEvents, taskMethods } from './taskContract.ts';
import { AgentProfileSetting, WorkspaceLimits, workspaceEvents, workspaceMethods } from './workspaceContract.ts';

export { Creator, TerminalId };

const Cols = z.number().int().min(TerminalConstants.minCols).max(TerminalConstants.maxCols);
const Rows = z.number().int().min(TerminalConstants.minRows).max(TerminalConstants.maxRows);

export const CommandSummary = z.object({
  commandLine: z.string(),
  cwd: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
});
export type CommandSummary = z.infer<typeof CommandSummary>;

export const RestoredFrom = z.object({
  /** The History session of the pane before the restart; null when nothing of it was recorded. */
  sessionId: z.string().nullable(),
  /** When the previous session ended (the app quit or was killed), epoch ms, if known. */
  endedAt: z.number().nullable(),
});
export type RestoredFrom = z.infer<typeof RestoredFrom>;

export const TerminalInfo = z.object({
  id: TerminalId,
  name: z.string(),
  /** The shell or program that was started, and its arguments. */
  file: z.string(),
  args: z.array(z.string()),
  pid: z.number().int().nullable(),
  cwd: z.string(),
  cols: Cols,
  rows: Rows,
  state: z.enum(['running', 'exited']),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** The command the shell is running now (from shell integration), if any. */
  runningCommand: z.string().nullable(),
  lastCommand: CommandSummary.nullable(),
  /** Set by BEL or an OSC 9/777 notification while nobody was looking; cleared by terminal.markSeen. */
  needsAttention: z.boolean(),
  /** Whether the shell reported itself through shell integration (OSC 633/133). */
  shellIntegration: z.boolean(),
  createdBy: Creator,
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  /**
   * Set on a pane brought back after a restart: its previous session (in History), whose last
   * screen is shown as read-only scrollback above the fresh shell. Optional: added after v1.
   */
  restoredFrom: RestoredFrom.nullable().optional(),
  /** Set while the pane runs an agent CLI (or ran one, `exited`): its kind and state (agentContract.ts). Optional: added after v1. */
  agent: AgentStatus.nullable().optional(),
  /** Dev servers its processes listen on, by port (devServerContract.ts); empty when none. Optional: added after v1. */
  servers: z.array(DevServer).optional(),
});
export type TerminalInfo = z.infer<typeof TerminalInfo>;

export const CreateTerminalParams = z
  .object({
    /** Program to run; default: the user's shell ($SHELL if executable, else bash, else sh). */
    file: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(64 * 1024)).max(1024).optional(),
    cwd: z.string().min(1).max(4096).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cols: Cols.optional(),
    rows: Rows.optional(),
    name: z.string().max(200).optional(),
    /** Inject shell integration into bash/zsh/fish (default true). */
    shellIntegration: z.boolean().optional(),
  })
  .strict();
export type CreateTerminalParams = z.infer<typeof CreateTerminalParams>;

export const Settings = z
  .object({
    theme: z.enum(['system', 'dark', 'light']),
    fontSize: z.number().int().min(6).max(48),
    fontFamily: z.string().max(400),
    scrollback: z.number().int().min(0).max(1_000_000),
    copyOnSelect: z.boolean(),
    /**
     * xterm's WebGL renderer for panes: `auto` only on a hardware GPU (a software WebGL, as on a
     * machine without one, is slower than the DOM renderer), `on` wherever WebGL2 exists, `off`
     * never. Only panes that can be seen hold a WebGL context either way.
     */
    gpuAcceleration: z.enum(['auto', 'on', 'off']),
    /**
     * How long a person must have stopped typing into a pane before an agent's `send` to it is
     * written, so the two never interleave mid-line (0: agents never wait).
     */
    agentSendIdleMs: z.number().int().min(0).max(10_000),
    /**
     * Require a control token (`auth` or `hello {token}`) on every control-socket connection. Off
     * by default so unmodified claws clients keep working; the socket's file modes still apply.
     */
    controlTokenAuth: z.boolean(),
    /**
     * Also listen on `<workspace>/.claws/claws.sock` in every workspace folder, where claws clients
     * look for it. Read when the app starts.
     */
    clawsCompatSockets: z.boolean(),
    /** Running terminals that control-socket clients (agents, scripts) may open, all together; one more is refused with TERMINAL_LIMIT. A person's panes are not counted. */
    socketMaxTerminals: z.number().int().min(1).max(1000),
    /** …and one client (one connection). */
    socketMaxTerminalsPerClient: z.number().int().min(1).max(1000),
    /** Bring back the window's tabs, splits, names and cwds when the app starts again. */
    restoreLayoutOnStart: z.boolean(),
    /** Record terminal sessions into History (`$SWITCHBOARD_HOME/switchboard.db`). Off: nothing new is recorded; what is stored stays. */
    historyEnabled: z.boolean(),
    /**
     * Also keep shell sessions that never received input and ran no command (they printed only
     * their prompt). Off by default: such sessions leave no trace.
     */
    historyRecordIdleSessions: z.boolean(),
    /** Total size of History on disk; the oldest sessions are pruned past it. */
    historyMaxTotalMiB: z.number().int().min(16).max(1024 * 1024),
    /** Sessions that ended longer ago than this are pruned (0: no age limit). */
    historyMaxAgeDays: z.number().int().min(0).max(36_500),
    /** Per session: past this, its oldest output is dropped (the newest is kept) and it is marked truncated. */
    historyMaxSessionMiB: z.number().int().min(1).max(64 * 1024),
    /** Remote access: connect to the relay now and whenever the app starts (docs/relay.md). */
    relayEnabled: z.boolean(),
    /** The relay, e.g. wss://relay.example.com (ws:// only to a relay on this machine); "" when none. */
    relayUrl: z
      .string()
      .max(2048)
      .refine((url) => url === '' || /^(wss?|https?):\/\/\S+$/i.test(url), 'the relay URL starts with wss:// (or ws:// for a relay on this machine)')
      // Settings are shown to every window and kept in plain JSON: secrets go through relay.setToken.
      .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url) && !/[?&]token=/i.test(url), 'the relay URL must not carry credentials or a token (the token has its own field)'),
    /** This machine's id on the relay; "" means the host name. */
    relayMachineId: z
      .string()
      .max(128)
      .regex(/^([A-Za-z0-9][A-Za-z0-9_.-]*)?$/, 'machine ids are letters, digits, "_", "." and "-" (starting with a letter or digit)'),
    /** Share every pane with the relay's viewers (each pane can still be unshared from its tab bar). */
    relayShareAll: z.boolean(),
    /** Do not disturb: no desktop notification when an agent starts waiting; the "Waiting for you" list and the title count stay. */
    agentDoNotDisturb: z.boolean(),
    /** More agent CLIs for the agent table (src/node/agents/agentTable.ts): process names and, optionally, screen patterns. */
    extraAgents: z.array(AgentDefinitionSetting).max(50),
    /** Agent profiles (workspaceContract.ts): custom ones, and overrides of built-in ones by the same id. */
    agentProfiles: z.array(AgentProfileSetting).max(WorkspaceLimits.maxProfiles),
    /** Where agents' worktrees go (`<folder>/<repo>/<branch>`); "" (default): beside the repository, in `<repo>-worktrees/<branch>`. Never inside a repository. */
    worktreesFolder: z.string().max(4096).refine((path) => path === '' || path.startsWith('/'), 'the worktrees folder is an absolute path (or empty for the default)'),
    /** How long a repository's `.switchboard/setup` may run before the agent's start is given up (the worktree is removed). */
    agentSetupTimeoutSec: z.number().int().min(1).max(24 * 60 * 60),
  })
  .strict();
export type Settings = z.infer<typeof Settings>;

export const defaultSettings: Settings = {
  theme: 'system',
  fontSize: 13,
  fontFamily: '"DejaVu Sans Mono", "Cascadia Mono", Menlo, Consolas, monospace',
  scrollback: TerminalConstants.scrollbackLines,
  copyOnSelect: true,
  gpuAcceleration: 'auto',
  agentSendIdleMs: 500,
  controlTokenAuth: false,
  clawsCompatSockets: true,
  socketMaxTerminals: ControlConstants.socketMaxTerminals,
  socketMaxTerminalsPerClient: ControlConstants.socketMaxTerminalsPerClient,
  restoreLayoutOnStart: true,
  historyEnabled: true,
  historyRecordIdleSessions: false,
  historyMaxTotalMiB: 2048,
  historyMaxAgeDays: 90,
  historyMaxSessionMiB: 64,
  relayEnabled: false,
  relayUrl: '',
  relayMachineId: '',
  relayShareAll: false,
  agentDoNotDisturb: false,
  extraAgents: [],
  agentProfiles: [],
  worktreesFolder: '',
  agentSetupTimeoutSec: WorkspaceLimits.defaultSetupTimeoutSec,
};

/** Tabs and splits of the window. Kept by the Hub so a renderer reload gets them back. */
export type LayoutNode =
  | { type: 'pane'; terminalId: string }
  | { type: 'split'; direction: 'row' | 'column'; sizes: number[]; children: LayoutNode[] };

export const LayoutNode: z.ZodType<LayoutNode> = z.lazy(() =>
  z.union([
    z.object({ type: z.literal('pane'), terminalId: TerminalId }).strict(),
    z
      .object({
        type: z.literal('split'),
        direction: z.enum(['row', 'column']),
        sizes: z.array(z.number().min(0).max(100)).max(64),
        children: z.array(LayoutNode).min(1).max(64),
      })
      .strict(),
  ]),
);

export const Layout = z
  .object({
    tabs: z
      .array(z.object({ id: z.string().min(1).max(64), title: z.string().max(200).optional(), root: LayoutNode }).strict())
      .max(256),
    activeTabId: z.string().max(64).nullable(),
    /** The pane that had focus, so a reload puts the cursor back where it was. */
    focusedTerminalId: TerminalId.nullable(),
  })
  .strict();
export type Layout = z.infer<typeof Layout>;

export const AppState = z.object({
  version: z.string(),
  /** `remote`: the remote view served by `switchboard relay` (src/browser/relayHubClient.ts), which reaches the machine only through relay frames. */
  host: z.enum(['electron', 'browser', 'test', 'remote']),
  platform: z.string(),
  workspaceFolders: z.array(z.string()),
  dataDir: z.string(),
  /** The user's home directory, so the UI can show paths as ~/… and expand a typed ~. Optional: added after v1 of the contract. */
  homeDir: z.string().optional(),
  settings: Settings,
  layout: Layout.nullable(),
});
export type AppState = z.infer<typeof AppState>;

/** One action an agent took on a terminal through the control socket (create, send, exec, close, signal…). */
export const AuditEntry = z.object({
  /** Increases with every entry; a key for lists and for merging `audit.list` with `audit.recorded`. */
  seq: z.number().int().min(0),
  /** Epoch ms. */
  at: z.number(),
  /** The agent's name (its `clientName`), or "socket client". */
  peer: z.string(),
  /** The control command: create, send, exec, close, signal, resize, rename. */
  cmd: z.string(),
  terminalId: TerminalId.nullable(),
  /** The terminal's name when the action was recorded (it may be closed since), if known. */
  terminalName: z.string().nullable(),
  /** One line for people: what was typed, which signal… (control characters escaped, ≤200 chars). */
  summary: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** What a control token allows: `read` (list, readLog, readScreen, poll, subscribe, wait…) or `drive` (also send, exec, create, close…). */
export const ControlTokenScope = z.enum(['read', 'drive']);
export type ControlTokenScope = z.infer<typeof ControlTokenScope>;

/** A control-socket access token as the UI and CLI see it: never its secret (only a hash is stored). */
export const ControlTokenInfo = z.object({
  id: z.string().min(1).max(64),
  name: z.string().min(1).max(200),
  scopes: z.array(ControlTokenScope).min(1),
  /** The terminals it may touch; null: all. */
  terminals: z.array(TerminalId).nullable(),
  createdAt: z.number(),
  expiresAt: z.number().nullable(),
  revokedAt: z.number().nullable(),
});
export type ControlTokenInfo = z.infer<typeof ControlTokenInfo>;

export const CreateControlTokenParams = z
  .object({
    name: z.string().trim().min(1).max(200),
    scopes: z.array(ControlTokenScope).min(1).max(2),
    /** Terminal ids, names or unique id prefixes (the Hub stores the ids they name). */
    terminals: z.array(z.string().trim().min(1).max(200)).min(1).max(256).optional(),
    expiresInDays: z.number().int().min(1).max(3650).optional(),
  })
  .strict();
export type CreateControlTokenParams = z.infer<typeof CreateControlTokenParams>;

const IdParams = z.object({ id: TerminalId }).strict();
const Ok = z.object({ ok: z.literal(true) });

/** Methods: name → params schema and result schema. */
export const hubMethods = {
  'app.getState': { params: z.object({}).strict(), result: AppState },
  'settings.update': { params: Settings.partial().strict(), result: Settings },
  'layout.set': { params: Layout, result: Ok },
  'terminal.list': { params: z.object({}).strict(), result: z.array(TerminalInfo) },
  'terminal.create': { params: CreateTerminalParams, result: TerminalInfo },
  'terminal.write': {
    params: z.object({ id: TerminalId, data: z.string().max(TerminalConstants.maxWriteChars) }).strict(),
    result: Ok,
  },
  'terminal.resize': { params: z.object({ id: TerminalId, cols: Cols, rows: Rows }).strict(), result: Ok },
  /**
   * A person runs one command line in a shell terminal the way the control socket's `exec` types
   * it: in its turn (after the shell's first prompt, a running command, a person's pause), never
   * joined to a line left half typed at the prompt. Answers once the line was typed (or refused:
   * `BUSY`, nothing typed); the command's output and exit code are recorded in History.
   */
  'terminal.run': {
    params: z.object({ id: TerminalId, command: z.string().min(1).max(TerminalConstants.maxWriteChars).regex(/^[^\r\n]*$/, 'one command line (no line breaks)') }).strict(),
    result: Ok,
  },
  /** Stops this client's `terminal.run`s of the terminal that have not been typed yet (they fail; nothing is typed). */
  'terminal.cancelRun': { params: IdParams, result: z.object({ cancelled: z.number().int().min(0) }) },
  'terminal.rename': { params: z.object({ id: TerminalId, name: z.string().min(1).max(200) }).strict(), result: TerminalInfo },
  /** Ends the process (if running) and removes the terminal. */
  'terminal.close': { params: IdParams, result: Ok },
  /**
   * Start streaming `terminal.output` events for this terminal to the calling client. The result
   * is a snapshot of the screen (serialized from the headless mirror) at byte offset `offset`;
   * every output event that follows continues exactly from that offset.
   */
  'terminal.attach': {
    params: IdParams,
    result: z.object({
      info: TerminalInfo,
      snapshot: z.string(),
      offset: z.number().int().min(0),
      /**
       * At `offset` the shell (with our integration) had not drawn its first prompt yet: it was
       * still reading its rc files and had not asked for bracketed paste. Optional: added after v1.
       */
      startingUp: z.boolean().optional(),
      cols: Cols,
      rows: Rows,
    }),
  },
  'terminal.detach': { params: IdParams, result: Ok },
  /** Acknowledge chars of output that the client has rendered (flow control). */
  'terminal.ack': { params: z.object({ id: TerminalId, chars: z.number().int().min(0).max(1e9) }).strict(), result: Ok },
  /** The person looked at the terminal: clear its attention badge. */
  'terminal.markSeen': { params: IdParams, result: Ok },
  /** The agents' audit log, newest first: the newest `limit` (default 100) entries that match. */
  'audit.list': {
    params: z
      .object({
        limit: z.number().int().min(1).max(10_000).optional(),
        peer: z.string().min(1).max(200).optional(),
        terminalId: TerminalId.optional(),
      })
      .strict(),
    result: z.array(AuditEntry),
  },
  /** Control-socket access tokens (see docs/protocol.md, "Access tokens"), newest first, without secrets. */
  'tokens.list': { params: z.object({}).strict(), result: z.array(ControlTokenInfo) },
  /** The secret is returned here only, once; the Hub keeps only its SHA-256 hash. */
  'tokens.create': { params: CreateControlTokenParams, result: z.object({ token: ControlTokenInfo, secret: z.string() }) },
  'tokens.revoke': { params: z.object({ id: z.string().min(1).max(64) }).strict(), result: ControlTokenInfo },
  ...historyMethods,
  ...reviewMethods,
  ...taskMethods,
  ...relayMethods,
  ...agentMethods,
  ...workspaceMethods,
} as const;

/** Events: name → payload schema. */
export const hubEvents = {
  'terminal.added': TerminalInfo,
  'terminal.changed': TerminalInfo,
  'terminal.removed': z.object({ id: TerminalId }),
  /** Only sent to clients that attached to the terminal. `offset` is the byte offset after this chunk. */
  'terminal.output': z.object({ id: TerminalId, data: z.string(), offset: z.number().int().min(0) }),
  /** BEL, OSC 9 or OSC 777 notify: shown as a badge, and as a desktop notification when unfocused. */
  'terminal.notification': z.object({ id: TerminalId, title: z.string(), body: z.string() }),
  /** An agent asked to show this terminal (claws `show`): the UI brings its pane into view, and focuses it unless preserveFocus. */
  'terminal.reveal': z.object({ id: TerminalId, preserveFocus: z.boolean().optional() }),
  'settings.changed': Settings,
  'layout.changed': Layout,
  /** An agent did something to a terminal (see `audit.list`). */
  'audit.recorded': AuditEntry,
  /** An agent typed into a terminal (control socket `send` or `exec`); `text` is a one-line preview of at most 200 chars. */
  'terminal.agentInput': z.object({ id: TerminalId, peer: z.string(), text: z.string().max(200) }),
  /** The control tokens changed (created, revoked — from the UI or the CLI): the whole list, as `tokens.list` returns it. */
  'tokens.changed': z.array(ControlTokenInfo),
  ...historyEvents,
  ...reviewEvents,
  ...taskEvents,
  ...relayEvents,
  ...workspaceEvents,
} as const;

export type HubMethod = keyof typeof hubMethods;
export type HubEvent = keyof typeof hubEvents;
export type MethodParams<M extends HubMethod> = z.input<(typeof hubMethods)[M]['params']>;
export type ParsedParams<M extends HubMethod> = z.output<(typeof hubMethods)[M]['params']>;
export type MethodResult<M extends HubMethod> = z.output<(typeof hubMethods)[M]['result']>;
export type EventPayload<E extends HubEvent> = z.output<(typeof hubEvents)[E]>;

export function isHubMethod(name: string): name is HubMethod {
  return Object.hasOwn(hubMethods, name);
}
