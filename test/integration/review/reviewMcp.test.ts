/**
 * The `review_request` tool of the real `switchboard mcp` process (driven by the MCP SDK's own
 * client over stdio), against a real `switchboard serve`; the person decides through the app's
 * WebSocket API, as the review view in a browser tab does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { WebSocket } from 'ws';
import type { ReviewSummary } from '../../../src/common/api/reviewContract.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { cliMain } from '../cli/cliHarness.ts';
import { startRealSwitchboard, type RealSwitchboard } from '../cli/realServer.ts';

/** The app's client API over its WebSocket (browser mode), authenticated with the bearer token. */
class AppApi {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, (message: any) => void>();
  /** Every event the app sent, in order. */
  readonly events: Array<{ event: string; payload: any }> = [];
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString('utf8'));
      if (message.type === 'response') this.#pending.get(message.id)?.(message);
      if (message.type === 'event') this.events.push({ event: message.event, payload: message.payload });
    });
  }

  static async connect(app: RealSwitchboard): Promise<AppApi> {
    const socket = new WebSocket(`ws://127.0.0.1:${app.serve.port}/api`, { headers: { Authorization: `Bearer ${app.serve.token}` } });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return new AppApi(socket);
  }

  async call(method: string, params: unknown): Promise<any> {
    const id = this.#nextId++;
    const response = new Promise<any>((resolve) => this.#pending.set(id, resolve));
    this.#socket.send(JSON.stringify({ type: 'request', id, method, params }));
    const message = await response;
    if (!message.ok) throw new Error(`${message.error.code}: ${message.error.message}`);
    return message.result;
  }

  close(): void {
    this.#socket.close();
  }
}

function textOf(result: unknown): string {
  return (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('review_request through switchboard mcp', () => {
  let app: RealSwitchboard;
  let api: AppApi;
  let client: Client;
  let stderr = '';

  before(async () => {
    app = await startRealSwitchboard();
    api = await AppApi.connect(app);
    // As if the agent ran in a Switchboard pane: the pane's id is in its environment.
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliMain, 'mcp'], env: { ...app.cliEnv, SWITCHBOARD_TERMINAL_ID: 'agent-pane' }, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(transport);
  });
  after(async () => {
    await client?.close();
    api?.close();
    await app?.stop();
  });

  async function pendingFor(path: string): Promise<ReviewSummary> {
    return pollUntil(async () => ((await api.call('review.list', { decidedLimit: 0 })).pending as ReviewSummary[]).find((summary) => summary.path === path), {
      timeoutMs: 20_000,
      what: `a pending review of ${path}`,
    });
  }

  it('waits for the person, then writes exactly what they approved', async () => {
    const path = join(app.workspace, 'README.md');
    writeFileSync(path, '# Project\n');
    const call = client.callTool({ name: 'review_request', arguments: { path, newContents: '# Project\n\nUsage: run it.\n', title: 'Document usage' } });
    const review = await pendingFor(path);
    assert.deepEqual(
      { kind: review.source.kind, name: review.source.name, terminalId: review.source.terminalId, title: review.title },
      { kind: 'mcp', name: 'test-agent', terminalId: 'agent-pane', title: 'Document usage' },
    );
    assert.equal(readFileSync(path, 'utf8'), '# Project\n', 'nothing is written before the decision');
    await api.call('review.decide', { id: review.id, decision: 'accept', finalContents: '# Project\n\nUsage: run it with --help.\n' });
    const result = await call;
    assert.equal(result.isError, undefined, textOf(result));
    assert.match(textOf(result), /^Accepted by you after editing it\.\nThe approved contents were written to .*README\.md\.\nApproved contents:\n# Project\n\nUsage: run it with --help\.\n$/);
    assert.equal(readFileSync(path, 'utf8'), '# Project\n\nUsage: run it with --help.\n');
  });

  it('a cancelled call withdraws its review, so a late accept cannot write over newer edits', async () => {
    const path = join(app.workspace, 'cancelled.ts');
    writeFileSync(path, 'export const version = 1;\n');
    const controller = new AbortController();
    const call = client.callTool({ name: 'review_request', arguments: { path, newContents: 'export const version = 2;\n' } }, undefined, { signal: controller.signal });
    const review = await pendingFor(path);
    controller.abort();
    await assert.rejects(call, /abort/i, 'the SDK client gives up on the call');
    const removed = await pollUntil(() => api.events.find((entry) => entry.event === 'review.removed' && entry.payload.id === review.id), {
      timeoutMs: 20_000,
      what: 'the cancelled review withdrawn',
    });
    assert.equal(removed.payload.reason, 'requester-gone');
    // The model moved on and edited the file itself; the person's late click changes nothing.
    writeFileSync(path, 'export const version = 3; // the agent, later\n');
    await assert.rejects(api.call('review.decide', { id: review.id, decision: 'accept' }), /NOT_FOUND/);
    assert.equal(readFileSync(path, 'utf8'), 'export const version = 3; // the agent, later\n');
    assert.equal((await api.call('review.list', { decidedLimit: 0 })).pending.some((summary: ReviewSummary) => summary.id === review.id), false);
  });

  it('an accepted change is not written over a file that changed since the review opened; the model is told', async () => {
    const path = join(app.workspace, 'raced.md');
    writeFileSync(path, 'v1\n');
    const call = client.callTool({ name: 'review_request', arguments: { path, newContents: 'v2 from the proposal\n' } });
    const review = await pendingFor(path);
    writeFileSync(path, 'v1, edited by the agent meanwhile\n');
    await api.call('review.decide', { id: review.id, decision: 'accept' });
    const result = await call;
    assert.equal(readFileSync(path, 'utf8'), 'v1, edited by the agent meanwhile\n', 'the newer edit survives');
    assert.match(textOf(result), /^Accepted by you\.\nNothing was written: .*raced\.md changed on disk since the review was opened/);
    assert.match(textOf(result), /Approved contents, for reference only .*\nv2 from the proposal\n$/);
  });

  it('an accepted proposal that is not text is written, and not reported as a deletion', async () => {
    const path = join(app.workspace, 'blob.dat');
    const call = client.callTool({ name: 'review_request', arguments: { path, newContents: 'bin\u0000ary' } });
    const review = await pendingFor(path);
    assert.deepEqual(review.binary, { oldBytes: null, newBytes: 7 });
    await api.call('review.decide', { id: review.id, decision: 'accept' });
    const result = await call;
    assert.equal(textOf(result), `Accepted by you.\nThe approved contents were written to ${path}.`);
    assert.equal(readFileSync(path, 'utf8'), 'bin\u0000ary');
  });

  it('a rejection writes nothing and tells the model why', async () => {
    const path = join(app.workspace, 'main.py');
    const call = client.callTool({ name: 'review_request', arguments: { path, newContents: 'print("hi")\n' } });
    const review = await pendingFor(path);
    assert.equal(review.change, 'create');
    await api.call('review.decide', { id: review.id, decision: 'reject', comment: 'use the logger' });
    const result = await call;
    assert.equal(textOf(result), 'Rejected by you: do not make this change.\nTheir comment: use the logger');
    assert.equal(existsSync(path), false);
  });

  it('carries proposals past the socket request limit, and refuses ones over the review limit', async () => {
    const path = join(app.workspace, 'data.csv');
    const big = 'a,b,c\n'.repeat(400_000); // 2.4 MB
    const call = client.callTool({ name: 'review_request', arguments: { path, newContents: big, apply: false } });
    const review = await pendingFor(path);
    assert.equal(review.stats.added, 400_000);
    await api.call('review.decide', { id: review.id, decision: 'accept' });
    const result = await call.catch((error: Error) => {
      throw new Error(`${error.message}; mcp stderr: ${stderr}`);
    });
    assert.match(textOf(result), /^Accepted by you\.\nWrite the approved contents below to .*data\.csv yourself\.\nApproved contents:\n/);
    assert.equal(existsSync(path), false, 'apply: false leaves the writing to the model');

    const huge = await client.callTool({ name: 'review_request', arguments: { path, newContents: 'x'.repeat(20 * 1024 * 1024) } });
    assert.equal(huge.isError, true);
    assert.match(textOf(huge), /20\.0 MiB, over the 10 MiB review limit/);
    const bad = await client.callTool({ name: 'review_request', arguments: { path: 'relative.txt', newContents: 'x' } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /path must be absolute/);
    assert.equal(stderr, '', 'nothing was logged');
  });
});
