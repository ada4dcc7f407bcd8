/**
 * Relay throughput: a PTY flood (`cat` of a big build-log-like file in a shared terminal) to a
 * remote viewer over loopback, through the real relay (RelayClient → RelayServer → a viewer that
 * parses frames and decodes base64) vs a bare `ws` forwarder moving the same raw bytes, in the
 * same run, alternating. Target: relay ≥ 0.8× the bare forwarder. Skips (a viewer redrawn from a
 * snapshot because it fell behind) are counted: a run with skips delivered fewer bytes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nullLogger } from '../../src/node/logger.ts';
import { PtyHost } from '../../src/node/pty/ptyHost.ts';
import type { BenchCase } from '../benchCase.ts';
import { median, type RelayPath, startBareForwarder, startRealRelay } from './relayBench.ts';

export const relayThroughputCase: BenchCase = {
  name: 'relay-flood',
  description: 'bytes/s of a PTY flood to a remote viewer: through the relay vs a bare ws forwarder of the same bytes',
  async run({ quick, log }) {
    const sizeBytes = quick ? 4 * 1024 * 1024 : 32 * 1024 * 1024;
    const rounds = quick ? 1 : 3;
    const dir = mkdtempSync(join(tmpdir(), 'sb-bench-relay-'));
    const host = new PtyHost({ logger: nullLogger, defaultCwd: dir });
    const file = join(dir, 'flood.txt');
    writeFileSync(file, floodText(sizeBytes));
    const relay = await startRealRelay(host, dir);
    const bare = await startBareForwarder();
    try {
      log(`file: ${(sizeBytes / 1024 / 1024).toFixed(0)} MiB; ${rounds} round(s) each, alternating, after one warm-up each`);
      await flood(bare, host, file);
      await flood(relay, host, file);
      const bareRates: number[] = [];
      const relayRates: number[] = [];
      let skips = 0;
      for (let round = 0; round < rounds; round++) {
        const viaBare = await flood(bare, host, file);
        const viaRelay = await flood(relay, host, file);
        bareRates.push(viaBare.rate);
        relayRates.push(viaRelay.rate);
        skips += viaRelay.skips;
        log(`round ${round + 1}: bare ${(viaBare.rate / 1e6).toFixed(1)} MB/s, relay ${(viaRelay.rate / 1e6).toFixed(1)} MB/s (relay delivered ${(viaRelay.bytes / 1e6).toFixed(1)} MB, ${viaRelay.skips} skip(s))`);
      }
      return [
        { label: 'bare ws forwarder (median)', value: median(bareRates) / 1e6, unit: 'MB/s' },
        { label: 'through the relay (median)', value: median(relayRates) / 1e6, unit: 'MB/s' },
        { label: 'ratio relay / bare (target >= 0.8)', value: median(relayRates) / median(bareRates), unit: 'x', digits: 2 },
        { label: 'viewer skips during the relay runs', value: skips, unit: '', digits: 0 },
      ];
    } finally {
      await relay.close();
      await bare.close();
      host.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** One flood: the terminal waits for a keystroke, then cats the file and exits. */
async function flood(path: RelayPath, host: PtyHost, file: string): Promise<{ rate: number; bytes: number; skips: number }> {
  const session = await host.create({ file: 'bash', args: ['--norc', '--noprofile', '-c', `read -r _; exec cat '${file}'`], shellIntegration: false, cols: 120, rows: 40, createdBy: { kind: 'person', name: 'bench' } });
  const viewer = await path.attach(session);
  const started = performance.now();
  viewer.type('\r');
  while (!viewer.exited) await viewer.nextOutput();
  const seconds = (performance.now() - started) / 1000;
  const result = { rate: viewer.bytes / seconds, bytes: viewer.bytes, skips: viewer.snapshots };
  viewer.close();
  await host.close(session.id);
  if (viewer.bytes < 1024) throw new Error('the viewer received (almost) nothing');
  return result;
}

function floodText(size: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < size; index++) {
    const line =
      index % 7 === 0
        ? `\x1b[32m✔\x1b[0m test ${index} passed in ${index % 97} ms — données validées\n`
        : `[${String(index).padStart(8, '0')}] compiling src/package${index % 30}/component${index}.tsx (${(index * 31) % 10007} bytes)\n`;
    lines.push(line);
    length += Buffer.byteLength(line);
  }
  return lines.join('');
}
