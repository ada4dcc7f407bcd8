/**
 * Plumbing for the control-socket conformance tests: a real Hub (real PTYs, real sockets) on a
 * temp HOME / SWITCHBOARD_HOME / workspace, and a raw NDJSON client that speaks to the socket the
 * way claws clients do — no client library in between.
 */
import { createConnection, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hub } from '../../../src/node/hub.ts';
import { nullLogger, type ILogger } from '../../../src/node/logger.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome, testEnv } from '../../helpers/tempHome.ts';

export type Frame = Record<string, any>;

export interface TestHub {
  hub: Hub;
  socketPath: string;
  home: string;
  dataDir: string;
  workspace: string;
  env: Record<string, string>;
  connect(path?: string): Promise<NdjsonClient>;
  dispose(): Promise<void>;
}

export async function startTestHub(options: { clawsCompatSockets?: boolean; logger?: ILogger; mirrorWorkerPath?: string } = {}): Promise<TestHub> {
  const temp = createTempHome('sb-ctl-');
  // Predictable prompts for shells that read rc files.
  writeFileSync(join(temp.home, '.bashrc'), "PS1='$ '\n");
  const hub = new Hub({
    dataDir: temp.dataDir,
    workspaceFolders: [temp.workspace],
    host: 'test',
    logger: options.logger ?? nullLogger,
    version: '9.9.9-test',
    env: {},
    ...(options.clawsCompatSockets !== undefined ? { clawsCompatSockets: options.clawsCompatSockets } : {}),
    ...(options.mirrorWorkerPath !== undefined ? { mirrorWorkerPath: options.mirrorWorkerPath } : {}),
  });
  await hub.start();
  const clients = new Set<NdjsonClient>();
  return {
    hub,
    socketPath: hub.controlSocketPath,
    home: temp.home,
    dataDir: temp.dataDir,
    workspace: temp.workspace,
    env: testEnv(temp.home),
    async connect(path = hub.controlSocketPath) {
      const client = await NdjsonClient.connect(path);
      clients.add(client);
      return client;
    },
    async dispose() {
      for (const client of clients) client.close();
      await hub.shutdown();
      temp.dispose();
    },
  };
}

export interface NdjsonClientOptions {
  /**
   * Keep every non-blank line that is not a JSON object in `garbage` instead of throwing on it: the
   * fuzzer (fuzz/boundaries/control*.ts) asserts the server never sends one, and must see it to say so.
   */
  keepGarbage?: boolean;
}

/** A raw NDJSON connection: send objects or raw text, read frames as they come. */
export class NdjsonClient {
  readonly socket: Socket;
  readonly frames: Frame[] = [];
  /** Lines that were not JSON objects (only with `keepGarbage`; otherwise bad JSON throws). */
  readonly garbage: string[] = [];
  #buffer = '';
  #waiters = new Set<() => void>();
  #nextId = 1;
  closed = false;

  private constructor(socket: Socket, options: NdjsonClientOptions) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let newline: number;
      while ((newline = this.#buffer.indexOf('\n')) !== -1) {
        const line = this.#buffer.substring(0, newline);
        this.#buffer = this.#buffer.substring(newline + 1);
        // claws.md: blank lines are skipped (the Hub probes a client that ended its side with one).
        if (line.trim() === '') continue;
        if (!options.keepGarbage) this.frames.push(JSON.parse(line));
        else {
          const frame = parseObject(line);
          if (frame) this.frames.push(frame);
          else this.garbage.push(line);
        }
      }
      this.#wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.#wake();
    });
    socket.on('error', () => {});
  }

  static connect(path: string, options: NdjsonClientOptions = {}): Promise<NdjsonClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once('connect', () => resolve(new NdjsonClient(socket, options)));
      socket.once('error', reject);
    });
  }

  /** Write raw text (no newline added). */
  write(text: string | Buffer): void {
    this.socket.write(text);
  }

  send(request: Frame): void {
    this.socket.write(JSON.stringify(request) + '\n');
  }

  /** Send a request (an `id` is added when missing) and resolve with the response whose rid matches. */
  async request(request: Frame, timeoutMs = 20_000): Promise<Frame> {
    const frame = request.id === undefined ? { id: `r${this.#nextId++}`, ...request } : request;
    this.send(frame);
    return this.waitFor((candidate) => candidate.rid === frame.id, timeoutMs, `a response to ${JSON.stringify(frame).slice(0, 120)}`);
  }

  /** The first frame (received so far or later) that matches; it is removed from `frames`. */
  async waitFor(match: (frame: Frame) => boolean, timeoutMs = 20_000, what = 'a frame'): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.frames.findIndex(match);
      if (index !== -1) return this.frames.splice(index, 1)[0]!;
      if (this.closed) throw new Error(`connection closed while waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames).slice(0, 500)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        this.#waiters.add(done);
        function done() {
          clearTimeout(timer);
          resolve();
        }
      });
    }
  }

  /** The next frame in arrival order. */
  next(timeoutMs = 10_000): Promise<Frame> {
    return this.waitFor(() => true, timeoutMs, 'the next frame');
  }

  async waitClosed(timeoutMs = 5_000): Promise<void> {
    await pollUntil(() => this.closed, { timeoutMs, what: 'the connection to close' });
  }

  close(): void {
    this.socket.destroy();
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }
}

/** The line as a JSON object, or undefined when it is bad JSON or another JSON value. */
function parseObject(line: string): Frame | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Frame) : undefined;
  } catch {
    return undefined;
  }
}

/** Shells as the tests start them: no user rc files, with or without our shell integration. */
export const shells = {
  bashPlain: { shellPath: 'bash', shellArgs: ['--norc', '--noprofile'], shellIntegration: false },
  bashIntegrated: { shellPath: 'bash', shellIntegration: true },
  zshPlain: { shellPath: 'zsh', shellArgs: ['-f'], shellIntegration: false },
  zshIntegrated: { shellPath: 'zsh', shellIntegration: true },
  fishPlain: { shellPath: 'fish', shellArgs: ['--no-config'], shellIntegration: false },
  fishIntegrated: { shellPath: 'fish', shellIntegration: true },
  sh: { shellPath: 'sh', shellIntegration: false },
} as const;

/** Create a terminal (plain bash unless `extra` names a shell) and return its id. */
export async function createTerminal(client: NdjsonClient, env: Record<string, string>, extra: Frame = {}): Promise<string> {
  const spec = extra.shellPath === undefined ? { ...shells.bashPlain, ...extra } : extra;
  const response = await client.request({ cmd: 'create', env, ...spec });
  if (!response.ok) throw new Error(`create failed: ${response.error}`);
  return response.id as string;
}

/** Wait until a terminal with shell integration has drawn its first prompt (integration active). */
export async function waitForIntegration(client: NdjsonClient, terminalId: string): Promise<void> {
  await pollUntil(
    async () => {
      const response = await client.request({ cmd: 'list' });
      return response.terminals.find((terminal: Frame) => terminal.id === terminalId)?.hasShellIntegration === true;
    },
    { timeoutMs: 15_000, intervalMs: 50, what: `shell integration in ${terminalId}` },
  );
}
