/**
 * What a remote viewer types, shown in the local pane the way agent input is ("▸ Ada sent: ls -la"):
 * keystrokes arrive one frame each, so they are gathered into the line being typed (Backspace
 * edits it, cursor keys and other escape sequences are left out, Ctrl+C reads "^C") and shown at
 * most every `RelayAppConstants.remoteInputEchoIntervalMs` per viewer and pane — the first key at
 * once, Enter at once with the finished line. The text shown is a preview for people; the pane
 * itself gets every byte unchanged.
 */
import type { IDisposable } from '../../common/lifecycle.ts';
import { RelayAppConstants } from './relayAppConstants.ts';

export interface RemoteInputShown {
  terminalId: string;
  viewerName: string;
  /** The line as typed so far (or just finished), at most `remoteInputPreviewChars` (the end of it). */
  text: string;
}

interface LineState {
  terminalId: string;
  viewerName: string;
  line: string;
  /** Changed since it was last shown. */
  dirty: boolean;
  timer: NodeJS.Timeout | undefined;
}

// CSI (ESC [ … final), SS3 (ESC O x), OSC-less two-byte escapes (ESC x).
const escapeSequence = /\x1b(?:\[[0-9;?<>=!]*[ -/]*[@-~]|O.|.)?/gs;

export class RemoteInputEcho implements IDisposable {
  readonly #show: (input: RemoteInputShown) => void;
  readonly #intervalMs: number;
  readonly #lines = new Map<string, LineState>();

  constructor(options: { show: (input: RemoteInputShown) => void; intervalMs?: number }) {
    this.#show = options.show;
    this.#intervalMs = options.intervalMs ?? RelayAppConstants.remoteInputEchoIntervalMs;
  }

  /** A viewer typed `data` into a terminal. */
  note(terminalId: string, viewerName: string, data: string): void {
    const key = `${terminalId}\0${viewerName}`;
    let state = this.#lines.get(key);
    if (!state) {
      state = { terminalId, viewerName, line: '', dirty: false, timer: undefined };
      this.#lines.set(key, state);
    }
    for (const piece of data.replace(escapeSequence, '')) {
      if (piece === '\r' || piece === '\n') {
        this.#emit(state);
        state.line = '';
        continue;
      }
      if (piece === '\x7f' || piece === '\b') state.line = [...state.line].slice(0, -1).join('');
      else if (piece < ' ') state.line += `^${String.fromCharCode(piece.charCodeAt(0) + 64)}`;
      else state.line += piece;
      state.dirty = true;
      if (state.line.length > RelayAppConstants.remoteInputPreviewChars * 2) state.line = state.line.slice(-RelayAppConstants.remoteInputPreviewChars);
    }
    if (state.dirty && state.timer === undefined) this.#emit(state);
  }

  /** The terminal is gone: drop its lines and timers. */
  forget(terminalId: string): void {
    for (const [key, state] of this.#lines) {
      if (state.terminalId !== terminalId) continue;
      clearTimeout(state.timer);
      this.#lines.delete(key);
    }
  }

  dispose(): void {
    for (const state of this.#lines.values()) clearTimeout(state.timer);
    this.#lines.clear();
  }

  /** Show the line now, then hold further updates for the interval (a trailing update shows the latest). */
  #emit(state: LineState): void {
    state.dirty = false;
    this.#show({ terminalId: state.terminalId, viewerName: state.viewerName, text: state.line.slice(-RelayAppConstants.remoteInputPreviewChars) });
    clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      state.timer = undefined;
      if (state.dirty) this.#emit(state);
    }, this.#intervalMs);
    state.timer.unref?.();
  }
}
