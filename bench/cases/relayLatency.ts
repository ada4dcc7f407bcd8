/**
 * Keystroke latency through the relay: a viewer types one key at a time into a `cat` and waits for
 * its echo, through the real relay (viewer → RelayServer → RelayClient → PTY → echo → back) and
 * through a bare `ws` forwarder of the same bytes, alternating in the same run. The relay's added
 * latency is the difference of the two; target: added p99 < 3 ms on loopback.
 *
 * Each path types into its own `cat`, and keys are 15 ms apart like fast typing: the Hub batches
 * output that follows a flush by less than TerminalConstants.batchMaxDelayMs (8 ms), which is the
 * pane's own behaviour and not the relay's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import type { BenchCase } from '../benchCase.ts';
import { type BenchViewer, percentile, startBareForwarder, startRealRelay } from './relayBench.ts';

export const relayLatencyCase: BenchCase = {
  name: 'relay-keystroke',
  description: 'keystroke echo round trip through the relay vs a bare ws forwarder (added p50/p99)',
  async run({ quick, log }) {
    const keystrokes = quick ? 50 : 1_000;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-relay-keys-'));
    const host = new PtyHost({ logger: nullLogger, defaultCwd: dir });
    const relay = await startRealRelay(host, dir);
    const bare = await startBareForwarder();
    const relaySession = await host.create({ file: 'cat', args: [], shellIntegration: false, createdBy: { kind: 'person', name: 'bench' } });
    const bareSession = await host.create({ file: 'cat', args: [], shellIntegration: false, createdBy: { kind: 'person', name: 'bench' } });
    try {
      const viaRelay = await relay.attach(relaySession);
      const viaBare = await bare.attach(bareSession);
      // Warm-up, then alternate blocks of keystrokes so noise hits both alike.
      for (let index = 0; index < 20; index++) {
        await roundTrip(viaRelay, index);
        await roundTrip(viaBare, index);
      }
      const relayTimes: number[] = [];
      const bareTimes: number[] = [];
      for (let index = 0; index < keystrokes; index++) {
        relayTimes.push(await roundTrip(viaRelay, index));
        bareTimes.push(await roundTrip(viaBare, index));
      }
      viaRelay.close();
      viaBare.close();
      log(`${keystrokes} keystrokes each, one at a time, waiting for the echo`);
      return [
        { label: 'echo p50: bare ws forwarder', value: percentile(bareTimes, 50), unit: 'ms', digits: 3 },
        { label: 'echo p50: through the relay', value: percentile(relayTimes, 50), unit: 'ms', digits: 3 },
        { label: 'echo p99: bare ws forwarder', value: percentile(bareTimes, 99), unit: 'ms', digits: 3 },
        { label: 'echo p99: through the relay', value: percentile(relayTimes, 99), unit: 'ms', digits: 3 },
        { label: 'added by the relay, p50', value: percentile(relayTimes, 50) - percentile(bareTimes, 50), unit: 'ms', digits: 3 },
        { label: 'added by the relay, p99 (target < 3 ms)', value: percentile(relayTimes, 99) - percentile(bareTimes, 99), unit: 'ms', digits: 3 },
      ];
    } finally {
      await host.close(relaySession.id).catch(() => {});
      await host.close(bareSession.id).catch(() => {});
      await relay.close();
      await bare.close();
      host.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

const keys = 'abcdefghijklmnopqrstuvwxyz';
/** Time between keystrokes (fast typing is ~100 ms; anything above the 8 ms batch window will do). */
const keyGapMs = 15;

/** Milliseconds from sending one key to seeing its echo. */
async function roundTrip(viewer: BenchViewer, index: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, keyGapMs));
  const key = keys[index % keys.length]!;
  const started = performance.now();
  viewer.type(key);
  for (;;) {
    await viewer.nextOutput();
    if (viewer.lastText.includes(key)) return performance.now() - started;
  }
}
