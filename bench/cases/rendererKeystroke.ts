/**
 * Keystroke: keydown → the echoed character drawn, in a Switchboard pane running `cat` against a
 * minimal page (bare xterm.js + a `ws` server echoing through a bare node-pty running `cat`).
 * Both echoes come from the PTY's line discipline; the difference is the path between the key and
 * the glyph. Blocks of keys alternate between the two; keys are 20 ms apart (the Hub batches output
 * that follows a flush by less than 8 ms, which is the pane's own behaviour).
 */
import type { Page } from 'playwright-core';
import type { BenchCase } from '../benchCase.ts';
import { percentile } from './relayBench.ts';
import { armRows, compare, openPeerTerminal, paneSelector, paneSize, peerSelector, startRendererRig, waitForRows } from './rendererBench.ts';

/** Letters that are not in the pane's `$ cat` line, so "no row contains the first" means the line was erased. */
const keys = 'bdefghijklmnopqrsuvwxyz';
const keyGapMs = 20;

export const rendererKeystrokeCase: BenchCase = {
  name: 'keystroke',
  description: 'keydown → echoed character drawn in a pane running cat vs bare xterm.js + ws + node-pty (Chromium, DOM renderer)',
  async run({ quick, log }) {
    const blocks = quick ? 1 : 14;
    const rig = await startRendererRig();
    try {
      const { appPage, peerPage, firstPane } = rig;
      const pane = paneSelector(firstPane);
      const size = await paneSize(appPage, firstPane);
      await openPeerTerminal(peerPage, size);
      await peerPage.evaluate((url) => globalThis.peer!.connect(url), rig.peers.echoUrl);
      await appPage.keyboard.type('clear');
      await appPage.keyboard.press('Enter');
      await waitForRows(appPage, pane, { kind: 'noRowContains', text: 'size' }, 10_000);
      await appPage.keyboard.type('cat');
      await appPage.keyboard.press('Enter');
      await waitForRows(appPage, pane, { kind: 'rowEquals', text: '$ cat' }, 10_000);
      await peerPage.locator(peerSelector).click();

      /** One line of keys, each timed from its keydown to its echo drawn, then erased with ^U. */
      const typeLine = async (page: Page, selector: string): Promise<number[]> => {
        const times: number[] = [];
        for (let index = 0; index < keys.length; index++) {
          await new Promise((resolve) => setTimeout(resolve, keyGapMs));
          const drawn = await armRows(page, selector, { kind: 'rowEndsWith', text: keys.slice(0, index + 1) }, 10_000);
          await page.keyboard.press(keys[index]!);
          const at = await drawn.settled();
          times.push(at - (await page.evaluate(() => globalThis.__probe!.lastKeydown)));
        }
        await page.keyboard.press('Control+U');
        await waitForRows(page, selector, { kind: 'noRowContains', text: keys[0]! }, 10_000);
        return times;
      };

      // Warm-up, not counted.
      await typeLine(appPage, pane);
      await typeLine(peerPage, peerSelector);
      const app: number[] = [];
      const peer: number[] = [];
      for (let block = 0; block < blocks; block++) {
        if (block % 2 === 0) {
          app.push(...(await typeLine(appPage, pane)));
          peer.push(...(await typeLine(peerPage, peerSelector)));
        } else {
          peer.push(...(await typeLine(peerPage, peerSelector)));
          app.push(...(await typeLine(appPage, pane)));
        }
      }
      log(`${app.length} keystrokes each, ${keyGapMs} ms apart, waiting for each echo to be drawn`);
      return [
        ...compare('echo drawn', app, peer),
        { label: 'echo drawn: peer p99', value: percentile(peer, 99), unit: 'ms' },
        { label: 'echo drawn: Switchboard p99 (target ≤ 16.7)', value: percentile(app, 99), unit: 'ms' },
      ];
    } finally {
      await rig.close();
    }
  },
};
