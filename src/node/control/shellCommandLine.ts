/**
 * The text `exec` types into a shell. Pure functions, so each shell's quoting is unit-tested.
 *
 * Two forms:
 * - With shell integration the command is typed as a person would type it when that is safe
 *   (one printable line the shell will take as complete), else as `eval <quoted>` so newlines,
 *   tabs, `!` history expansion or an unclosed quote cannot leave the shell waiting for more.
 * - Without shell integration (sh, `bash --norc`, a nested shell) the command is wrapped with a
 *   per-exec nonce: an invisible OSC before it reports the cwd, one after it reports `$?`. The
 *   markers' bytes (ESC ] 6973 ; …) never occur in the echo of the typed line — there they are
 *   spelled `\033` — and a command cannot print them by accident without knowing the nonce.
 *
 * The command itself always runs in the shell's own process (eval), so `cd`, `export` and
 * functions behave exactly as if typed; its stdin is the terminal.
 */
import { basename } from 'node:path';
import { sentinelOscNumber } from '../../common/terminal/execSentinel.ts';

export type ShellFlavor = 'bash' | 'zsh' | 'fish' | 'sh';

const posixShells = new Set(['sh', 'dash', 'ash', 'ksh', 'mksh', 'posh', 'yash', 'busybox']);

function flavorOfProgram(program: string): ShellFlavor | null {
  const name = basename(program).replace(/^-/, '');
  if (name === 'bash' || name === 'zsh' || name === 'fish') return name;
  if (posixShells.has(name)) return 'sh';
  return null;
}

/**
 * Which shell reads what we type: a shell started by the running command (`bash` inside fish),
 * else the terminal's own program. Unknown programs get POSIX syntax.
 */
export function shellFlavorOf(file: string, runningCommand: string | null): ShellFlavor {
  const firstWord = runningCommand?.trim().split(/\s+/)[0];
  return (firstWord ? flavorOfProgram(firstWord) : null) ?? flavorOfProgram(file) ?? 'sh';
}

/** Programs whose input goes to a shell, here or on another machine. */
const loginPrograms = new Set(['ssh', 'mosh', 'su']);

/**
 * Whether what a terminal runs now reads typed lines as a shell: a nested shell (`bash`,
 * `docker exec -it app sh`, `sudo -u deploy bash`, `sudo -i`) or a login elsewhere (`ssh host`).
 * Into these `exec` types its command as into the terminal's own shell; any other running
 * program (a build, `sleep`, a Python REPL) would take the line as its input, so exec waits for
 * it to end instead.
 */
export function runsAShell(runningCommand: string): boolean {
  const words = runningCommand.trim().split(/\s+/).filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  const first = words[0];
  if (first === undefined) return false;
  const program = basename(first);
  if (flavorOfProgram(program) !== null || loginPrograms.has(program)) return true;
  if ((program === 'sudo' || program === 'doas') && words.some((word) => word === '-i' || word === '-s' || word === 'su')) return true;
  return words.slice(1).some((word) => flavorOfProgram(word) !== null);
}

/** printf's builtin in each shell (dash has no `builtin`; `command` finds its builtin printf). */
function printfOf(flavor: ShellFlavor): string {
  return flavor === 'sh' ? 'command printf' : 'builtin printf';
}

/** One printable line (UTF-8 allowed), no control chars. */
function isPrintableLine(command: string): boolean {
  return !/[\x00-\x1f\x7f]/.test(command);
}

/**
 * Whether typing `command` followed by Enter runs exactly it: a printable line the shell considers
 * complete (balanced quotes and brackets, no trailing backslash, pipe or `&&`, no heredoc, no
 * open block), and for bash/zsh nothing history expansion would rewrite.
 */
export function isTypeableAsIs(command: string, flavor: ShellFlavor): boolean {
  // A blank or comment-only line runs nothing, so the shell would report no command to wait for.
  if (/^\s*(#|$)/.test(command) || !isPrintableLine(command)) return false;
  if ((flavor === 'bash' || flavor === 'zsh') && (command.includes('!') || command.trimStart().startsWith('^'))) return false;
  if (command.includes('<<')) return false;
  const trimmed = command.trimEnd();
  if (/(\\|\||&&|\|\||\(|\{)$/.test(trimmed)) return false;
  if (!quotesAndBracketsBalance(command, flavor)) return false;
  return blocksBalance(command, flavor);
}

function quotesAndBracketsBalance(command: string, flavor: ShellFlavor): boolean {
  let quote: "'" | '"' | null = null;
  let depth = 0;
  for (let index = 0; index < command.length; index++) {
    const char = command[index]!;
    if (quote === "'") {
      // fish allows \' and \\ inside single quotes; POSIX shells take everything literally.
      if (flavor === 'fish' && char === '\\') index++;
      else if (char === "'") quote = null;
      continue;
    }
    if (char === '\\') {
      index++;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = null;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === '(' || char === '{') depth++;
    else if (char === ')' || char === '}') depth--;
    else if (char === '#' && (index === 0 || /\s/.test(command[index - 1]!))) break; // a comment: the rest does not count
    if (depth < 0) return false;
  }
  return quote === null && depth === 0;
}

const posixOpeners = new Set(['if', 'for', 'while', 'until', 'case', 'select']);
const posixClosers = new Set(['fi', 'done', 'esac']);
const fishOpeners = new Set(['begin', 'if', 'for', 'while', 'function', 'switch']);

/** A rough keyword count: `for …; do …; done` is complete, `for x in 1 2; do` is not. */
function blocksBalance(command: string, flavor: ShellFlavor): boolean {
  const words = command.split(/[\s;&|]+/).filter((word) => word.length > 0);
  let open = 0;
  for (const word of words) {
    if (flavor === 'fish') {
      if (fishOpeners.has(word)) open++;
      else if (word === 'end') open--;
    } else if (posixOpeners.has(word)) {
      open++;
    } else if (posixClosers.has(word)) {
      open--;
    }
  }
  return open === 0;
}

/**
 * `command` as printf %b escapes inside single quotes, on one line: `\` and `'` and control chars
 * become \0NNN octal escapes, which bash, zsh, dash and fish all decode; nothing in the result is
 * special inside single quotes in any of them.
 */
export function printfEncode(command: string): string {
  let out = '';
  for (const char of command) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f || char === '\\' || char === "'") out += '\\0' + code.toString(8).padStart(3, '0');
    else out += char;
  }
  return out;
}

function singleQuote(command: string, flavor: ShellFlavor): string {
  if (flavor === 'fish') return `'${command.replace(/[\\']/g, '\\$&')}'`;
  return `'${command.replace(/'/g, `'\\''`)}'`;
}

/** `eval` of the command in the shell's own process, quoted so the shell reads it as one complete line. */
export function evalCommand(command: string, flavor: ShellFlavor): string {
  if (isPrintableLine(command)) return `eval ${singleQuote(command, flavor)}`;
  const encoded = `${printfOf(flavor)} %b '${printfEncode(command)}'`;
  return flavor === 'fish' ? `eval (${encoded} | string collect)` : `eval "$(${encoded})"`;
}

/**
 * The line typed for a sentinel exec (Enter not included). The leading space keeps it out of the
 * history of shells that ignore space-prefixed lines (bash with ignorespace, fish, zsh with
 * HIST_IGNORE_SPACE).
 *
 * POSIX shells abandon the rest of a typed line when its foreground job dies of SIGINT (Ctrl-C,
 * or our `signal`), which would lose the end marker and leave the exec waiting for its timeout.
 * With a SIGINT trap set they go on with the line instead, so a no-op trap is set for the
 * command's duration and SIGINT is reset to the shell's default right after the marker. fish goes
 * on by itself.
 *
 * An interactive dash and zsh also abandon the rest of the line on an error inside the command
 * that is not its exit status: dash on a syntax error in `eval` (`echo (`, `fi`), an expansion
 * error (`${x?}`, `$((1+))`, `set -u`) or a readonly assignment, zsh on an expansion error. The end
 * marker must survive those, or the exec waits for its timeout: dash runs the command as
 * `command eval`, which takes away eval's special-builtin power to abort the line (POSIX), and zsh
 * prints the marker from an `always` block, which runs however its try-block ended.
 */
export function sentinelLine(command: string, flavor: ShellFlavor, nonce: string): string {
  const printf = printfOf(flavor);
  const osc = `\\033]${sentinelOscNumber}`;
  const start = `${printf} '${osc};S;${nonce};%s\\007' "$PWD"`;
  const end = `${printf} '${osc};E;${nonce};%s\\007'`;
  const run = evalCommand(command, flavor);
  if (flavor === 'fish') return ` ${start}; ${run}; ${end} $status`;
  if (flavor === 'zsh') return ` ${start}; trap : INT; { ${run} } always { ${end} "$?"; trap - INT }`;
  return ` ${start}; trap : INT; ${flavor === 'sh' ? `command ${run}` : run}; ${end} "$?"; trap - INT`;
}

/** The byte prefixes of the two markers in the output (each ends with `;<value>` and BEL). */
export function sentinelMarkers(nonce: string): { start: Buffer; end: Buffer } {
  return {
    start: Buffer.from(`\x1b]${sentinelOscNumber};S;${nonce};`, 'latin1'),
    end: Buffer.from(`\x1b]${sentinelOscNumber};E;${nonce};`, 'latin1'),
  };
}
