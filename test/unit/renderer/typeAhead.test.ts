import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { terminalTextForKey, TypeAheadBuffer, TypeAheadStore } from '../../../renderer/features/terminals/typeAhead.ts';

describe('type-ahead buffer', () => {
  it('keeps keys and pastes in the order given, keystrokes in one piece', () => {
    const buffer = new TypeAheadBuffer(1024);
    for (const key of 'ls -l') assert.equal(buffer.hold('typed', key), true);
    assert.equal(buffer.hold('paste', 'a\nb'), true);
    assert.equal(buffer.hold('typed', '\r'), true);
    assert.deepEqual(buffer.take(), {
      items: [
        { kind: 'typed', text: 'ls -l' },
        { kind: 'paste', text: 'a\nb' },
        { kind: 'typed', text: '\r' },
      ],
      chars: 9,
      refusedChars: 0,
    });
    assert.equal(buffer.isEmpty, true, 'taking empties it');
    assert.deepEqual(buffer.take().items, []);
  });

  it('counts its bound in UTF-8 bytes', () => {
    const buffer = new TypeAheadBuffer(4);
    assert.equal(buffer.hold('typed', 'é'), true); // 2 bytes
    assert.equal(buffer.hold('typed', 'é'), true); // 4
    assert.equal(buffer.hold('typed', 'x'), false); // 5: past the bound
  });

  it('refuses what would go past the bound, and everything after it until taken', () => {
    const buffer = new TypeAheadBuffer(10);
    assert.equal(buffer.hold('typed', 'echo '), true);
    assert.equal(buffer.hold('paste', 'far too long'), false);
    // It would fit, but sending it would close the hole the refused paste left.
    assert.equal(buffer.hold('typed', 'x'), false);
    assert.equal(buffer.isEmpty, false);
    assert.deepEqual(buffer.take(), { items: [{ kind: 'typed', text: 'echo ' }], chars: 5, refusedChars: 13 });
    assert.equal(buffer.hold('typed', 'ok'), true, 'taking ends the refusal');
  });

  it('ignores empty input', () => {
    const buffer = new TypeAheadBuffer(0);
    assert.equal(buffer.hold('typed', ''), true);
    assert.equal(buffer.isEmpty, true);
  });
});

describe('type-ahead buffer while a session takes input', () => {
  it('hands what is held afterwards to the live session, and only to the newest one', () => {
    const buffer = new TypeAheadBuffer();
    const sent: string[] = [];
    const takeInto = (who: string) => () => sent.push(`${who}:${buffer.take().items.map((item) => item.text).join('')}`);
    // Held while no session is live: it waits for a take.
    buffer.hold('typed', 'a');
    assert.deepEqual(sent, []);
    const stopOld = buffer.whileLive(takeInto('old'));
    buffer.hold('typed', 'b');
    assert.deepEqual(sent, ['old:ab']);
    // A reconnect's session goes live: what is held from then on goes to it.
    const stopNew = buffer.whileLive(takeInto('new'));
    stopOld();
    buffer.hold('typed', '7');
    assert.deepEqual(sent, ['old:ab', 'new:7']);
    stopNew();
    buffer.hold('typed', 'c');
    assert.deepEqual(sent, ['old:ab', 'new:7'], 'nobody live: held again');
    assert.equal(buffer.take().items[0]?.text, 'c');
  });
});

describe('keys held while nothing has focus', () => {
  it('turn into what the terminal would get for them, and shortcuts into nothing', () => {
    const key = (name: string, modifiers: Partial<{ ctrlKey: boolean; altKey: boolean; metaKey: boolean; isComposing: boolean }> = {}) =>
      terminalTextForKey({ key: name, ctrlKey: false, altKey: false, metaKey: false, isComposing: false, ...modifiers });
    assert.deepEqual(['e', '$', 'é', '😀', ' '].map((name) => key(name)), ['e', '$', 'é', '😀', ' ']);
    assert.deepEqual(['Enter', 'Backspace', 'Tab', 'Escape'].map((name) => key(name)), ['\r', '\x7f', '\t', '\x1b']);
    assert.deepEqual(['Shift', 'ArrowUp', 'F5', 'Dead'].map((name) => key(name)), [null, null, null, null]);
    assert.equal(key('c', { ctrlKey: true }), null, 'a shortcut is not typed');
    assert.equal(key('v', { metaKey: true }), null);
    assert.equal(key('x', { altKey: true }), null);
    assert.equal(key('a', { isComposing: true }), null, 'an IME composition is not typed key by key');
  });
});

describe('type-ahead store', () => {
  it('gives each terminal one buffer, and forgets those whose panes are gone', () => {
    const store = new TypeAheadStore();
    const first = store.for('t-1');
    assert.equal(store.for('t-1'), first, 'the same buffer for the next session of that terminal');
    first.hold('typed', 'x');
    store.for('t-2').hold('typed', 'y');
    store.retainOnly(new Set(['t-2']));
    assert.notEqual(store.for('t-1'), first);
    assert.equal(store.for('t-1').isEmpty, true);
    assert.equal(store.for('t-2').isEmpty, false);
  });
});
