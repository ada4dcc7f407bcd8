/**
 * How a person names a terminal on the command line: its full id, a unique prefix of its id, or
 * its name. Resolved against `list`, so a typo is caught before anything is sent to a terminal.
 */
import { ControlClientError, type ControlClient, type ControlTerminal } from './controlClient.ts';

export const terminalRefHelp =
  'TERMINAL is a terminal id, a unique prefix of one, or a terminal name (see `switchboard ls`).';

/**
 * Order: exact id, exact name, then id prefix. An exact match always wins, so a terminal named
 * "a" stays reachable even when some id starts with "a".
 */
export function resolveTerminalRef(terminals: readonly ControlTerminal[], ref: string): ControlTerminal {
  if (ref.length === 0) throw new ControlClientError('UNKNOWN_TERMINAL', 'the terminal reference is empty');
  const byId = terminals.find((terminal) => terminal.id === ref);
  if (byId) return byId;
  const byName = terminals.filter((terminal) => terminal.name === ref);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) throw ambiguous(ref, byName, 'name');
  const byPrefix = terminals.filter((terminal) => terminal.id.startsWith(ref));
  if (byPrefix.length === 1) return byPrefix[0]!;
  if (byPrefix.length > 1) throw ambiguous(ref, byPrefix, 'id prefix');
  const near = terminals.filter((terminal) => looseName(terminal.name) === looseName(ref));
  const hint = near.length > 0 ? `; did you mean ${near.map((terminal) => shellWord(terminal.name)).join(' or ')}?` : ' (see `switchboard ls`)';
  throw new ControlClientError('UNKNOWN_TERMINAL', `unknown terminal ${JSON.stringify(ref)}${hint}`);
}

/**
 * A name as people mistype it: `bash2` or `Bash-2` for "bash 2" (new terminals are numbered with a
 * space, which a shell splits unless it is quoted).
 */
function looseName(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

/** The name as it must be typed in a shell. */
function shellWord(name: string): string {
  return /^[\w./@:+-]+$/.test(name) ? name : `'${name.replaceAll("'", "'\\''")}'`;
}

/** `list`, then resolve; returns the terminal's full id. */
export async function resolveTerminalId(client: ControlClient, ref: string): Promise<string> {
  const terminals = await client.list();
  try {
    return resolveTerminalRef(terminals, ref).id;
  } catch (error) {
    const token = client.authenticatedToken;
    if (!(error instanceof ControlClientError) || error.code !== 'UNKNOWN_TERMINAL' || !token || token.terminals === null) throw error;
    // A token limited to terminals sees only those in `list`: "unknown terminal" alone would hide
    // that the one it was made for is gone (closed, or a restart did not bring it back).
    throw new ControlClientError('UNKNOWN_TERMINAL', `${error.message}: ${describeTokenReach(token.name, token.terminals, terminals)}`);
  }
}

/** What a terminal-limited token can reach now, and which of its terminals are gone. */
export function describeTokenReach(tokenName: string, tokenTerminals: readonly string[], listed: readonly ControlTerminal[]): string {
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

function ambiguous(ref: string, matches: readonly ControlTerminal[], kind: string): ControlClientError {
  const listed = matches
    .slice(0, 5)
    .map((terminal) => `${terminal.id} (${terminal.name})`)
    .join(', ');
  const more = matches.length > 5 ? `, and ${matches.length - 5} more` : '';
  return new ControlClientError('AMBIGUOUS_TERMINAL', `${JSON.stringify(ref)} matches ${matches.length} terminals by ${kind}: ${listed}${more}; use the full id`);
}
