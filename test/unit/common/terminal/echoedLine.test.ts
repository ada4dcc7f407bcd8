import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { echoedCommandLine } from '../../../../src/common/terminal/echoedLine.ts';

describe('echoedCommandLine: the line a line editor echoed, rebuilt', () => {
  test("bash's echo of a typed or recalled line (as captured from bash 5.2 in tmux)", () => {
    assert.equal(echoedCommandLine('(cd / && pwd)\r\n\x1b[?2004l\r'), '(cd / && pwd)');
    assert.equal(echoedCommandLine('echo abcx\x08 \x08\r\n\x1b[?2004l\r'), 'echo abc');
  });

  test('cursor moves, erase and insert on one row', () => {
    assert.equal(echoedCommandLine('echo wrld\x1b[3D\x1b[1@o\r\n'), 'echo world');
    assert.equal(echoedCommandLine('make test\x1b[4D\x1b[K\r\n'), 'make');
    assert.equal(echoedCommandLine('lss\x08\x1b[P -la\r\n'), 'ls -la');
  });

  test('anything it cannot replay surely gives no name', () => {
    assert.equal(echoedCommandLine('a very long line that wr\rapped\r\n'), null, 'a redraw across rows');
    assert.equal(echoedCommandLine('echo \x1b[2Jx\r\n'), null, 'an unknown sequence');
    assert.equal(echoedCommandLine('\r\n'), null, 'nothing typed');
    assert.equal(echoedCommandLine('cat <<X\r\n> l1\r\n'), null, 'several rows');
  });
});
