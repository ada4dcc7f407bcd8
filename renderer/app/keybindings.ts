/**
 * The app's keyboard shortcuts. Chosen to work both in Electron and in a Chromium tab: Chromium
 * never lets a page see Ctrl+T/W/N, Ctrl+Shift+T/W/N/Q or Ctrl+(Shift+)Tab, so none are used;
 * every Ctrl+Shift+letter below reaches the page. Ctrl+Shift+letter sends the same byte as
 * Ctrl+letter to a terminal program, so taking it from the pane loses nothing (Linux terminals
 * such as GNOME Terminal and Terminator make the same trade). Keys are matched by physical key
 * (`event.code`) so they work on any keyboard layout.
 */
export type CommandId =
  | 'terminal.new'
  | 'terminal.newInFolder'
  | 'terminal.splitRight'
  | 'terminal.splitDown'
  | 'terminal.close'
  | 'terminal.rename'
  | 'terminal.find'
  | 'terminal.copy'
  | 'terminal.paste'
  | 'terminal.runAndHand'
  | 'agent.new'
  | 'tab.next'
  | 'tab.previous'
  | 'pane.focusLeft'
  | 'pane.focusRight'
  | 'pane.focusUp'
  | 'pane.focusDown'
  | 'sidebar.focus'
  | 'sidebar.toggle'
  | 'view.settings'
  | 'view.shortcuts'
  | 'view.history'
  | 'selection.sendToClaude'
  | 'agent.jumpToWaiting'
  | 'review.accept'
  | 'review.reject'
  | 'review.nextChange'
  | 'review.previousChange'
  | 'fileTab.save';

/**
 * Where a binding works when it is not window-wide: only while that part of the window is shown
 * and handles it, so the chord keeps its usual meaning everywhere else (Ctrl+S stays XOFF in a
 * pane, F7 reaches a terminal program). Scoped chords are matched by `commandForEvent(event, scope)`.
 */
export type KeybindingScope = 'review' | 'fileTab';

interface Chord {
  code: string;
  ctrl?: boolean;
  shift?: boolean;
  alt?: boolean;
}

export interface Keybinding {
  command: CommandId;
  /** What the command does, for the shortcuts list. */
  label: string;
  chord: Chord;
  /** How the chord is written in tooltips and the shortcuts list. */
  keys: string;
  /** Absent: everywhere in the window. */
  scope?: KeybindingScope;
}

export const keybindings: readonly Keybinding[] = [
  { command: 'terminal.new', label: 'New terminal', chord: { code: 'Backquote', ctrl: true, shift: true }, keys: 'Ctrl+Shift+`' },
  { command: 'terminal.newInFolder', label: 'New terminal in a folder…', chord: { code: 'KeyO', ctrl: true, shift: true }, keys: 'Ctrl+Shift+O' },
  { command: 'terminal.splitRight', label: 'Split right', chord: { code: 'KeyD', ctrl: true, shift: true }, keys: 'Ctrl+Shift+D' },
  { command: 'terminal.splitDown', label: 'Split down', chord: { code: 'KeyS', ctrl: true, shift: true }, keys: 'Ctrl+Shift+S' },
  { command: 'terminal.close', label: 'Close terminal', chord: { code: 'KeyX', ctrl: true, shift: true }, keys: 'Ctrl+Shift+X' },
  { command: 'terminal.rename', label: 'Rename terminal', chord: { code: 'F2', ctrl: true, shift: true }, keys: 'Ctrl+Shift+F2' },
  { command: 'terminal.find', label: 'Find in terminal', chord: { code: 'KeyF', ctrl: true, shift: true }, keys: 'Ctrl+Shift+F' },
  { command: 'terminal.copy', label: 'Copy selection', chord: { code: 'KeyC', ctrl: true, shift: true }, keys: 'Ctrl+Shift+C' },
  { command: 'terminal.paste', label: 'Paste', chord: { code: 'KeyV', ctrl: true, shift: true }, keys: 'Ctrl+Shift+V' },
  { command: 'terminal.runAndHand', label: 'Run and hand to agent…', chord: { code: 'KeyY', ctrl: true, shift: true }, keys: 'Ctrl+Shift+Y' },
  // As Conductor and Superset: one chord for "a new agent at work" (profile, folder, task, worktree).
  { command: 'agent.new', label: 'New agent…', chord: { code: 'KeyA', ctrl: true, shift: true }, keys: 'Ctrl+Shift+A' },
  { command: 'tab.next', label: 'Next tab', chord: { code: 'BracketRight', ctrl: true, shift: true }, keys: 'Ctrl+Shift+]' },
  { command: 'tab.previous', label: 'Previous tab', chord: { code: 'BracketLeft', ctrl: true, shift: true }, keys: 'Ctrl+Shift+[' },
  { command: 'pane.focusLeft', label: 'Focus pane on the left', chord: { code: 'ArrowLeft', alt: true }, keys: 'Alt+←' },
  { command: 'pane.focusRight', label: 'Focus pane on the right', chord: { code: 'ArrowRight', alt: true }, keys: 'Alt+→' },
  { command: 'pane.focusUp', label: 'Focus pane above', chord: { code: 'ArrowUp', alt: true }, keys: 'Alt+↑' },
  { command: 'pane.focusDown', label: 'Focus pane below', chord: { code: 'ArrowDown', alt: true }, keys: 'Alt+↓' },
  { command: 'sidebar.focus', label: 'Focus the terminal list', chord: { code: 'KeyE', ctrl: true, shift: true }, keys: 'Ctrl+Shift+E' },
  { command: 'sidebar.toggle', label: 'Show or hide the sidebar', chord: { code: 'KeyB', ctrl: true, shift: true }, keys: 'Ctrl+Shift+B' },
  { command: 'view.settings', label: 'Settings', chord: { code: 'Comma', ctrl: true }, keys: 'Ctrl+,' },
  { command: 'view.history', label: 'History', chord: { code: 'KeyH', ctrl: true, shift: true }, keys: 'Ctrl+Shift+H' },
  { command: 'agent.jumpToWaiting', label: 'Jump to the agent that needs you first (asking before done)', chord: { code: 'KeyU', ctrl: true, shift: true }, keys: 'Ctrl+Shift+U' },
  { command: 'view.shortcuts', label: 'Keyboard shortcuts', chord: { code: 'Slash', ctrl: true, shift: true }, keys: 'Ctrl+Shift+/' },
  // As in VS Code's Claude Code extension: the selection (or file) goes into Claude Code's prompt.
  { command: 'selection.sendToClaude', label: 'Send the selection to Claude Code', chord: { code: 'KeyK', ctrl: true, alt: true }, keys: 'Ctrl+Alt+K' },
  // As in VS Code's chat edits (Ctrl+Enter keep); reject adds Shift so Ctrl+Backspace still deletes a word in the editor and the comment field.
  { command: 'review.accept', label: 'Review: accept', chord: { code: 'Enter', ctrl: true }, keys: 'Ctrl+Enter', scope: 'review' },
  { command: 'review.reject', label: 'Review: reject', chord: { code: 'Backspace', ctrl: true, shift: true }, keys: 'Ctrl+Shift+Backspace', scope: 'review' },
  // As in VS Code's diff editor.
  { command: 'review.nextChange', label: 'Review: next change', chord: { code: 'F7' }, keys: 'F7', scope: 'review' },
  { command: 'review.previousChange', label: 'Review: previous change', chord: { code: 'F7', shift: true }, keys: 'Shift+F7', scope: 'review' },
  { command: 'fileTab.save', label: 'Save the file tab', chord: { code: 'KeyS', ctrl: true }, keys: 'Ctrl+S', scope: 'fileTab' },
];

/** The command `event`'s chord runs: a window-wide one, or with `scope` one of that scope's. */
export function commandForEvent(event: KeyboardEvent, scope?: KeybindingScope): CommandId | undefined {
  if (event.type !== 'keydown' || event.metaKey) return undefined;
  for (const binding of keybindings) {
    if (binding.scope !== scope) continue;
    const { chord } = binding;
    if (
      event.code === chord.code &&
      event.ctrlKey === (chord.ctrl ?? false) &&
      event.shiftKey === (chord.shift ?? false) &&
      event.altKey === (chord.alt ?? false)
    ) {
      return binding.command;
    }
  }
  return undefined;
}

export function keysFor(command: CommandId): string {
  return keybindings.find((binding) => binding.command === command)?.keys ?? '';
}

/** "Split right (Ctrl+Shift+D)": the tooltip of a button that runs a command. */
export function tooltipFor(command: CommandId, label?: string): string {
  const binding = keybindings.find((candidate) => candidate.command === command);
  if (!binding) return label ?? '';
  return `${label ?? binding.label} (${binding.keys})`;
}
