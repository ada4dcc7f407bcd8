/**
 * A scripted Anthropic Messages API on loopback, for running the real Claude Code CLI offline
 * (ANTHROPIC_BASE_URL=http://127.0.0.1:<port>). A user turn whose text holds a key of `script`
 * gets that tool call; the tool's result gets the closing text. Every other request (titles,
 * token counts) gets a short text answer. `delayMs` holds each streamed answer back, so the
 * "working" screen stays up long enough to be seen.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
}

export interface ScriptedModelOptions {
  /** Prompt substring → the tool call(s) the model makes, one per round trip, in order. */
  script: Record<string, ScriptedToolCall[]>;
  delayMs?: number;
}

export interface ScriptedModel {
  readonly url: string;
  /** The tool results the CLI sent back (it ran, or was refused, a tool), each once. */
  readonly toolResults: string[];
  close(): Promise<void>;
}

interface Message {
  role: string;
  content: string | Array<{ type: string; text?: string; content?: unknown }>;
}

export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const toolResults: string[] = [];
  let nextId = 1;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const url = request.url ?? '';
      if (!url.startsWith('/v1/messages')) return void response.writeHead(404).end('{}');
      if (url.startsWith('/v1/messages/count_tokens')) return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
      const parsed = JSON.parse(body || '{}') as { model?: string; stream?: boolean; messages?: Message[]; tools?: Array<{ name: string }> };
      const reply = planReply(parsed.messages ?? [], (parsed.tools ?? []).length > 0, options.script, toolResults);
      const message = { id: `msg_${nextId++}`, type: 'message', role: 'assistant', model: parsed.model ?? 'scripted', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } };
      if (!parsed.stream) {
        const content = reply.tool ? [] : [{ type: 'text', text: reply.text }];
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...message, content, stop_reason: 'end_turn' }));
      }
      const send = (event: string, data: unknown): void => void response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      const stream = (): void => {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        send('message_start', { type: 'message_start', message });
        if (reply.tool) {
          send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: `toolu_${nextId++}`, name: reply.tool.name, input: {} } });
          send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.tool.input) } });
        } else {
          send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
          send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.text } });
        }
        send('content_block_stop', { type: 'content_block_stop', index: 0 });
        send('message_delta', { type: 'message_delta', delta: { stop_reason: reply.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
        send('message_stop', { type: 'message_stop' });
        response.end();
      };
      // Only the main loop's turns (they carry tools) are held back; side requests answer at once.
      if (options.delayMs && reply.main) setTimeout(stream, options.delayMs);
      else stream();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    toolResults,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function planReply(messages: Message[], hasTools: boolean, script: ScriptedModelOptions['script'], toolResults: string[]): { tool?: ScriptedToolCall; text: string; main: boolean } {
  if (!hasTools) return { text: 'Scripted title', main: false };
  // The last user text that names a script entry, and how many tool results came after it.
  let key: string | undefined;
  let resultsSince = 0;
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const result = parts.find((part) => part.type === 'tool_result');
    if (result) {
      resultsSince++;
      continue;
    }
    const text = parts.map((part) => part.text ?? '').join('\n');
    const found = Object.keys(script).find((candidate) => text.includes(candidate));
    if (found) {
      key = found;
      resultsSince = 0;
    }
  }
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      const text = JSON.stringify(part.content ?? '');
      if (part.type === 'tool_result' && !toolResults.includes(text)) toolResults.push(text);
    }
  }
  const calls = key ? script[key]! : [];
  if (resultsSince < calls.length) return { tool: calls[resultsSince]!, text: '', main: true };
  return { text: key ? 'Done: the scripted task is finished.' : 'Hello from the scripted model.', main: true };
}

/**
 * The environment that points the real Claude Code CLI at a scripted model and nothing else: its
 * config folder, the model's address and key, no auto-update and no other traffic.
 */
export function claudeCliEnv(options: { config: string; modelUrl: string; apiKey: string }): Record<string, string> {
  return {
    CLAUDE_CONFIG_DIR: options.config,
    ANTHROPIC_BASE_URL: options.modelUrl,
    ANTHROPIC_API_KEY: options.apiKey,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}
