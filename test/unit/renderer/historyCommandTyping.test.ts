import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planCommandTyping } from '../../../renderer/features/history/commandTyping.ts';

describe('"Run again" typing a recorded command', () => {
  it('types a single line as it is, whether or not the shell takes bracketed paste', () => {
    for (const bracketed of [true, false, null]) {
      assert.deepEqual(planCommandTyping('ls -la "my dir" | wc -l', bracketed), { kind: 'type', text: 'ls -la "my dir" | wc -l' });
    }
  });

  it('drops line breaks at either end, which would run the command (or an empty line) at once', () => {
    assert.deepEqual(planCommandTyping('\necho hi\r\n', false), { kind: 'type', text: 'echo hi' });
    assert.deepEqual(planCommandTyping('echo hi\r', null), { kind: 'type', text: 'echo hi' });
  });

  it('pastes several lines only when the shell asked for bracketed paste, line breaks normalized', () => {
    assert.deepEqual(planCommandTyping('for f in *; do\r\n  echo "$f"\rdone', true), { kind: 'paste', text: 'for f in *; do\n  echo "$f"\ndone' });
  });

  it('refuses several lines when the shell did not ask for bracketed paste, or when that is not known', () => {
    const refused = planCommandTyping('make build\nrm -rf dist', false);
    assert.equal(refused.kind, 'refuse');
    assert.match(refused.kind === 'refuse' ? refused.reason : '', /has 2 lines and the new terminal did not ask for bracketed paste, so typing it would run it line by line/);
    const unknown = planCommandTyping('a\nb\nc', null);
    assert.equal(unknown.kind, 'refuse');
    assert.match(unknown.kind === 'refuse' ? unknown.reason : '', /has 3 lines and the new terminal was not ready/);
  });

  it('treats a tab like a line break (typed, it would trigger completion)', () => {
    assert.deepEqual(planCommandTyping('printf "a\tb"', true), { kind: 'paste', text: 'printf "a\tb"' });
    const refused = planCommandTyping('printf "a\tb"', false);
    assert.equal(refused.kind, 'refuse');
    assert.match(refused.kind === 'refuse' ? refused.reason : '', /has a tab in it .* would trigger completion/);
  });

  it('drops control characters, so nothing can end a bracketed paste early or send keys to the line editor', () => {
    // ESC [201~ would end the paste and let the rest run; Ctrl+C, DEL and a C1 CSI would act as keys.
    assert.deepEqual(planCommandTyping('echo a\x1b[201~\nrm -rf ~', true), { kind: 'paste', text: 'echo a[201~\nrm -rf ~' });
    assert.deepEqual(planCommandTyping('echo \x03b\x7fc\x9bd', false), { kind: 'type', text: 'echo bcd' });
  });

  it('refuses an empty command line', () => {
    assert.equal(planCommandTyping('\x1b\r\n  ', true).kind, 'refuse');
  });
});
