/**
 * Interrupt: Ctrl-C pressed while `yes` floods a pane → the shell's prompt drawn again. What a
 * person feels when they stop a runaway command: everything already sent towards the pane (the
 * flow-control window, the Hub's batch, the socket) is drawn before the prompt can be. No peer:
 * the figure is the target (p95 ≤ 100 ms).
 */
import type { BenchCase } from '../benchCase.ts';
import { median, percentile } from './relayBench.ts';
import { armRows, paneSelector, startAppRig, waitForRows } from './rendererBench.ts';

/** How long `yes` runs before Ctrl-C: long enough for the flow-control window to be full, as in a real runaway. */
const floodBeforeInterruptMs = 500;

export const rendererInterruptCase: BenchCase = {
  name: 'interrupt',
  description: 'Ctrl-C during `yes` in a pane → the prompt drawn again (Chromium, DOM renderer)',
  async run({ quick, log }) {
    const rounds = quick ? 2 : 15;
    const rig = await startAppRig();
    try {
      const { appPage, firstPane } = rig;
      const pane = paneSelector(firstPane);
      await appPage.locator(`${pane} .pane-body`).click();

      const round = async () => {
        await appPage.keyboard.type('yes');
        await appPage.keyboard.press('Enter');
        // The flood fills the screen: no prompt row is left to be mistaken for the new one.
        await waitForRows(appPage, pane, { kind: 'noRowContains', text: '$' }, 10_000);
        await new Promise((resolve) => setTimeout(resolve, floodBeforeInterruptMs));
        const drawn = await armRows(appPage, pane, { kind: 'rowEquals', text: '$' }, 20_000);
        await appPage.keyboard.press('Control+C');
        const at = await drawn.settled();
        return at - (await appPage.evaluate(() => globalThis.__probe!.lastKeydown));
      };

      if (!quick) await round(); // Warm-up, not counted.
      const times: number[] = [];
      for (let index = 0; index < rounds; index++) times.push(await round());
      log(`${rounds} interrupts, each after ${floodBeforeInterruptMs} ms of \`yes\`: ${times.map((ms) => ms.toFixed(0)).join(' ')} ms`);
      return [
        { label: 'Ctrl-C → prompt drawn: median', value: median(times), unit: 'ms' },
        { label: 'Ctrl-C → prompt drawn: p95', value: percentile(times, 95), unit: 'ms', target: { max: 100 } },
        { label: 'Ctrl-C → prompt drawn: max', value: Math.max(...times), unit: 'ms' },
      ];
    } finally {
      await rig.close();
    }
  },
};
