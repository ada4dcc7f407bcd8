/**
 * An agent that has just started and drawn nothing yet is loading, not waiting for the person: it
 * must not be listed under "Waiting for you" as done (it was, for the moment between its start and
 * its first screen: the Hub took an unrecognised screen with no output for idle). An agent whose
 * screen its rules never recognise still follows its output: working while it prints, idle once
 * quiet.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import { AgentMonitorConstants } from '../../../../src/node/agents/agentMonitor.ts';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { installStandInClaude } from '../../../helpers/standInClaude.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';

describe('an agent starting', () => {
  let t: TestHub;
  let person: LocalHubClient;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
  });
  after(async () => {
    person?.dispose();
    await t?.dispose();
  });

  /** Every agent state the terminal publishes, with the time and whether `drawn` was on its screen then. */
  async function start(file: string, env: Record<string, string>, drawn: string) {
    const info = await person.call('terminal.create', { file, cwd: t.workspace, cols: 100, rows: 30, env: { PATH: '/usr/bin:/bin', HOME: t.home, ...env } });
    const states: Array<{ agent: AgentStatus; at: number; drawn: Promise<boolean> }> = [];
    const listener = t.hub.ptyHost.onDidChangeTerminal((changed) => {
      if (changed.id !== info.id || !changed.agent || states.at(-1)?.agent === changed.agent) return;
      const screen = t.hub.ptyHost.require(info.id).readScreen();
      states.push({ agent: changed.agent, at: Date.now(), drawn: screen.then((text) => text.lines.some((line) => line.includes(drawn))) });
    });
    after(() => listener.dispose());
    return { id: info.id, states };
  }

  it('is working until its first screen, then idle by that screen', async () => {
    const bin = installStandInClaude(t.home);
    const { states } = await start(join(bin, 'claude'), { STAND_IN_FIRST_DRAW_MS: '1000' }, '? for shortcuts');
    await pollUntil(() => states.at(-1)?.agent.state === 'idle', { what: 'the stand-in idle', timeoutMs: 15_000 });
    const before = [];
    for (const state of states) if (!(await state.drawn)) before.push(state.agent.state);
    assert.ok(before.length > 0, 'the agent was seen before it drew');
    assert.deepEqual([...new Set(before)], ['working'], 'before its first screen the agent is loading');
    assert.equal(states.at(-1)?.agent.kind, 'claude-code');
  });

  it('whose screen its rules never read follows its output: working while it prints, idle once quiet', async () => {
    const bin = join(t.home, 'unknown-bin');
    mkdirSync(bin, { recursive: true });
    // Named like Claude Code, so its rules apply, but drawing nothing they know.
    writeFileSync(join(bin, 'claude'), `#!${process.execPath}\nlet n = 0;\nconst timer = setInterval(() => { process.stdout.write('loading ' + n++ + '\\n'); if (n === 8) clearInterval(timer); }, 100);\nsetInterval(() => {}, 1000);\n`);
    chmodSync(join(bin, 'claude'), 0o755);
    const { id, states } = await start(join(bin, 'claude'), {}, 'loading 7');
    let lastPrintAt = 0;
    const output = t.hub.ptyHost.require(id).onDidOutput(({ data }) => {
      if (data.includes('loading 7')) lastPrintAt = Date.now();
    });
    after(() => output.dispose());
    const idle = await pollUntil(() => states.find((state) => state.agent.state === 'idle'), { what: 'the agent idle once quiet', timeoutMs: 15_000 });
    assert.equal(await idle.drawn, true, 'idle only after it stopped printing');
    assert.equal(states[0]?.agent.state, 'working');
    assert.ok(idle.at - lastPrintAt >= AgentMonitorConstants.quietMs - 20, `idle ${idle.at - lastPrintAt} ms after it last printed`);
  });
});
