/**
 * The bus's replay log survives a restart: a new Hub on the same data dir replays what the old
 * one logged, skips a damaged line, and keeps numbering after the last sequence.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Hub } from '../../../src/node/hub.ts';
import { nullLogger } from '../../../src/node/logger.ts';
import { createTempHome } from '../../helpers/tempHome.ts';
import { NdjsonClient } from './controlTestKit.ts';

describe('claws/2 bus log persistence', () => {
  const temp = createTempHome('sb-bus-');
  after(() => temp.dispose());

  async function startHub(): Promise<Hub> {
    const hub = new Hub({ dataDir: temp.dataDir, workspaceFolders: [temp.workspace], host: 'test', logger: nullLogger, env: {}, clawsCompatSockets: false });
    await hub.start();
    return hub;
  }

  async function peer(hub: Hub, name: string): Promise<NdjsonClient> {
    const client = await NdjsonClient.connect(hub.controlSocketPath);
    const response = await client.request({ cmd: 'hello', protocol: 'claws/2', role: 'worker', peerName: name });
    assert.equal(response.ok, true, response.error);
    return client;
  }

  it('replays events logged before a restart, skipping a corrupt line, with sequences still growing', async () => {
    const first = await startHub();
    const publisher = await peer(first, 'before');
    const sequences: number[] = [];
    for (const n of [1, 2, 3]) {
      const response = await publisher.request({ cmd: 'publish', topic: 'persist.item', payload: { n } });
      sequences.push(response.sequence);
    }
    publisher.close();
    await first.shutdown();

    const logPath = join(temp.dataDir, 'bus-log.ndjson');
    assert.equal(statSync(logPath).mode & 0o777, 0o600);
    const lines = readFileSync(logPath, 'utf8').trim().split('\n');
    assert.ok(lines.some((line) => JSON.parse(line).topic === 'persist.item'));
    appendFileSync(logPath, '{this is not json\n');

    const second = await startHub();
    try {
      const reader = await peer(second, 'after');
      const subscribed = await reader.request({ cmd: 'subscribe', topic: 'persist.*', fromCursor: 0 });
      assert.equal(subscribed.ok, true, subscribed.error);
      assert.ok(subscribed.resumeCursor >= sequences[2]!);
      const caughtUp = await reader.waitFor((frame) => frame.push === 'caught-up');
      assert.equal(caughtUp.replayedCount, 3);
      const replayed = reader.frames.splice(0).filter((frame) => frame.push === 'message');
      assert.deepEqual(
        replayed.map((frame) => [frame.payload.n, frame.sequence, frame.replayed]),
        sequences.map((sequence, index) => [index + 1, sequence, true]),
      );
      const next = await reader.request({ cmd: 'publish', topic: 'persist.item', payload: { n: 4 } });
      assert.ok(next.sequence > subscribed.resumeCursor, 'sequence numbers continue after a restart');
      reader.close();
    } finally {
      await second.shutdown();
    }
  });
});
