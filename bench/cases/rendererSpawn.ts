/**
 * Spawn: the New terminal button clicked → the new pane's first prompt drawn, against a bare
 * node-pty spawn of the same shell (bash, same HOME and .bashrc) → the first prompt's bytes read.
 * The peer has no browser at all: it is what starting the shell costs, which the pane cannot beat.
 */
import { spawn as spawnPty } from 'node-pty';
import type { BenchCase } from '../benchCase.ts';
import { testEnv } from '../../test/helpers/tempHome.ts';
import { armRows, compare, startAppRig } from './rendererBench.ts';

export const rendererSpawnCase: BenchCase = {
  name: 'spawn',
  description: 'New terminal → first prompt drawn vs a bare node-pty spawn of the same shell → first prompt byte',
  async run({ quick, log }) {
    const rounds = quick ? 2 : 12;
    const rig = await startAppRig();
    try {
      const { appPage, firstPane, app: served } = rig;
      const others = `[data-terminal-id]:not([data-terminal-id="${firstPane}"])`;

      const switchboardRound = async () => {
        const drawn = await armRows(appPage, others, { kind: 'rowStartsWith', text: '$' }, 20_000);
        await appPage.getByRole('button', { name: 'New terminal', exact: true }).click();
        const at = await drawn.settled();
        const ms = at - (await appPage.evaluate(() => globalThis.__probe!.lastClick));
        // An idle shell closes at once (no dialog).
        const newPane = appPage.locator(others);
        await newPane.locator('.pane-body').click();
        await appPage.keyboard.press('Control+Shift+X');
        await newPane.waitFor({ state: 'detached' });
        return ms;
      };
      const peerRound = () =>
        new Promise<number>((resolve, reject) => {
          const started = performance.now();
          const pty = spawnPty('/bin/bash', [], { name: 'xterm-256color', cols: 80, rows: 24, cwd: served.workspace, env: testEnv(served.home) });
          let output = '';
          const timer = setTimeout(() => {
            pty.kill();
            reject(new Error(`bash showed no prompt in 20 s; it printed ${JSON.stringify(output)}`));
          }, 20_000);
          pty.onData((data) => {
            output += data;
            if (!output.includes('$ ')) return;
            const ms = performance.now() - started;
            clearTimeout(timer);
            pty.kill();
            resolve(ms);
          });
        });

      if (!quick) {
        // Warm-up, not counted.
        await switchboardRound();
        await peerRound();
      }
      const appTimes: number[] = [];
      const peerTimes: number[] = [];
      for (let round = 0; round < rounds; round++) {
        if (round % 2 === 0) {
          appTimes.push(await switchboardRound());
          peerTimes.push(await peerRound());
        } else {
          peerTimes.push(await peerRound());
          appTimes.push(await switchboardRound());
        }
      }
      log(`${rounds} spawns each (the app's pane closed again after each)`);
      // ≤ 1.5× the peer's time is at least 1/1.5 of its speed.
      return compare('first prompt', appTimes, peerTimes, { ratioTarget: { min: 1 / 1.5 } });
    } finally {
      await rig.close();
    }
  },
};
