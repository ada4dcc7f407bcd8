import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { incompleteUtf8TailLength, leadingContinuationLength, utf8SequenceLength, wellFormedUtf8Length } from '../../../../src/common/terminal/utf8Boundaries.ts';

// The reference for every check is the platform's own decoder (WHATWG TextDecoder), the one
// Buffer#toString, StringDecoder and xterm.js agree with.
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytesOf = (...values: number[]) => Uint8Array.from(values);
const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join(' ');

/**
 * Cutting `bytes[0, k)` at `k - tail` must leave exactly what a streaming decoder has decoded by
 * then (so the tail is exactly what it still waits for), and both sides decoded apart must give
 * the whole text.
 */
function assertEveryCutDecodesAsWhole(bytes: Uint8Array): void {
  const whole = decode(bytes);
  for (let k = 0; k <= bytes.length; k++) {
    const tail = incompleteUtf8TailLength(bytes, k);
    assert.ok(tail >= 0 && tail <= 3 && tail <= k, `[${hex(bytes)}] at ${k}: tail ${tail}`);
    const cut = k - tail;
    const streamed = new TextDecoder().decode(bytes.subarray(0, k), { stream: true });
    assert.equal(decode(bytes.subarray(0, cut)), streamed, `[${hex(bytes)}] at ${k}: tail ${tail} is not what the decoder waits for`);
    assert.equal(decode(bytes.subarray(0, cut)) + decode(bytes.subarray(cut)), whole, `[${hex(bytes)}] cut at ${cut}`);
    // The `end` argument and a shorter view agree.
    assert.equal(incompleteUtf8TailLength(bytes.subarray(0, k)), tail);
  }
}

// One char of each UTF-8 length, at the edges of each length's range and around the surrogates.
const samples = ['\u0000', 'a', '\u007f', '\u0080', 'é', '\u07ff', '\u0800', '€', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '😀', '\u{10ffff}'];

describe('UTF-8 boundaries: valid text', () => {
  test('a cut at every position of every sample holds back exactly the cut character', () => {
    for (const char of samples) {
      const bytes = new TextEncoder().encode(`x${char}y`);
      assertEveryCutDecodesAsWhole(bytes);
      const size = bytes.length - 2;
      for (let k = 1; k < size; k++) assert.equal(incompleteUtf8TailLength(bytes, 1 + k), k, `${JSON.stringify(char)} cut after ${k} bytes`);
      assert.equal(incompleteUtf8TailLength(bytes, 1 + size), 0, `${JSON.stringify(char)} whole`);
    }
  });

  test('a 4-byte character at every offset of a buffer, cut at every position', () => {
    for (let offset = 0; offset <= 8; offset++) {
      const bytes = new TextEncoder().encode(`${'a'.repeat(offset)}😀${'b'.repeat(8 - offset)}`);
      assertEveryCutDecodesAsWhole(bytes);
      for (let k = 0; k <= bytes.length; k++) {
        const inside = k > offset && k < offset + 4;
        assert.equal(incompleteUtf8TailLength(bytes, k), inside ? k - offset : 0, `offset ${offset}, cut at ${k}`);
        // A slice starting at k skips the rest of the character it starts inside.
        assert.equal(leadingContinuationLength(bytes, k), inside ? offset + 4 - k : 0, `offset ${offset}, start at ${k}`);
      }
    }
  });

  test('a slice that starts inside a character skips to the next whole one', () => {
    const text = samples.join('');
    const bytes = new TextEncoder().encode(text);
    for (let start = 0; start <= bytes.length; start++) {
      const from = start + leadingContinuationLength(bytes, start);
      assert.ok(text.endsWith(decode(bytes.subarray(from))), `start ${start}`);
      assert.equal(decode(bytes.subarray(from)).includes('\ufffd'), false, `start ${start}`);
    }
  });

  test('empty input has no tail and nothing to skip', () => {
    assert.equal(incompleteUtf8TailLength(new Uint8Array(0)), 0);
    assert.equal(leadingContinuationLength(new Uint8Array(0)), 0);
    assert.equal(leadingContinuationLength(bytesOf(0x80), 1), 0);
  });
});

describe('UTF-8 boundaries: invalid sequences are never held back', () => {
  const cases: Array<[string, number[]]> = [
    ['truncated 2-byte, then ASCII', [0xc3, 0x41]],
    ['truncated 3-byte, then ASCII', [0xe2, 0x82, 0x41]],
    ['truncated 4-byte, then a new lead', [0xf0, 0x9f, 0x98, 0xe2, 0x82, 0xac]],
    ['overlong 2-byte (C0/C1)', [0xc0, 0x80, 0xc1, 0xbf]],
    ['overlong 3-byte (E0 80–9F)', [0xe0, 0x80, 0x80, 0xe0, 0x9f, 0xbf]],
    ['overlong 4-byte (F0 80–8F)', [0xf0, 0x80, 0x80, 0x80, 0xf0, 0x8f, 0xbf, 0xbf]],
    ['UTF-16 surrogates (ED A0–BF)', [0xed, 0xa0, 0x80, 0xed, 0xbf, 0xbf]],
    ['past U+10FFFF (F4 90, F5–F7)', [0xf4, 0x90, 0x80, 0x80, 0xf5, 0x80, 0x80, 0x80, 0xf7, 0xbf]],
    ['bytes no sequence starts with (F8–FF)', [0xf8, 0x88, 0x80, 0x80, 0x80, 0xfe, 0xff]],
    ['lone continuation bytes', [0x41, 0x80, 0xbf, 0x80, 0x80, 0x80]],
    ['a complete character followed by an extra continuation', [0xe2, 0x82, 0xac, 0x82]],
  ];
  for (const [name, values] of cases) {
    test(`${name}: every cut decodes as the whole`, () => assertEveryCutDecodesAsWhole(bytesOf(0x61, ...values, 0x62)));
  }

  test('an ending that no well-formed sequence starts with is not held back', () => {
    for (const values of [[0xc0], [0xc1], [0xe0, 0x80], [0xe0, 0x9f], [0xed, 0xa0], [0xf0, 0x8f], [0xf0, 0x80, 0x80], [0xf4, 0x90], [0xf5], [0xf8], [0xff], [0x80], [0x41, 0x80], [0x80, 0x80, 0x80, 0x80]]) {
      assert.equal(incompleteUtf8TailLength(bytesOf(...values)), 0, hex(bytesOf(...values)));
    }
  });

  test('the start of a sequence at the edge of each valid range is held back', () => {
    for (const values of [[0xc2], [0xdf], [0xe0, 0xa0], [0xed, 0x9f], [0xef, 0xbf], [0xf0, 0x90], [0xf0, 0x90, 0x80], [0xf4, 0x8f, 0xbf], [0xf1]]) {
      assert.equal(incompleteUtf8TailLength(bytesOf(...values)), values.length, hex(bytesOf(...values)));
    }
  });

  test('every 1- to 3-byte combination of boundary bytes, cut at every position, in context', () => {
    const interesting = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff];
    for (const a of interesting) {
      assertEveryCutDecodesAsWhole(bytesOf(a, 0x80, 0x80, 0x80));
      for (const b of interesting) {
        assertEveryCutDecodesAsWhole(bytesOf(a, b, 0xbf, 0x41));
        for (const c of interesting) assertEveryCutDecodesAsWhole(bytesOf(0x41, a, b, c));
      }
    }
  });
});

describe('wellFormedUtf8Length', () => {
  test('agrees with a strict decoder on every lead and second byte', () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    for (let lead = 0; lead <= 0xff; lead++) {
      for (let second = 0; second <= 0xff; second++) {
        const bytes = bytesOf(lead, second, 0x80, 0x80);
        const length = wellFormedUtf8Length(bytes, 0);
        let expected = 0;
        for (const size of [2, 3, 4]) {
          try {
            if ([...strict.decode(bytes.subarray(0, size))].length === 1) expected = size;
          } catch {
            // not well-formed at this size
          }
        }
        assert.equal(length, expected, hex(bytes));
      }
    }
  });

  test('a sequence cut short by the end of the bytes is not well-formed', () => {
    const bytes = new TextEncoder().encode('😀');
    for (let end = 1; end < 4; end++) assert.equal(wellFormedUtf8Length(bytes.subarray(0, end), 0), 0);
    assert.equal(wellFormedUtf8Length(bytes, 0), 4);
    assert.equal(wellFormedUtf8Length(bytesOf(0x41), 0), 0);
  });

  test('utf8SequenceLength names the length each lead byte announces', () => {
    assert.deepEqual([0x41, 0x80, 0xc1, 0xc2, 0xdf, 0xe0, 0xef, 0xf0, 0xf4, 0xf5, 0xff].map(utf8SequenceLength), [1, 0, 0, 2, 2, 3, 3, 4, 4, 0, 0]);
  });
});
