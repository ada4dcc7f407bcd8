import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OutputBatcher } from '../../../../src/node/pty/outputBatcher.ts';

/** A batcher whose batches are decoded and collected; flushes are driven by the test. */
function collecting(maxBytes = 64 * 1024) {
  const batches: Buffer[] = [];
  const batcher = new OutputBatcher({ maxBytes, maxDelayMs: 8, onBatch: (bytes) => batches.push(Buffer.from(bytes)) });
  return { batcher, batches };
}

// One char of each UTF-8 length: 1, 2, 3 and 4 bytes (the last is a surrogate pair in JS).
const text = 'aé€😀b';
const bytes = Buffer.from(text, 'utf8');

describe('OutputBatcher', () => {
  test('holds back a cut character but not bytes no character starts with', () => {
    const { batcher, batches } = collecting();
    batcher.push(Buffer.from([0x41, 0xe2, 0x82]));
    batcher.flush();
    batcher.push(Buffer.from([0xac, 0xc0]));
    batcher.flush();
    batcher.push(Buffer.from([0xed, 0xa0]));
    batcher.flush();
    assert.deepEqual(batches.map((batch) => [...batch]), [[0x41], [0xe2, 0x82, 0xac, 0xc0], [0xed, 0xa0]]);
    batcher.dispose();
  });

  test('never splits a multi-byte char, whatever byte position the chunks split at', () => {
    for (let split = 0; split <= bytes.length; split++) {
      const { batcher, batches } = collecting();
      batcher.push(bytes.subarray(0, split));
      batcher.flush();
      batcher.push(bytes.subarray(split));
      batcher.flush();
      batcher.end();
      for (const batch of batches) assert.equal(batch.toString('utf8').includes('\ufffd'), false, `split ${split}`);
      assert.equal(Buffer.concat(batches).toString('utf8'), text, `split ${split}`);
      batcher.dispose();
    }
  });

  test('never splits a multi-byte char when every byte arrives alone', () => {
    const { batcher, batches } = collecting();
    for (const byte of bytes) {
      batcher.push(Buffer.from([byte]));
      batcher.flush();
    }
    batcher.end();
    assert.deepEqual(
      batches.map((batch) => batch.toString('utf8')),
      ['a', 'é', '€', '😀', 'b'],
    );
    batcher.dispose();
  });

  test('a full batch is flushed at once, carrying a cut char into the next batch', () => {
    // 7 ASCII bytes then '€' (3 bytes): the 8-byte limit cuts the '€' after its first byte.
    const { batcher, batches } = collecting(8);
    batcher.push(Buffer.from('abcdefg€xyz'));
    assert.deepEqual(batches.map((batch) => batch.toString()), ['abcdefg']);
    batcher.flush();
    assert.deepEqual(batches.map((batch) => batch.toString()), ['abcdefg', '€xyz']);
    batcher.dispose();
  });

  test('end() flushes an incomplete trailing sequence as is (the stream is over)', () => {
    const { batcher, batches } = collecting();
    batcher.push(Buffer.from('x€').subarray(0, 2));
    batcher.flush();
    assert.deepEqual(batches.map((batch) => [...batch]), [[0x78]]);
    batcher.end();
    assert.deepEqual(batches.map((batch) => [...batch]), [[0x78], [0xe2]]);
    batcher.dispose();
  });

  test('flushes on the next turn after quiet, and at most every maxDelayMs under load', (t) => {
    t.mock.timers.enable({ apis: ['setImmediate', 'setTimeout'] });
    let now = 1000;
    const batches: string[] = [];
    const batcher = new OutputBatcher({ maxBytes: 1024, maxDelayMs: 8, now: () => now, onBatch: (b) => batches.push(b.toString()) });
    batcher.push(Buffer.from('a'));
    assert.deepEqual(batches, []);
    t.mock.timers.tick(0); // runs the setImmediate
    assert.deepEqual(batches, ['a']);
    // Output keeps coming 1 ms later: held until 8 ms after the previous flush.
    now += 1;
    batcher.push(Buffer.from('b'));
    batcher.push(Buffer.from('c'));
    t.mock.timers.tick(0);
    assert.deepEqual(batches, ['a']);
    now += 7;
    t.mock.timers.tick(7);
    assert.deepEqual(batches, ['a', 'bc']);
    batcher.dispose();
  });

  test('dispose cancels a scheduled flush', (t) => {
    t.mock.timers.enable({ apis: ['setImmediate', 'setTimeout'] });
    const { batcher, batches } = collecting();
    batcher.push(Buffer.from('late'));
    batcher.dispose();
    t.mock.timers.tick(100);
    assert.deepEqual(batches, []);
  });
});
