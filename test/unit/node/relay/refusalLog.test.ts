import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../../../src/node/logger.ts';
import { RefusalLog } from '../../../../src/node/relay/refusalLog.ts';
import { pollUntil } from '../../../helpers/poll.ts';

describe('RefusalLog', () => {
  it('logs the first refusal of each kind, counts the rest and summarises them once per interval', async () => {
    const lines: string[] = [];
    const log = new RefusalLog({ logger: createLogger({ level: 'info', sink: (line) => lines.push(line) }), summaryIntervalMs: 50 });
    try {
      for (let index = 0; index < 1000; index++) log.refuse('schema', `bad frame ${index}`);
      log.refuse('binding', 'binding: channelId mismatch: got "a", want "b"');
      assert.equal(lines.length, 2);
      assert.match(lines[0]!, /WARN .*refused a relay frame \(schema\): bad frame 0; further schema refusals are counted, not logged/);
      assert.match(lines[1]!, /refused a relay frame \(binding\): binding: channelId mismatch/);
      assert.equal(log.count('schema'), 1000);
      assert.equal(log.count(), 1001);
      await pollUntil(() => lines.length === 3, { what: 'summary line' });
      assert.match(lines[2]!, /more relay frames refused since the last report \{"counts":\{"schema":999\},"windowMs":50\}/);
    } finally {
      log.dispose();
    }
  });

  it('bounds the number of distinct kinds it remembers', () => {
    const log = new RefusalLog({ logger: createLogger({ level: 'silent' }) });
    for (let index = 0; index < 200; index++) log.refuse(`kind-${index}`, 'x');
    assert.ok(log.totals.size <= 65);
    assert.equal(log.count(), 200);
    log.dispose();
  });
});
