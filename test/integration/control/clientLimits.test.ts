/**
 * What one control-socket client may make the Hub do (issue 23; src/node/control/clientLimits.ts):
 * terminals opened per connection and by all clients together (settings), and the rates of `create`
 * and `exec` — over a real socket to a real Hub with real shells. Each refusal names its limit, and
 * nothing is started or typed for it; a person's panes are never counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { ControlConstants } from '../../../src/common/constants.ts';
import { startTestHub, type NdjsonClient, type TestHub } from './controlTestKit.ts';

/** A plain shell that reads no rc file: what matters here is how many start. */
const shell = { shellPath: '/bin/sh', show: false };

async function createMany(client: NdjsonClient, count: number) {
  // Sent at once, as a runaway loop would: the answers come back in order.
  const requests = Array.from({ length: count }, () => client.request({ cmd: 'create', ...shell }));
  return Promise.all(requests);
}

function runningOpenedBySocket(t: TestHub): number {
  return t.hub.ptyHost.list().filter((info) => info.state === 'running' && info.createdBy.kind === 'agent').length;
}

describe('control socket client limits', () => {
  let t: TestHub;
  let api: LocalHubClient;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    api = createLocalHubClient(t.hub);
  });
  after(async () => {
    api.dispose();
    await t.dispose();
  });

  async function closeAllOpenedBySocket(): Promise<void> {
    for (const info of t.hub.ptyHost.list()) if (info.createdBy.kind === 'agent') await t.hub.ptyHost.close(info.id);
  }

  it('lets a client open a burst of terminals, then refuses with RATE_LIMITED and when to retry; nothing is started for a refusal', async () => {
    // Room for more terminals than the burst, so the rate is what refuses.
    await api.call('settings.update', { socketMaxTerminals: 100, socketMaxTerminalsPerClient: 100 });
    const client = await t.connect();
    const before = t.hub.ptyHost.list().length;
    const answers = await createMany(client, ControlConstants.createBurst + 3);
    const opened = answers.filter((answer) => answer.ok);
    const refused = answers.filter((answer) => !answer.ok);
    assert.equal(opened.length, ControlConstants.createBurst, JSON.stringify(refused[0]));
    assert.equal(refused.length, 3);
    for (const answer of refused) {
      assert.equal(answer.code, 'RATE_LIMITED');
      assert.match(answer.error, new RegExp(`^create: this connection may open at most ${ControlConstants.createPerSecond} terminals a second \\(${ControlConstants.createBurst} at once\\); try again in \\d+ ms$`));
      assert.ok(answer.retryAfterMs > 0 && answer.retryAfterMs <= 1000, `retryAfterMs ${answer.retryAfterMs}`);
    }
    assert.equal(t.hub.ptyHost.list().length, before + ControlConstants.createBurst, 'a refused create starts no shell');

    // Told when to retry, a client that waits that long gets its terminal.
    await new Promise((resolve) => setTimeout(resolve, refused[0]!.retryAfterMs));
    const again = await client.request({ cmd: 'create', ...shell });
    assert.equal(again.ok, true, JSON.stringify(again));

    // Another connection has its own allowance.
    const other = await t.connect();
    assert.equal((await other.request({ cmd: 'create', ...shell })).ok, true);
    await api.call('settings.update', { socketMaxTerminals: ControlConstants.socketMaxTerminals, socketMaxTerminalsPerClient: ControlConstants.socketMaxTerminalsPerClient });
    await closeAllOpenedBySocket();
  });

  it('refuses a client past socketMaxTerminalsPerClient with TERMINAL_LIMIT until one of its terminals is gone; others can still open', async () => {
    await api.call('settings.update', { socketMaxTerminalsPerClient: 3 });
    try {
      const client = await t.connect();
      const answers = await createMany(client, 4);
      assert.deepEqual(answers.map((answer) => answer.ok), [true, true, true, false]);
      const refusal = answers[3]!;
      assert.equal(refusal.code, 'TERMINAL_LIMIT');
      assert.equal(refusal.error, 'create: this connection has 3 terminals running, the most one client may open (setting socketMaxTerminalsPerClient: 3); close one first');
      assert.equal(refusal.limit, 'socketMaxTerminalsPerClient');
      assert.equal(refusal.max, 3);

      const other = await t.connect();
      assert.equal((await other.request({ cmd: 'create', ...shell })).ok, true, 'the limit is per client');

      // One of its shells exits: it may open one more.
      const first = answers[0]!.id as string;
      const ended = await client.request({ cmd: 'exec', terminalId: first, command: 'exit 0', timeoutMs: 10_000 });
      assert.equal(ended.ok, false, 'exec answers the shell ending as a failure');
      const replaced = await client.request({ cmd: 'create', ...shell });
      assert.equal(replaced.ok, true, JSON.stringify(replaced));
    } finally {
      await api.call('settings.update', { socketMaxTerminalsPerClient: ControlConstants.socketMaxTerminalsPerClient });
      await closeAllOpenedBySocket();
    }
  });

  it('refuses every client past socketMaxTerminals; a person’s panes never count, and agent.start is held to it too', async () => {
    await api.call('settings.update', { socketMaxTerminals: 2 });
    try {
      // The person's panes: any number, not counted.
      for (let i = 0; i < 3; i++) await api.call('terminal.create', { file: '/bin/sh' });
      const a = await t.connect();
      const b = await t.connect();
      assert.equal((await a.request({ cmd: 'create', ...shell })).ok, true);
      assert.equal((await b.request({ cmd: 'create', ...shell })).ok, true);
      assert.equal(runningOpenedBySocket(t), 2);
      const refused = await a.request({ cmd: 'create', ...shell });
      assert.equal(refused.code, 'TERMINAL_LIMIT');
      assert.equal(refused.error, 'create: 2 terminals opened over the control socket are running, the most all clients together may open (setting socketMaxTerminals: 2); close one first');
      const agent = await b.request({ cmd: 'agent.start', profile: 'claude', folder: t.workspace });
      assert.equal(agent.code, 'TERMINAL_LIMIT', JSON.stringify(agent));
      assert.match(agent.error, /^agent\.start: 2 terminals opened over the control socket are running/);
      assert.equal(runningOpenedBySocket(t), 2, 'nothing started for the refusals');
    } finally {
      await api.call('settings.update', { socketMaxTerminals: ControlConstants.socketMaxTerminals });
      await closeAllOpenedBySocket();
    }
  });

  it('bounds the execs one connection has in progress (a flood sent without waiting is refused, nothing typed); one after another is never limited', async () => {
    const client = await t.connect();
    const created = await client.request({ cmd: 'create', ...shell });
    const terminalId = created.id as string;
    const bound = ControlConstants.execMaxInProgress;
    // Sent at once: the first `bound` take turns in the pane, the ones past it are refused at once.
    const answers = await Promise.all(
      Array.from({ length: bound + 2 }, (_, index) => client.request({ cmd: 'exec', terminalId, command: `echo run-${index}`, timeoutMs: 60_000 }, 90_000)),
    );
    const limited = answers.filter((answer) => answer.code === 'RATE_LIMITED');
    assert.equal(limited.length, 2, JSON.stringify(answers.filter((answer) => !answer.ok).slice(0, 3)));
    for (const answer of limited) {
      assert.equal(answer.error, `exec: this connection has ${bound} commands in progress, the most at once; wait for one to be answered`);
      assert.equal(answer.limit, 'exec in progress');
    }
    assert.equal(answers.filter((answer) => answer.ok).length, bound, 'every admitted exec ran');
    const log = await client.request({ cmd: 'readLog', terminalId, strip: true });
    const typed = [...String(log.bytes).matchAll(/run-(\d+)/g)].map((match) => Number(match[1]));
    assert.deepEqual(new Set(typed), new Set(Array.from({ length: bound }, (_, index) => index)), 'the admitted ones were typed, the refused ones never');

    // A harness running commands one after another, as fast as they answer: never refused.
    for (let index = 0; index < bound * 3; index++) {
      const answer = await client.request({ cmd: 'exec', terminalId, command: 'true' });
      assert.equal(answer.ok, true, JSON.stringify(answer));
    }
    await closeAllOpenedBySocket();
  });
});
