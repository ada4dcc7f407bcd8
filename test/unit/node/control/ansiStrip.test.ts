import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AnsiStripper, normalizeNewlines, plainText, stripAnsi } from '../../../../src/node/control/ansiStrip.ts';
import { trimShellArtifacts } from '../../../../src/node/control/terminalOutput.ts';
import { random } from '../../../helpers/seededRandom.ts';

describe('stripAnsi', () => {
  it('removes CSI sequences (colours, cursor moves, private modes)', () => {
    assert.equal(stripAnsi('\x1b[1;31mred\x1b[0m \x1b[?2004hok\x1b[2K\x1b[10;5H!'), 'red ok!');
  });

  it('removes OSC strings with any payload, ended by BEL or ST', () => {
    assert.equal(stripAnsi('a\x1b]633;E;ls -la; echo "x y";nonce\x07b\x1b]0;title with spaces\x1b\\c'), 'abc');
    assert.equal(stripAnsi('\x1b]8;;https://example.com/?a=b&c\x07link\x1b]8;;\x07'), 'link');
  });

  it('removes DCS/APC strings and two-char escapes, keeps tab, LF and CR', () => {
    assert.equal(stripAnsi('\x1bP1$r0m\x1b\\x\x1b(B\x1b=\x1b7y\tz\r\n'), 'xy\tz\r\n');
  });

  it('drops other control chars and 8-bit C1 sequences', () => {
    assert.equal(stripAnsi('a\x07b\x08c\x00d\u009b31me\u009d0;t\u009cf'), 'abcdef');
  });

  it('keeps unicode text', () => {
    assert.equal(stripAnsi('\x1b[32mgrün ✓ 😀\x1b[0m'), 'grün ✓ 😀');
  });

  it('strips a stream whose sequences are split across chunks', () => {
    const stripper = new AnsiStripper();
    const input = 'he\x1b[3' + '1mllo\x1b]633;' + 'C\x07 wor' + '\x1b' + '[0mld';
    const parts = [input.slice(0, 4), input.slice(4, 6), input.slice(6, 14), input.slice(14, 22), input.slice(22)];
    assert.equal(parts.map((part) => stripper.push(part)).join(''), 'hello world');
  });

  it('gives the output back after a runaway OSC that never ends', () => {
    const text = stripAnsi('\x1b]0;' + 'x'.repeat(70_000) + 'after');
    assert.ok(text.endsWith('after'));
  });
});

describe('plain text helpers', () => {
  it('turns CR LF (and CR CR LF) into LF, keeping lone CRs', () => {
    assert.equal(normalizeNewlines('a\r\nb\r\r\nc\rd'), 'a\nb\nc\rd');
    assert.equal(plainText('\x1b[1mx\x1b[0m\r\n'), 'x\n');
  });

  it('trims fish’s leading CR and zsh’s PROMPT_SP line from command output', () => {
    assert.equal(trimShellArtifacts('\rhello\n'), 'hello\n');
    assert.equal(trimShellArtifacts('hello\n%' + ' '.repeat(79) + '\r \r'), 'hello\n');
    assert.equal(trimShellArtifacts('no newline#' + ' '.repeat(60) + '\r \r'), 'no newline');
    assert.equal(trimShellArtifacts('\r\nkept'), '\r\nkept');
  });
});

describe('stripAnsi fast path', () => {
  it('gives exactly what the state machine gives, for random mixes of text, sequences and controls', () => {
    const next = random(12345);
    const pieces = ['plain text ', 'é漢😀', '\x1b[31m', '\x1b[0m', '\x1b[1;38;5;200m', '\x1b[?25l', '\x1b[2 q', '\x1b[31', '\x1b[3\n1m', '\x1b]0;title\x07', '\x1b]633;E;ls -la\x1b\\', '\x1bP1$r\x1b\\', '\x1b(B', '\x1b7', '\x9b31m', '\x9d0;t\x9c', '\t', '\r\n', '\x08', '\x07', '\x00', '\x7f', '[31m', '\x1b[31é', '\x1b', '\x1b[\x1b[32m'];
    for (let round = 0; round < 2000; round++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 12) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
      assert.equal(stripAnsi(text), new AnsiStripper().push(text), JSON.stringify(text));
    }
  });
});
