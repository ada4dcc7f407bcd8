/**
 * The IDE bridge's JSON-RPC handler (src/node/ide: webSocketTransport.ts, ideConnection.ts,
 * ideTools.ts) over a real WebSocket to a real Hub, connected as the `claude` CLI does. Inputs:
 * text that is not JSON, JSON that is not JSON-RPC, requests and notifications for every method
 * the CLI uses and some it does not, and `tools/call` for every tool with arguments shaped by its
 * schema (most valid, some near misses). Properties: every request gets exactly one answer — a
 * result, or an error with an integer code and a message; nothing else the server sends is
 * malformed; the connection stays open; a `ping` after each input is answered.
 */
import fc from 'fast-check';
import { WebSocket } from 'ws';
import { ideTools } from '../../src/node/ide/ideTools.ts';
import { anyJson, shapedBy } from '../arbitraries.ts';
import { type FuzzBoundary, show, withinTimeLimitAsync } from '../boundary.ts';
import { startFuzzHub } from '../hub.ts';

type Message = Record<string, unknown>;

const toolCall = fc.constantFrom(...ideTools).chain((tool) => shapedBy(tool.input).map((args) => ({ method: 'tools/call', params: { name: tool.name, arguments: args } as unknown })));

const rpc = fc.oneof(
  { weight: 4, arbitrary: toolCall },
  { weight: 1, arbitrary: fc.record({ method: fc.constantFrom('tools/list', 'ping', 'resources/list', 'prompts/list', 'initialize', 'logging/setLevel', 'completion/complete', 'nope'), params: fc.option(anyJson(2), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ method: fc.constant('tools/call'), params: anyJson(2) }) },
  { weight: 1, arbitrary: fc.record({ method: fc.string({ maxLength: 12 }), params: fc.option(anyJson(2), { nil: undefined }) }) },
);

const input = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('request' as const), rpc }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('notification' as const), rpc: fc.oneof(rpc, fc.record({ method: fc.constantFrom('ide_connected', 'notifications/initialized', 'notifications/cancelled'), params: anyJson(2) })) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('raw' as const), text: fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), anyJson(2).map((value) => JSON.stringify(value) ?? '')) }) },
);

class IdeClient {
  readonly frames: Message[] = [];
  readonly garbage: string[] = [];
  closed = false;
  #waiters = new Set<() => void>();

  readonly socket: WebSocket;

  constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data: Buffer) => {
      try {
        const frame = JSON.parse(data.toString('utf8')) as unknown;
        if (typeof frame === 'object' && frame !== null && !Array.isArray(frame)) this.frames.push(frame as Message);
        else this.garbage.push(data.toString('utf8'));
      } catch {
        this.garbage.push(data.toString('utf8'));
      }
      this.#wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.#wake();
    });
    socket.on('error', () => {});
  }

  static connect(port: number, token: string): Promise<IdeClient> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`, 'mcp', { headers: { 'x-claude-code-ide-authorization': token } });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new IdeClient(socket)));
      socket.once('error', reject);
    });
  }

  send(message: Message | string): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  async reply(id: string, what: string): Promise<Message> {
    for (;;) {
      const index = this.frames.findIndex((frame) => frame.id === id && frame.method === undefined);
      if (index !== -1) return this.frames.splice(index, 1)[0]!;
      if (this.closed) throw new Error(`the bridge closed the connection while we waited for ${what}`);
      await new Promise<void>((resolve) => this.#waiters.add(resolve));
    }
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }
}

function checkReply(reply: Message, what: string): void {
  if (reply.jsonrpc !== '2.0') throw new Error(`${what}: a reply without jsonrpc 2.0: ${show(reply)}`);
  const error = reply.error as { code?: unknown; message?: unknown } | undefined;
  if (error !== undefined) {
    if (!Number.isInteger(error.code) || typeof error.message !== 'string' || error.message.length === 0) throw new Error(`${what}: a malformed error: ${show(reply)}`);
  } else if (!('result' in reply)) throw new Error(`${what}: a reply with neither result nor error: ${show(reply)}`);
}

export const ideBridgeBoundary: FuzzBoundary = {
  name: 'ide-bridge',
  title: "IDE bridge JSON-RPC over a real WebSocket to a real Hub (src/node/ide)",
  testRuns: 600,
  fullRuns: 100_000,
  asyncTimeoutMs: 10_000,
  async open() {
    const fuzzHub = await startFuzzHub();
    const client = await IdeClient.connect(fuzzHub.ide.port, fuzzHub.ide.token);
    client.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } });
    checkReply(await client.reply('init', 'initialize'), 'initialize');
    client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    let sequence = 0;
    const property = fc.asyncProperty(input, async (fuzz) =>
      withinTimeLimitAsync(
        'a JSON-RPC message',
        async () => {
          const n = ++sequence;
          let awaited: string | null = null;
          let text: string;
          if (fuzz.kind === 'raw') {
            text = fuzz.text;
            client.send(text);
          } else {
            const message: Message = { jsonrpc: '2.0', method: fuzz.rpc.method, ...(fuzz.rpc.params === undefined ? {} : { params: fuzz.rpc.params }) };
            if (fuzz.kind === 'request') {
              awaited = `f${n}`;
              message.id = awaited;
            }
            text = JSON.stringify(message);
            client.send(message);
            // openDiff waits for a person: withdraw it, as the CLI does, so it answers (DIFF_REJECTED).
            if ((fuzz.rpc.params as { name?: unknown } | undefined)?.name === 'openDiff') {
              client.send({ jsonrpc: '2.0', id: `c${n}`, method: 'tools/call', params: { name: 'closeAllDiffTabs', arguments: {} } });
              checkReply(await client.reply(`c${n}`, 'closeAllDiffTabs'), 'closeAllDiffTabs');
            }
          }
          if (awaited !== null) checkReply(await client.reply(awaited, `the answer to ${text.slice(0, 200)}`), text.slice(0, 300));
          client.send({ jsonrpc: '2.0', id: `b${n}`, method: 'ping' });
          checkReply(await client.reply(`b${n}`, `a ping after ${text.slice(0, 200)}`), 'ping');
          for (const frame of client.frames.splice(0)) {
            if (frame.jsonrpc !== '2.0') throw new Error(`after ${text.slice(0, 200)}: a frame without jsonrpc 2.0: ${show(frame)}`);
            if (frame.method === undefined) checkReply(frame, `after ${text.slice(0, 200)}`);
          }
          if (client.garbage.length > 0) throw new Error(`the bridge sent something that is not a JSON object: ${show(client.garbage)}`);
          fuzzHub.checkErrors(text.slice(0, 300));
          return true;
        },
        8_000,
      ),
    );
    return {
      property,
      async dispose() {
        client.socket.terminate();
        await fuzzHub.dispose();
      },
    };
  },
};
