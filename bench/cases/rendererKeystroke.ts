/**
 * Keystroke: keydown → the echoed character drawn, in a Switchboard pane running `cat` against a
 * minimal page (bare xterm.js + a `ws` server echoing through a bare node-pty running `cat`).
 * Both echoes come from the PTY's line discipline; the difference is the path between the key and
 * the glyph. Blocks of keys alternate between the two (rendererBench.ts, `typeLine`).
 */
import type { BenchCase } from '../benchCase.ts';
import { percentile } from './relayBench.ts';
import { clearPane, compare, keyGapMs, openPeerTerminal, paneSelector, paneSize, peerSelector, startRendererRig, typeLine, waitForRows } from './rendererBench.ts';

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
      await clearPane(appPage, firstPane, 'size');
      await appPage.keyboard.type('cat');
      await appPage.keyboard.press('Enter');
      await waitForRows(appPage, pane, { kind: 'rowEquals', text: '$ cat' }, 10_000);
      await peerPage.locator(peerSelector).click();

      if (!quick) {
        // Warm-up, not counted.
        await typeLine(appPage, pane);
        await typeLine(peerPage, peerSelector);
      }
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
        // ≤ 1.2× the peer's time is at least 1/1.2 of its speed.
        ...compare('echo drawn', app, peer, { ratioTarget: { min: 1 / 1.2 } }),
        { label: 'echo drawn: peer p99', value: percentile(peer, 99), unit: 'ms' },
        { label: 'echo drawn: Switchboard p99', value: percentile(app, 99), unit: 'ms', target: { max: 16.7 } },
      ];
    } finally {
      await rig.close();
    }
  },
};
