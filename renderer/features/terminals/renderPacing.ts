/**
 * How often xterm.js may redraw a pane (an xterm.js patch, renderer/xtermPatches.ts, routes its
 * RenderDebouncer's frame requests through `requestPacedRender`).
 *
 * Why: xterm.js redraws a terminal at every animation frame in which its output moved, and a
 * frame costs the page the same whatever arrived: the DOM renderer's rows, then Chromium's style,
 * layout, paint and (without a GPU) software raster. A pane flooded with output (`seq 1 600000`,
 * a build log, `cat` of a big file) made the page draw 60 frames a second while xterm parsed in
 * the gaps: a trace of `pane-flood` spent 506 ms of a 1.3 s flood in frames against the bare
 * xterm.js peer's 142 ms (docs/benchmarks.md, "A flood drawn at 30 frames a second"). Nobody
 * reads a flood as it passes, so a pane receiving output faster than anyone reads is redrawn at
 * most every `TerminalConstants.floodRenderIntervalMs`, which leaves xterm the rest of the page's
 * time to parse. Its last frame comes at most that long after the flood's last bytes.
 *
 * A pane that is not flooding, or that took a keystroke a moment ago (an echo, Ctrl-C ending the
 * flood), is drawn at the next frame, as xterm.js would.
 */
import type { Terminal } from '@xterm/xterm';
import type { IDisposable } from '../../../src/common/lifecycle.ts';

/** How long a pane's redraws should be apart now: 0 for "at the next frame". */
export interface RenderPace {
  renderIntervalMs(now: number): number;
}

/** xterm.js 6.0.0's RenderDebouncer, as the patch hands it over. */
interface RenderDebouncer {
  _innerRefresh(): void;
}

interface Paced {
  debouncer: RenderDebouncer;
  pace: RenderPace;
  lastRenderAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  frame: number | undefined;
}

const pacedDebouncers = new WeakMap<object, Paced>();

/**
 * The xterm.js 6.0.0 code this module reaches a terminal's RenderDebouncer through; a unit test
 * checks each is in the installed xterm.js.
 */
export const renderPacingInternalsRead: readonly string[] = [
  'this._core=this._register(new',
  'this._renderService=this._register(this._instantiationService.createInstance(',
  'this._renderDebouncer=new',
];

/** A terminal's paced redraws; disposing it ends the pacing (a redraw already put off still comes, within the interval). */
export interface PacedRenders extends IDisposable {
  /** A redraw the pacing put off is drawn at the next frame instead (a key was pressed: its echo should not wait). */
  hurry(): void;
}

/** Paces the redraws of `terminal` (opened: its render service exists) by `pace`. */
export function paceRenders(terminal: Terminal, pace: RenderPace): PacedRenders {
  // xterm.js internals, typed loosely on purpose (renderPacingInternalsRead is what is checked).
  const debouncer: RenderDebouncer | undefined = (terminal as any)._core?._renderService?._renderDebouncer;
  if (!debouncer) return { hurry: () => {}, dispose: () => {} };
  const paced: Paced = { debouncer, pace, lastRenderAt: -Infinity, timer: undefined, frame: undefined };
  pacedDebouncers.set(debouncer, paced);
  return {
    hurry: () => {
      if (paced.timer === undefined) return;
      clearTimeout(paced.timer);
      paced.timer = undefined;
      renderAtNextFrame(paced);
    },
    dispose: () => {
      paced.pace = unpaced;
    },
  };
}

const unpaced: RenderPace = { renderIntervalMs: () => 0 };

/**
 * Called by the patched RenderDebouncer where it asked for an animation frame; returns what it
 * keeps as its pending frame (truthy until `_innerRefresh` runs and clears it).
 */
export function requestPacedRender(debouncer: RenderDebouncer): number {
  const paced = pacedDebouncers.get(debouncer);
  if (!paced) return requestAnimationFrame(() => debouncer._innerRefresh());
  const now = performance.now();
  // Frames start on the display's refreshes: the timer asks for the frame a little early, so the
  // redraw lands on the first refresh at or after the interval (every other one at 60 Hz), not one late.
  const wait = paced.lastRenderAt + paced.pace.renderIntervalMs(now) - now - timerSlackMs;
  if (wait <= 0) return renderAtNextFrame(paced);
  paced.timer = setTimeout(() => {
    paced.timer = undefined;
    renderAtNextFrame(paced);
  }, wait);
  // Not a frame id: the debouncer only tests it, and cancels through `cancelPacedRender`.
  return -1;
}

function renderAtNextFrame(paced: Paced): number {
  paced.frame = requestAnimationFrame(() => {
    paced.frame = undefined;
    paced.lastRenderAt = performance.now();
    paced.debouncer._innerRefresh();
  });
  return paced.frame;
}

/** Called by the patched RenderDebouncer's dispose. */
export function cancelPacedRender(debouncer: RenderDebouncer): void {
  const paced = pacedDebouncers.get(debouncer);
  if (!paced) return;
  clearTimeout(paced.timer);
  if (paced.frame !== undefined) cancelAnimationFrame(paced.frame);
  paced.timer = undefined;
  paced.frame = undefined;
  pacedDebouncers.delete(debouncer);
}

const timerSlackMs = 4;
