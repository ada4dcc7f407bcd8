/**
 * One Claude Code CLI connected to the IDE bridge: its MCP server session over the WebSocket,
 * who it is (client info, pid, the pane it runs in), and its diff tabs (pending reviews by tab
 * name). It owns those reviews: a second `openDiff` with the same tab name supersedes the first,
 * `close_tab`/`closeAllDiffTabs` withdraw them, and a disconnect withdraws them all (the CLI never
 * reconnects, so nobody would be waiting for the answer).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import type { IdeClient, OpenFileRequest } from '../../common/api/reviewContract.ts';
import { IdeConstants } from '../../common/constants.ts';
import { Emitter, type Event } from '../../common/event.ts';
import type { IDisposable } from '../../common/lifecycle.ts';
import { formatZodIssues } from '../../common/validation.ts';
import type { ILogger } from '../logger.ts';
import { FileContent } from '../review/fileContent.ts';
import type { ReviewQueue } from '../review/reviewQueue.ts';
import type { EditorState } from './editorState.ts';
import { type DiffTabs, type IdeToolContext, ideTools, ideToolsByName } from './ideTools.ts';
import { WebSocketServerTransport } from './webSocketTransport.ts';

export interface IdeConnectionServices {
  readonly queue: ReviewQueue;
  readonly editors: EditorState;
  readonly workspaceFolders: readonly string[];
  readonly serverVersion: string;
  readonly logger: ILogger;
  /** The pane whose process tree holds this pid, if any. */
  findPane(pid: number): Promise<{ terminalId: string; terminalName: string } | null>;
  openFile(request: OpenFileRequest): void;
  saveEditorText(path: string, text: string, expectedMtimeMs: number | undefined): Promise<void>;
}

/**
 * A JSON-RPC error with exactly this message (the SDK's McpError prefixes "MCP error <code>: ");
 * the SDK's protocol layer sends any thrown error's `code` and `message`.
 */
class JsonRpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

const IdeConnectedParams = z.looseObject({ pid: z.number().int().positive() });

/** Tool input schemas as JSON Schema, computed once. */
const toolList = ideTools.map((tool) => ({
  name: tool.name,
  description: tool.description,
  inputSchema: z.toJSONSchema(tool.input, { io: 'input', target: 'draft-7' }) as { type: 'object'; [key: string]: unknown },
}));

export class IdeConnection implements IDisposable, DiffTabs {
  readonly id: string;
  readonly socket: WebSocket;
  readonly #services: IdeConnectionServices;
  readonly #server: Server;
  readonly #logger: ILogger;
  readonly #connectedAt = Date.now();
  /**
   * Pending review ids by tab name; a ticket reserves a tab while its review is being opened
   * (`closed`: close_tab came meanwhile, so the review is withdrawn as closed once it exists).
   */
  readonly #tabs = new Map<string, { reviewId: string | null; closed: boolean }>();
  #name = 'Claude Code';
  #version: string | null = null;
  #pid: number | null = null;
  #pane: { terminalId: string; terminalName: string } | null = null;
  #initialized = false;
  #disposed = false;
  /** openDiff calls still answering, so a graceful shutdown can let their DIFF_REJECTED go out. */
  readonly #answering = new Set<Promise<unknown>>();
  /** Set by the bridge's keepalive: the last time this client answered (pong or any frame). */
  lastSeenAt = Date.now();

  readonly #onDidChange = new Emitter<void>();
  /** Its info changed (pid, pane, pending count). */
  readonly onDidChange: Event<void> = this.#onDidChange.event;
  readonly #onDidClose = new Emitter<void>();
  readonly onDidClose: Event<void> = this.#onDidClose.event;

  constructor(options: { id: string; socket: WebSocket; services: IdeConnectionServices }) {
    this.id = options.id;
    this.socket = options.socket;
    this.#services = options.services;
    this.#logger = options.services.logger;
    this.#server = new Server({ name: IdeConstants.ideName, version: options.services.serverVersion }, { capabilities: { tools: { listChanged: true } } });
    this.#installHandlers();
  }

  async start(): Promise<void> {
    const transport = new WebSocketServerTransport(this.socket);
    transport.onclose = () => this.dispose();
    this.socket.on('pong', () => (this.lastSeenAt = Date.now()));
    this.socket.on('message', () => (this.lastSeenAt = Date.now()));
    await this.#server.connect(transport);
  }

  get info(): IdeClient {
    return {
      id: this.id,
      name: this.#name,
      version: this.#version,
      pid: this.#pid,
      terminalId: this.#pane?.terminalId ?? null,
      terminalName: this.#pane?.terminalName ?? null,
      connectedAt: this.#connectedAt,
      pendingReviews: this.#pendingReviewIds().length,
    };
  }

  get terminalId(): string | null {
    return this.#pane?.terminalId ?? null;
  }

  /** A notification to the CLI (`selection_changed`, `at_mentioned`); dropped before the handshake completed. */
  async notify(method: string, params: Record<string, unknown>): Promise<boolean> {
    if (this.#disposed || !this.#initialized) return false;
    try {
      await this.#server.notification({ method, params });
      return true;
    } catch (error) {
      this.#logger.debug('notification not delivered', { client: this.id, method, error: String(error) });
      return false;
    }
  }

  /** The pane's terminal was renamed or closed: refresh the name, or forget the pane. */
  updatePane(pane: { terminalId: string; terminalName: string } | null): void {
    this.#pane = pane;
    this.#onDidChange.fire();
  }

  // ---- DiffTabs -------------------------------------------------------------------------------

  async openDiff(args: { oldFilePath: string; newFilePath: string; newFileContents: string; tabName: string }, signal: AbortSignal): Promise<CallToolResult> {
    const { tabName } = args;
    // Reserve the tab name before the (async) open, so a quick second openDiff supersedes this one.
    const previous = this.#tabs.get(tabName);
    const ticket = { reviewId: null as string | null, closed: false };
    this.#tabs.set(tabName, ticket);
    if (previous?.reviewId) this.#services.queue.remove(previous.reviewId, 'superseded');
    let opened;
    try {
      opened = await this.#services.queue.open({
        source: { kind: 'ide', name: this.#name, terminalId: this.#pane?.terminalId ?? null, terminalName: this.#pane?.terminalName ?? null, tabName },
        title: tabName,
        path: args.newFilePath,
        oldPath: args.oldFilePath,
        proposed: FileContent.fromString(args.newFileContents),
      });
    } catch (error) {
      if (this.#tabs.get(tabName) === ticket) this.#tabs.delete(tabName);
      throw new JsonRpcError(ErrorCode.InvalidParams, `openDiff: ${(error as Error).message}`);
    }
    if (this.#tabs.get(tabName) !== ticket || this.#disposed || signal.aborted) {
      // Closed, superseded, disconnected or cancelled while the current file was being read.
      this.#services.queue.remove(opened.id, this.#disposed || signal.aborted ? 'requester-gone' : ticket.closed ? 'closed' : 'superseded');
    } else {
      ticket.reviewId = opened.id;
      const onAbort = () => this.#services.queue.remove(opened.id, 'requester-gone');
      signal.addEventListener('abort', onAbort, { once: true });
      void opened.outcome.finally(() => signal.removeEventListener('abort', onAbort));
      this.#onDidChange.fire();
    }
    const outcome = await opened.outcome;
    if (this.#tabs.get(tabName) === ticket) this.#tabs.delete(tabName);
    if (!this.#disposed) this.#onDidChange.fire();
    if (outcome.kind === 'accepted') {
      // Byte for byte what the reviewer approved (their edits included); the CLI writes the file.
      return { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: outcome.content?.toResultString() ?? '' }] };
    }
    return { content: [{ type: 'text', text: 'DIFF_REJECTED' }, { type: 'text', text: tabName }] };
  }

  closeTab(tabName: string): number {
    const ticket = this.#tabs.get(tabName);
    if (!ticket) return 0;
    this.#tabs.delete(tabName);
    if (ticket.reviewId === null) {
      // Still opening: openDiff withdraws it as closed as soon as it exists.
      ticket.closed = true;
      return 1;
    }
    return this.#services.queue.remove(ticket.reviewId, 'closed') ? 1 : 0;
  }

  closeAll(): number {
    let closed = 0;
    for (const tabName of [...this.#tabs.keys()]) closed += this.closeTab(tabName);
    return closed;
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Withdraw this CLI's pending reviews (their openDiff calls answer DIFF_REJECTED) and wait, at
   * most `timeoutMs`, for those answers to be sent. The connection stays open.
   */
  async withdrawAll(reason: 'shutdown', timeoutMs: number): Promise<void> {
    for (const ticket of this.#tabs.values()) {
      if (ticket.reviewId) this.#services.queue.remove(ticket.reviewId, reason);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.#answering]), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** Close the socket; the CLI's pending reviews are withdrawn. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const ticket of this.#tabs.values()) {
      if (ticket.reviewId) this.#services.queue.remove(ticket.reviewId, 'requester-gone');
    }
    this.#tabs.clear();
    void this.#server.close().catch(() => {});
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) this.socket.terminate();
    this.#logger.info('Claude Code disconnected', { client: this.id, pid: this.#pid });
    this.#onDidClose.fire();
    this.#onDidClose.dispose();
    this.#onDidChange.dispose();
  }

  #pendingReviewIds(): string[] {
    return [...this.#tabs.values()].map((ticket) => ticket.reviewId).filter((id): id is string => id !== null && this.#services.queue.isPending(id));
  }

  #installHandlers(): void {
    const server = this.#server;
    // Answer with the version the client asked for (claude-ide.md), not the SDK's choice among the
    // versions it knows: the CLI is the authority on what it speaks, and our surface is tiny.
    server.setRequestHandler(InitializeRequestSchema, (request) => {
      const { protocolVersion, clientInfo } = request.params;
      this.#name = clientInfo.title ?? (clientInfo.name === 'claude-code' ? 'Claude Code' : clientInfo.name);
      this.#version = clientInfo.version;
      this.#onDidChange.fire();
      return {
        protocolVersion: /^\d{4}-\d{2}-\d{2}$/.test(protocolVersion) ? protocolVersion : IdeConstants.fallbackProtocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: IdeConstants.ideName, version: this.#services.serverVersion },
      };
    });
    server.oninitialized = () => {
      this.#initialized = true;
    };
    server.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'ide_connected') await this.#onIdeConnected(notification.params);
      else this.#logger.debug('ignored notification from Claude Code', { client: this.id, method: notification.method });
    };
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: rawArgs } = request.params;
      const tool = ideToolsByName.get(name);
      if (!tool) throw new JsonRpcError(ErrorCode.MethodNotFound, `unknown tool: ${name.slice(0, 100)}`);
      const parsed = tool.input.safeParse(rawArgs ?? {});
      if (!parsed.success) throw new JsonRpcError(ErrorCode.InvalidParams, `${name}: ${formatZodIssues(parsed.error)}`);
      const context: IdeToolContext = {
        workspaceFolders: this.#services.workspaceFolders,
        editors: this.#services.editors,
        diffTabs: this,
        openFile: (openRequest) => this.#services.openFile(openRequest),
        saveEditorText: (path, text, expectedMtimeMs) => this.#services.saveEditorText(path, text, expectedMtimeMs),
        signal: extra.signal,
      };
      this.#logger.debug('tool call', { client: this.id, tool: name });
      const answer = tool.run(parsed.data, context);
      if (name !== 'openDiff') return answer;
      // Until the reply is on the wire: the SDK sends it on a later turn, after this promise settles.
      const answered = answer.then(() => new Promise((resolve) => setImmediate(resolve)));
      this.#answering.add(answered);
      void answered.finally(() => this.#answering.delete(answered)).catch(() => {});
      return answer;
    });
    server.onerror = (error) => this.#logger.debug('MCP session error', { client: this.id, error: error.message });
  }

  async #onIdeConnected(params: unknown): Promise<void> {
    const parsed = IdeConnectedParams.safeParse(params);
    if (!parsed.success) {
      this.#logger.warn('ide_connected without a usable pid', { client: this.id, issues: formatZodIssues(parsed.error) });
      return;
    }
    this.#pid = parsed.data.pid;
    this.#pane = await this.#services.findPane(parsed.data.pid);
    if (this.#disposed) return;
    this.#logger.info('Claude Code connected', { client: this.id, pid: this.#pid, terminalId: this.#pane?.terminalId ?? null });
    this.#onDidChange.fire();
  }
}
