/**
 * Input that reaches the Hub before a terminal's shell reads it is held, never dropped: a shell
 * whose .bashrc takes half a second gets what a person (the app's API), an agent (the control
 * socket's `send`) and a remote viewer (`terminalInput`, even before `terminalOpened`) typed at
 * once, exactly once. Real Hub, real relay, real bash.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalHubClient } from '../../../src/node/api/localHubClient.ts';
import type { RelayClient } from '../../../src/node/relay/relayClient.ts';
import type { PtySession } from '../../../src/node/pty/ptySession.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { testEnv } from '../../helpers/tempHome.ts';
import { NdjsonClient } from '../control/controlTestKit.ts';
import { connectClient, startTestHub, startTestRelay, stripTerminalControls, type TestHub, type TestRelay, TestViewer, waitConnected } from './relayTestKit.ts';

const slowRc = "sleep 0.5\nPS1='$ '\n";

/** Waits for the output line `line` and a prompt after it; the ring holds everything the terminal printed. */
async function ranOnce(session: PtySession, line: string): Promise<string> {
  const text = await pollUntil(
    () => {
      const printed = stripTerminalControls(session.readRing(0).data.toString('utf8')).replaceAll('\r', '');
      return new RegExp(`^${line}\\n(?:.*\\n)*?.*\\$ ?`, 'm').test(printed) ? printed : undefined;
    },
    { timeoutMs: 10_000, what: `${line} in ${session.id}` },
  ).catch((error: Error) => {
    throw new Error(`${error.message}; it printed:\n${session.readRing(0).data.toString('utf8')}`);
  });
  assert.equal(text.match(new RegExp(`^${line}$`, 'gm'))?.length, 1, `${line} printed once:\n${text}`);
  assert.doesNotMatch(text, /command not found|syntax error/);
  return text;
}

describe('input sent before the shell has started', () => {
  let relay: TestRelay;
  let hub: TestHub;
  let client: RelayClient;
  let viewerToken: string;
  let rcFile: string;
  const viewers: TestViewer[] = [];
  const viewer = async () => {
    const connected = await TestViewer.connect(relay, 'm1', viewerToken);
    viewers.push(connected);
    await connected.waitFor((frame) => frame.type === 'machineStatus', { what: 'machineStatus' });
    return connected;
  };

  before(async () => {
    relay = await startTestRelay({ machines: ['m1'] });
    viewerToken = relay.tokens.get('m1')!.viewerToken;
    hub = await startTestHub();
    rcFile = join(hub.temp.home, 'slow-rc');
    writeFileSync(rcFile, slowRc);
    writeFileSync(join(hub.temp.home, '.bashrc'), slowRc);
    const remoteShell = { file: 'bash', args: ['--rcfile', rcFile, '-i'], shellIntegration: false };
    client = connectClient(hub.hub, relay.url, 'm1', relay.tokens.get('m1')!.daemonToken, { remoteShell });
    await waitConnected(client);
  });

  after(async () => {
    for (const connected of viewers) await connected.close();
    await client.stop();
    client.dispose();
    hub.dispose();
    await relay.close();
  });

  it("waits in the PTY for a person's keys written right after terminal.create", async () => {
    const person = createLocalHubClient(hub.hub);
    try {
      const info = await person.call('terminal.create', { file: 'bash', args: ['--rcfile', rcFile, '-i'], shellIntegration: false });
      await person.call('terminal.write', { id: info.id, data: 'echo hi-$((6*7))\r' });
      await ranOnce(hub.hub.ptyHost.get(info.id)!, 'hi-42');
    } finally {
      person.dispose();
    }
  });

  for (const shellIntegration of [false, true]) {
    it(`waits in the PTY for an agent's send right after create (shell integration ${shellIntegration ? 'on' : 'off'})`, async () => {
      const agent = await NdjsonClient.connect(hub.hub.controlSocketPath);
      try {
        const created = await agent.request({ cmd: 'create', shellPath: 'bash', shellIntegration, env: testEnv(hub.temp.home) });
        assert.equal(created.ok, true, JSON.stringify(created));
        const sent = await agent.request({ cmd: 'send', terminalId: created.id, text: 'echo agent-$((6*7))' });
        assert.equal(sent.ok, true, JSON.stringify(sent));
        await ranOnce(hub.hub.ptyHost.get(created.id)!, 'agent-42');
      } finally {
        agent.close();
      }
    });
  }

  it("holds a remote viewer's input sent before terminalOpened, for a terminal whose id it chose", async () => {
    const v = await viewer();
    const requestId = v.nextRequestId();
    // Open and type in one go: the input reaches the machine while it is still starting the shell.
    v.send('terminalOpen', { requestId, sessionId: 'sess-early', channelId: v.channelId, terminalId: 'early-bird', cols: 80, rows: 24 });
    v.typeInto('early-bird', 'echo early-$((6*7))\r');
    const opened = await v.waitFor((frame) => (frame as { requestId?: string }).requestId === requestId, { what: 'the answer to terminalOpen' });
    assert.equal(opened.type, 'terminalOpened', JSON.stringify(opened));
    await ranOnce(hub.hub.ptyHost.get('early-bird')!, 'early-42');
    // And right after terminalOpened, while the shell still reads its rc file.
    v.typeInto('early-bird', 'echo later-$((6*7))\r');
    await ranOnce(hub.hub.ptyHost.get('early-bird')!, 'later-42');
  });

  it("refuses input for a starting terminal from another viewer's channel, and input past the bound", async () => {
    const owner = await viewer();
    const other = await viewer();
    const requestId = owner.nextRequestId();
    owner.send('terminalOpen', { requestId, sessionId: 'sess-bound', channelId: owner.channelId, terminalId: 'bounded', cols: 80, rows: 24 });
    other.typeInto('bounded', 'echo intruder\r');
    owner.typeInto('bounded', 'echo kept-$((6*7))\r');
    // More than the 64 KiB held for a starting terminal: refused, and everything after it too (no hole).
    owner.typeInto('bounded', `: ${'x'.repeat(70_000)}\r`);
    owner.typeInto('bounded', 'echo after-the-hole\r');
    const opened = await owner.waitFor((frame) => (frame as { requestId?: string }).requestId === requestId, { what: 'the answer to terminalOpen' });
    assert.equal(opened.type, 'terminalOpened', JSON.stringify(opened));
    const session = hub.hub.ptyHost.get('bounded')!;
    await ranOnce(session, 'kept-42');
    // Anything else that was held would have run before this.
    owner.typeInto('bounded', 'echo done-$((6*7))\r');
    const text = await ranOnce(session, 'done-42');
    assert.doesNotMatch(text, /intruder|xxxxxxxx|after-the-hole/);
  });
});
