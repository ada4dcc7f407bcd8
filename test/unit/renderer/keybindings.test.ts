import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandForEvent, keybindings } from '../../../renderer/app/keybindings.ts';

function key(code: string, modifiers: { ctrl?: boolean; shift?: boolean; alt?: boolean; meta?: boolean } = {}): KeyboardEvent {
  return { type: 'keydown', code, ctrlKey: !!modifiers.ctrl, shiftKey: !!modifiers.shift, altKey: !!modifiers.alt, metaKey: !!modifiers.meta } as KeyboardEvent;
}

/** Chords Chromium keeps for itself: a page never sees them, so binding them would be a lie. */
const reservedByChromium = ['KeyT', 'KeyW', 'KeyN', 'KeyQ', 'Tab', 'PageUp', 'PageDown'];

describe('keybindings', () => {
  it('maps chords to commands by physical key and exact modifiers', () => {
    assert.equal(commandForEvent(key('KeyD', { ctrl: true, shift: true })), 'terminal.splitRight');
    assert.equal(commandForEvent(key('KeyD', { ctrl: true })), undefined, 'plain Ctrl+D stays the shell’s EOF');
    assert.equal(commandForEvent(key('KeyD', { ctrl: true, shift: true, alt: true })), undefined);
    assert.equal(commandForEvent(key('ArrowLeft', { alt: true })), 'pane.focusLeft');
    assert.equal(commandForEvent({ ...key('KeyD', { ctrl: true, shift: true }), type: 'keyup' } as KeyboardEvent), undefined);
  });

  it('binds every chord once and none that Chromium reserves', () => {
    const chords = keybindings.map(({ chord }) => `${chord.ctrl}-${chord.shift}-${chord.alt}-${chord.code}`);
    assert.equal(new Set(chords).size, chords.length);
    for (const { chord, command } of keybindings) {
      assert.ok(!(chord.ctrl && reservedByChromium.includes(chord.code)), `${command} uses a chord Chromium reserves`);
    }
  });
});
