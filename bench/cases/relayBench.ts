/**
 * Shared setup of the relay benchmarks: the same real terminal (PtyHost, mirror on) reaches a
 * viewer over loopback either through the real relay (RelayClient → `switchboard relay`'s
 * RelayServer → a viewer speaking the protocol: JSON frames, base64, seq) or through a bare `ws`
 * forwarder that moves the raw bytes (daemon socket → forwarder → viewer socket, nothing else).
 * Everything runs in this process, so both paths share the same CPU and noise.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { encodeFrame } from '../../src/common/protocol/relay/frames.ts';
import { nullLogger } from '../../src/node/logger.ts';
import type { PtyHost } from '../../src/node/pty/ptyHost.ts';
import type { PtySession } from '../../src/node/pty/ptySession.ts';
import { RelayClient } from '../../src/node/relay/relayClient.ts';
import { RelayServer } from '../../src/node/relay/server/relayServer.ts';
import { RelayTokenStore } from '../../src/node/relay/server/relayTokens.ts';

/** A viewer that counts output bytes and lets the bench wait for frames. */
export interface BenchViewer {
  /** Decoded output bytes received for the terminal since reset(). */
  bytes: number;
  /** The text of the last output (for keystroke echo checks). */
  lastText: string;
  exited: boolean;
  snapshots: number;
  reset(): void;
  /** Resolves on the next output (or exit) for the terminal. */
  nextOutput(): Promise<void>;
  type(text: string): void;
  close(): void;
}

export interface RelayPath {
  attach(session: PtySession): Promise<BenchViewer>;
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function openSocket(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

class Waiters {
  #waiters: Array<() => void> = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
  wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

/** The real thing: RelayClient → RelayServer → a protocol viewer. */
export async function startRealRelay(ptyHost: PtyHost, dir: string): Promise<RelayPath> {
  const store = new RelayTokenStore({ filePath: `${dir}/relay-tokens.json` });
  const tokens = await store.addMachine('bench');
  const server = new RelayServer({ host: '127.0.0.1', port: 0, tokens: store, logger: nullLogger });
  const address = await server.listen();
  const client = new RelayClient({ url: address.url, machineId: 'bench', token: tokens.daemonToken, ptyHost, sharedFolders: [dir], logger: nullLogger, version: 'bench', shareAll: true });
  client.start();
  while (client.status.state !== 'connected') await new Promise((resolve) => setTimeout(resolve, 10));
  let channel = 0;
  return {
    async attach(session) {
      const channelId = `bench-${++channel}`;
      const socket = await openSocket(`${address.url}/ws/ui?machineId=bench&channelId=${channelId}`, { Authorization: `Bearer ${tokens.viewerToken}` });
      const waiters = new Waiters();
      const viewer: BenchViewer = {
        bytes: 0,
        lastText: '',
        exited: false,
        snapshots: 0,
        reset() {
          viewer.bytes = 0;
          viewer.exited = false;
          viewer.snapshots = 0;
        },
        nextOutput: () => waiters.wait(),
        type(text) {
          socket.send(encodeFrame('terminalInput', { terminalId: session.id, channelId, dataBase64: Buffer.from(text).toString('base64') }));
        },
        close: () => socket.close(),
      };
      socket.on('message', (data) => {
        // What a browser does with each frame: parse it, decode the payload.
        const frame = JSON.parse(data.toString()) as { type: string; terminalId?: string; dataBase64?: string };
        if (frame.terminalId !== session.id) return;
        if (frame.type === 'terminalOutput') {
          const bytes = Buffer.from(frame.dataBase64!, 'base64');
          viewer.bytes += bytes.length;
          viewer.lastText = bytes.toString('latin1');
          waiters.wake();
        } else if (frame.type === 'terminalSnapshot') {
          viewer.snapshots++;
          waiters.wake();
        } else if (frame.type === 'terminalExit') {
          viewer.exited = true;
          waiters.wake();
        }
      });
      socket.send(encodeFrame('agentTerminalAttach', { terminalId: session.id, channelId }));
      while (viewer.snapshots === 0) await viewer.nextOutput();
      viewer.reset();
      return viewer;
    },
    async close() {
      await client.stop();
      client.dispose();
      await server.close();
    },
  };
}

/** The reference: raw bytes through a bare ws forwarder, no protocol at all. */
export async function startBareForwarder(): Promise<RelayPath> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  let daemonSide: WebSocket | undefined;
  let viewerSide: WebSocket | undefined;
  wss.on('connection', (socket, req) => {
    if (req.url === '/daemon') {
      daemonSide = socket;
      socket.on('message', (data, isBinary) => viewerSide?.send(data, { binary: isBinary }));
    } else {
      viewerSide = socket;
      socket.on('message', (data, isBinary) => daemonSide?.send(data, { binary: isBinary }));
    }
  });
  const port = await listen(http);
  return {
    async attach(session) {
      const daemon = await openSocket(`ws://127.0.0.1:${port}/daemon`);
      const viewerSocket = await openSocket(`ws://127.0.0.1:${port}/viewer`);
      const output = session.onDidOutput(({ bytes }) => daemon.send(Buffer.from(bytes)));
      const exit = session.onDidExit(() => daemon.send('EXIT'));
      daemon.on('message', (data) => session.write(data.toString()));
      const waiters = new Waiters();
      const viewer: BenchViewer = {
        bytes: 0,
        lastText: '',
        exited: false,
        snapshots: 0,
        reset() {
          viewer.bytes = 0;
          viewer.exited = false;
        },
        nextOutput: () => waiters.wait(),
        type: (text) => viewerSocket.send(text),
        close() {
          output.dispose();
          exit.dispose();
          daemon.close();
          viewerSocket.close();
        },
      };
      viewerSocket.on('message', (data, isBinary) => {
        if (!isBinary) {
          viewer.exited = true;
        } else {
          const bytes = data as Buffer;
          viewer.bytes += bytes.length;
          viewer.lastText = bytes.toString('latin1');
        }
        waiters.wake();
      });
      return viewer;
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}
