/**
 * Shared pieces of the relay integration tests: an in-process `switchboard relay` with machines,
 * a Hub with a relay client, a viewer speaking the protocol over a real WebSocket, and a logger
 * that keeps its lines (to check "logged once" and "token never logged").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import xtermHeadless from '@xterm/headless';
import { parseEnvelope } from '../../../src/common/protocol/relay/envelope.ts';
import { encodeFrame } from '../../../src/common/protocol/relay/frames.ts';
import type { RelayFields, RelayMessage, RelayMessageType } from '../../../src/common/protocol/relay/messages.ts';
import { Hub } from '../../../src/node/hub.ts';
import { createLogger, type ILogger, nullLogger } from '../../../src/node/logger.ts';
import type { RelayClient } from '../../../src/node/relay/relayClient.ts';
import { RelayServer } from '../../../src/node/relay/server/relayServer.ts';
import { type MachineTokens, RelayTokenStore } from '../../../src/node/relay/server/relayTokens.ts';
import { startRelayClient, type StartRelayClientOptions } from '../../../src/node/relay/startRelayClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTempHome } from '../../helpers/tempHome.ts';

export const bashShell = { file: 'bash', args: ['--norc', '--noprofile'], shellIntegration: false };

/** Small backoff and timers so reconnect tests take seconds, not minutes. */
export const fastTiming = { initialMs: 50, maxMs: 400, jitter: 0.2, resetAfterMs: 60_000, welcomeTimeoutMs: 2_000, heartbeatIntervalMs: 30_000, writeTimeoutMs: 10_000 };

/** A logger that records every line (and can echo them when debugging). */
export function recordingLogger(): { logger: ILogger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', sink: (line) => lines.push(line), subsystem: 'test' });
  return { logger, lines };
}

export async function createTokens(dir: string, machines: string[]): Promise<{ store: RelayTokenStore; tokens: Map<string, MachineTokens>; filePath: string }> {
  const filePath = join(dir, 'relay-tokens.json');
  const store = new RelayTokenStore({ filePath });
  const tokens = new Map<string, MachineTokens>();
  for (const machine of machines) tokens.set(machine, await store.addMachine(machine));
  return { store, tokens, filePath };
}

export interface TestRelay {
  server: RelayServer;
  url: string;
  port: number;
  tokens: Map<string, MachineTokens>;
  tokensFile: string;
  close(): Promise<void>;
}

export async function startTestRelay(options: { machines?: string[]; port?: number; logger?: ILogger; server?: Partial<ConstructorParameters<typeof RelayServer>[0]> } = {}): Promise<TestRelay> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-relay-'));
  const { store, tokens, filePath } = await createTokens(dir, options.machines ?? ['m1']);
  const server = new RelayServer({ host: '127.0.0.1', port: options.port ?? 0, tokens: store, logger: options.logger ?? nullLogger, ...options.server });
  const address = await server.listen();
  return {
    server,
    url: address.url,
    port: address.port,
    tokens,
    tokensFile: filePath,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestHub {
  hub: Hub;
  temp: ReturnType<typeof createTempHome>;
  dispose(): void;
}

export async function startTestHub(): Promise<TestHub> {
  const temp = createTempHome('sb-relay-hub-');
  const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, version: '9.9.9', env: {}, clawsCompatSockets: false, ideLockDir: null } as ConstructorParameters<typeof Hub>[0]);
  await hub.start();
  return {
    hub,
    temp,
    dispose() {
      hub.dispose();
      temp.dispose();
    },
  };
}

export function connectClient(hub: Hub, relayUrl: string, machineId: string, token: string, extra: Partial<StartRelayClientOptions> = {}): RelayClient {
  return startRelayClient(hub, {
    url: relayUrl,
    machineId,
    token,
    logger: nullLogger,
    remoteShell: bashShell,
    timing: fastTiming,
    ...extra,
  });
}

export async function waitConnected(client: RelayClient, connections = 1): Promise<void> {
  await pollUntil(() => client.status.state === 'connected' && client.stats.connections >= connections, { timeoutMs: 20_000, what: `relay client connected (${connections})` });
}

const maxViewerTextChars = 512 * 1024;

/** What a viewer has received of one terminal: the bytes since the last snapshot, with seq checks. */
export interface ViewerTerminal {
  /** Everything since (and including) the last snapshot, decoded. */
  text: string;
  lastSeq: number;
  snapshots: number;
  exit: RelayFields<'terminalExit'> | undefined;
  /** Set when an output frame did not carry lastSeq + 1. */
  seqErrors: string[];
}

/** A remote viewer: a real WebSocket to the relay's /ws/ui, speaking the protocol. */
export class TestViewer {
  readonly socket: WebSocket;
  readonly frames: RelayMessage[] = [];
  readonly refused: string[] = [];
  readonly terminals = new Map<string, ViewerTerminal>();
  readonly channelId: string;
  closed: { code: number; reason: string } | undefined;
  #requestCounter = 0;

  private constructor(socket: WebSocket, channelId: string) {
    this.socket = socket;
    this.channelId = channelId;
    socket.on('message', (data) => {
      const parsed = parseEnvelope(data.toString());
      if (!parsed.ok) {
        this.refused.push(parsed.error);
        return;
      }
      this.frames.push(parsed.message);
      this.#track(parsed.message);
    });
    socket.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
  }

  static connect(relay: { url: string }, machineId: string, token: string, options: { channelId?: string; name?: string } = {}): Promise<TestViewer> {
    const channelId = options.channelId ?? `viewer-${Math.random().toString(16).slice(2, 10)}`;
    const query = new URLSearchParams({ machineId, channelId, ...(options.name ? { name: options.name } : {}) });
    const socket = new WebSocket(`${relay.url}/ws/ui?${query}`, { headers: { Authorization: `Bearer ${token}` } });
    return new Promise((resolve, reject) => {
      const viewer = new TestViewer(socket, channelId);
      socket.once('open', () => resolve(viewer));
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
    });
  }

  send<T extends RelayMessageType>(type: T, fields: RelayFields<T>): void {
    this.socket.send(encodeFrame(type, fields));
  }

  sendRaw(text: string): void {
    this.socket.send(text);
  }

  nextRequestId(): string {
    return `req-${++this.#requestCounter}`;
  }

  typeInto(terminalId: string, text: string): void {
    this.send('terminalInput', { terminalId, channelId: this.channelId, dataBase64: Buffer.from(text).toString('base64') });
  }

  /** Wait for a frame matching the predicate (among all received so far, from `from` on). */
  waitFor<T extends RelayMessage>(predicate: (frame: RelayMessage) => frame is T, options?: { what?: string; timeoutMs?: number; from?: number }): Promise<T>;
  waitFor(predicate: (frame: RelayMessage) => boolean, options?: { what?: string; timeoutMs?: number; from?: number }): Promise<RelayMessage>;
  waitFor(predicate: (frame: RelayMessage) => boolean, options: { what?: string; timeoutMs?: number; from?: number } = {}): Promise<RelayMessage> {
    return pollUntil(() => this.frames.slice(options.from ?? 0).find(predicate), { timeoutMs: options.timeoutMs ?? 15_000, what: options.what ?? 'a relay frame' });
  }

  /** Send a request and wait for the frame answering it (same requestId). */
  async request<T extends RelayMessageType>(type: T, fields: Omit<RelayFields<T>, 'requestId' | 'channelId'>): Promise<RelayMessage> {
    const requestId = this.nextRequestId();
    this.send(type, { ...fields, requestId, channelId: this.channelId } as unknown as RelayFields<T>);
    return this.waitFor((frame) => (frame as { requestId?: string }).requestId === requestId, { what: `answer to ${type} ${requestId}` });
  }

  async openTerminal(fields: Partial<RelayFields<'terminalOpen'>> = {}): Promise<string> {
    const answer = await this.request('terminalOpen', { sessionId: 'sess-1', cols: 100, rows: 30, ...fields });
    if (answer.type !== 'terminalOpened') throw new Error(`terminalOpen failed: ${JSON.stringify(answer)}`);
    return answer.terminalId;
  }

  terminalText(terminalId: string): string {
    return this.terminals.get(terminalId)?.text ?? '';
  }

  waitForText(terminalId: string, needle: string | RegExp, timeoutMs = 15_000): Promise<string> {
    return pollUntil(
      () => {
        const text = stripTerminalControls(this.terminalText(terminalId));
        return (typeof needle === 'string' ? text.includes(needle) : needle.test(text)) ? text : undefined;
      },
      { timeoutMs, what: `viewer to see ${String(needle)} in ${terminalId}` },
    );
  }

  close(): Promise<void> {
    if (this.closed || this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }

  #track(frame: RelayMessage): void {
    if (frame.type !== 'terminalOutput' && frame.type !== 'terminalSnapshot' && frame.type !== 'terminalExit') return;
    let terminal = this.terminals.get(frame.terminalId);
    if (!terminal) {
      terminal = { text: '', lastSeq: 0, snapshots: 0, exit: undefined, seqErrors: [] };
      this.terminals.set(frame.terminalId, terminal);
    }
    if (frame.type === 'terminalSnapshot') {
      terminal.text = Buffer.from(frame.dataBase64, 'base64').toString('utf8');
      terminal.lastSeq = frame.seq;
      terminal.snapshots++;
    } else if (frame.type === 'terminalOutput') {
      if (frame.seq !== terminal.lastSeq + 1) terminal.seqErrors.push(`got seq ${frame.seq} after ${terminal.lastSeq}`);
      terminal.lastSeq = frame.seq;
      terminal.text += Buffer.from(frame.dataBase64, 'base64').toString('utf8');
      // Floods would make every check quadratic: keep the tail (far more than any screen).
      if (terminal.text.length > maxViewerTextChars) terminal.text = terminal.text.slice(-maxViewerTextChars / 2);
    } else {
      terminal.exit = frame;
    }
  }
}

/** Terminal output without OSC and CSI sequences (shell integration marks, colours), for text checks. */
export function stripTerminalControls(text: string): string {
  return text.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '').replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '');
}

/** Replay what a viewer got into a headless terminal of that size and return its screen lines. */
export async function screenOf(text: string, cols: number, rows: number): Promise<string[]> {
  const terminal = new xtermHeadless.Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
  await new Promise<void>((resolve) => terminal.write(text, resolve));
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let y = buffer.baseY; y < buffer.baseY + rows; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
  terminal.dispose();
  return lines;
}

/**
 * A binary body frame (the `previewBinaryBodies` extension) laid out by hand from its documented
 * layout — 4 bytes header length (big-endian), the header JSON with `"bodyBase64":""`, the body —
 * so tests check the layout itself, not the product's encoder against its own decoder.
 */
export function layOutBodyFrame(header: Record<string, unknown>, body: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify({ ...header, bodyBase64: '' }));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json, body]);
}

/** The header and body of a binary body frame, read by the documented layout (see layOutBodyFrame). */
export function readBodyFrameLayout(frame: Buffer): { header: { type: string; bodyBase64: string; [field: string]: any }; body: Buffer } {
  const headerBytes = frame.readUInt32BE(0);
  return { header: JSON.parse(frame.toString('utf8', 4, 4 + headerBytes)), body: frame.subarray(4 + headerBytes) };
}
