/**
 * A real Hub for the boundaries that are live sockets (the control socket, the IDE bridge): temp
 * HOME, data dir, workspace and CLAUDE_CONFIG_DIR, so fuzzing never touches the user's files; and a
 * raw NDJSON client that writes whatever it is given.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hub } from '../src/node/hub.ts';
import { createLogger } from '../src/node/logger.ts';

export interface FuzzHub {
  hub: Hub;
  socketPath: string;
  workspace: string;
  /** HOME for the shells a boundary starts. */
  home: string;
  ide: { port: number; token: string };
  /** Throws when the Hub logged an error since the last call (an exception it caught but did not expect). */
  checkErrors(after: string): void;
  dispose(): Promise<void>;
}

export async function startFuzzHub(): Promise<FuzzHub> {
  const root = mkdtempSync(join(tmpdir(), 'sb-fuzz-'));
  const workspace = join(root, 'workspace');
  const claudeConfigDir = join(root, 'claude-config');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(root, 'home'), { recursive: true });
  const errors: string[] = [];
  const hub = new Hub({
    dataDir: join(root, 'data'),
    workspaceFolders: [workspace],
    host: 'test',
    // Errors only: an error in the log is a bug the Hub caught (e.g. `control command failed`); warnings are refusals.
    logger: createLogger({ level: 'error', sink: (line) => errors.push(line) }),
    version: '9.9.9-fuzz',
    env: { HOME: join(root, 'home'), CLAUDE_CONFIG_DIR: claudeConfigDir, PATH: process.env.PATH ?? '/usr/bin:/bin' },
    clawsCompatSockets: false,
  });
  await hub.start();
  const port = hub.ideBridge.port!;
  const lock = JSON.parse(readFileSync(join(claudeConfigDir, 'ide', `${port}.lock`), 'utf8')) as { authToken: string };
  return {
    hub,
    socketPath: hub.controlSocketPath,
    workspace,
    home: join(root, 'home'),
    ide: { port, token: lock.authToken },
    checkErrors(after) {
      if (errors.length === 0) return;
      const logged = errors.splice(0);
      throw new Error(`after ${after}: the Hub logged ${logged.length} error(s): ${logged.join('\n').slice(0, 2000)}`);
    },
    async dispose() {
      await hub.shutdown();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export type Frame = Record<string, unknown>;

/** A raw NDJSON connection that keeps every frame the server sends, and notices a close. */
export class RawNdjsonClient {
  readonly socket: Socket;
  readonly frames: Frame[] = [];
  /** Lines that were not JSON objects (the server must never send one). */
  readonly garbage: string[] = [];
  closed = false;
  #buffer = '';
  #waiters = new Set<() => void>();

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let newline: number;
      while ((newline = this.#buffer.indexOf('\n')) !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        try {
          const frame = JSON.parse(line) as unknown;
          if (typeof frame === 'object' && frame !== null && !Array.isArray(frame)) this.frames.push(frame as Frame);
          else this.garbage.push(line);
        } catch {
          this.garbage.push(line);
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

  static connect(path: string): Promise<RawNdjsonClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once('connect', () => resolve(new RawNdjsonClient(socket)));
      socket.once('error', reject);
    });
  }

  write(text: string | Buffer): void {
    this.socket.write(text);
  }

  /** The first frame that matches (removed from `frames`); throws when the connection closes first. */
  async waitFor(match: (frame: Frame) => boolean, what: string): Promise<Frame> {
    for (;;) {
      const index = this.frames.findIndex(match);
      if (index !== -1) return this.frames.splice(index, 1)[0]!;
      if (this.closed) throw new Error(`the server closed the connection while we waited for ${what}`);
      await new Promise<void>((resolve) => this.#waiters.add(resolve));
    }
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
