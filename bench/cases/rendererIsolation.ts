/**
 * Isolation: keystrokes in pane A (running `cat`) while panes B, C and D of the same tab flood
 * with `yes`, against the same keystrokes with B–D idle at their prompts. One page parses and
 * draws all four panes, so a flood elsewhere shows as a slower echo here; the target is a p99 at
 * most 2× the idle one. Blocks of keys alternate between idle and flooding; the floods are started
 * and stopped through the API (as an agent's `send` would), so the keyboard stays in pane A.
 */
import type { BenchCase } from '../benchCase.ts';
import { percentile } from './relayBench.ts';
import { compare, createTerminals, gridNode, keyGapMs, paneSelector, showLayout, startAppRig, typeLine, waitForRows, writeLine, hubCall } from './rendererBench.ts';

export const rendererIsolationCase: BenchCase = {
  name: 'isolation',
  description: 'keystroke echo in pane A while panes B, C, D flood with `yes` vs the same with B–D idle (Chromium, DOM renderer)',
  async run({ quick, log }) {
    const blocks = quick ? 1 : 12;
    const rig = await startAppRig();
    try {
      const { appPage: page } = rig;
      const [a, ...others] = await createTerminals(page, 4);
      await showLayout(page, [gridNode([a!, ...others], 2)]);
      for (const id of [a!, ...others]) await waitForRows(page, paneSelector(id), { kind: 'rowEquals', text: '$' }, 20_000);
      const paneA = paneSelector(a!);
      await page.locator(`${paneA} .pane-body`).click();
      await page.keyboard.type('cat');
      await page.keyboard.press('Enter');
      await waitForRows(page, paneA, { kind: 'rowEquals', text: '$ cat' }, 10_000);

      const startFloods = async () => {
        for (const id of others) await writeLine(page, id, 'yes');
        for (const id of others) await waitForRows(page, paneSelector(id), { kind: 'rowEquals', text: 'y' }, 10_000);
      };
      const stopFloods = async () => {
        for (const id of others) await hubCall(page, 'terminal.write', { id, data: '\x03' });
        // Cleared, so the next flood is seen by its own rows of "y", not these.
        for (const id of others) await writeLine(page, id, 'clear');
        for (const id of others) {
          await waitForRows(page, paneSelector(id), { kind: 'noRowContains', text: 'y' }, 20_000);
          await waitForRows(page, paneSelector(id), { kind: 'rowEquals', text: '$' }, 20_000);
        }
      };

      if (!quick) await typeLine(page, paneA); // Warm-up, not counted.
      const idle: number[] = [];
      const flooding: number[] = [];
      for (let block = 0; block < blocks; block++) {
        const timeIdle = async () => idle.push(...(await typeLine(page, paneA)));
        const timeFlooding = async () => {
          await startFloods();
          flooding.push(...(await typeLine(page, paneA)));
          await stopFloods();
        };
        if (block % 2 === 0) {
          await timeIdle();
          await timeFlooding();
        } else {
          await timeFlooding();
          await timeIdle();
        }
      }
      const idleP99 = percentile(idle, 99);
      const floodingP99 = percentile(flooding, 99);
      log(`${idle.length} keystrokes each, ${keyGapMs} ms apart; 4 panes of one tab, 3 of them running \`yes\` while flooding`);
      return [
        // "Peer" here is pane A with B–D idle: the same app, undisturbed.
        ...compare('echo drawn in A (peer: B–D idle; Switchboard: B–D flooding)', flooding, idle),
        { label: 'echo drawn in A, B–D idle: p99', value: idleP99, unit: 'ms' },
        { label: 'echo drawn in A, B–D flooding: p99', value: floodingP99, unit: 'ms' },
        { label: 'p99 flooding / p99 idle', value: floodingP99 / idleP99, unit: '×', digits: 2, target: { max: 2 } },
      ];
    } finally {
      await rig.close();
    }
  },
};
