import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LineFramer } from '../../../../src/node/control/lineFramer.ts';

function framer(max = 16) {
  const lines: string[] = [];
  return { lines, framer: new LineFramer(max, (line) => lines.push(line)) };
}

describe('LineFramer', () => {
  it('splits lines, keeps a partial line until its newline arrives', () => {
    const { lines, framer: f } = framer();
    assert.equal(f.push(Buffer.from('a\nbb\ncc')), 'ok');
    assert.deepEqual(lines, ['a', 'bb']);
    assert.equal(f.pendingBytes, 2);
    f.push(Buffer.from('c\n'));
    assert.deepEqual(lines, ['a', 'bb', 'ccc']);
    assert.equal(f.pendingBytes, 0);
  });

  it('never splits a UTF-8 character across chunks', () => {
    const { lines, framer: f } = framer(64);
    const bytes = Buffer.from('é€😀\n');
    for (let index = 0; index < bytes.length; index++) f.push(bytes.subarray(index, index + 1));
    assert.deepEqual(lines, ['é€😀']);
  });

  it('accepts many small lines in one chunk even when the chunk is larger than the limit', () => {
    const { lines, framer: f } = framer(16);
    assert.equal(f.push(Buffer.from('{}\n'.repeat(10_000))), 'ok');
    assert.equal(lines.length, 10_000);
  });

  it('overflows on one complete line longer than the limit', () => {
    const { lines, framer: f } = framer(4);
    assert.equal(f.push(Buffer.from('ok\n12345\nnever\n')), 'overflow');
    assert.deepEqual(lines, ['ok']);
    assert.equal(f.push(Buffer.from('x\n')), 'overflow', 'stays overflowed');
  });

  it('overflows when an unterminated line grows past the limit across chunks', () => {
    const { framer: f } = framer(4);
    assert.equal(f.push(Buffer.from('123')), 'ok');
    assert.equal(f.push(Buffer.from('45')), 'overflow');
  });

  it('allows a line of exactly the limit', () => {
    const { lines, framer: f } = framer(4);
    assert.equal(f.push(Buffer.from('12')), 'ok');
    assert.equal(f.push(Buffer.from('34\n')), 'ok');
    assert.deepEqual(lines, ['1234']);
  });
});
