/** The MCP bus tools (bus_publish, bus_subscribe, bus_poll) of `switchboard mcp`, driven by the SDK's client. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliMain } from '../cli/cliHarness.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { startTestHub, type TestHub } from './controlTestKit.ts';

function textOf(result: unknown): string {
  return (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('switchboard mcp bus tools', () => {
  let app: TestHub;
  let mcp: Client;
  before(async () => {
    app = await startTestHub({ clawsCompatSockets: false });
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliMain, 'mcp', '--socket', app.socketPath], env: app.env, stderr: 'pipe' });
    mcp = new Client({ name: 'bus-test', version: '1.0.0' });
    await mcp.connect(transport);
  });
  after(async () => {
    await mcp?.close();
    await app?.dispose();
  });

  it('offers the bus tools with descriptions for a model', async () => {
    const { tools } = await mcp.listTools();
    for (const name of ['bus_publish', 'bus_subscribe', 'bus_poll']) {
      const tool = tools.find((candidate) => candidate.name === name);
      assert.ok(tool, name);
      assert.ok((tool.description ?? '').length > 80, `${name} is described`);
    }
    assert.match(tools.find((tool) => tool.name === 'bus_subscribe')!.description!, /bus_poll/);
  });

  it('subscribes, buffers pushed messages, and hands them over once on poll', async () => {
    const subscribed = await mcp.callTool({ name: 'bus_subscribe', arguments: { topic: 'mcp.**' } });
    assert.equal(subscribed.isError, undefined, textOf(subscribed));
    const subscriptionId = /subscription (s-\d+)/.exec(textOf(subscribed))?.[1];
    assert.ok(subscriptionId, textOf(subscribed));

    const other = await app.connect();
    const hello = await other.request({ cmd: 'hello', protocol: 'claws/2', role: 'worker', peerName: 'other' });
    await other.request({ cmd: 'subscribe', topic: 'reply.*' });
    await other.request({ cmd: 'publish', topic: 'mcp.task.one', payload: { job: 1 } });
    await other.request({ cmd: 'publish', topic: 'unrelated.x', payload: 0 });
    await other.request({ cmd: 'publish', topic: 'mcp.two', payload: 'second' });

    let messages: Array<Record<string, any>> = [];
    await pollUntil(
      async () => {
        const polled = await mcp.callTool({ name: 'bus_poll', arguments: { subscriptionId } });
        assert.equal(polled.isError, undefined, textOf(polled));
        messages.push(...JSON.parse(textOf(polled)).messages);
        return messages.length >= 2;
      },
      { timeoutMs: 10_000, what: 'two buffered messages' },
    );
    assert.deepEqual(
      messages.map((message) => [message.topic, message.payload, message.from]),
      [
        ['mcp.task.one', { job: 1 }, hello.peerId],
        ['mcp.two', 'second', hello.peerId],
      ],
    );
    const again = await mcp.callTool({ name: 'bus_poll', arguments: {} });
    assert.deepEqual(JSON.parse(textOf(again)).messages, [], 'poll clears the buffer');

    const published = await mcp.callTool({ name: 'bus_publish', arguments: { topic: 'reply.done', payload: { ok: true } } });
    assert.match(textOf(published), /to 1 subscriber\./);
    const got = await other.waitFor((frame) => frame.push === 'message' && frame.topic === 'reply.done');
    assert.deepEqual(got.payload, { ok: true });
    other.close();
  });

  it('hands large messages over a model-sized page at a time, oldest first, the rest on the next poll', async () => {
    const subscribed = await mcp.callTool({ name: 'bus_subscribe', arguments: { topic: 'big.*' } });
    const subscriptionId = /subscription (s-\d+)/.exec(textOf(subscribed))?.[1];
    const other = await app.connect();
    await other.request({ cmd: 'hello', protocol: 'claws/2', role: 'worker', peerName: 'big-publisher' });
    // Ten messages of 10 000 characters: about 100 KB, three or four pages of 32 KiB.
    for (let index = 0; index < 10; index++) await other.request({ cmd: 'publish', topic: 'big.part', payload: { index, text: 'x'.repeat(10_000) } });
    const seen: number[] = [];
    const pages: number[] = [];
    await pollUntil(
      async () => {
        const polled = await mcp.callTool({ name: 'bus_poll', arguments: { subscriptionId } });
        const reply = textOf(polled);
        const { messages } = JSON.parse(reply) as { messages: Array<{ payload: { index: number } }> };
        if (messages.length > 0) pages.push(reply.length);
        seen.push(...messages.map((message) => message.payload.index));
        return seen.length >= 10;
      },
      { timeoutMs: 10_000, what: 'all ten messages' },
    );
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'each once, oldest first');
    assert.ok(pages.length >= 3, `several pages: ${pages.join(', ')}`);
    assert.ok(Math.max(...pages) < 48 * 1024, `each page model-sized: ${pages.join(', ')}`);
    other.close();
  });

  it('answers bad topics and unknown subscriptions as tool errors', async () => {
    const badTopic = await mcp.callTool({ name: 'bus_publish', arguments: { topic: 'Not.Valid', payload: 1 } });
    assert.equal(badTopic.isError, true);
    assert.match(textOf(badTopic), /invalid topic "Not\.Valid"/);
    const badPattern = await mcp.callTool({ name: 'bus_subscribe', arguments: { topic: 'a.*b' } });
    assert.equal(badPattern.isError, true);
    const unknown = await mcp.callTool({ name: 'bus_poll', arguments: { subscriptionId: 's-999' } });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /unknown subscription s-999/);
  });
});
