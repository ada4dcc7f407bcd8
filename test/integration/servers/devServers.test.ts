/**
 * Dev servers in real panes, seen over the real control socket, CLI and MCP: a silent Node HTTP +
 * WebSocket server (found by its listening socket alone) and `python3 -m http.server` (its printed
 * URL merged with its port); `list` entries' `servers`, the bus's `terminal.<id>.server`, `switchboard
 * ports`, `switchboard wait --port`, MCP terminal_list and terminal_wait; and each server's removal
 * when it stops.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliMain, runChild, runInProcess } from '../cli/cliHarness.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { type Frame, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from '../control/controlTestKit.ts';
import { freePort } from '../../helpers/freePort.ts';
import { ServerMonitorConstants } from '../../../src/node/servers/serverMonitor.ts';

const wsModule = createRequire(import.meta.url).resolve('ws');
/** Listens without printing anything: only its socket can tell it is there. Echoes WebSocket messages. */
const silentServer = `
const http = require('node:http');
const { WebSocketServer } = require(${JSON.stringify(wsModule)});
const server = http.createServer((request, response) => response.end('hello from the dev server'));
const sockets = new WebSocketServer({ server });
sockets.on('connection', (socket) => socket.on('message', (data, binary) => socket.send(data, { binary })));
server.listen(Number(process.argv[2]));
`;

describe('dev servers in panes: list, bus, CLI and MCP', () => {
  let app: TestHub;
  let client: NdjsonClient;
  let terminalId: string;
  let shellPid: number;

  before(async () => {
    app = await startTestHub({ clawsCompatSockets: false });
    writeFileSync(join(app.home, 'server.cjs'), silentServer);
    client = await app.connect();
    const created = await client.request({ cmd: 'create', name: 'web', cwd: app.home, env: app.env, ...shells.bashIntegrated, show: false });
    assert.equal(created.ok, true, created.error);
    terminalId = created.id;
    await waitForIntegration(client, terminalId);
    shellPid = (await listed()).pid;
    const hello = await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'orchestrator', peerName: 'watcher' });
    assert.equal(hello.ok, true, hello.error);
    const subscribed = await client.request({ cmd: 'subscribe', protocol: 'claws/2', topic: 'terminal.*.server' });
    assert.equal(subscribed.ok, true, subscribed.error);
  });
  after(async () => {
    await app?.dispose();
  });

  async function listed(): Promise<Frame> {
    const response = await client.request({ cmd: 'list' });
    return response.terminals.find((terminal: Frame) => terminal.id === terminalId);
  }
  const serverPushes = (event: string, port: number) =>
    client.frames.filter((frame) => frame.push === 'message' && frame.topic === `terminal.${terminalId}.server` && frame.payload.event === event && frame.payload.port === port);

  it('a shell alone has no servers', async () => {
    assert.deepEqual((await listed()).servers, []);
  });

  it('a shell alone at its prompt is not looked at; a command is, while it runs', async () => {
    const monitor = app.hub.ptyHost.serverMonitor!;
    // No look planned means none will happen until something starts in the pane: an idle pane costs nothing.
    await pollUntil(() => monitor.looking === 0, { what: 'the idle shell to be left alone' });
    const before = monitor.scans;
    await client.request({ cmd: 'send', terminalId, text: 'sleep 30\r' });
    await pollUntil(() => monitor.scans >= before + 3 && monitor.looking === 1, { what: 'looks while sleep runs' });
    await client.request({ cmd: 'send', terminalId, text: '\x03', newline: false });
    await pollUntil(() => monitor.looking === 0, { what: 'no more looks once the shell is alone again' });
    assert.deepEqual((await listed()).servers, []);
  });

  it('panes whose programs run quietly are looked at on one shared clock: one read of the socket tables per interval for all of them', async () => {
    const monitor = app.hub.ptyHost.serverMonitor!;
    const quiet: string[] = [];
    try {
      for (let index = 0; index < 4; index++) {
        const created = await client.request({ cmd: 'create', name: `quiet-${index}`, cwd: app.home, env: app.env, ...shells.bashIntegrated, show: false });
        assert.equal(created.ok, true, created.error);
        quiet.push(created.id);
        await waitForIntegration(client, created.id);
      }
      // Started 200 ms apart: on clocks of their own, their looks would never share a read.
      for (const id of quiet) {
        await client.request({ cmd: 'send', terminalId: id, text: 'sleep 60\r' });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // Past the first looks (100, 200, 400 ms apart) and the 3 s a trigger keeps them going.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      const scans = monitor.scans;
      const reads = monitor.tableReads;
      const windowMs = 4_000;
      await new Promise((resolve) => setTimeout(resolve, windowMs));
      const looked = monitor.scans - scans;
      const read = monitor.tableReads - reads;
      const ticks = windowMs / ServerMonitorConstants.maxIntervalMs;
      // Each pane is still looked at every interval (a silent server is seen within 1 s)...
      assert.ok(looked >= 4 * (ticks - 1), `${looked} looks at 4 quiet panes in ${windowMs} ms`);
      // ...and the four looks of a tick share one read (one more when a look spans a tick's edge).
      assert.ok(read <= ticks + 2, `${read} reads of the socket tables for ${looked} looks in ${windowMs} ms`);
    } finally {
      for (const id of quiet) await client.request({ cmd: 'close', terminalId: id });
    }
  });

  it('a pane that keeps printing is looked at on the backed-off interval, not after every chunk; a server started silently mid-flood is still found', async () => {
    const monitor = app.hub.ptyHost.serverMonitor!;
    await pollUntil(() => monitor.looking === 0, { what: 'the idle shell to be left alone' });
    const port = await freePort();
    const before = monitor.scans;
    // About 4 s of output in bursts every 50 ms; the server starts after 1.5 s and prints nothing.
    await client.request({ cmd: 'send', terminalId, text: `(sleep 1.5; exec node server.cjs ${port}) & for i in $(seq 1 70); do seq 1 500; sleep 0.05; done\r` });
    const started = Date.now();
    const found = await pollUntil(async () => (await listed()).servers.find((server: Frame) => server.port === port), { timeoutMs: 15_000, what: 'the server found during the flood' });
    assert.ok(found.pid !== shellPid);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 3_000 - (Date.now() - started))));
    const looks = monitor.scans - before;
    // Looking after every chunk was one look per 100 ms (about 30 in these 3 s); backed off it is
    // 100, 200, 400, 800 ms… plus a short run again after the server appeared.
    assert.ok(looks <= 15, `${looks} looks in 3 s of output`);
    await client.request({ cmd: 'send', terminalId, text: '\x03', newline: false });
    await client.request({ cmd: 'send', terminalId, text: 'kill %1; wait\r' });
    await pollUntil(async () => !(await listed()).servers.some((server: Frame) => server.port === port), { timeoutMs: 15_000, what: 'the server gone' });
  });

  it('a silent Node HTTP + WebSocket server: `wait --port` returns when it listens; list and the bus show it; it is gone when it stops', async () => {
    const port = await freePort();
    const waiting = runChild(['wait', terminalId, '--port', String(port), '--json', '--timeout', '15000', '--socket', app.socketPath], { env: app.env, timeoutMs: 20_000 });
    const sent = await client.request({ cmd: 'send', terminalId, text: `node server.cjs ${port}\r` });
    assert.equal(sent.ok, true, sent.error);

    const waited = await waiting;
    assert.equal(waited.status, 0, waited.stderr);
    const answer = JSON.parse(waited.stdout);
    assert.equal(answer.matched, 'port');
    assert.equal(answer.server.port, port);
    assert.equal(answer.server.url, `http://localhost:${port}/`);

    const [server] = (await listed()).servers;
    assert.deepEqual(Object.keys(server).sort(), ['host', 'pid', 'port', 'since', 'url']);
    assert.equal(server.port, port);
    assert.equal(server.url, `http://localhost:${port}/`);
    assert.ok(server.host === '::' || server.host === '0.0.0.0', server.host);
    assert.equal(typeof server.pid, 'number');
    assert.notEqual(server.pid, shellPid, 'the node process listens, not the shell');
    // It is the real thing: the URL answers.
    assert.equal(await (await fetch(server.url)).text(), 'hello from the dev server');

    const [opened] = await pollUntil(() => serverPushes('opened', port).length > 0 && serverPushes('opened', port), { what: 'the opened push' });
    assert.deepEqual(opened!.payload, { terminalId, event: 'opened', host: server.host, port, url: server.url, pid: server.pid, since: server.since });

    await client.request({ cmd: 'send', terminalId, text: '\x03', newline: false });
    await pollUntil(async () => (await listed()).servers.length === 0, { what: 'the server to be gone from list' });
    const [closed] = await pollUntil(() => serverPushes('closed', port).length > 0 && serverPushes('closed', port), { what: 'the closed push' });
    assert.equal(closed!.payload.url, server.url);
  });

  it('python3 -m http.server: its printed URL and its port are one server; `switchboard ports` and MCP terminal_list show it', async () => {
    const port = await freePort();
    const sent = await client.request({ cmd: 'send', terminalId, text: `python3 -m http.server ${port} --bind 127.0.0.1\r` });
    assert.equal(sent.ok, true, sent.error);
    const servers = await pollUntil(
      async () => {
        const found = (await listed()).servers;
        return found.length === 1 && found[0].url === `http://127.0.0.1:${port}/` ? found : null;
      },
      { what: 'the python server with its printed URL' },
    );
    assert.equal(servers[0].host, '127.0.0.1');
    assert.equal(servers[0].port, port);
    assert.equal(typeof servers[0].pid, 'number');

    const json = await runInProcess(['ports', '--json', '--socket', app.socketPath], { env: app.env });
    assert.equal(json.status, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), [
      { terminalId, terminalName: 'web', host: '127.0.0.1', port, url: `http://127.0.0.1:${port}/`, pid: servers[0].pid, since: servers[0].since },
    ]);
    const table = await runInProcess(['ports', 'web', '--socket', app.socketPath], { env: app.env });
    assert.equal(table.status, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^PORT\s+URL\s+ID\s+NAME\s+PID\s+FOR$/);
    assert.match(lines[1]!, new RegExp(`^${port}\\s+http://127\\.0\\.0\\.1:${port}/\\s+${terminalId}\\s+web\\s+${servers[0].pid}\\s+\\d+s$`));

    const transport = new StdioClientTransport({ command: process.execPath, args: [cliMain, 'mcp', '--socket', app.socketPath], env: app.env, stderr: 'pipe' });
    const mcp = new Client({ name: 'dev-server-test', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      const textOf = (result: unknown) => (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      const list = JSON.parse(textOf(await mcp.callTool({ name: 'terminal_list', arguments: {} })));
      assert.deepEqual(list.find((terminal: Frame) => terminal.id === terminalId).servers, servers);
      const waited = await mcp.callTool({ name: 'terminal_wait', arguments: { terminal: 'web', port, timeoutMs: 5000 } });
      assert.match(textOf(waited), new RegExp(`Matched port .*http://127\\.0\\.0\\.1:${port}/`));
    } finally {
      await mcp.close();
    }

    await client.request({ cmd: 'send', terminalId, text: '\x03', newline: false });
    await pollUntil(async () => (await listed()).servers.length === 0, { what: 'the python server to be gone' });
    const none = await runInProcess(['ports', '--socket', app.socketPath], { env: app.env });
    assert.equal(none.stdout, 'No dev servers.\n');
  });

  it('a URL printed for a port nothing listens on is no server', async () => {
    const port = await freePort();
    await client.request({ cmd: 'send', terminalId, text: `echo "ready on http://localhost:${port}/"\r` });
    const waited = await client.request({ cmd: 'wait', terminalId, prompt: true, since: 0, timeoutMs: 5000 });
    assert.equal(waited.ok, true, waited.error);
    // Stays empty through several looks (a scan runs after the output and on the command's end).
    const seen = await client.request({ cmd: 'wait', terminalId, port, timeoutMs: 1500 });
    assert.equal(seen.ok, false);
    assert.match(seen.error, /timeout/);
    assert.deepEqual((await listed()).servers, []);
  });

  it('without shell integration, a shell that exec\'d into a server is found; its servers are cleared when the terminal exits', async () => {
    const port = await freePort();
    const created = await client.request({ cmd: 'create', name: 'plain', cwd: app.home, env: app.env, ...shells.bashPlain, show: false });
    assert.equal(created.ok, true, created.error);
    const plainId: string = created.id;
    const plain = async (): Promise<Frame> => (await client.request({ cmd: 'list' })).terminals.find((terminal: Frame) => terminal.id === plainId);
    await client.request({ cmd: 'wait', terminalId: plainId, prompt: true, timeoutMs: 10_000 });
    await client.request({ cmd: 'send', terminalId: plainId, text: `exec python3 -m http.server ${port} --bind 127.0.0.1\r` });
    const waited = await client.request({ cmd: 'wait', terminalId: plainId, port, timeoutMs: 10_000 });
    assert.equal(waited.ok, true, waited.error);
    assert.equal(waited.server.url, `http://127.0.0.1:${port}/`);
    assert.equal(waited.server.pid, (await plain()).pid, 'the shell became the server');
    await client.request({ cmd: 'send', terminalId: plainId, text: '\x03', newline: false });
    const ended = await pollUntil(async () => {
      const entry = await plain();
      return entry.status === 'exited' ? entry : null;
    }, { what: 'the terminal to exit' });
    assert.deepEqual(ended.servers, []);
    await pollUntil(() => client.frames.some((frame) => frame.push === 'message' && frame.topic === `terminal.${plainId}.server` && frame.payload.event === 'closed'), { what: 'the closed push' });
  });

  it('wait --port refuses a port out of range, on the socket and in the CLI', async () => {
    const refused = await client.request({ cmd: 'wait', terminalId, port: 70_000 });
    assert.equal(refused.ok, false);
    assert.match(refused.error, /port/);
    const cli = await runInProcess(['wait', terminalId, '--port', '0', '--socket', app.socketPath], { env: app.env });
    assert.equal(cli.status, 2, cli.stdout);
    assert.match(cli.stderr, /--port must be a whole number from 1 to 65535/);
  });
});
