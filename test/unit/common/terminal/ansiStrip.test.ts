import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AnsiStripper, normalizeNewlines, openSequenceTail, plainText, stripAnsi } from '../../../../src/common/terminal/ansiStrip.ts';
import { trimShellArtifacts } from '../../../../src/node/control/terminalOutput.ts';
import { random } from '../../../helpers/seededRandom.ts';

describe('stripAnsi', () => {
  it('removes CSI sequences (colours, cursor moves, private modes)', () => {
    assert.equal(stripAnsi('\x1b[1;31mred\x1b[0m \x1b[?2004hok\x1b[5C\x1b[10;5H!'), 'red ok!');
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

describe('sequence boundaries for readers that cut output', () => {
  it('openSequenceTail: how much of a slice finishes a sequence the output before it left open', () => {
    const nonce = '9f8e7d6c5b4a';
    const output = `$ \x1b]633;A;${nonce}\x07\x1b[31mred\x1b[0m\x1b]633;E;ls\x1b\\done`;
    const stripped = stripAnsi(output);
    // Cut at every position: what is left after the skip strips to a suffix of the whole, nonce-free.
    for (let cut = 0; cut <= output.length; cut++) {
      const rest = output.substring(cut);
      const tail = stripAnsi(rest.substring(openSequenceTail(output.substring(0, cut), rest)));
      assert.ok(stripped.endsWith(tail), `cut at ${cut}: ${JSON.stringify(tail)}`);
      assert.ok(!tail.includes('633') && !tail.includes(nonce.substring(2)), `cut at ${cut}: ${JSON.stringify(tail)}`);
    }
  });

  it('only the last ESC before the cut matters: an earlier unfinished string does not confuse it', () => {
    // The context starts inside an OSC whose start is not held; its ST's ESC resynchronises.
    assert.equal(openSequenceTail('payload of an osc\x1b\\text \x1b[3', '1mred'), 2);
    assert.equal(openSequenceTail('no escape at all', '633;A;nonce\x07'), 0, 'nothing to go on: taken as outside');
  });

  it('openSequenceStart: where a sequence still open at the end of a push began', () => {
    const stripper = new AnsiStripper();
    stripper.push('text \x1b[31mred\x1b]633;A;abc');
    assert.equal(stripper.inSequence, true);
    assert.equal(stripper.openSequenceStart, 'text \x1b[31mred'.length);
    stripper.push('\x07');
    assert.equal(stripper.inSequence, false);
    assert.equal(stripper.openSequenceStart, -1);
    stripper.push('\x1b[1;3');
    assert.equal(stripper.openSequenceStart, 0);
    assert.equal(stripper.finishSequence('2mgreen'), 2);
    assert.equal(stripper.inSequence, false);
  });
});

describe('in-line redraws (text erased on screen is not read back)', () => {
  it('a spinner erased with CHA + EL leaves nothing; CR overwrites; EL 1/2 and ED act on the line', () => {
    assert.equal(plainText('running tests\r\n⠙\x1b[1G\x1b[0K⠹\x1b[G\x1b[K'), 'running tests\n');
    assert.equal(plainText('10%\r55%\r100%\r\ndone\r\n'), '100%\ndone\n');
    assert.equal(plainText('long line\rab\r\n'), 'abng line\n');
    assert.equal(plainText('old\x1b[2Knew'), '   new');
    assert.equal(plainText('abcdef\r\x1b[3C\x1b[1K!'), '!bcdef', 'ESC[3C is stripped, not played');
    assert.equal(plainText('prompt junk\r\x1b[0m\x1b[J$ '), '$ ');
    assert.equal(plainText('\x1b[31mred\x1b[0m plain\r\n'), 'red plain\n', 'ordinary output untouched');
  });

  it('stripAnsi (readLog) plays the same redraws but keeps CR LF line ends', () => {
    assert.equal(stripAnsi('a\r\n⠙\x1b[1G\x1b[0Kb\r\n'), 'a\r\nb\r\n');
    assert.equal(stripAnsi('x\r\r\ny'), 'x\r\r\ny');
  });

  it('an edit ends a sequence left open before it, as in a terminal', () => {
    assert.equal(stripAnsi('a\x1b]0;unterminated title\x1b[1Gb'), 'b');
    assert.equal(stripAnsi('spin\x1b[3\x1b[2Kok'), '    ok');
  });
});
