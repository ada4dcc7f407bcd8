/**
 * One zod schema per message type of the GSD Cloud wire protocol (version 1) that Switchboard
 * knows, in both directions (daemon ⇄ relay ⇄ browser). Field names and types follow protocol-go
 * `messages.go`; see docs/relay.md for what Switchboard does with each.
 *
 * Rules, as in the reference parser:
 * - unknown fields are accepted and dropped (zod's default `strip`);
 * - a field of the wrong type rejects the frame (`"cols":"120"`);
 * - integers must be integers (Go unmarshals them into `int`).
 * Stricter than the reference on purpose: the fields a handler cannot work without are required
 * (protocol-go zero-fills a missing field; a frame without its `terminalId` is useless to us), and
 * `null` is not accepted for a typed field.
 *
 * Switchboard extensions (optional fields other implementations ignore, per the unknown-field rule):
 * `viewerName` on `terminalOpen` / `terminalInput` / `permissionResponse` / `questionResponse` (stamped by `switchboard relay` with the viewer's
 * name so the local UI can say who opened or typed), `channelId` on the `machineStatus` a
 * relay sends a viewer when it connects (the channel the relay bound that viewer to), and `title`
 * on `terminalOpened` (the terminal's name on the machine, `bash 2`, so the viewer shows the same
 * name as the app instead of the shell's).
 */
import { z } from 'zod';

const str = z.string();
const int = z.number().int();
const bool = z.boolean();

const taskAttempt = {
  attemptId: str.optional(),
  attemptNumber: int.optional(),
  requestId: str.optional(),
  traceparent: str.optional(),
};

export const ContextRef = z.object({
  kind: str,
  path: str,
  name: str,
  size: int.optional(),
  modifiedAt: str.optional(),
});

export const HelloCapabilities = z.object({
  stop: bool.optional(),
  terminal: bool.optional(),
  agentTerminalJobs: bool.optional(),
  contextRefs: bool.optional(),
  previewTunnel: bool.optional(),
  previewMaxFrameBytes: int.optional(),
  previewChunkBytes: int.optional(),
  previewWebSocketProtocols: bool.optional(),
  localServerDetection: bool.optional(),
  skills: bool.optional(),
  /**
   * Switchboard extension: the sender honours `previewStreamAck` — it keeps at most this many body
   * bytes of one preview stream sent and not yet acknowledged (so a slow viewer stalls only its own
   * stream, not the link). Absent: the peer sends without waiting and the receiver bounds what it
   * holds by cancelling a stream that outruns its reader.
   */
  previewStreamWindowBytes: int.optional(),
  /**
   * Switchboard extension: the sender takes preview bodies (`previewStreamChunk`,
   * `previewWebSocketData`) as binary frames — the message's JSON with `"bodyBase64":""`, then the
   * bytes (src/node/relay/preview/previewBodyFrames.ts has the layout). Each side sends them only
   * when the other said so: the daemon in hello, the relay in welcome (only to a daemon that did).
   */
  previewBinaryBodies: bool.optional(),
});
export type HelloCapabilities = z.infer<typeof HelloCapabilities>;

export const AgentTerminalReadiness = z.object({
  state: str,
  source: str.optional(),
  matchedText: str.optional(),
  readyAt: str.optional(),
  timeoutMs: int.optional(),
});

export const AgentTerminalPort = z.object({ host: str, port: int, url: str });

/**
 * Switchboard extension on `agentTerminalStarted|Updated`: the agent CLI the pane runs and its
 * state, as the app shows it (src/common/api/agentContract.ts `AgentStatus`; null: no agent). Loose
 * here (strings, not enums): the viewer checks it against the contract before showing it.
 */
export const RelayAgentState = z.object({
  kind: str,
  label: str,
  state: str,
  /** Epoch ms when it entered this state (the machine's clock). */
  since: z.number(),
  reason: str.nullable(),
  prompt: z.object({ kind: str, toolName: str.nullable(), options: z.array(str) }).nullable(),
  exitCode: int.nullable(),
});

export const BrowseEntry = z.object({
  name: str,
  path: str,
  isDirectory: bool,
  size: int,
  modifiedAt: str,
});
export type BrowseEntry = z.infer<typeof BrowseEntry>;

/** Why a terminal ended (gsd-relay.md "Terminals the browser opens"). */
export const terminalExitReasons = [
  'process_exit',
  'closed_by_user',
  'disconnect_timeout',
  'max_lifetime',
  'daemon_shutdown',
  'resource_limit',
  'spawn_error',
] as const;
export type TerminalExitReason = (typeof terminalExitReasons)[number];

/** Status of an agent terminal (gsd-relay.md "Exposing the app's own terminals"). */
export const agentTerminalStatuses = ['starting', 'running', 'ready', 'exited', 'failed', 'killed'] as const;
export type AgentTerminalStatus = (typeof agentTerminalStatuses)[number];

/** Message type → schema of the fields besides `type`. */
export const relayMessageSchemas = {
  // --- connection ----------------------------------------------------------------------------
  hello: z.object({
    machineId: str,
    daemonVersion: str,
    os: str,
    arch: str,
    activeTasks: z.array(str).optional(),
    capabilities: HelloCapabilities.optional(),
  }),
  /** `previewStreamWindowBytes` (the relay honours `previewStreamAck`), `previewBinaryBodies`: Switchboard extensions, as in HelloCapabilities. */
  welcome: z.object({ latestDaemonVersion: str.optional(), previewStreamWindowBytes: int.optional(), previewBinaryBodies: bool.optional() }),
  heartbeat: z.object({ machineId: str, daemonVersion: str, status: str, timestamp: str }),
  machineStatus: z.object({
    machineId: str,
    state: str,
    previousState: str.optional(),
    reason: str.optional(),
    occurredAt: str,
    channelId: str.optional(),
  }),

  // --- terminals the browser opens ----------------------------------------------------------
  terminalOpen: z.object({
    requestId: str,
    terminalId: str.optional(),
    sessionId: str,
    channelId: str,
    token: str.optional(),
    cwd: str.optional(),
    cols: int,
    rows: int,
    idleTimeoutMs: int.optional(),
    maxLifetimeMs: int.optional(),
    viewerName: str.optional(),
  }),
  terminalOpened: z.object({
    requestId: str,
    terminalId: str,
    sessionId: str,
    channelId: str,
    shell: str,
    cwd: str,
    startedAt: str,
    title: str.optional(),
  }),
  terminalInput: z.object({ terminalId: str, channelId: str, dataBase64: str, viewerName: str.optional() }),
  terminalOutput: z.object({ terminalId: str, sessionId: str, channelId: str, seq: int, dataBase64: str }),
  terminalSnapshot: z.object({ terminalId: str, sessionId: str, channelId: str, seq: int, dataBase64: str }),
  terminalResize: z.object({ terminalId: str, channelId: str, cols: int, rows: int }),
  terminalClose: z.object({ terminalId: str, channelId: str }),
  terminalExit: z.object({
    terminalId: str,
    sessionId: str,
    channelId: str,
    exitCode: int.optional(),
    signal: str.optional(),
    reason: str,
    endedAt: str,
  }),
  terminalError: z.object({
    requestId: str.optional(),
    terminalId: str.optional(),
    sessionId: str.optional(),
    channelId: str,
    error: str,
  }),

  // --- the app's own terminals ----------------------------------------------------------------
  agentTerminalStarted: z.object({
    jobId: str,
    terminalId: str,
    sessionId: str,
    channelId: str,
    taskId: str.optional(),
    toolCallId: str.optional(),
    projectId: str,
    commandPreview: str,
    title: str,
    cwd: str,
    status: str,
    readiness: AgentTerminalReadiness.optional(),
    ports: z.array(AgentTerminalPort).optional(),
    urls: z.array(str).optional(),
    seq: int.optional(),
    startedAt: str,
    agent: RelayAgentState.nullable().optional(),
  }),
  agentTerminalUpdated: z.object({
    jobId: str,
    terminalId: str,
    sessionId: str,
    channelId: str,
    status: str,
    readiness: AgentTerminalReadiness.optional(),
    ports: z.array(AgentTerminalPort).optional(),
    urls: z.array(str).optional(),
    seq: int.optional(),
    updatedAt: str,
    agent: RelayAgentState.nullable().optional(),
  }),
  agentTerminalAttach: z.object({ terminalId: str, channelId: str }),
  agentTerminalSnapshotRequest: z.object({ terminalId: str, channelId: str }),

  // --- files ----------------------------------------------------------------------------------
  browseDir: z.object({
    requestId: str,
    channelId: str,
    machineId: str,
    path: str,
    limit: int.optional(),
    cursor: str.optional(),
  }),
  browseDirResult: z.object({
    requestId: str,
    channelId: str,
    ok: bool,
    entries: z.array(BrowseEntry).optional(),
    hasMore: bool.optional(),
    nextCursor: str.optional(),
    error: str.optional(),
  }),
  readFile: z.object({ requestId: str, channelId: str, machineId: str, path: str, maxBytes: int.optional() }),
  readFileResult: z.object({
    requestId: str,
    channelId: str,
    ok: bool,
    content: str.optional(),
    truncated: bool.optional(),
    error: str.optional(),
  }),
  mkDir: z.object({ requestId: str, channelId: str, machineId: str, path: str }),
  mkDirResult: z.object({ requestId: str, channelId: str, ok: bool, error: str.optional() }),

  // --- approvals ------------------------------------------------------------------------------
  permissionRequest: z.object({
    sessionId: str,
    channelId: str,
    requestId: str,
    toolName: str,
    toolInput: z.unknown(),
    taskId: str.optional(),
    attemptId: str.optional(),
    attemptNumber: int.optional(),
  }),
  /**
   * Viewer → daemon: the answer. Daemon → viewers (Switchboard extension, on channel "*"): the
   * request is settled and leaves every viewer's list — `outcome` accepted | rejected | withdrawn
   * (its requester took it back; `approved` is then false) and `decidedBy` (who decided). The relay
   * stamps `viewerName` (the answering viewer's name) on the way in, as for terminalInput.
   */
  permissionResponse: z.object({
    channelId: str,
    sessionId: str,
    requestId: str,
    approved: bool,
    viewerName: str.optional(),
    outcome: str.optional(),
    decidedBy: str.optional(),
    /** With `outcome: "refused"` (daemon → the answering viewer only): why nothing was done. */
    reason: str.optional(),
  }),
  /**
   * Switchboard sends an agent's question in a shared pane (Claude Code's AskUserQuestion, a
   * selector over options) with two extension fields: `terminalId` (the pane) and `since` (epoch
   * ms the agent started asking).
   */
  question: z.object({
    sessionId: str,
    channelId: str,
    requestId: str,
    question: str,
    header: str.optional(),
    multiSelect: bool.optional(),
    options: z.array(z.object({ label: str, description: str.optional(), preview: str.optional() })).optional(),
    taskId: str.optional(),
    terminalId: str.optional(),
    since: z.number().optional(),
  }),
  /**
   * Viewer → daemon: the answer (an option's label). Daemon → viewers (Switchboard extension), as
   * for permissionResponse: on "*" the question is settled (`outcome` answered | withdrawn,
   * `decidedBy`); on the answering viewer's channel, `outcome` answered | refused with `reason`.
   */
  questionResponse: z.object({
    channelId: str,
    sessionId: str,
    requestId: str,
    answer: str,
    viewerName: str.optional(),
    outcome: str.optional(),
    decidedBy: str.optional(),
    reason: str.optional(),
  }),

  // --- dev-server preview tunnel (relay ⇄ daemon; gsd-relay.md "Dev-server preview tunnel") ----
  /** Daemon → viewers: a server a shared pane's process listens on (channel "*"). */
  localServerDetected: z.object({
    sessionId: str,
    channelId: str,
    taskId: str.optional(),
    toolUseId: str.optional(),
    host: str,
    port: int,
    url: str,
    command: str.optional(),
    source: str,
    detectedAt: str,
    /** Switchboard extension: the pane whose process listens. */
    terminalId: str.optional(),
  }),
  /** Relay → daemon: open a preview of `targetHost:targetPort` until `expiresAt` (RFC 3339). */
  previewOpen: z.object({
    requestId: str,
    previewId: str,
    sessionId: str,
    channelId: str,
    machineId: str,
    targetHost: str,
    targetPort: int,
    expiresAt: str,
  }),
  previewOpenResult: z.object({ requestId: str, previewId: str, ok: bool, errorCode: str.optional(), message: str.optional() }),
  /** Either way: the preview is over (the daemon sends it when the pane exits, the port closes or `expiresAt` passes). */
  previewClose: z.object({ previewId: str, reason: str }),
  /** Relay → daemon. `path` is origin-form (`/a?b`). A body follows as previewStreamChunk frames on `streamId` (ours: always, ending with `final`). */
  previewHttpRequest: z.object({
    requestId: str,
    streamId: str,
    previewId: str,
    method: str,
    path: str,
    headers: z.record(str, z.array(str)).optional(),
  }),
  previewHttpResponseHead: z.object({
    requestId: str,
    streamId: str,
    previewId: str,
    statusCode: int,
    headers: z.record(str, z.array(str)).optional(),
  }),
  /** Either way: body bytes of a stream, `sequence` 1, 2, 3… (a gap, repeat or step back ends the stream); `final` on the last (may be empty). */
  previewStreamChunk: z.object({ streamId: str, sequence: int, bodyBase64: str, final: bool }),
  previewStreamCancel: z.object({ streamId: str, reason: str }),
  /**
   * Switchboard extension, either way, only to a peer that advertised `previewStreamWindowBytes`
   * (a daemon in `hello.capabilities`, a relay in `welcome`): every `previewStreamChunk` / `previewWebSocketData` of `streamId` up to `sequence` has been
   * handed on to its reader (the viewer's socket, the dev server), so its bytes leave the window.
   */
  previewStreamAck: z.object({ streamId: str, sequence: int }),
  previewWebSocketOpen: z.object({
    streamId: str,
    previewId: str,
    path: str,
    headers: z.record(str, z.array(str)).optional(),
    protocols: z.array(str).optional(),
  }),
  previewWebSocketOpenResult: z.object({
    streamId: str,
    previewId: str,
    ok: bool,
    protocol: str.optional(),
    errorCode: str.optional(),
    message: str.optional(),
  }),
  previewWebSocketData: z.object({ streamId: str, sequence: int, isBinary: bool, bodyBase64: str }),
  previewWebSocketClose: z.object({ streamId: str, code: int.optional(), reason: str.optional() }),

  // --- hosted-agent tasks (Switchboard answers `task` with taskError) -------------------------
  task: z.object({
    taskId: str,
    sessionId: str,
    channelId: str,
    ...taskAttempt,
    leaseExpiresAt: str.optional(),
    deadlineProfile: z.record(str, int).optional(),
    turnKind: str.optional(),
    prompt: str.optional(),
    engine: str.optional(),
    provider: str.optional(),
    model: str.optional(),
    effort: str.optional(),
    permissionMode: str.optional(),
    cwd: str.optional(),
    claudeSessionId: str.optional(),
    imageUrls: z.array(str).optional(),
    contextRefs: z.array(ContextRef).optional(),
    customInstructions: str.optional(),
    disableSkills: bool.optional(),
  }),
  stop: z.object({ channelId: str, sessionId: str }),
  stream: z.object({ sessionId: str, channelId: str, sequenceNumber: int, event: z.unknown(), taskId: str.optional(), ...taskAttempt }),
  taskStarted: z.object({ taskId: str, sessionId: str, channelId: str, startedAt: str, ...taskAttempt }),
  taskComplete: z.object({
    taskId: str,
    sessionId: str,
    channelId: str,
    claudeSessionId: str.optional(),
    inputTokens: int.optional(),
    outputTokens: int.optional(),
    costUsd: str.optional(),
    durationMs: int.optional(),
    ...taskAttempt,
  }),
  taskError: z.object({
    taskId: str,
    sessionId: str,
    channelId: str,
    error: str,
    failureCode: str.optional(),
    retryable: bool.optional(),
    userMessage: str.optional(),
    ...taskAttempt,
  }),
  taskCancelled: z.object({
    taskId: str,
    sessionId: str,
    channelId: str,
    failureCode: str.optional(),
    retryable: bool.optional(),
    userMessage: str.optional(),
    ...taskAttempt,
  }),
} as const;

export type RelayMessageType = keyof typeof relayMessageSchemas;
export const relayMessageTypes = Object.keys(relayMessageSchemas) as RelayMessageType[];

/** The fields of one message type (without `type`). */
export type RelayFields<T extends RelayMessageType> = z.infer<(typeof relayMessageSchemas)[T]>;
/** One message with its `type`. */
export type RelayMessageOf<T extends RelayMessageType> = { type: T } & RelayFields<T>;
/** Any message Switchboard knows, discriminated by `type`. */
export type RelayMessage = { [T in RelayMessageType]: RelayMessageOf<T> }[RelayMessageType];

export function isRelayMessageType(type: string): type is RelayMessageType {
  return Object.hasOwn(relayMessageSchemas, type);
}

/** What a daemon sends (the relay forwards these to viewers by `channelId`, heartbeats excepted). */
export const daemonToViewerTypes: ReadonlySet<RelayMessageType> = new Set<RelayMessageType>([
  'terminalOpened',
  'terminalOutput',
  'terminalSnapshot',
  'terminalExit',
  'terminalError',
  'agentTerminalStarted',
  'agentTerminalUpdated',
  'browseDirResult',
  'readFileResult',
  'mkDirResult',
  'permissionRequest',
  // Switchboard extension: a settled request (see permissionResponse above).
  'permissionResponse',
  'question',
  // Switchboard extension: a settled question, or the answering viewer's result (see questionResponse above).
  'questionResponse',
  'stream',
  'taskStarted',
  'taskComplete',
  'taskError',
  'taskCancelled',
  'localServerDetected',
]);

/**
 * The preview tunnel's frames: between the relay itself and a daemon, never a viewer's. A viewer
 * opens a preview through the relay's HTTP side (`/m/<machine>/preview/…`), which speaks these.
 */
export const relayToDaemonPreviewTypes: ReadonlySet<RelayMessageType> = new Set<RelayMessageType>([
  'previewOpen',
  'previewClose',
  'previewHttpRequest',
  'previewStreamChunk',
  'previewStreamCancel',
  'previewStreamAck',
  'previewWebSocketOpen',
  'previewWebSocketData',
  'previewWebSocketClose',
]);
export const daemonToRelayPreviewTypes: ReadonlySet<RelayMessageType> = new Set<RelayMessageType>([
  'previewOpenResult',
  'previewClose',
  'previewHttpResponseHead',
  'previewStreamChunk',
  'previewStreamCancel',
  'previewStreamAck',
  'previewWebSocketOpenResult',
  'previewWebSocketData',
  'previewWebSocketClose',
]);

/** What a viewer (browser) may send to a daemon through the relay. */
export const viewerToDaemonTypes: ReadonlySet<RelayMessageType> = new Set<RelayMessageType>([
  'terminalOpen',
  'terminalInput',
  'terminalResize',
  'terminalClose',
  'agentTerminalAttach',
  'agentTerminalSnapshotRequest',
  'browseDir',
  'readFile',
  'mkDir',
  'permissionResponse',
  'questionResponse',
  'task',
  'stop',
]);

/**
 * The `channelId` a daemon uses for frames meant for every viewer of the machine (announcements of
 * shared terminals). A relay never binds a viewer to it.
 */
export const BROADCAST_CHANNEL_ID = '*';
