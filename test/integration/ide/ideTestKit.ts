/**
 * Plumbing for the IDE bridge tests: a real Hub (real PTYs, real sockets, a temp
 * CLAUDE_CONFIG_DIR so the real ~/.claude is never touched) and a WebSocket client that behaves as
 * the real `claude` CLI does (claude-ide.md, "Observed from the real CLI"): subprotocol `mcp`, the
 * auth header, then initialize → notifications/initialized → ide_connected → tools/list →
 * closeAllDiffTabs.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { Hub } from '../../../src/node/hub.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome } from '../../helpers/tempHome.ts';

export interface IdeTestHub {
  hub: Hub;
  api: LocalHubClient;
  home: string;
  dataDir: string;
  workspace: string;
  /** `$CLAUDE_CONFIG_DIR` of this Hub. */
  claudeConfigDir: string;
  lockDir: string;
  port: number;
  /** The lock file's contents. */
  lock: { pid: number; workspaceFolders: string[]; ideName: string; transport: string; runningInWindows: boolean; authToken: string };
  /** Restart on the same data dir (persistence tests). */
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

export async function startIdeHub(options: { extraWorkspaces?: string[] } = {}): Promise<IdeTestHub> {
  const temp = createTempHome('sb-ide-');
  const claudeConfigDir = join(temp.home, 'claude-config');
  writeFileSync(join(temp.home, '.bashrc'), "PS1='$ '\n");
  const make = () =>
    new Hub({
      dataDir: temp.dataDir,
      workspaceFolders: [temp.workspace, ...(options.extraWorkspaces ?? [])],
      host: 'test',
      logger: nullLogger,
      version: '9.9.9-test',
      env: { CLAUDE_CONFIG_DIR: claudeConfigDir },
      clawsCompatSockets: false,
    });
  const lockDir = join(claudeConfigDir, 'ide');
  const kit: IdeTestHub = {
    hub: make(),
    api: undefined as unknown as LocalHubClient,
    home: temp.home,
    dataDir: temp.dataDir,
    workspace: temp.workspace,
    claudeConfigDir,
    lockDir,
    port: 0,
    lock: undefined as unknown as IdeTestHub['lock'],
    async restart() {
      kit.api.dispose();
      await kit.hub.shutdown();
      kit.hub = make();
      await boot();
    },
    async dispose() {
      kit.api?.dispose();
      await kit.hub.shutdown();
      temp.dispose();
    },
  };
  const boot = async () => {
    await kit.hub.start();
    kit.api = createLocalHubClient(kit.hub, { kind: 'person', name: 'you' });
    kit.port = kit.hub.ideBridge.port!;
    kit.lock = JSON.parse(readFileSync(join(lockDir, `${kit.port}.lock`), 'utf8'));
  };
  await boot();
  return kit;
}

export interface RpcError {
  code: number;
  message: string;
}

export type RpcReply = { id: number | string | null; result?: any; error?: RpcError };

/** A stand-in for the `claude` CLI's IDE client: the same frames, in the same order. */
export class FakeClaudeCli {
  readonly socket: WebSocket;
  /** Notifications the server sent (selection_changed, at_mentioned…), in order. */
  readonly notifications: Array<{ method: string; params: any }> = [];
  /** Replies that answer no request of ours: id null (frames without a usable id) or an id we never used. */
  readonly orphanReplies: RpcReply[] = [];
  readonly #pending = new Map<number | string, (reply: RpcReply) => void>();
  #nextId = 0;
  closed: Promise<{ code: number }>;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString('utf8'));
      if (message.method !== undefined && message.id === undefined) {
        this.notifications.push({ method: message.method, params: message.params });
        return;
      }
      if (message.id === null || message.id === undefined) {
        this.orphanReplies.push(message);
        return;
      }
      const resolve = this.#pending.get(message.id);
      if (!resolve) {
        this.orphanReplies.push(message);
        return;
      }
      this.#pending.delete(message.id);
      resolve(message);
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code) => {
        // Requests still waiting never get an answer now: settle them so a test fails instead of hanging.
        for (const settle of this.#pending.values()) settle({ id: null, error: { code: -1, message: `connection closed (${code})` } });
        this.#pending.clear();
        resolve({ code });
      }),
    );
  }

  static async connect(port: number, token: string, options: { headers?: Record<string, string>; protocol?: string } = {}): Promise<FakeClaudeCli> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`, options.protocol ?? 'mcp', {
      headers: { 'x-claude-code-ide-authorization': token, 'user-agent': 'claude-code/2.1.197 (cli)', ...options.headers },
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    });
    return new FakeClaudeCli(socket);
  }

  /** The handshake the real CLI performs; returns the initialize result. */
  async handshake(pid: number, options: { protocolVersion?: string } = {}): Promise<any> {
    const init = await this.request('initialize', {
      protocolVersion: options.protocolVersion ?? '2025-11-25',
      capabilities: { roots: {}, elicitation: {} },
      clientInfo: { name: 'claude-code', title: 'Claude Code', version: '2.1.197' },
    });
    if (init.error) throw new Error(`initialize failed: ${init.error.message}`);
    this.notify('notifications/initialized');
    this.notify('ide_connected', { pid });
    const tools = await this.request('tools/list', {});
    if (tools.error) throw new Error(`tools/list failed: ${tools.error.message}`);
    const closed = await this.callTool('closeAllDiffTabs', {});
    if (closed.error) throw new Error(`closeAllDiffTabs failed: ${closed.error.message}`);
    return init.result;
  }

  request(method: string, params?: unknown): Promise<RpcReply> {
    const id = this.#nextId++;
    const reply = new Promise<RpcReply>((resolve) => this.#pending.set(id, resolve));
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return reply;
  }

  callTool(name: string, args: unknown): Promise<RpcReply> {
    return this.request('tools/call', { name, arguments: args });
  }

  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.socket.send(data, { binary });
  }

  async waitForNotification(method: string, count = 1): Promise<Array<{ method: string; params: any }>> {
    return pollUntil(
      () => {
        const found = this.notifications.filter((notification) => notification.method === method);
        return found.length >= count ? found : null;
      },
      { timeoutMs: 15_000, what: `${count} ${method} notification(s)` },
    );
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close();
    await this.closed;
  }
}

/** The text parts of a tool result. */
export function texts(reply: RpcReply): string[] {
  return (reply.result?.content ?? []).map((part: { text: string }) => part.text);
}

/** The first text part parsed as JSON. */
export function jsonOf(reply: RpcReply): any {
  return JSON.parse(texts(reply)[0]!);
}

/** An upgrade attempt's HTTP status, or 101 when it was accepted. */
export function upgradeStatus(port: number, options: { token?: string; protocol?: string | null; headers?: Record<string, string> }): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers['x-claude-code-ide-authorization'] = options.token;
    const socket = new WebSocket(`ws://127.0.0.1:${port}`, options.protocol === null ? [] : [options.protocol ?? 'mcp'], { headers });
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_request, response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', (error) => reject(error));
  });
}

export function lockFilesIn(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith('.lock'));
  } catch {
    return [];
  }
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
