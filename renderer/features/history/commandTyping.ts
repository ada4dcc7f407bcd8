/**
 * How "Run again" may put a recorded command line at a new prompt without running it. A shell
 * runs every line break it is typed, so text with several lines goes only as a bracketed paste
 * (the shell asked for one: it then takes the line breaks as text); without one it is not typed at
 * all. A tab is typed as completion, so it needs the paste too. Control characters are dropped:
 * a recorded command line (from the shell's own report) has none worth keeping, and one such as
 * ESC could end the paste early or send keys to the line editor.
 */

export type CommandTyping =
  /** A single line: safe to type as it is (or paste). */
  | { kind: 'type'; text: string }
  /** Several lines or tabs: paste it (the caller's terminal wraps it in bracketed-paste markers). */
  | { kind: 'paste'; text: string }
  /** Not typed: why, for the person. */
  | { kind: 'refuse'; reason: string };

/** C0 and C1 controls and DEL, except tab and line feed. */
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `bracketedPaste`: whether the program at the new prompt asked for bracketed paste (true/false),
 * or null when that cannot be known (the pane has not attached): then only a single line is typed.
 */
export function planCommandTyping(commandLine: string, bracketedPaste: boolean | null): CommandTyping {
  const text = commandLine
    .replace(/\r\n?/g, '\n')
    .replace(controlCharacters, '')
    // A line break at either end would run the command (or an empty line) at once.
    .replace(/^\n+|\n+$/g, '');
  if (text.trim() === '') return { kind: 'refuse', reason: 'The command line is empty.' };
  if (!/[\n\t]/.test(text)) return { kind: 'type', text };
  if (bracketedPaste === true) return { kind: 'paste', text };
  const lineCount = text.split('\n').length;
  const what = lineCount > 1 ? `has ${lineCount} lines` : 'has a tab in it';
  const why =
    bracketedPaste === false
      ? 'the new terminal did not ask for bracketed paste'
      : 'the new terminal was not ready to tell whether it takes bracketed paste';
  const risk = lineCount > 1 ? 'typing it would run it line by line' : 'typing it would trigger completion';
  return {
    kind: 'refuse',
    reason: `The command ${what} and ${why}, so ${risk}. It was not typed: copy it from History instead.`,
  };
}
