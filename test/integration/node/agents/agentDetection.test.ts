/**
 * Agent detection and state in a real Hub with real processes: a plain shell running commands
 * (even one printing Claude Code's question) is never an agent; a program whose argv names an
 * agent (`aider`: a node script reached through a file of that name — an agent without screen
 * rules) is, while it is in the foreground; without screen rules its state follows its output, a
 * bell makes it needs-input, and its end makes it exited with its exit code.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { FileContent } from '../../../../src/node/review/fileContent.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';

/** A stand-in agent: works (prints) for a moment, waits for a line; "bell" makes it ring and ask again; anything else ends it with 3. */
const fakeAgent = `#!/usr/bin/env node
process.stdout.write('aider starting\\n');
let n = 0;
const timer = setInterval(() => {
  process.stdout.write('working ' + n++ + '\\n');
  if (n >= 6) { clearInterval(timer); process.stdout.write('ready> '); }
}, 100);
process.stdin.on('data', (data) => {
  if (String(data).startsWith('bell')) process.stdout.write('\\x07need you> ');
  else process.exit(3);
});
`;

describe('agent detection in a real pane', () => {
  let t: TestHub;
  let person: LocalHubClient;
  let bin: string;
  const seen: Array<AgentStatus | null> = [];

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    person.on('terminal.changed', (info) => {
      if (info.agent !== undefined && seen.at(-1) !== info.agent) seen.push(info.agent);
    });
    bin = join(t.home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'aider'), fakeAgent);
    chmodSync(join(bin, 'aider'), 0o755);
  });
  after(async () => {
    person.dispose();
    await t.dispose();
  });

  async function pane(): Promise<string> {
    const info = await person.call('terminal.create', { file: '/bin/bash', env: { ...t.env, PATH: `${bin}:${t.env.PATH}` } });
    await pollUntil(() => t.hub.ptyHost.require(info.id).info.shellIntegration, { what: 'shell integration' });
    return info.id;
  }
  const agentOf = (id: string): AgentStatus | null => t.hub.ptyHost.get(id)?.info.agent ?? null;

  it('a shell, its commands and a printed permission question are never an agent', async () => {
    const id = await pane();
    await person.call('terminal.write', { id, data: 'echo "Do you want to proceed?"; printf " 1. Yes\\n 2. No\\n\\n Esc to cancel\\n"; sleep 1; echo codex claude\r' });
    await pollUntil(() => t.hub.ptyHost.require(id).info.lastCommand?.commandLine.startsWith('echo "Do you'), { what: 'the command to end' });
    // Past the evaluation interval of a pane without an agent.
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(agentOf(id), null);
  });

  it('follows an agent from start to exit: working, idle when quiet, needs-input on a bell, exited with its code', async () => {
    const id = await pane();
    await person.call('terminal.write', { id, data: 'aider --model x\r' });
    const working = await pollUntil(() => agentOf(id)?.state === 'working' && agentOf(id), { what: 'working' });
    assert.equal(working.kind, 'aider');
    assert.equal(working.label, 'Aider');
    const idle = await pollUntil(() => agentOf(id)?.state === 'idle' && agentOf(id), { what: 'idle once quiet', timeoutMs: 5000 });
    assert.ok(idle.since > working.since);

    await person.call('terminal.write', { id, data: 'bell\r' });
    const asking = await pollUntil(() => agentOf(id)?.state === 'needs-input' && agentOf(id), { what: 'needs-input after the bell', timeoutMs: 5000 });
    assert.equal(asking.prompt, null);
    await assert.rejects(person.call('agent.answer', { terminalId: id, answer: 'approve', expectSince: asking.since }), /cannot be answered from here|is gone/);

    await person.call('terminal.write', { id, data: 'done\r' });
    const exited = await pollUntil(() => agentOf(id)?.state === 'exited' && agentOf(id)?.exitCode !== null && agentOf(id), { what: 'exited with a code', timeoutMs: 5000 });
    assert.equal(exited.exitCode, 3);
    assert.equal(exited.reason, 'exit 3');
    assert.equal(exited.kind, 'aider');
    const states = seen.filter((status) => status?.kind === 'aider').map((status) => status!.state);
    assert.deepEqual([...new Set(states)], ['working', 'idle', 'needs-input', 'exited'], states.join(' → '));
  });

  it("a pending IDE review from the pane's agent is needs-input until it is decided", async () => {
    const id = await pane();
    await person.call('terminal.write', { id, data: 'aider\r' });
    await pollUntil(() => agentOf(id)?.state === 'idle', { what: 'idle', timeoutMs: 5000 });
    const opened = await t.hub.reviews.open({
      source: { kind: 'ide', name: 'Claude Code', terminalId: id, terminalName: 'bash', tabName: 'app.ts' },
      path: join(t.workspace, 'app.ts'),
      proposed: FileContent.fromString('export const x = 1;\n'),
    });
    const reviewing = await pollUntil(() => agentOf(id)?.state === 'needs-input' && agentOf(id), { what: 'needs-input for the review', timeoutMs: 3000 });
    assert.equal(reviewing.reason, `Review ${opened.summary.title}`);
    await person.call('review.decide', { id: opened.id, decision: 'reject' });
    await pollUntil(() => agentOf(id)?.state === 'idle', { what: 'idle once decided', timeoutMs: 3000 });
    await person.call('terminal.write', { id, data: 'done\r' });
  });

  it("Claude Code's pending IDE review reads as its dialog on screen (`Write hello.txt`), else by the file's name, never by its diff tab's title", async () => {
    // A stand-in `claude` that draws the real dialog for a Write whose diff is open in the IDE, and waits.
    const fixture = join(import.meta.dirname, '../../../fixtures/agents/claude-code/2.1.332/permission-write-ide.txt');
    const standIn = `#!/usr/bin/env node
const text = require('node:fs').readFileSync(${JSON.stringify(fixture)}, 'utf8').replace(/\\n$/, '');
process.stdout.write(process.argv[2] === 'dialog' ? '\\x1b[2J\\x1b[H' + text.replace(/\\n/g, '\\r\\n') : 'thinking\\r\\n');
process.stdin.on('data', () => process.exit(0));
`;
    writeFileSync(join(bin, 'claude'), standIn);
    chmodSync(join(bin, 'claude'), 0o755);
    // Claude Code names the tab "✻ [Claude Code] <file> (<id>) ⧉".
    const review = async (id: string) =>
      t.hub.reviews.open({
        source: { kind: 'ide', name: 'Claude Code', terminalId: id, terminalName: 'bash', tabName: '✻ [Claude Code] hello.txt (5d616c) ⧉' },
        title: '✻ [Claude Code] hello.txt (5d616c) ⧉',
        path: join(t.workspace, 'hello.txt'),
        proposed: FileContent.fromString('hello\n'),
      });
    for (const [screen, reason] of [['dialog', 'Write hello.txt'], ['plain', 'Review hello.txt']] as const) {
      const id = await pane();
      await person.call('terminal.write', { id, data: `claude ${screen}\r` });
      await pollUntil(() => agentOf(id)?.kind === 'claude-code', { what: 'the stand-in Claude Code', timeoutMs: 5000 });
      const opened = await review(id);
      // The review's state has no prompt (it is decided in Review, not typed from here); the dialog alone on screen had one.
      const reviewing = await pollUntil(() => agentOf(id)?.state === 'needs-input' && agentOf(id)?.prompt === null && agentOf(id), { what: `needs-input for the review (${screen})`, timeoutMs: 3000 });
      assert.equal(reviewing.reason, reason, screen);
      await person.call('review.decide', { id: opened.id, decision: 'reject' });
      await person.call('terminal.write', { id, data: 'q\r' });
    }
  });

  it('refuses to answer a terminal that runs no agent, and one that does not exist', async () => {
    const id = await pane();
    await assert.rejects(person.call('agent.answer', { terminalId: id, answer: 'deny', expectSince: 1 }), new RegExp(`the prompt in terminal ${id} is gone`));
    await assert.rejects(person.call('agent.answer', { terminalId: 't-00000000', answer: 'deny', expectSince: 1 }), /no terminal with id t-00000000/);
    await assert.rejects(person.call('agent.answer', { terminalId: id, answer: 'maybe', expectSince: 1 } as never), /answer/);
  });
});
