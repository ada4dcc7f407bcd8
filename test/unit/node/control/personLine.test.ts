import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PersonLine } from '../../../../src/node/control/typingGuard.ts';

function typed(...chunks: string[]): PersonLine {
  const line = new PersonLine();
  for (const chunk of chunks) line.type(chunk);
  return line;
}

describe('PersonLine: what a person\'s keys leave on a line without shell integration', () => {
  test('printable keys make a line; Enter, Ctrl-C and Ctrl-U end it', () => {
    assert.deepEqual([typed('echo hi').isEmpty, typed('echo hi').text], [false, 'echo hi']);
    for (const end of ['\r', '\n', '\x03', '\x15']) assert.equal(typed('echo hi', end).isEmpty, true, JSON.stringify(end));
    assert.equal(typed('echo done\r', 'ls -').text, 'ls -', 'a line typed after Enter is a new one');
  });

  test('Backspace and Ctrl-W take from it; deleting everything leaves it empty', () => {
    assert.equal(typed('echo hix\x7f').text, 'echo hi');
    assert.equal(typed('ab\b\b').isEmpty, true);
    assert.equal(typed('git commit -m msg\x17').text, 'git commit -m ');
  });

  test('arrows and other control keys leave it edited (history recall: its text is unknown)', () => {
    const recalled = typed('\x1b[A');
    assert.equal(recalled.isEmpty, false);
    assert.equal(typed('\x1b[A', '\x15').isEmpty, true);
    assert.equal(typed('ab\x1bOD').text, 'ab', 'an SS3 arrow is one key, not text');
    assert.equal(typed('\t').isEmpty, false, 'completion changed the line');
  });
});
