import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { Terminal } from '@xterm/xterm';
import { cancelPacedRender, paceRenders, requestPacedRender } from '../../../renderer/features/terminals/renderPacing.ts';

/**
 * The pacing against a fake page: a clock, animation frames that run when the test says a
 * display refresh happened, and Node's mocked timers on the same clock.
 */
let clock = 0;
let frames = new Map<number, FrameRequestCallback>();
let nextFrame = 1;

function refresh(): void {
  const due = [...frames.values()];
  frames = new Map();
  for (const callback of due) callback(clock);
}

function advance(ms: number): void {
  clock += ms;
  mock.timers.tick(ms);
}

/** A fake xterm.js terminal whose RenderDebouncer counts its redraws, at the clock's times. */
function fakeTerminal(): { terminal: Terminal; debouncer: { _innerRefresh(): void }; redraws: number[] } {
  const redraws: number[] = [];
  const debouncer = { _innerRefresh: () => void redraws.push(clock) };
  const terminal = { _core: { _renderService: { _renderDebouncer: debouncer } } } as unknown as Terminal;
  return { terminal, debouncer, redraws };
}

beforeEach(() => {
  clock = 0;
  frames = new Map();
  mock.timers.enable({ apis: ['setTimeout'] });
  mock.method(performance, 'now', () => clock);
  globalThis.requestAnimationFrame = (callback) => {
    frames.set(nextFrame, callback);
    return nextFrame++;
  };
  globalThis.cancelAnimationFrame = (id) => void frames.delete(id);
});

afterEach(() => {
  mock.timers.reset();
  mock.restoreAll();
});

describe('paced redraws', () => {
  it('draw at the next frame while the pace asks for no interval', () => {
    const { terminal, debouncer, redraws } = fakeTerminal();
    paceRenders(terminal, { renderIntervalMs: () => 0 });
    assert.ok(requestPacedRender(debouncer) > 0, 'a frame id');
    advance(16);
    refresh();
    requestPacedRender(debouncer);
    advance(17);
    refresh();
    assert.deepEqual(redraws, [16, 33]);
  });

  it('draw at most once per interval in a flood, on the first refresh after it', () => {
    const { terminal, debouncer, redraws } = fakeTerminal();
    paceRenders(terminal, { renderIntervalMs: () => 33 });
    requestPacedRender(debouncer);
    refresh(); // the first redraw is not held back
    assert.deepEqual(redraws, [0]);
    advance(5);
    assert.equal(requestPacedRender(debouncer), -1, 'put off: no frame asked for yet');
    assert.equal(frames.size, 0);
    for (let at = 5; at < 28; at += 1) {
      advance(1);
      refresh();
    }
    assert.deepEqual(redraws, [0], 'nothing drawn before the interval, whatever refreshes come');
    advance(5); // 33 ms: the timer fired a little early and asked for a frame
    assert.equal(frames.size, 1);
    refresh();
    assert.deepEqual(redraws, [0, 33]);
  });

  it('draw a put-off redraw at the next frame when a key is pressed', () => {
    const { terminal, debouncer, redraws } = fakeTerminal();
    const paced = paceRenders(terminal, { renderIntervalMs: () => 33 });
    requestPacedRender(debouncer);
    refresh();
    advance(3);
    requestPacedRender(debouncer);
    paced.hurry();
    advance(1);
    refresh();
    assert.deepEqual(redraws, [0, 4]);
    advance(40);
    refresh();
    assert.deepEqual(redraws, [0, 4], 'the timer it replaced asks for no second redraw');
  });

  it('ask for nothing more once the terminal is disposed', () => {
    const { terminal, debouncer, redraws } = fakeTerminal();
    paceRenders(terminal, { renderIntervalMs: () => 33 });
    requestPacedRender(debouncer);
    refresh();
    advance(2);
    requestPacedRender(debouncer);
    cancelPacedRender(debouncer);
    advance(100);
    refresh();
    assert.deepEqual(redraws, [0]);
  });

  it('stop pacing when the pacing is disposed, and leave terminals it never saw alone', () => {
    const { terminal, debouncer, redraws } = fakeTerminal();
    paceRenders(terminal, { renderIntervalMs: () => 33 }).dispose();
    requestPacedRender(debouncer);
    refresh();
    advance(1);
    requestPacedRender(debouncer);
    refresh();
    assert.deepEqual(redraws, [0, 1]);
    const other = fakeTerminal();
    requestPacedRender(other.debouncer);
    refresh();
    assert.deepEqual(other.redraws, [1]);
  });
});
