/**
 * Spawn: the New terminal button clicked → the new pane's first prompt drawn, against a bare
 * node-pty spawn of the same shell (bash, same HOME and .bashrc) → the first prompt's bytes read.
 * That peer has no browser at all: it is what starting the shell costs, which the pane cannot beat
 * (drawing alone waits for an animation frame). A second peer does what a terminal page must at
 * the least, in the same kind of browser: a minimal page whose New terminal button makes a bare
 * xterm.js terminal, opens a WebSocket to a server that spawns the same bash on a bare node-pty,
 * and draws its output — click → prompt drawn, timed by the same probe.
 */
import { spawn as spawnPty } from 'node-pty';
import type { BenchCase } from '../benchCase.ts';
import { testEnv } from '../../test/helpers/tempHome.ts';
import { defaultSettings } from '../../src/common/api/contract.ts';
import { armRows, compare, paneSize, startRendererRig } from './rendererBench.ts';

export const rendererSpawnCase: BenchCase = {
  name: 'spawn',
  description: 'New terminal → first prompt drawn vs a bare node-pty spawn of the same shell → first prompt byte',
  async run({ quick, log }) {
    const rounds = quick ? 2 : 12;
    const rig = await startRendererRig();
    try {
      const { appPage, peerPage, firstPane, app: served } = rig;
      const others = `[data-terminal-id]:not([data-terminal-id="${firstPane}"])`;
      // The page peer's terminal: the size of the app's pane, its font and scrollback.
      const size = await paneSize(appPage, firstPane);
      await peerPage.evaluate(({ url, options }) => globalThis.peer!.armSpawn(url, options), {
        url: `${rig.peers.shellUrl}?cols=${size.cols}&rows=${size.rows}`,
        options: { ...size, scrollback: defaultSettings.scrollback, fontSize: defaultSettings.fontSize, fontFamily: defaultSettings.fontFamily },
      });

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

      const pageRound = async () => {
        await peerPage.evaluate(() => globalThis.peer!.closeSpawned());
        const drawn = await armRows(peerPage, '#spawned', { kind: 'rowStartsWith', text: '$' }, 20_000);
        await peerPage.locator('#new-terminal').click();
        const at = await drawn.settled();
        return at - (await peerPage.evaluate(() => globalThis.__probe!.lastClick));
      };

      if (!quick) {
        // Warm-up, not counted.
        await switchboardRound();
        await peerRound();
        await pageRound();
      }
      const appTimes: number[] = [];
      const peerTimes: number[] = [];
      const pageTimes: number[] = [];
      const sides = [async () => appTimes.push(await switchboardRound()), async () => peerTimes.push(await peerRound()), async () => pageTimes.push(await pageRound())];
      for (let round = 0; round < rounds; round++) {
        // Each side goes first, second and third in turn.
        for (let side = 0; side < sides.length; side++) await sides[(round + side) % sides.length]!();
      }
      log(`${rounds} spawns each (the app's pane closed again after each)`);
      return [
        // ≤ 1.5× the peer's time is at least 1/1.5 of its speed.
        ...compare('first prompt', appTimes, peerTimes, { ratioTarget: { min: 1 / 1.5 } }),
        ...compare('first prompt drawn, peer: a minimal xterm.js page', appTimes, pageTimes),
      ];
    } finally {
      await rig.close();
    }
  },
};
