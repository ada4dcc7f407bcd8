import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OutputRing } from '../../../../src/node/pty/outputRing.ts';

/** Bytes whose value is their absolute offset mod 251, so any misplaced byte is visible. */
function stream(from: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index++) bytes[index] = (from + index) % 251;
  return bytes;
}

describe('OutputRing', () => {
  test('reads back what was written by absolute offset before wrapping', () => {
    const ring = new OutputRing(1000);
    ring.write(stream(0, 300));
    ring.write(stream(300, 200));
    const read = ring.read(100, 250);
    assert.deepEqual(read, { data: stream(100, 250), startOffset: 100, endOffset: 350, truncated: false });
    assert.equal(ring.endOffset, 500);
    assert.equal(ring.startOffset, 0);
  });

  test('keeps the last capacity bytes after wrapping, and reads spanning the wrap are contiguous', () => {
    const ring = new OutputRing(1000);
    for (let offset = 0; offset < 2550; offset += 150) ring.write(stream(offset, 150));
    assert.equal(ring.endOffset, 2550);
    assert.equal(ring.startOffset, 1550);
    // 2000 is at position 0 of the buffer: this read crosses the physical end.
    const read = ring.read(1900, 300);
    assert.deepEqual(read, { data: stream(1900, 300), startOffset: 1900, endOffset: 2200, truncated: false });
    assert.deepEqual(ring.read(1550).data, stream(1550, 1000));
  });

  test('reading an overwritten range starts at the oldest byte held and says truncated', () => {
    const ring = new OutputRing(100);
    ring.write(stream(0, 250));
    const read = ring.read(10, 50);
    assert.deepEqual(read, { data: stream(150, 50), startOffset: 150, endOffset: 200, truncated: true });
  });

  test('a single write larger than the ring keeps its tail', () => {
    const ring = new OutputRing(64);
    ring.write(stream(0, 10));
    ring.write(stream(10, 500));
    assert.equal(ring.endOffset, 510);
    assert.deepEqual(ring.read(0), { data: stream(446, 64), startOffset: 446, endOffset: 510, truncated: true });
  });

  test('reads into a buffer it is given when that is long enough, else into a new one', () => {
    const ring = new OutputRing(1000);
    for (let offset = 0; offset < 1700; offset += 170) ring.write(stream(offset, 170));
    const into = Buffer.alloc(400, 0xff);
    const read = ring.read(900, 300, into);
    assert.deepEqual(read.data, stream(900, 300));
    assert.equal(read.data.buffer, into.buffer, 'the bytes are in the buffer given');
    assert.equal(into[300], 0xff, 'nothing written past the read');
    const longer = ring.read(900, 500, into);
    assert.deepEqual(longer.data, stream(900, 500));
    assert.notEqual(longer.data.buffer, into.buffer, 'too short a buffer is not written past its end');
  });

  test('reads at or past the end are empty', () => {
    const ring = new OutputRing(100);
    ring.write(stream(0, 40));
    assert.deepEqual(ring.read(40), { data: Buffer.alloc(0), startOffset: 40, endOffset: 40, truncated: false });
    assert.deepEqual(ring.read(70), { data: Buffer.alloc(0), startOffset: 40, endOffset: 40, truncated: false });
    assert.throws(() => ring.read(-1), RangeError);
  });

  test('memory grows as output arrives, up to the capacity, without losing data', () => {
    // Not a multiple of the ring's 64 KiB chunks, so the last chunk is a short one.
    const capacity = 300 * 1024 + 7;
    const ring = new OutputRing(capacity);
    let offset = 0;
    for (const size of [10, 70_000, 100_000, 200_000, 50_000]) {
      ring.write(stream(offset, size));
      offset += size;
      const held = Math.min(offset, capacity);
      assert.deepEqual(ring.read(offset - held).data, stream(offset - held, held), `after ${offset}`);
    }
    // Wrapped several times over, in writes that cross chunk edges and the ring's end.
    for (let round = 0; round < 40; round++) {
      const size = 1 + ((round * 37_717) % 90_000);
      ring.write(stream(offset, size));
      offset += size;
      assert.deepEqual(ring.read(offset - capacity).data, stream(offset - capacity, capacity), `round ${round}`);
      assert.deepEqual(ring.read(offset - 1000, 600).data, stream(offset - 1000, 600));
    }
  });

  test('finds the last byte of a range in place, across chunks, the wrap and an overwritten start', () => {
    // Three and a half 64 KiB chunks, so the wrap falls inside the short last chunk.
    const capacity = 3.5 * 64 * 1024;
    const ring = new OutputRing(capacity);
    const written: number[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // An ESC (0x1b) in one piece of ten, written in pieces of every size until the ring wrapped twice.
    while (written.length < capacity * 2.3) {
      const piece = Buffer.alloc(1 + Math.floor(random() * 40_000), 0x41);
      if (random() < 0.1) piece[Math.floor(random() * piece.length)] = 0x1b;
      ring.write(piece);
      written.push(...piece);
    }
    /** What lastIndexOf must answer, by looking at every byte ever written. */
    const expected = (from: number, to: number) => {
      const heldFrom = Math.min(Math.max(from, ring.startOffset), ring.endOffset);
      for (let offset = Math.min(to, ring.endOffset) - 1; offset >= heldFrom; offset--) if (written[offset] === 0x1b) return { index: offset, heldFrom };
      return { index: -1, heldFrom };
    };
    const end = ring.endOffset;
    const cases: Array<[number, number]> = [
      [ring.startOffset, end],
      [0, end], // asks for more than is held
      [end - 10, end],
      [end - 64 * 1024 - 3, end - 64 * 1024 + 3], // across a chunk boundary
      [end, end], // empty
      [end - 5, end + 100], // past the end
    ];
    for (let i = 0; i < 200; i++) {
      const from = ring.startOffset - 1000 + Math.floor(random() * (capacity + 1000));
      cases.push([from, from + Math.floor(random() * 300_000)]);
    }
    for (const [from, to] of cases) assert.deepEqual(ring.lastIndexOf(0x1b, from, to), expected(from, to), `[${from}, ${to})`);
    assert.ok(cases.some(([from, to]) => expected(from, to).index !== -1) && cases.some(([from, to]) => expected(from, to).index === -1 && to > from + 1000), 'both outcomes were tried');
  });
});
