/**
 * A relay that misbehaves on purpose: a plain `ws` server whose behaviour each test scripts
 * (no welcome, early close, garbage, floods, a reader that stops reading…). It records every
 * connection attempt, the headers and every frame the client sent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

export interface ScriptedConnection {
  ws: WebSocket;
  req: IncomingMessage;
  /** Frames the client sent on this connection, parsed (the hello first). */
  received: any[];
  at: number;
  closed: boolean;
}

export type Behaviour = (connection: ScriptedConnection) => void;

export class ScriptedRelay {
  readonly attempts: Array<{ at: number; url: string; authorization: string | undefined }> = [];
  readonly connections: ScriptedConnection[] = [];
  /** How the next connections are treated; a test swaps it as it goes. */
  behaviour: Behaviour = welcomeThen(() => {});
  /** Answer the upgrade with this HTTP status instead of accepting it. */
  refuseWith: number | undefined;
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  url = '';

  private constructor(options: { autoPong?: boolean }) {
    this.#server = createServer((_req, res) => res.writeHead(404).end());
    this.#wss = new WebSocketServer({ noServer: true, autoPong: options.autoPong ?? true, maxPayload: 64 * 1024 * 1024 });
    this.#server.on('upgrade', (req, socket: Socket, head) => {
      this.attempts.push({ at: Date.now(), url: req.url ?? '', authorization: req.headers.authorization });
      if (this.refuseWith !== undefined) {
        socket.end(`HTTP/1.1 ${this.refuseWith} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => {
        const connection: ScriptedConnection = { ws, req, received: [], at: Date.now(), closed: false };
        ws.on('message', (data) => {
          try {
            connection.received.push(JSON.parse(data.toString()));
          } catch {
            connection.received.push({ unparsable: data.toString() });
          }
        });
        ws.on('close', () => (connection.closed = true));
        ws.on('error', () => {});
        this.connections.push(connection);
        this.behaviour(connection);
      });
    });
  }

  static async start(options: { autoPong?: boolean } = {}): Promise<ScriptedRelay> {
    const relay = new ScriptedRelay(options);
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', resolve));
    relay.url = `ws://127.0.0.1:${(relay.#server.address() as AddressInfo).port}`;
    return relay;
  }

  get latest(): ScriptedConnection | undefined {
    return this.connections.at(-1);
  }

  async close(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Answer the hello with welcome, then run `then`. */
export function welcomeThen(then: (connection: ScriptedConnection) => void): Behaviour {
  return (connection) => {
    connection.ws.once('message', () => {
      connection.ws.send(JSON.stringify({ type: 'welcome', latestDaemonVersion: '1.2.3' }));
      then(connection);
    });
  };
}

/** Send a frame to the client from the scripted relay. */
export function send(connection: ScriptedConnection, frame: unknown): void {
  if (connection.ws.readyState === WebSocket.OPEN) connection.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
}
