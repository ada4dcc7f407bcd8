/**
 * Turns OSC payloads into the marks the Hub understands: shell integration (OSC 633, VS Code's
 * dialect, and OSC 133, the FinalTerm one), the working directory (OSC 7, OSC 633;P;Cwd and
 * ConEmu's OSC 9;9) and notifications (OSC 9 and OSC 777;notify). Pure functions, no state.
 */

/**
 * `nonce` on the command marks proves a mark came from our own shell-integration script (which
 * appends it as the last field of OSC 633 A/B/C/D/E), not from program output; null when absent
 * (OSC 133, other scripts).
 */
export type TerminalMark =
  | { kind: 'promptStart'; nonce: string | null }
  | { kind: 'promptEnd'; nonce: string | null }
  | { kind: 'commandStart'; nonce: string | null }
  | { kind: 'commandFinished'; exitCode: number | null; nonce: string | null }
  /** The command line, as the shell reported it. */
  | { kind: 'commandLine'; commandLine: string; nonce: string | null }
  /** `host` is set only by OSC 7 (file://host/path); a remote host means the path is not local. */
  | { kind: 'cwd'; cwd: string; host?: string }
  | { kind: 'notification'; title: string; body: string };

/**
 * Parse one OSC payload (the text between `ESC ]` and the terminator). Returns null for every
 * OSC the Hub does not track (titles, hyperlinks, colours, …) and for malformed ones.
 */
export function parseTerminalMark(payload: string): TerminalMark | null {
  const separator = payload.indexOf(';');
  const ident = separator === -1 ? payload : payload.substring(0, separator);
  const rest = separator === -1 ? '' : payload.substring(separator + 1);
  switch (ident) {
    case '633':
      return parseVsCodeMark(rest);
    case '133':
      return parseFinalTermMark(rest);
    case '7':
      return parseOsc7(rest);
    case '9':
      return parseOsc9(rest);
    case '777':
      return parseOsc777(rest);
    default:
      return null;
  }
}

function parseVsCodeMark(rest: string): TerminalMark | null {
  const [code, ...fields] = rest.split(';');
  switch (code) {
    case 'A':
      return { kind: 'promptStart', nonce: fields[0] ?? null };
    case 'B':
      return { kind: 'promptEnd', nonce: fields[0] ?? null };
    case 'C':
      return { kind: 'commandStart', nonce: fields[0] ?? null };
    case 'D':
      return { kind: 'commandFinished', exitCode: parseExitCode(fields[0]), nonce: fields[1] ?? null };
    case 'E':
      return {
        kind: 'commandLine',
        commandLine: unescapeVsCodeValue(fields[0] ?? ''),
        nonce: fields.length > 1 ? (fields[1] ?? null) : null,
      };
    case 'P': {
      // Properties are key=value; the value may itself contain '=' but not ';' (escaped as \x3b).
      const property = fields[0] ?? '';
      const equals = property.indexOf('=');
      if (equals === -1) return null;
      const key = property.substring(0, equals);
      const value = unescapeVsCodeValue(property.substring(equals + 1));
      if (key === 'Cwd' && value.length > 0) return { kind: 'cwd', cwd: value };
      return null;
    }
    default:
      return null;
  }
}

function parseFinalTermMark(rest: string): TerminalMark | null {
  const [code, ...fields] = rest.split(';');
  switch (code) {
    case 'A':
      return { kind: 'promptStart', nonce: null };
    case 'B':
      return { kind: 'promptEnd', nonce: null };
    case 'C':
      return { kind: 'commandStart', nonce: null };
    case 'D':
      return { kind: 'commandFinished', exitCode: parseExitCode(fields[0]), nonce: null };
    default:
      return null;
  }
}

/** OSC 7 ; file://host/path — the path is percent-encoded. */
function parseOsc7(rest: string): TerminalMark | null {
  const match = /^file:\/\/([^/]*)(\/.*)?$/i.exec(rest);
  if (!match) return null;
  const path = decodePercent(match[2] ?? '/');
  if (path === null) return null;
  const host = match[1] ?? '';
  return host === '' ? { kind: 'cwd', cwd: path } : { kind: 'cwd', cwd: path, host };
}

/**
 * OSC 9 is overloaded: iTerm2's "OSC 9 ; message" is a notification, while ConEmu/Windows
 * Terminal use "9;4;…" for progress and "9;9;path" for the cwd. Other numeric ConEmu
 * sub-commands are ignored rather than shown as notifications.
 */
function parseOsc9(rest: string): TerminalMark | null {
  const subcommand = /^(\d+);/.exec(rest);
  if (subcommand) {
    if (subcommand[1] === '9') {
      const cwd = stripQuotes(rest.substring(subcommand[0].length));
      return cwd.length > 0 ? { kind: 'cwd', cwd } : null;
    }
    return null;
  }
  if (/^\d+$/.test(rest)) return null;
  return { kind: 'notification', title: '', body: rest };
}

/** OSC 777 ; notify ; title ; body (rxvt-unicode / foot / WezTerm / Ghostty). */
function parseOsc777(rest: string): TerminalMark | null {
  if (!rest.startsWith('notify;')) return null;
  const afterVerb = rest.substring('notify;'.length);
  const separator = afterVerb.indexOf(';');
  const title = separator === -1 ? afterVerb : afterVerb.substring(0, separator);
  const body = separator === -1 ? '' : afterVerb.substring(separator + 1);
  return { kind: 'notification', title, body };
}

function parseExitCode(field: string | undefined): number | null {
  if (field === undefined || !/^-?\d{1,10}$/.test(field)) return null;
  const code = Number(field);
  return Number.isSafeInteger(code) ? code : null;
}

function stripQuotes(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

function decodePercent(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/**
 * Undo the escaping VS Code's shell integration scripts apply to values in OSC 633 (E and P):
 * `\\` is a backslash and `\xAB` is the char with that hex code (used for `;`, and for control
 * chars that would end the sequence). Anything else after a backslash is kept literally.
 */
export function unescapeVsCodeValue(value: string): string {
  if (value.indexOf('\\') === -1) return value;
  let result = '';
  let index = 0;
  while (index < value.length) {
    const backslash = value.indexOf('\\', index);
    if (backslash === -1) {
      result += value.substring(index);
      break;
    }
    result += value.substring(index, backslash);
    const next = value.charAt(backslash + 1);
    if (next === '\\') {
      result += '\\';
      index = backslash + 2;
    } else if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(value.substring(backslash + 2, backslash + 4))) {
      result += String.fromCharCode(parseInt(value.substring(backslash + 2, backslash + 4), 16));
      index = backslash + 4;
    } else {
      result += '\\';
      index = backslash + 1;
    }
  }
  return result;
}

/** The escaping the shell scripts apply (the inverse of `unescapeVsCodeValue`); used by tests and tools. */
export function escapeVsCodeValue(value: string): string {
  let result = '';
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (char === '\\') result += '\\\\';
    else if (char === ';') result += '\\x3b';
    else if (code < 0x20 || code === 0x7f) result += '\\x' + code.toString(16).padStart(2, '0');
    else result += char;
  }
  return result;
}
