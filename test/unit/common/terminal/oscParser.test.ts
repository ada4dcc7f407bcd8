import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OscParser, type OscParserHandler } from '../../../../src/common/terminal/oscParser.ts';

type Seen = Array<{ kind: 'osc'; payload: string; end: number; terminator: 1 | 2 } | { kind: 'bell'; at: number }>;

/** Feed `chunks` and record what the parser saw, with positions made absolute in the whole stream. */
function scan(chunks: string[], options: { maxPayloadChars?: number } = {}): Seen {
  const seen: Seen = [];
  let base = 0;
  const handler: OscParserHandler = {
    onOsc: (payload, endIndex, terminator) => seen.push({ kind: 'osc', payload, end: base + endIndex, terminator }),
    onBell: (index) => seen.push({ kind: 'bell', at: base + index }),
  };
  const parser = new OscParser(handler, options);
  for (const chunk of chunks) {
    parser.feed(chunk);
    base += chunk.length;
  }
  return seen;
}

const sample =
  'plain \x1b[1mbold\x1b[0m\x1b]633;A\x07$ \x1b]633;B\x1b\\ls\r\n' +
  '\x1b]633;E;ls -la\\x3b echo;nonce\x07\x1b]633;C\x07out\x07put é 😀\r\n' +
  '\x1b]633;D;0\x1b\\\x1b]7;file://host/tmp/a%20b\x07\x1bP+q\x07ignored\x1b\\tail\x07';

describe('OscParser', () => {
  test('reports OSC payloads with BEL and ST terminators, and bells outside sequences', () => {
    const seen = scan([sample]);
    assert.deepEqual(
      seen.map((item) => (item.kind === 'osc' ? `osc:${item.payload}:${item.terminator}` : `bell`)),
      [
        'osc:633;A:1',
        'osc:633;B:2',
        'osc:633;E;ls -la\\x3b echo;nonce:1',
        'osc:633;C:1',
        'bell',
        'osc:633;D;0:2',
        'osc:7;file://host/tmp/a%20b:1',
        'bell',
      ],
    );
    const firstOsc = seen[0];
    assert.ok(firstOsc?.kind === 'osc');
    assert.equal(sample.substring(0, firstOsc.end).endsWith('\x1b]633;A\x07'), true);
    const bells = seen.filter((item) => item.kind === 'bell');
    assert.deepEqual(
      bells.map((item) => item.kind === 'bell' && item.at),
      [sample.indexOf('out\x07') + 3, sample.length - 1],
    );
  });

  test('gives the same result for a stream split in two at every position', () => {
    const whole = scan([sample]);
    for (let split = 0; split <= sample.length; split++) {
      assert.deepEqual(scan([sample.substring(0, split), sample.substring(split)]), whole, `split at ${split}`);
    }
  });

  test('gives the same result for a stream split in three at every pair of positions', () => {
    const whole = scan([sample]);
    for (let first = 0; first <= sample.length; first++) {
      for (let second = first; second <= sample.length; second++) {
        const chunks = [sample.substring(0, first), sample.substring(first, second), sample.substring(second)];
        assert.deepEqual(scan(chunks), whole, `split at ${first} and ${second}`);
      }
    }
  });

  test('gives the same result when fed one char at a time', () => {
    assert.deepEqual(scan([...sample]), scan([sample]));
  });

  test('a BEL inside DCS, SOS, PM or APC is data, not a bell', () => {
    for (const introducer of ['P', 'X', '^', '_']) {
      assert.deepEqual(scan([`\x1b${introducer}abc\x07def\x1b\\`]), [], introducer);
    }
  });

  test('an OSC interrupted by another escape is dropped and the new escape is honoured', () => {
    const seen = scan(['\x1b]633;A no terminator\x1b[0m\x1b]633;B\x07\x07']);
    assert.deepEqual(seen, [
      { kind: 'osc', payload: '633;B', end: 33, terminator: 1 },
      { kind: 'bell', at: 33 },
    ]);
  });

  test('an OSC interrupted by a new OSC keeps the new one', () => {
    const seen = scan(['\x1b]0;title\x1b]633;C\x07']);
    assert.deepEqual(seen, [{ kind: 'osc', payload: '633;C', end: 17, terminator: 1 }]);
  });

  test('an oversized OSC is discarded whole and parsing recovers after its terminator', () => {
    const big = 'x'.repeat(100);
    const stream = `\x1b]633;E;${big}\x07\x1b]633;C\x07`;
    assert.deepEqual(scan([stream], { maxPayloadChars: 50 }), [{ kind: 'osc', payload: '633;C', end: stream.length, terminator: 1 }]);
    // Also when the oversized payload arrives in many small chunks.
    assert.deepEqual(scan([...stream], { maxPayloadChars: 50 }), [{ kind: 'osc', payload: '633;C', end: stream.length, terminator: 1 }]);
  });

  test('the default cap keeps 64 KiB payloads and drops larger ones', () => {
    const atCap = `\x1b]9;${'y'.repeat(64 * 1024 - 2)}\x07`;
    assert.equal(scan([atCap]).length, 1);
    const overCap = `\x1b]9;${'y'.repeat(64 * 1024)}\x07`;
    assert.deepEqual(scan([overCap]), []);
  });

  test('an unterminated OSC at the end of input is held, not reported, and reset() forgets it', () => {
    const seen: string[] = [];
    const parser = new OscParser({ onOsc: (payload) => seen.push(payload), onBell: () => seen.push('bell') });
    parser.feed('\x1b]633;A');
    assert.deepEqual(seen, []);
    parser.reset();
    parser.feed('\x07');
    assert.deepEqual(seen, ['bell']);
  });

  test('random control-heavy input never throws', () => {
    const alphabet = ['\x1b', '\x07', ']', '\\', 'P', '[', '6', '3', ';', 'A', 'é', '😀', 'x'];
    let state = 12345;
    const random = () => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state;
    };
    for (let run = 0; run < 200; run++) {
      let text = '';
      for (let index = 0; index < 200; index++) text += alphabet[random() % alphabet.length];
      const chunks: string[] = [];
      for (let at = 0; at < text.length; ) {
        const size = 1 + (random() % 17);
        chunks.push(text.substring(at, at + size));
        at += size;
      }
      assert.deepEqual(scan(chunks, { maxPayloadChars: 16 }), scan([text], { maxPayloadChars: 16 }));
    }
  });
});
