/**
 * An MCP server transport over one accepted `ws` socket (the SDK ships client WebSocket transports
 * only). Each text frame is one JSON-RPC message. Frames that are not JSON, or not JSON-RPC, are
 * answered here with the JSON-RPC error they deserve (-32700 / -32600) and never reach the
 * server, so one bad frame costs its sender one error reply and nothing else.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RawData, WebSocket } from 'ws';

export class WebSocketServerTransport implements Transport {
  readonly #socket: WebSocket;
  #started = false;
  #closed = false;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  constructor(socket: WebSocket) {
    this.#socket = socket;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('WebSocketServerTransport already started');
    this.#started = true;
    this.#socket.on('message', (data, isBinary) => this.#receive(data, isBinary));
    this.#socket.on('close', () => this.#handleClose());
    this.#socket.on('error', (error) => this.onerror?.(error));
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#sendRaw(message);
  }

  async close(): Promise<void> {
    if (this.#socket.readyState === this.#socket.OPEN || this.#socket.readyState === this.#socket.CONNECTING) this.#socket.close(1000);
    this.#handleClose();
  }

  #receive(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      void this.#sendError(null, ErrorCode.ParseError, 'Parse error: binary frames are not JSON-RPC; send text frames');
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawToString(data));
    } catch (error) {
      void this.#sendError(null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
      return;
    }
    if (Array.isArray(parsed)) {
      void this.#sendError(null, ErrorCode.InvalidRequest, 'Invalid Request: JSON-RPC batches are not supported by MCP');
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      void this.#sendError(requestIdOf(parsed), ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response');
      return;
    }
    this.onmessage?.(message.data);
  }

  #sendError(id: string | number | null, code: number, message: string): Promise<void> {
    return this.#sendRaw({ jsonrpc: '2.0', id, error: { code, message } }).catch((error: unknown) => this.onerror?.(error as Error));
  }

  #sendRaw(message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#socket.readyState !== this.#socket.OPEN) {
        reject(new Error('the WebSocket is closed'));
        return;
      }
      this.#socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  #handleClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

function rawToString(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** The id of a malformed request, when it has a usable one, so its sender can match the error. */
function requestIdOf(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
