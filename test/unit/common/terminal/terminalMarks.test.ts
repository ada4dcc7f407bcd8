import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { escapeVsCodeValue, parseTerminalMark, unescapeVsCodeValue } from '../../../../src/common/terminal/terminalMarks.ts';

describe('parseTerminalMark', () => {
  test('OSC 633 prompt and command marks', () => {
    assert.deepEqual(parseTerminalMark('633;A'), { kind: 'promptStart', nonce: null });
    assert.deepEqual(parseTerminalMark('633;B'), { kind: 'promptEnd', nonce: null });
    assert.deepEqual(parseTerminalMark('633;C'), { kind: 'commandStart', nonce: null });
    assert.deepEqual(parseTerminalMark('633;D;0'), { kind: 'commandFinished', exitCode: 0, nonce: null });
    assert.deepEqual(parseTerminalMark('633;D;127'), { kind: 'commandFinished', exitCode: 127, nonce: null });
    assert.deepEqual(parseTerminalMark('633;D'), { kind: 'commandFinished', exitCode: null, nonce: null });
    assert.deepEqual(parseTerminalMark('633;D;abc'), { kind: 'commandFinished', exitCode: null, nonce: null });
    // Our script appends its nonce as the last field.
    assert.deepEqual(parseTerminalMark('633;A;f00d'), { kind: 'promptStart', nonce: 'f00d' });
    assert.deepEqual(parseTerminalMark('633;C;f00d'), { kind: 'commandStart', nonce: 'f00d' });
    assert.deepEqual(parseTerminalMark('633;D;3;f00d'), { kind: 'commandFinished', exitCode: 3, nonce: 'f00d' });
  });

  test('OSC 633 E carries an escaped command line and the nonce', () => {
    assert.deepEqual(parseTerminalMark('633;E;echo a\\x3b b \\\\n;n0nce'), {
      kind: 'commandLine',
      commandLine: 'echo a; b \\n',
      nonce: 'n0nce',
    });
    assert.deepEqual(parseTerminalMark('633;E;ls'), { kind: 'commandLine', commandLine: 'ls', nonce: null });
  });

  test('OSC 633 P;Cwd and OSC 7 report the cwd, percent-decoded for OSC 7', () => {
    assert.deepEqual(parseTerminalMark('633;P;Cwd=/tmp/a\\x3bb'), { kind: 'cwd', cwd: '/tmp/a;b' });
    assert.deepEqual(parseTerminalMark('633;P;Other=1'), null);
    assert.deepEqual(parseTerminalMark('7;file:///home/me/my%20dir'), { kind: 'cwd', cwd: '/home/me/my dir' });
    assert.deepEqual(parseTerminalMark('7;file://box/srv/%C3%A9'), { kind: 'cwd', cwd: '/srv/é', host: 'box' });
    assert.equal(parseTerminalMark('7;http://x/y'), null);
    assert.equal(parseTerminalMark('7;file:///bad%zz'), null);
  });

  test('OSC 133 FinalTerm marks', () => {
    assert.deepEqual(parseTerminalMark('133;A'), { kind: 'promptStart', nonce: null });
    assert.deepEqual(parseTerminalMark('133;B'), { kind: 'promptEnd', nonce: null });
    assert.deepEqual(parseTerminalMark('133;C'), { kind: 'commandStart', nonce: null });
    assert.deepEqual(parseTerminalMark('133;D;2'), { kind: 'commandFinished', exitCode: 2, nonce: null });
    assert.deepEqual(parseTerminalMark('133;A;cl=m;aid=1'), { kind: 'promptStart', nonce: null });
  });

  test('notifications: OSC 9 and OSC 777;notify; ConEmu OSC 9 sub-commands are not notifications', () => {
    assert.deepEqual(parseTerminalMark('9;Build finished'), { kind: 'notification', title: '', body: 'Build finished' });
    assert.deepEqual(parseTerminalMark('777;notify;Done;all 3 tests passed'), { kind: 'notification', title: 'Done', body: 'all 3 tests passed' });
    assert.deepEqual(parseTerminalMark('777;notify;Title only'), { kind: 'notification', title: 'Title only', body: '' });
    assert.equal(parseTerminalMark('777;preexec'), null);
    assert.equal(parseTerminalMark('9;4;1;50'), null);
    assert.deepEqual(parseTerminalMark('9;9;"C:\\Users"'), { kind: 'cwd', cwd: 'C:\\Users' });
  });

  test('everything else is ignored', () => {
    for (const payload of ['0;title', '2;title', '8;;https://x', '52;c;abc', '', ';', '633', '633;Z', 'garbage']) {
      assert.equal(parseTerminalMark(payload), null, payload);
    }
  });
});

describe('VS Code value escaping', () => {
  test('round-trips backslashes, semicolons and control chars', () => {
    const value = 'a\\b;c\nd\re\x1bf\x07g\th é 😀';
    const escaped = escapeVsCodeValue(value);
    assert.equal(/[;\n\r\x1b\x07]/.test(escaped), false);
    assert.equal(unescapeVsCodeValue(escaped), value);
  });

  test('a lone or unknown escape is kept literally', () => {
    assert.equal(unescapeVsCodeValue('a\\qb\\'), 'a\\qb\\');
    assert.equal(unescapeVsCodeValue('\\x4'), '\\x4');
  });
});
