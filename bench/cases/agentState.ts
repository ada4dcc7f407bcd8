/**
 * How soon an agent's state follows its screen: the real Claude Code CLI (SWITCHBOARD_CLAUDE_BIN)
 * in a pane of an in-process Hub, driven by a scripted model on loopback, asks permission for a
 * Bash call again and again. Measured per prompt: from the moment the prompt is in the Hub's
 * mirror (the output batch after which the mirror first shows the dialog) to `info.agent` turning
 * `needs-input` — p50, p95, max; then as many prompts again with one busy loop per core (a build
 * beside the agent; busyMachine.ts). Skipped (with a note) without a claude binary.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createLocalHubClient } from '../../src/node/api/localHubClient.ts';
import { Hub } from '../../src/node/hub.ts';
import { nullLogger } from '../../src/node/logger.ts';
import { startScriptedModel } from '../../test/helpers/scriptedClaudeModel.ts';
import type { BenchCase, BenchResult } from '../benchCase.ts';
import { startLoad, stopLoad } from './busyMachine.ts';
import { percentile } from './relayBench.ts';

export const agentStateCase: BenchCase = {
  name: 'agent-state',
  description: 'Claude Code permission prompt in the mirror → agent state needs-input, idle and with every core busy (real CLI; needs SWITCHBOARD_CLAUDE_BIN)',
  async run({ quick, log }) {
    const claudeBin = process.env.SWITCHBOARD_CLAUDE_BIN;
    if (!claudeBin) {
      log('skipped: set SWITCHBOARD_CLAUDE_BIN to a claude binary (npm install @anthropic-ai/claude-code in a scratch folder)');
      return [];
    }
    const rounds = quick ? 3 : 12;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-agent-'));
    const home = join(dir, 'home');
    const config = join(dir, 'claude');
    const project = join(dir, 'project');
    for (const folder of [home, config, project]) mkdirSync(folder, { recursive: true });
    const apiKey = 'sk-ant-api03-' + 'x'.repeat(80);
    writeFileSync(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [project]: { hasTrustDialogAccepted: true } }, customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] } }));
    writeFileSync(join(config, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }));
    const script: Parameters<typeof startScriptedModel>[0]['script'] = {};
    for (let round = 0; round < rounds * 2; round++) script[`run-step-${round}-now`] = [{ name: 'Bash', input: { command: `touch marker-${round}.txt`, description: 'Create a marker' } }];
    const model = await startScriptedModel({ script });
    const hub = new Hub({ dataDir: join(dir, 'data'), workspaceFolders: [project], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    const latencies: number[] = [];
    const busyLatencies: number[] = [];
    try {
      await hub.start();
      const api = createLocalHubClient(hub);
      const info = await api.call('terminal.create', {
        file: claudeBin,
        cwd: project,
        cols: 120,
        rows: 36,
        env: { HOME: home, PATH: `${dirname(claudeBin)}:${process.env.PATH ?? '/usr/bin:/bin'}`, TERM: 'xterm-256color', CLAUDE_CONFIG_DIR: config, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: apiKey, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      });
      const session = hub.ptyHost.require(info.id);
      const agent = () => session.info.agent ?? null;
      const until = async (what: string, test: () => boolean, timeoutMs = 30_000) => {
        const deadline = Date.now() + timeoutMs;
        while (!test()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      // The first run may ask about auto mode: keep manual mode, so every tool call asks.
      await until('Claude Code to start', () => agent() !== null && agent()!.state !== 'working');
      const first = agent()!;
      if (first.prompt?.kind === 'question') {
        const keep = first.prompt.options.findIndex((option) => /No/.test(option)) + 1;
        await api.call('agent.answer', { terminalId: info.id, answer: { option: keep }, expectSince: first.since });
      }
      await until('idle', () => agent()?.state === 'idle');

      const prompt = async (round: number): Promise<number> => {
        let promptInMirrorAt = 0;
        let stateAt = 0;
        let lastBatchAt = 0;
        let reading = false;
        // After each output batch the mirror has parsed it: read it, and note the batch after which it first shows the dialog.
        const readMirror = async (): Promise<void> => {
          reading = true;
          while (!promptInMirrorAt) {
            const covered = lastBatchAt;
            const screen = await session.readScreen();
            if (screen.lines.some((line) => line.includes('Do you want to proceed?'))) promptInMirrorAt = covered;
            else if (lastBatchAt === covered) break;
          }
          reading = false;
        };
        const output = session.onDidOutput(() => {
          lastBatchAt = performance.now();
          if (!reading && !promptInMirrorAt) void readMirror();
        });
        const change = session.onDidChangeAgent(({ agent: status }) => {
          if (!stateAt && status?.state === 'needs-input' && status.prompt?.kind === 'permission') stateAt = performance.now();
        });
        session.write(`run-step-${round}-now`);
        // Claude Code takes an Enter that follows text at once as part of a paste: press it until the turn starts.
        const typed = `run-step-${round}-now`;
        for (let tries = 0; tries < 5 && !stateAt; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 400));
          const screen = await session.readScreen();
          // Still in the input box (not yet submitted, no dialog): Enter again.
          if (!stateAt && screen.lines.some((line) => line.startsWith('❯') && line.includes(typed)) && !screen.lines.some((line) => line.includes('esc to interrupt') || line.includes('Do you want'))) session.write('\r');
        }
        await until('the permission prompt', () => stateAt > 0 && promptInMirrorAt > 0).catch((error: Error) => {
          throw new Error(`${error.message} (state ${JSON.stringify(agent())}, in mirror: ${promptInMirrorAt > 0}, model saw ${model.toolResults.length} tool results)`);
        });
        output.dispose();
        change.dispose();
        const latency = stateAt - promptInMirrorAt;
        const asking = agent()!;
        await api.call('agent.answer', { terminalId: info.id, answer: 'approve', expectSince: asking.since });
        await until('the end of the turn', () => agent()?.state === 'idle' && agent()!.since > asking.since).catch(async (error: Error) => {
          const screen = (await session.readScreen()).lines.filter((line) => line.trim() !== '').slice(-12).join('\n');
          throw new Error(`${error.message} (round ${round}, state ${JSON.stringify(agent())}); screen:\n${screen}`);
        });
        return latency;
      };
      for (let round = 0; round < rounds; round++) latencies.push(await prompt(round));
      // The same with every core busy (a build beside the agent): the mirror's worker competes for the CPU.
      const load = startLoad(quick ? 30 : 120);
      try {
        for (let round = rounds; round < rounds * 2; round++) busyLatencies.push(await prompt(round));
      } finally {
        await stopLoad(load);
      }
      log(`${rounds} prompts; latencies (ms): ${latencies.map((value) => value.toFixed(0)).join(' ')}; with every core busy: ${busyLatencies.map((value) => value.toFixed(0)).join(' ')}`);
    } finally {
      await hub.shutdown();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
    const results: BenchResult[] = [
      { label: 'prompt in mirror → needs-input, p50', value: percentile(latencies, 50), unit: 'ms', digits: 0 },
      { label: 'prompt in mirror → needs-input, p95', value: percentile(latencies, 95), unit: 'ms', digits: 0, target: { max: 1000 } },
      { label: 'prompt in mirror → needs-input, max', value: Math.max(...latencies), unit: 'ms', digits: 0 },
      { label: 'the same with every core busy, p50', value: percentile(busyLatencies, 50), unit: 'ms', digits: 0 },
      { label: 'the same with every core busy, p95', value: percentile(busyLatencies, 95), unit: 'ms', digits: 0, target: { max: 1000 } },
    ];
    return results;
  },
};
