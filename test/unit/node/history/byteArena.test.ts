import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ByteArena } from '../../../../src/node/history/byteArena.ts';

function bytes(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => (index * 31 + seed) & 0xff);
}

describe('ByteArena', () => {
  test('copies are exact and independent of the source, and do not overlap each other', () => {
    const arena = new ByteArena({ slabBytes: 100, maxSpareSlabs: 2 });
    const sources = [bytes(40, 1), bytes(40, 2), bytes(40, 3)];
    const copies = sources.map((source) => arena.copy(source));
    for (const source of sources) source.fill(0);
    copies.forEach((copy, index) => assert.deepEqual(new Uint8Array(copy), bytes(40, index + 1)));
    // Two fit a slab; the third starts a new one.
    assert.equal(copies[0]!.buffer, copies[1]!.buffer);
    assert.notEqual(copies[1]!.buffer, copies[2]!.buffer);
  });

  test('concat joins pieces in order', () => {
    const arena = new ByteArena({ slabBytes: 100, maxSpareSlabs: 1 });
    const joined = arena.concat([bytes(3, 1), bytes(0, 0), bytes(5, 2)], 8);
    assert.deepEqual(new Uint8Array(joined), Uint8Array.from([...bytes(3, 1), ...bytes(5, 2)]));
  });

  test('after reset the slabs are reused; spares are what the last copying cycle needed, at most the cap', () => {
    const arena = new ByteArena({ slabBytes: 100, maxSpareSlabs: 2 });
    const firstCycle = [arena.copy(bytes(100, 1)), arena.copy(bytes(100, 2)), arena.copy(bytes(100, 3))];
    assert.equal(arena.retainedBytes, 300);
    arena.reset();
    assert.equal(arena.retainedBytes, 200, 'three slabs used, two kept');
    const reused = arena.copy(bytes(10, 4));
    assert.ok(firstCycle.some((copy) => copy.buffer === reused.buffer), 'a kept slab is reused');
    arena.reset();
    assert.equal(arena.retainedBytes, 100, 'a cycle that needed one slab keeps one');
    arena.reset();
    assert.equal(arena.retainedBytes, 100, 'a cycle that copied nothing changes nothing');
  });

  test('a copy bigger than a slab gets its own buffer, which is never handed out again', () => {
    const arena = new ByteArena({ slabBytes: 100, maxSpareSlabs: 2 });
    const big = arena.copy(bytes(250, 7));
    assert.deepEqual(new Uint8Array(big), bytes(250, 7));
    assert.equal(arena.retainedBytes, 0);
    arena.reset();
    assert.notEqual(arena.copy(bytes(10, 1)).buffer, big.buffer);
  });
});
