/**
 * How a person names a terminal on the command line: its full id, a unique prefix of its id, or
 * its name. Resolved against `list`, so a typo is caught before anything is sent to a terminal.
 */
import { matchTerminalRef } from '../common/terminal/terminalRef.ts';
import { ControlClientError, type ControlClient } from './controlClient.ts';

/** What resolving a reference needs of a terminal (a `list` entry has more). */
interface NamedTerminal {
  id: string;
  name: string;
}

export const terminalRefHelp =
  'TERMINAL is a terminal id, a unique prefix of one, or a terminal name (see `switchboard ls`).';

/** How the caller lists terminals, for the hint in "unknown terminal": a CLI user and a model use different tools. */
export interface TerminalRefOptions {
  /** Default `switchboard ls`; `switchboard mcp` says `terminal_list`. */
  listHint?: string;
}

/** The terminal `ref` names (see matchTerminalRef), or a one-line error a person can act on. */
export function resolveTerminalRef<T extends NamedTerminal>(terminals: readonly T[], ref: string, options: TerminalRefOptions = {}): T {
  if (ref.length === 0) throw new ControlClientError('UNKNOWN_TERMINAL', 'the terminal reference is empty');
  const match = matchTerminalRef(terminals, ref);
  if (match.kind === 'found') return match.terminal;
  if (match.kind === 'ambiguous') throw ambiguous(ref, match.matches, match.by);
  const hint = match.near.length > 0 ? `; did you mean ${match.near.map((terminal) => shellWord(terminal.name)).join(' or ')}?` : ` (see ${options.listHint ?? '`switchboard ls`'})`;
  throw new ControlClientError('UNKNOWN_TERMINAL', `unknown terminal ${JSON.stringify(ref)}${hint}`);
}

/** The name as it must be typed in a shell. */
function shellWord(name: string): string {
  return /^[\w./@:+-]+$/.test(name) ? name : `'${name.replaceAll("'", "'\\''")}'`;
}

/** `list`, then resolve; returns the terminal's full id. */
export async function resolveTerminalId(client: ControlClient, ref: string, options: TerminalRefOptions = {}): Promise<string> {
  const terminals = await client.list();
  try {
    return resolveTerminalRef(terminals, ref, options).id;
  } catch (error) {
    const token = client.authenticatedToken;
    if (!(error instanceof ControlClientError) || error.code !== 'UNKNOWN_TERMINAL' || !token || token.terminals === null) throw error;
    // A token limited to terminals sees only those in `list`: "unknown terminal" alone would hide
    // that the one it was made for is gone (closed, or a restart did not bring it back).
    throw new ControlClientError('UNKNOWN_TERMINAL', `${error.message}: ${describeTokenReach(token.name, token.terminals, terminals)}`);
  }
}

/** What a terminal-limited token can reach now, and which of its terminals are gone. */
export function describeTokenReach(tokenName: string, tokenTerminals: readonly string[], listed: readonly NamedTerminal[]): string {
  const live = listed.filter((terminal) => tokenTerminals.includes(terminal.id));
  const gone = tokenTerminals.filter((id) => !live.some((terminal) => terminal.id === id));
  const parts: string[] = [];
  if (live.length > 0) parts.push(`token "${tokenName}" reaches only ${live.map((terminal) => `${terminal.id} (${terminal.name})`).join(', ')}`);
  if (gone.length > 0) {
    const which = gone.length === 1 ? `its terminal ${gone[0]} is gone` : `its terminals ${gone.join(', ')} are gone`;
    parts.push(`${live.length > 0 ? '' : `token "${tokenName}" is limited to terminals, and `}${which} (closed, or not restored when Switchboard restarted); create a token for the terminal you want`);
  }
  return parts.join('; ');
}

function ambiguous(ref: string, matches: readonly NamedTerminal[], kind: string): ControlClientError {
  const listed = matches
    .slice(0, 5)
    .map((terminal) => `${terminal.id} (${terminal.name})`)
    .join(', ');
  const more = matches.length > 5 ? `, and ${matches.length - 5} more` : '';
  return new ControlClientError('AMBIGUOUS_TERMINAL', `${JSON.stringify(ref)} matches ${matches.length} terminals by ${kind}: ${listed}${more}; use the full id`);
}
