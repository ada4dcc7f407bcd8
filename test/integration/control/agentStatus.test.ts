/**
 * Agent state for agents and scripts, over the real control socket: `list` entries carry `agent`,
 * the bus publishes `agent.<id>.state`, `switchboard agents` (a child process) lists the agent
 * panes, and the MCP tool agent_status (over stdio) reports them. The agent is a real process whose
 * argv[0] is `aider` (a node script under that name: an agent without screen rules, so its state
 * follows its output), in a real bash pane.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliMain } from '../cli/cliHarness.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { type Frame, type NdjsonClient, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

const run = promisify(execFile);
/** Prints for a moment (working), then waits quietly (idle); a line ends it with exit 5. */
const fakeAgent = `#!/usr/bin/env node
let n = 0;
const timer = setInterval(() => { process.stdout.write('step ' + n++ + '\\n'); if (n >= 4) clearInterval(timer); }, 100);
process.stdin.once('data', () => process.exit(5));
`;

describe('agent state on the control socket, the CLI and MCP', () => {
  let app: TestHub;
  let client: NdjsonClient;
  let terminalId: string;

  before(async () => {
    app = await startTestHub({ clawsCompatSockets: false });
    const bin = join(app.home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'aider'), fakeAgent);
    chmodSync(join(bin, 'aider'), 0o755);
    client = await app.connect();
    const created = await client.request({ cmd: 'create', name: 'worker', shellPath: '/bin/bash', env: { ...app.env, PATH: `${bin}:${app.env.PATH}` }, show: false });
    assert.equal(created.ok, true, created.error);
    terminalId = created.id;
    await waitForIntegration(client, terminalId);
    const hello = await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'orchestrator', peerName: 'watcher' });
    assert.equal(hello.ok, true, hello.error);
    const subscribed = await client.request({ cmd: 'subscribe', protocol: 'claws/2', topic: 'agent.*.state' });
    assert.equal(subscribed.ok, true, subscribed.error);
  });
  after(async () => {
    await app?.dispose();
  });

  const listed = async (): Promise<Frame> => {
    const response = await client.request({ cmd: 'list' });
    return response.terminals.find((terminal: Frame) => terminal.id === terminalId);
  };

  it('list says null for a plain shell, then the agent and its state; the bus tells each change', async () => {
    assert.equal((await listed()).agent, null);
    const sent = await client.request({ cmd: 'send', terminalId, text: 'aider\r' });
    assert.equal(sent.ok, true, sent.error);
    const idle = await pollUntil(async () => ((await listed()).agent?.state === 'idle' ? (await listed()).agent : null), { what: 'idle in list', timeoutMs: 8000 });
    assert.equal(idle.kind, 'aider');
    assert.equal(idle.label, 'Aider');
    assert.equal(idle.reason, null);
    assert.equal(typeof idle.since, 'number');

    const frames = await pollUntil(() => {
      const found = client.frames.filter((frame) => frame.push === 'message' && frame.topic === `agent.${terminalId}.state`);
      return found.length >= 2 ? found : null;
    }, { what: 'two agent state pushes' });
    assert.deepEqual(
      frames.slice(0, 2).map((frame) => [frame.payload.state, frame.payload.previous]),
      [
        ['working', null],
        ['idle', 'working'],
      ],
    );
    assert.deepEqual(Object.keys(frames[1]!.payload).sort(), ['kind', 'previous', 'reason', 'since', 'state', 'terminalId']);
    assert.equal(frames[1]!.payload.terminalId, terminalId);
    assert.equal(frames[1]!.payload.since, idle.since);
  });

  it('switchboard agents lists the agent panes (table and --json)', async () => {
    const table = await run(process.execPath, [cliMain, 'agents', '--socket', app.socketPath], { env: app.env });
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^ID\s+NAME\s+AGENT\s+STATE\s+FOR\s+REASON$/);
    assert.equal(lines.length, 2, table.stdout);
    assert.match(lines[1]!, new RegExp(`^${terminalId}\\s+worker\\s+Aider\\s+idle\\s+\\d+s$`));
    const json = JSON.parse((await run(process.execPath, [cliMain, 'agents', '--json', '--socket', app.socketPath], { env: app.env })).stdout);
    assert.equal(json.length, 1);
    assert.equal(json[0].agent.state, 'idle');
  });

  it('agent_status over MCP reports the same, for all panes or one', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliMain, 'mcp', '--socket', app.socketPath], env: app.env, stderr: 'pipe' });
    const mcp = new Client({ name: 'agent-test', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      const textOf = (result: unknown) => (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      const all = await mcp.callTool({ name: 'agent_status', arguments: {} });
      assert.match(textOf(all), new RegExp(`${terminalId}\\s+worker\\s+Aider\\s+idle`));
      const one = await mcp.callTool({ name: 'agent_status', arguments: { terminal: 'worker' } });
      assert.match(textOf(one), /Aider\s+idle/);
      const none = await mcp.callTool({ name: 'agent_status', arguments: { terminal: 'no-such-pane' } });
      assert.equal(none.isError, true, textOf(none));
    } finally {
      await mcp.close();
    }
  });

  it('wait agentState answers at once for the state the agent is in, and refuses a state that does not exist', async () => {
    const now = await client.request({ cmd: 'wait', terminalId, agentState: 'idle', timeoutMs: 2000 });
    assert.equal(now.ok, true, now.error);
    assert.equal(now.matched, 'agentState');
    assert.equal(now.agent.state, 'idle');
    assert.equal(now.agent.kind, 'aider');
    const either = await client.request({ cmd: 'wait', terminalId, agentState: ['needs-input', 'idle'], timeoutMs: 2000 });
    assert.equal(either.agent.state, 'idle');
    const bad = await client.request({ cmd: 'wait', terminalId, agentState: 'asleep' });
    assert.equal(bad.ok, false);
    assert.match(bad.error, /agentState/);
    const cli = await run(process.execPath, [cliMain, 'wait', 'worker', '--agent-state', 'needs-input,idle', '--socket', app.socketPath], { env: app.env });
    assert.equal(cli.stdout, 'idle\n');
    await assert.rejects(run(process.execPath, [cliMain, 'wait', 'worker', '--agent-state', 'done', '--socket', app.socketPath], { env: app.env }), /--agent-state: "done" is not a state/);
  });

  it('the agent ending is `exited` with its exit code, in list and on the bus', async () => {
    // `switchboard wait --agent-state exited` started as the agent ends, as an orchestrator would (a state already reached counts too).
    const waiting = run(process.execPath, [cliMain, 'wait', terminalId, '--agent-state', 'exited', '--timeout', '10000', '--socket', app.socketPath], { env: app.env });
    await client.request({ cmd: 'send', terminalId, text: 'bye\r' });
    assert.match((await waiting).stdout, /^exited(: exit 5)?\n$/);
    const exited = await pollUntil(async () => {
      const agent = (await listed()).agent;
      return agent?.state === 'exited' && agent.reason === 'exit 5' ? agent : null;
    }, { what: 'exited with 5', timeoutMs: 8000 });
    assert.equal(exited.kind, 'aider');
    const push = await client.waitFor((frame) => frame.push === 'message' && frame.topic === `agent.${terminalId}.state` && frame.payload.state === 'exited');
    assert.equal(push.payload.previous, 'idle');
  });

  it('finds an agent that a program execs into just after it was looked at, then draws once and waits', async () => {
    // The pane's program prints (so the foreground, still bash, is looked at and found no agent),
    // then execs the agent within the second a miss is trusted; the agent draws once and goes
    // quiet, so no more output asks for a look. It must still be found.
    const quiet = join(app.home, 'quiet-bin');
    mkdirSync(quiet);
    writeFileSync(join(quiet, 'aider'), `#!/usr/bin/env node\nprocess.stdout.write('ready\\n');\nsetInterval(() => {}, 1000);\n`);
    chmodSync(join(quiet, 'aider'), 0o755);
    const created = await client.request({
      cmd: 'create',
      name: 'exec-into',
      shellPath: '/bin/bash',
      shellArgs: ['--norc', '--noprofile', '-c', `printf 'starting\\n'; sleep 0.3; exec ${join(quiet, 'aider')}`],
      shellIntegration: false,
      env: app.env,
      show: false,
    });
    assert.equal(created.ok, true, created.error);
    try {
      const agent = await pollUntil(async () => {
        const response = await client.request({ cmd: 'list' });
        return response.terminals.find((terminal: Frame) => terminal.id === created.id)?.agent ?? null;
      }, { what: 'the agent found', timeoutMs: 8000 });
      assert.equal(agent.kind, 'aider');
    } finally {
      await client.request({ cmd: 'close', terminalId: created.id });
    }
  });
});
