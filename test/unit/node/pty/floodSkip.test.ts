import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findFloodRun } from '../../../../src/node/pty/floodSkip.ts';

const lines = (count: number, line: (index: number) => string) => Array.from({ length: count }, (_, index) => line(index)).join('');

describe('findFloodRun', () => {
  test('cuts after a CR LF, keeping more than keepLineFeeds line feeds, and counts the chars it cuts exactly', () => {
    const text = lines(500, (index) => `ligne ${index} — é 😀\r\n`);
    const bytes = Buffer.from(text);
    const run = findFloodRun(bytes, 100, 1);
    assert.ok(run);
    assert.equal(run.start, 0);
    assert.equal(run.end, bytes.length);
    assert.equal(bytes[run.cut - 2], 0x0d);
    assert.equal(bytes[run.cut - 1], 0x0a);
    const kept = bytes.subarray(run.cut).toString();
    assert.ok((kept.match(/\n/g) ?? []).length >= 100);
    assert.ok((kept.match(/\n/g) ?? []).length <= 102, 'it cuts as late as it may');
    assert.equal(run.cutChars, bytes.subarray(0, run.cut).toString().length);
  });

  test('a run that ends at a broken UTF-8 sequence still counts the chars it cuts exactly', () => {
    // The lead byte of a 3-byte sequence whose rest comes in a later write ends the run.
    const bytes = Buffer.concat([Buffer.from(lines(50, (index) => `é ${index}\r\n`)), Buffer.from([0xe2, 0x82])]);
    const run = findFloodRun(bytes, 10, 1);
    assert.ok(run);
    assert.equal(run.end, bytes.length - 2);
    assert.equal(run.cutChars, bytes.subarray(0, run.cut).toString().length);
  });

  test('no run when there are too few line feeds or too little to gain', () => {
    assert.equal(findFloodRun(Buffer.from(lines(50, (index) => `${index}\r\n`)), 100, 1), null);
    assert.equal(findFloodRun(Buffer.from(lines(500, (index) => `${index}\r\n`)), 100, 1_000_000), null);
  });

  test('the replay holds each SGR sequence of the cut part once, at its last occurrence, in order', () => {
    const text = `\x1b[1m${lines(300, (index) => `\x1b[${index % 2 ? 32 : 33}m${index}\x1b[K\r\n`)}`;
    const run = findFloodRun(Buffer.from(text), 50, 1);
    assert.ok(run);
    assert.equal(Buffer.from(run.replay).toString('latin1'), expectedReplay(text.slice(0, run.cut)));
    assert.deepEqual(Buffer.from(run.replay).toString('latin1').split(/(?=\x1b)/).sort(), ['\x1b[1m', '\x1b[32m', '\x1b[33m']);
  });

  test('the replay starts at the last reset: what came before it no longer counts', () => {
    const text = `\x1b[1m\x1b[4m${lines(300, (index) => `\x1b[${index % 2 ? 32 : 0}m${index}\x1b[K\r\n`)}`;
    const run = findFloodRun(Buffer.from(text), 50, 1);
    assert.ok(run);
    assert.equal(Buffer.from(run.replay).toString('latin1'), expectedReplay(text.slice(0, run.cut)));
    assert.ok(Buffer.from(run.replay).toString('latin1').startsWith('\x1b[0m'));
    // Every way of writing a reset counts (xterm.js reads 0 with sub-parameters as 0); 01 is bold, not a reset.
    for (const [sequence, isReset] of [['\x1b[m', true], ['\x1b[00m', true], ['\x1b[0;1m', true], ['\x1b[;4m', true], ['\x1b[0:3m', true], ['\x1b[:3m', true], ['\x1b[01m', false], ['\x1b[10m', false]] as const) {
      const flood = `\x1b[35m${sequence}${lines(300, (index) => `${index}\r\n`)}`;
      const cut = findFloodRun(Buffer.from(flood), 50, 1);
      assert.ok(cut);
      assert.equal(Buffer.from(cut.replay).toString('latin1'), isReset ? sequence : `\x1b[35m${sequence}`, JSON.stringify(sequence));
    }
  });

  test('a run ends at anything that is not plain: other escapes, C0 and C1 controls, invalid UTF-8', () => {
    const plain = lines(300, (index) => `${index}\r\n`);
    for (const breaker of ['\x1b[2J', '\x1b[?25l', '\x1b]0;t\x07', '\x08', '\x07', '\x0e', '\u009b', '\xff']) {
      const bytes = breaker === '\xff' ? Buffer.concat([Buffer.from(plain), Buffer.from([0xff]), Buffer.from(plain)]) : Buffer.from(`${plain}${breaker}${plain}`);
      const run = findFloodRun(bytes, 100, 1);
      assert.ok(run, JSON.stringify(breaker));
      assert.equal(run.start, 0);
      assert.equal(run.end, Buffer.byteLength(plain), `a run ends at ${JSON.stringify(breaker)}`);
    }
  });

  test('after a complete escape sequence the next run starts behind it', () => {
    const bytes = Buffer.from(`x\x1b[2;5r${lines(300, (index) => `${index}\r\n`)}`);
    const run = findFloodRun(bytes, 100, 1);
    assert.ok(run);
    assert.equal(run.start, 'x\x1b[2;5r'.length);
  });
});

/** Each distinct SGR sequence of `text` from its last reset on, at its last occurrence, in order. */
function expectedReplay(text: string): string {
  const all: string[] = text.match(/\x1b\[[0-9;:]*m/g) ?? [];
  const lastReset = all.findLastIndex((sequence) => /^\x1b\[0*[;:m]/.test(sequence));
  const sequences = all.slice(Math.max(0, lastReset));
  return sequences.filter((sequence, index) => sequences.lastIndexOf(sequence) === index).join('');
}
