/**
 * Reattach: ten panes of one tab, each with 1 000 lines of coloured output in its scrollback, and
 * the page reloaded → every pane drawn again with its last line. Timed from the reload's start
 * (performance.now() of the new page counts from the navigation) to the DOM change after which all
 * ten panes show their last line: loading the app, attaching ten terminals and drawing what the
 * Hub replays. No peer: the figure is the target (all drawn ≤ 500 ms).
 */
import type { BenchCase } from '../benchCase.ts';
import { median, percentile } from './relayBench.ts';
import { createTerminals, gridNode, paneSelector, probeSource, showLayout, startAppRig, waitForRows, writeLine, type RowCondition } from './rendererBench.ts';

const paneCount = 10;

export const rendererReattachCase: BenchCase = {
  name: 'reattach',
  description: 'page reloaded with 10 panes × 1 000 lines of output → every pane drawn again (Chromium, DOM renderer)',
  async run({ quick, log }) {
    const lines = quick ? 100 : 1000;
    const rounds = quick ? 1 : 10;
    const rig = await startAppRig();
    try {
      const { appPage: page } = rig;
      const ids = await createTerminals(page, paneCount);
      await showLayout(page, [gridNode(ids, 2)]);
      // Each pane's output ends with its own marker; the typed command shows `$((…))`, not the number.
      const done: RowCondition[] = ids.map((_, index) => ({ kind: 'rowEquals', text: `reattach-${index + 1}-done` }));
      for (const [index, id] of ids.entries()) {
        await writeLine(page, id, `for i in $(seq 1 ${lines}); do printf '\\e[3%dm%05d\\e[0m \\e[1mpane ${index + 1}\\e[0m line\\n' $((i % 7 + 1)) $i; done; echo reattach-$((${index + 1}))-done`);
      }
      for (const [index, id] of ids.entries()) await waitForRows(page, paneSelector(id), done[index]!, 30_000);

      // From now on every load of the page arms the probe before the app's script runs.
      await page.addInitScript({ content: probeSource });
      await page.addInitScript(
        ({ selector, conditions }) => {
          globalThis.__probe!.pending = globalThis.__probe!.waitEveryRow(selector, conditions, 30_000);
          globalThis.__probe!.pending.catch(() => {});
        },
        { selector: '[data-terminal-id]', conditions: done },
      );
      const reload = async () => {
        await page.reload();
        const allDrawn = await page.evaluate(() => globalThis.__probe!.pending!);
        const loaded = await page.evaluate(() => {
          const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
          return navigation?.domContentLoadedEventEnd ?? 0;
        });
        return { allDrawn, loaded };
      };

      if (!quick) await reload(); // Warm-up (the browser's cache), not counted.
      const times: Array<{ allDrawn: number; loaded: number }> = [];
      for (let round = 0; round < rounds; round++) times.push(await reload());
      const drawn = times.map((t) => t.allDrawn);
      log(`${paneCount} panes × ${lines} lines, ${rounds} reloads: all drawn at ${drawn.map((ms) => ms.toFixed(0)).join(' ')} ms; DOMContentLoaded at ${times.map((t) => t.loaded.toFixed(0)).join(' ')} ms`);
      return [
        { label: 'reload → DOMContentLoaded: median', value: median(times.map((t) => t.loaded)), unit: 'ms' },
        { label: 'reload → all 10 panes drawn: median', value: median(drawn), unit: 'ms' },
        { label: 'reload → all 10 panes drawn: p95', value: percentile(drawn, 95), unit: 'ms', target: { max: 500 } },
      ];
    } finally {
      await rig.close();
    }
  },
};
