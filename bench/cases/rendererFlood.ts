/**
 * Pane flood: `seq 1 600000` (4.7 MB through a PTY) typed in a Switchboard pane, from the Enter keydown until
 * its last line is drawn, against a page with bare xterm.js writing the same bytes (same size,
 * font and scrollback) from the first write until the same line is drawn. Alternating rounds in
 * one browser; also the longest main-thread task of each (target: none over 50 ms).
 *
 * The peer is a floor, not a twin: it has its bytes in memory, while the pane's come from a real
 * PTY through the Hub and a WebSocket, paced by flow control.
 */
import type { BenchCase } from '../benchCase.ts';
import { median } from './relayBench.ts';
import { armRows, compare, openPeerTerminal, paneSelector, paneSize, peerSelector, startRendererRig, waitForRows } from './rendererBench.ts';

export const rendererFloodCase: BenchCase = {
  name: 'pane-flood',
  description: '`seq 1 600000` typed in a pane until its last line is drawn vs bare xterm.js writing the same bytes (Chromium, DOM renderer)',
  async run({ quick, log }) {
    const lines = quick ? 20_000 : 600_000;
    const rounds = quick ? 1 : 5;
    const timeoutMs = quick ? 30_000 : 180_000;
    const last = String(lines);
    const rig = await startRendererRig();
    try {
      const { appPage, peerPage, firstPane } = rig;
      const pane = paneSelector(firstPane);
      const size = await paneSize(appPage, firstPane);
      await openPeerTerminal(peerPage, size);
      // What `seq` prints through a PTY (onlcr turns each \n into \r\n).
      const flood = new TextEncoder().encode(Array.from({ length: lines }, (_, index) => `${index + 1}\r\n`).join(''));
      rig.peers.setFlood(flood);
      await peerPage.evaluate((url) => globalThis.peer!.load(url), `${rig.peers.origin}/flood`);

      const switchboardRound = async () => {
        await appPage.evaluate(() => globalThis.__probe!.watchLongTasks());
        const drawn = await armRows(appPage, pane, { kind: 'rowEquals', text: last }, timeoutMs);
        await appPage.keyboard.type(`seq 1 ${lines}`);
        await appPage.keyboard.press('Enter');
        const at = await drawn.settled();
        const { keydown, longest } = await appPage.evaluate(() => ({ keydown: globalThis.__probe!.lastKeydown, longest: globalThis.__probe!.longestTask }));
        await appPage.keyboard.type('clear');
        await appPage.keyboard.press('Enter');
        await waitForRows(appPage, pane, { kind: 'noRowContains', text: last }, timeoutMs);
        return { ms: at - keydown, longest };
      };
      const peerRound = async () => {
        await peerPage.evaluate(() => globalThis.__probe!.watchLongTasks());
        const drawn = await armRows(peerPage, peerSelector, { kind: 'rowEquals', text: last }, timeoutMs);
        const started = await peerPage.evaluate(() => {
          const at = performance.now();
          globalThis.peer!.writeFlood();
          return at;
        });
        const at = await drawn.settled();
        const longest = await peerPage.evaluate(() => globalThis.__probe!.longestTask);
        await peerPage.evaluate(() => globalThis.peer!.clear());
        await waitForRows(peerPage, peerSelector, { kind: 'noRowContains', text: last }, timeoutMs);
        return { ms: at - started, longest };
      };

      await appPage.locator(`${pane} .pane-body`).click();
      if (!quick) {
        // Warm-up (JIT, font atlas, a full scrollback on both sides), not counted.
        await switchboardRound();
        await peerRound();
      }
      const app: Array<{ ms: number; longest: number }> = [];
      const peer: Array<{ ms: number; longest: number }> = [];
      for (let round = 0; round < rounds; round++) {
        // Alternate which goes first, so drift in the machine's load hits both alike.
        if (round % 2 === 0) {
          app.push(await switchboardRound());
          peer.push(await peerRound());
        } else {
          peer.push(await peerRound());
          app.push(await switchboardRound());
        }
        log(`round ${round + 1}: Switchboard ${app.at(-1)!.ms.toFixed(0)} ms (longest task ${app.at(-1)!.longest.toFixed(0)} ms), bare xterm.js ${peer.at(-1)!.ms.toFixed(0)} ms (longest task ${peer.at(-1)!.longest.toFixed(0)} ms)`);
      }
      log(`${lines} lines (${(flood.length / 1e6).toFixed(1)} MB), pane ${size.cols}×${size.rows}, ${rounds} round(s) each`);
      return [
        ...compare('flood drawn', app.map((r) => r.ms), peer.map((r) => r.ms), { ratioTarget: { min: 0.8 } }),
        { label: 'longest main-thread task: peer (median)', value: median(peer.map((r) => r.longest)), unit: 'ms' },
        { label: 'longest main-thread task: Switchboard (median)', value: median(app.map((r) => r.longest)), unit: 'ms', target: { max: 50 } },
      ];
    } finally {
      await rig.close();
    }
  },
};
