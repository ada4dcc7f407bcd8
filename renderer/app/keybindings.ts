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
  | 'tab.next'
  | 'tab.previous'
  | 'pane.focusLeft'
  | 'pane.focusRight'
  | 'pane.focusUp'
  | 'pane.focusDown'
  | 'sidebar.focus'
  | 'view.settings'
  | 'view.shortcuts';

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
  { command: 'tab.next', label: 'Next tab', chord: { code: 'BracketRight', ctrl: true, shift: true }, keys: 'Ctrl+Shift+]' },
  { command: 'tab.previous', label: 'Previous tab', chord: { code: 'BracketLeft', ctrl: true, shift: true }, keys: 'Ctrl+Shift+[' },
  { command: 'pane.focusLeft', label: 'Focus pane on the left', chord: { code: 'ArrowLeft', alt: true }, keys: 'Alt+←' },
  { command: 'pane.focusRight', label: 'Focus pane on the right', chord: { code: 'ArrowRight', alt: true }, keys: 'Alt+→' },
  { command: 'pane.focusUp', label: 'Focus pane above', chord: { code: 'ArrowUp', alt: true }, keys: 'Alt+↑' },
  { command: 'pane.focusDown', label: 'Focus pane below', chord: { code: 'ArrowDown', alt: true }, keys: 'Alt+↓' },
  { command: 'sidebar.focus', label: 'Focus the terminal list', chord: { code: 'KeyE', ctrl: true, shift: true }, keys: 'Ctrl+Shift+E' },
  { command: 'view.settings', label: 'Settings', chord: { code: 'Comma', ctrl: true }, keys: 'Ctrl+,' },
  { command: 'view.shortcuts', label: 'Keyboard shortcuts', chord: { code: 'Slash', ctrl: true, shift: true }, keys: 'Ctrl+Shift+/' },
];

export function commandForEvent(event: KeyboardEvent): CommandId | undefined {
  if (event.type !== 'keydown' || event.metaKey) return undefined;
  for (const binding of keybindings) {
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
