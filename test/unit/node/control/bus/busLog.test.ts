import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BusLog } from '../../../../../src/node/control/bus/busLog.ts';
import { nullLogger } from '../../../../../src/node/logger.ts';
import { createTempHome } from '../../../../helpers/tempHome.ts';

function event(n: number) {
  return { topic: 'a.b', from: 'p-1', payload: { n }, sentAt: n };
}

describe('BusLog', () => {
  it('keeps at most maxEvents, numbered from 1, and returns what follows a cursor', () => {
    const log = new BusLog({ filePath: null, logger: nullLogger, maxEvents: 3 });
    for (let n = 1; n <= 5; n++) assert.equal(log.append(event(n)).sequence, n);
    assert.equal(log.size, 3);
    assert.deepEqual(log.since(0).map((e) => e.sequence), [3, 4, 5]);
    assert.deepEqual(log.since(4).map((e) => e.sequence), [5]);
    assert.equal(log.lastSequence, 5);
  });

  it('says how full it is: at its event cap, or when one more entry of the average size would pass its byte cap', () => {
    const byCount = new BusLog({ filePath: null, logger: nullLogger, maxEvents: 3 });
    assert.deepEqual(byCount.fill, { kept: 0, capacity: 3, full: false });
    byCount.append(event(1));
    byCount.append(event(2));
    assert.deepEqual(byCount.fill, { kept: 2, capacity: 3, full: false });
    byCount.append(event(3));
    byCount.append(event(4));
    assert.deepEqual(byCount.fill, { kept: 3, capacity: 3, full: true });
    // ~100-byte lines under a 350-byte cap: three fit, and a fourth would push the oldest out.
    const byBytes = new BusLog({ filePath: null, logger: nullLogger, maxEvents: 1000, maxBytes: 350 });
    byBytes.append({ ...event(1), payload: 'x'.repeat(30) });
    byBytes.append({ ...event(2), payload: 'x'.repeat(30) });
    assert.equal(byBytes.fill.full, false);
    byBytes.append({ ...event(3), payload: 'x'.repeat(30) });
    assert.deepEqual(byBytes.fill, { kept: 3, capacity: 1000, full: true });
  });

  it('bounds the bytes it keeps, but always keeps the newest event', () => {
    const log = new BusLog({ filePath: null, logger: nullLogger, maxBytes: 200 });
    for (let n = 1; n <= 10; n++) log.append({ ...event(n), payload: 'x'.repeat(60) });
    assert.ok(log.size < 10 && log.size >= 1);
    log.append({ ...event(11), payload: 'y'.repeat(1000) });
    assert.equal(log.size, 1);
    assert.equal(log.lastSequence, 11);
  });

  it('persists 0600, compacts past its bound, reloads, skips corrupt lines and keeps numbering', async () => {
    const temp = createTempHome('sb-buslog-');
    try {
      const filePath = join(temp.workspace, 'bus-log.ndjson');
      const log = new BusLog({ filePath, logger: nullLogger, maxEvents: 5 });
      for (let n = 1; n <= 30; n++) {
        log.append(event(n));
        await log.flush();
      }
      assert.equal(statSync(filePath).mode & 0o777, 0o600);
      const lines = readFileSync(filePath, 'utf8').trim().split('\n');
      assert.ok(lines.length <= 11, `compacted (file has ${lines.length} lines)`);
      log.append(event(31));
      log.dispose(); // the queued event is written synchronously
      writeFileSync(filePath, readFileSync(filePath, 'utf8') + 'garbage\n{"sequence":"x"}\n');

      const warnings: string[] = [];
      const logger = { ...nullLogger, warn: (message: string) => warnings.push(message), child: () => logger };
      const reloaded = new BusLog({ filePath, logger, maxEvents: 5 });
      await reloaded.load();
      assert.deepEqual(reloaded.since(0).map((e) => e.sequence), [27, 28, 29, 30, 31]);
      assert.equal(reloaded.append(event(32)).sequence, 32);
      assert.equal(warnings.length, 1);
      reloaded.dispose();
    } finally {
      temp.dispose();
    }
  });
});
