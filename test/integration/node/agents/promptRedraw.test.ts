/**
 * A permission prompt redrawn at another width (a phone opening the pane, a split, the window
 * resized) is the same prompt: its `since` holds, so an answer to it — made before the redraw —
 * is still taken. With the Claude Code stand-in (its dialog cut to the pane's width, as the real
 * CLI's long option wraps: test/unit/node/agents/screenRules.test.ts has the real narrow screen).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { installStandInClaude } from '../../../helpers/standInClaude.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';

describe('a prompt redrawn at another width', () => {
  let t: TestHub;
  let person: LocalHubClient;
  let terminalId: string;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
    const bin = installStandInClaude(t.home);
    const info = await person.call('terminal.create', { file: join(bin, 'claude'), cwd: t.workspace, cols: 120, rows: 30, env: { PATH: '/usr/bin:/bin', HOME: t.home } });
    terminalId = info.id;
  });
  after(async () => {
    person?.dispose();
    await t?.dispose();
  });

  const agent = (): AgentStatus | null => t.hub.ptyHost.get(terminalId)?.info.agent ?? null;

  it('keeps its since across resizes, and an answer made before them is taken', async () => {
    await pollUntil(() => agent()?.state === 'idle', { what: 'the stand-in idle' });
    await person.call('terminal.write', { id: terminalId, data: 'run touch marker.txt\r' });
    const asking = await pollUntil(() => (agent()?.state === 'needs-input' ? agent() : null), { what: 'the permission prompt' });
    assert.equal(asking.prompt?.options[1], "2. Yes, and don’t ask again for this command");
    // Narrow enough to cut the long option, then back.
    for (const [cols, rows] of [[30, 24], [60, 30], [120, 30]] as const) {
      await person.call('terminal.resize', { id: terminalId, cols, rows });
      await pollUntil(async () => (await t.hub.ptyHost.require(terminalId).readScreen()).lines.some((line) => line.includes('Esc to cancel') && line.length <= cols), { what: `the dialog redrawn at ${cols} columns` });
      await new Promise((resolve) => setTimeout(resolve, 300)); // an evaluation after the redraw
      assert.equal(agent()?.state, 'needs-input');
      assert.equal(agent()?.since, asking.since, `the same prompt at ${cols} columns`);
    }
    await person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since });
    await pollUntil(() => existsSync(join(t.workspace, 'marker.txt')), { what: 'the approved command to run' });
  });

  it('takes an answer sent the moment the prompt was redrawn, before the state caught up', async () => {
    await pollUntil(() => agent()?.state === 'idle', { what: 'the stand-in idle again' });
    await person.call('terminal.write', { id: terminalId, data: 'run touch second.txt\r' });
    const asking = await pollUntil(() => (agent()?.state === 'needs-input' ? agent() : null), { what: 'the second permission prompt' });
    // A phone opens the pane at its width, and the person taps Approve at once.
    await person.call('terminal.resize', { id: terminalId, cols: 30, rows: 24 });
    await pollUntil(async () => (await t.hub.ptyHost.require(terminalId).readScreen()).lines.some((line) => line.includes('Esc to cancel') && line.length <= 30), { what: 'the dialog redrawn at 30 columns', intervalMs: 1 });
    await person.call('agent.answer', { terminalId, answer: 'approve', expectSince: asking.since });
    await pollUntil(() => existsSync(join(t.workspace, 'second.txt')), { what: 'the approved command to run' });
  });
});
