/**
 * The person-typing guard: an agent's `send` never lands in the middle of a line a person is
 * typing into the same pane. Real Hub, real PTYs, real control socket; the person types through a
 * Hub connection as the renderer does (`terminal.write`, peer kind person).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { TypingGuard } from '../../../src/node/control/typingGuard.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

describe('person-typing guard on send', () => {
  let t: TestHub;
  let agent: NdjsonClient;
  let person: LocalHubClient;
  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    agent = await t.connect();
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
  });
  after(async () => {
    person.dispose();
    await t.dispose();
  });

  /** The terminal's output so far (the tty echo shows what was typed, in the order it arrived), ANSI-stripped. */
  async function log(terminalId: string): Promise<string> {
    return (await agent.request({ cmd: 'readLog', terminalId, offset: 0 })).bytes;
  }

  /** bash's own prompt (no rc file): `bash-5.2$ `, or `#` as root. */
  async function waitForPrompt(terminalId: string): Promise<void> {
    await pollUntil(async () => /[$#] $/.test(await log(terminalId)), { what: 'the first prompt' });
  }

  async function waitForLog(terminalId: string, text: string | RegExp): Promise<string> {
    return pollUntil(
      async () => {
        const output = await log(terminalId);
        return (typeof text === 'string' ? output.includes(text) : text.test(output)) ? output : undefined;
      },
      { what: `${String(text)} in the log` },
    );
  }

  /** A line the shell printed (not the echo of the command that printed it). */
  function outputLine(text: string): RegExp {
    return new RegExp(`\\n\\r?${text}\\r\\n`);
  }

  it('holds an agent send until the person has been idle, so the lines do not interleave', async () => {
    const id = await createTerminal(agent, t.env);
    await waitForPrompt(id);
    assert.equal((await person.call('app.getState', {})).settings.agentSendIdleMs, 500, 'the default idle time');

    // The person starts a line…
    await person.call('terminal.write', { id, data: 'echo pers' });
    const agentStarted = Date.now();
    let agentAnsweredAt: number | undefined;
    const sent = agent.request({ cmd: 'send', terminalId: id, text: 'echo agent-line', clientName: 'agent-x' }).then((frame) => {
      agentAnsweredAt = Date.now();
      return frame;
    });
    // …the agent's send is held while the person's half line is on screen…
    await waitForLog(id, 'echo pers');
    assert.equal(agentAnsweredAt, undefined, 'the send waits while the person is typing');
    // …and the person finishes the line before the agent gets its turn.
    await person.call('terminal.write', { id, data: 'on-typed\r' });
    const personFinished = Date.now();

    const frame = await sent;
    assert.equal(frame.ok, true, frame.error);
    assert.ok(agentAnsweredAt! - personFinished >= 450, `sent ${agentAnsweredAt! - personFinished} ms after the person's last key; expected about 500`);
    assert.ok(agentAnsweredAt! - agentStarted >= 450);

    const output = await waitForLog(id, outputLine('agent-line'));
    const personLine = output.indexOf('echo person-typed');
    const agentLine = output.indexOf('echo agent-line');
    assert.ok(personLine !== -1, `the person's line arrived whole: ${JSON.stringify(output)}`);
    assert.ok(agentLine > personLine, `the agent's line comes after the person's: ${JSON.stringify(output)}`);
    assert.doesNotMatch(output, /persecho|echo agent-lineon-typed/, 'never mid-line');
    await agent.request({ cmd: 'close', terminalId: id });
  });

  it('wait:false refuses at once with the busy error while the person is typing, and sends once they paused', async () => {
    const id = await createTerminal(agent, t.env);
    await waitForPrompt(id);
    await person.call('terminal.write', { id, data: 'ls -' });
    const before = Date.now();
    const refused = await agent.request({ cmd: 'send', terminalId: id, text: 'echo nope', wait: false });
    assert.ok(Date.now() - before < 400, 'answered at once, not after the idle time');
    assert.equal(refused.ok, false);
    assert.equal(refused.error, `terminal ${id} is busy: the user is typing`);
    assert.equal(refused.code, 'BUSY', 'our own clients get a code beside claws\' words');
    assert.doesNotMatch(await log(id), /nope/, 'nothing was typed');

    // Once the person has paused, their half line is still there: the agent never joins it…
    const unsent = await pollUntil(
      async () => {
        const frame = await agent.request({ cmd: 'send', terminalId: id, text: 'echo nope', wait: false });
        return frame.error === `terminal ${id} is busy: the user is typing` ? undefined : frame;
      },
      { timeoutMs: 5_000, intervalMs: 100, what: 'the person to count as idle' },
    );
    assert.equal(unsent.error, `terminal ${id} has unsent input at the prompt: "ls -" (the person has not pressed Enter; nothing was typed)`);
    assert.equal(unsent.unsentInput, 'ls -', 'the line itself, for a client to show');
    assert.equal(unsent.code, 'BUSY');
    // …nor clears it: the person does (Ctrl-U), and the same request goes through after the pause.
    await person.call('terminal.write', { id, data: '\x15' });
    const accepted = await pollUntil(
      async () => {
        const frame = await agent.request({ cmd: 'send', terminalId: id, text: 'echo accepted-now', wait: false });
        return frame.ok ? frame : undefined;
      },
      { timeoutMs: 5_000, intervalMs: 100, what: 'the send to be accepted' },
    );
    assert.equal(accepted.ok, true);
    await waitForLog(id, outputLine('accepted-now'));
    await agent.request({ cmd: 'close', terminalId: id });
  });

  it('an agent writing through the Hub API does not hold other agents, and idle time 0 turns the guard off', async () => {
    const id = await createTerminal(agent, t.env);
    await waitForPrompt(id);
    const otherAgent = createLocalHubClient(t.hub, { kind: 'agent', name: 'api-agent' });
    try {
      await otherAgent.call('terminal.write', { id, data: 'echo from-api\r' });
      const frame = await agent.request({ cmd: 'send', terminalId: id, text: 'echo not-held', wait: false });
      assert.equal(frame.ok, true, frame.error);
    } finally {
      otherAgent.dispose();
    }

    await person.call('settings.update', { agentSendIdleMs: 0 });
    try {
      await person.call('terminal.write', { id, data: 'true\r' });
      const frame = await agent.request({ cmd: 'send', terminalId: id, text: 'echo guard-off', wait: false });
      assert.equal(frame.ok, true, frame.error);
      await waitForLog(id, outputLine('guard-off'));
    } finally {
      await person.call('settings.update', { agentSendIdleMs: 500 });
    }
    await assert.rejects(person.call('settings.update', { agentSendIdleMs: 10_001 }), /agentSendIdleMs/);
    await agent.request({ cmd: 'close', terminalId: id });
  });

  it('the wait audits the send only when it is written', async () => {
    const id = await createTerminal(agent, t.env);
    await waitForPrompt(id);
    await person.call('terminal.write', { id, data: 'ab' });
    const refused = await agent.request({ cmd: 'send', terminalId: id, text: 'echo refused', wait: false, clientName: 'auditor' });
    assert.equal(refused.ok, false);
    const entries = await agent.request({ cmd: 'audit', terminalId: id });
    assert.equal(entries.entries.filter((entry: { cmd: string }) => entry.cmd === 'send').length, 0, 'a refused send is not an action on the terminal');
    await agent.request({ cmd: 'close', terminalId: id });
  });
});

describe('a line a person left half typed (shell integration, the screen tells)', () => {
  let t: TestHub;
  let agent: NdjsonClient;
  let person: LocalHubClient;
  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    agent = await t.connect();
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
  });
  after(async () => {
    person.dispose();
    await t.dispose();
  });

  async function integratedBash(): Promise<string> {
    const id = await createTerminal(agent, t.env, shells.bashIntegrated);
    await waitForIntegration(agent, id);
    return id;
  }

  async function rawLog(terminalId: string): Promise<string> {
    return (await agent.request({ cmd: 'readLog', terminalId, offset: 0 })).bytes;
  }

  it('exec waits for the person to press Enter, runs after their line, and never joins it', async () => {
    const id = await integratedBash();
    await person.call('terminal.write', { id, data: 'echo user-half-typed ' });
    const execDone = agent.request({ cmd: 'exec', terminalId: id, command: 'echo agent-cmd', timeoutMs: 20_000 }, 30_000);
    // Well past the person's idle time the exec still waits: the line is theirs.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    assert.doesNotMatch(await rawLog(id), /agent-cmd/, 'nothing typed into the person\'s line');
    await person.call('terminal.write', { id, data: 'done\r' });
    const frame = await execDone;
    assert.equal(frame.ok, true, frame.error);
    assert.equal(frame.event.output, 'agent-cmd\n');
    assert.equal(frame.event.exitCode, 0);
    const output = await rawLog(id);
    assert.match(output, /\n\r?user-half-typed done\r\n/, 'the person\'s command ran as they typed it');
    assert.doesNotMatch(output, /user-half-typed (done )?echo agent-cmd/);
    await agent.request({ cmd: 'close', terminalId: id });
  });

  it('exec and send that run out of time say what they waited for and type nothing', async () => {
    const id = await integratedBash();
    await person.call('terminal.write', { id, data: 'echo typing-slowly-by-user' });
    const timedOut = await agent.request({ cmd: 'exec', terminalId: id, command: 'echo agent-cmd', timeoutMs: 2_000 }, 10_000);
    assert.equal(timedOut.ok, false);
    assert.equal(timedOut.code, 'TIMEOUT');
    assert.match(timedOut.error, new RegExp(`terminal ${id} was waiting for the person to send or clear the line they typed at the prompt \\("echo typing-slowly-by-user"\\); the command was not typed`));
    assert.equal(timedOut.typed, false);
    const refused = await agent.request({ cmd: 'send', terminalId: id, text: 'echo from-agent', wait: false });
    assert.equal(refused.error, `terminal ${id} has unsent input at the prompt: "echo typing-slowly-by-user" (the person has not pressed Enter; nothing was typed)`);
    const output = await rawLog(id);
    assert.doesNotMatch(output, /agent-cmd|from-agent/);
    // The person clears their own line: the agent may type again.
    await person.call('terminal.write', { id, data: '\x15' });
    const ran = await pollUntil(
      async () => {
        const frame = await agent.request({ cmd: 'exec', terminalId: id, command: 'echo agent-after-clear', timeoutMs: 5_000 }, 10_000);
        return frame.ok ? frame : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: 'the exec to run once the line was cleared' },
    );
    assert.equal(ran.event.output, 'agent-after-clear\n');
    await agent.request({ cmd: 'close', terminalId: id });
  });

  it("an agent's own half line (send without Enter) is not in its way", async () => {
    const id = await integratedBash();
    const first = await agent.request({ cmd: 'send', terminalId: id, text: 'echo agent-', newline: false });
    assert.equal(first.ok, true, first.error);
    const second = await agent.request({ cmd: 'send', terminalId: id, text: 'own-line', wait: false });
    assert.equal(second.ok, true, second.error);
    await pollUntil(async () => /\n\r?agent-own-line\r\n/.test(await rawLog(id)), { what: 'the agent line to run' });
    await agent.request({ cmd: 'close', terminalId: id });
  });
});

describe('TypingGuard', () => {
  it('gives up with the busy error when the person never pauses within the maximum wait', async () => {
    let idleMs = 200;
    const guard = new TypingGuard({ idleMs: () => idleMs, maxWaitMs: 300 });
    try {
      guard.notePersonInput('t1');
      const waiting = guard.guardFor('t1', { wait: true }).waitForTurn();
      // The person keeps typing: each keystroke restarts the idle time.
      const typing = setInterval(() => guard.notePersonInput('t1'), 50);
      try {
        await assert.rejects(waiting, { message: 'terminal t1 is busy: the user is typing' });
      } finally {
        clearInterval(typing);
      }
      // A shorter idle time applies to a send that is already waiting.
      guard.notePersonInput('t1');
      const second = guard.guardFor('t1', { wait: true }).waitForTurn();
      idleMs = 0;
      await second;
      assert.equal(guard.remainingMs('t1'), 0);
    } finally {
      guard.dispose();
    }
  });

  it('stops waiting when the agent disconnects or the server shuts down', async () => {
    const guard = new TypingGuard({ idleMs: () => 10_000 });
    guard.notePersonInput('t1');
    let connected = true;
    const waiting = guard.guardFor('t1', { wait: true, isConnected: () => connected }).waitForTurn();
    connected = false;
    await assert.rejects(waiting, { message: 'the client disconnected' });
    const pending = guard.guardFor('t1', { wait: true }).waitForTurn();
    guard.dispose();
    await assert.rejects(pending, { message: 'the control server is shutting down' });
  });
});
