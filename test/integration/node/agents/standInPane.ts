/**
 * The Claude Code stand-in (test/helpers/standInClaude.ts) in a pane of a test Hub, for the agent
 * state tests that follow what the pane publishes: every agent state it entered, in order, and its
 * screen; ready once the stand-in has drawn its idle box.
 */
import { after } from 'node:test';
import { join } from 'node:path';
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import type { LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { installStandInClaude } from '../../../helpers/standInClaude.ts';
import type { TestHub } from '../../control/controlTestKit.ts';

export interface StandInPane {
  id: string;
  /** Each agent state the pane published, in order. */
  states: AgentStatus[];
  /** The pane's screen lines now. */
  screen(): Promise<string[]>;
}

/** `env` is added to the stand-in's environment (its STAND_IN_* switches). */
export async function startStandInPane(t: TestHub, person: LocalHubClient, env: Record<string, string> = {}): Promise<StandInPane> {
  const bin = installStandInClaude(t.home);
  const { id } = await person.call('terminal.create', { file: join(bin, 'claude'), cwd: t.workspace, cols: 100, rows: 30, env: { PATH: '/usr/bin:/bin', HOME: t.home, ...env } });
  const states: AgentStatus[] = [];
  const listener = t.hub.ptyHost.onDidChangeTerminal((changed) => {
    if (changed.id === id && changed.agent && states.at(-1) !== changed.agent) states.push(changed.agent);
  });
  after(() => listener.dispose());
  const screen = async () => (await t.hub.ptyHost.require(id).readScreen()).lines;
  await pollUntil(async () => states.at(-1)?.state === 'idle' && (await screen()).some((line) => line.includes('? for shortcuts')), { what: 'the stand-in idle' });
  return { id, states, screen };
}
