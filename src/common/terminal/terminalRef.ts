/**
 * How people and agents name a terminal: its full id, its name, or a unique prefix of its id. One
 * rule for the CLI's TERMINAL arguments and for the terminals a control token is limited to, so a
 * name that works in one place works in the other.
 */

export interface NamedTerminal {
  readonly id: string;
  readonly name: string;
}

export type TerminalRefMatch<T extends NamedTerminal> =
  | { kind: 'found'; terminal: T }
  | { kind: 'ambiguous'; by: 'name' | 'id prefix'; matches: T[] }
  /** `near`: terminals whose name differs only by spaces, case, dashes or underscores (`bash2` for "bash 2"). */
  | { kind: 'unknown'; near: T[] };

/**
 * Order: exact id, exact name, then id prefix. An exact match always wins, so a terminal named
 * "a" stays reachable even when some id starts with "a".
 */
export function matchTerminalRef<T extends NamedTerminal>(terminals: readonly T[], ref: string): TerminalRefMatch<T> {
  const byId = terminals.find((terminal) => terminal.id === ref);
  if (byId) return { kind: 'found', terminal: byId };
  const byName = terminals.filter((terminal) => terminal.name === ref);
  if (byName.length === 1) return { kind: 'found', terminal: byName[0]! };
  if (byName.length > 1) return { kind: 'ambiguous', by: 'name', matches: byName };
  const byPrefix = ref.length > 0 ? terminals.filter((terminal) => terminal.id.startsWith(ref)) : [];
  if (byPrefix.length === 1) return { kind: 'found', terminal: byPrefix[0]! };
  if (byPrefix.length > 1) return { kind: 'ambiguous', by: 'id prefix', matches: byPrefix };
  return { kind: 'unknown', near: terminals.filter((terminal) => looseName(terminal.name) === looseName(ref)) };
}

/** A name as people mistype it: new terminals are numbered with a space ("bash 2"), which a shell splits unless quoted. */
function looseName(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}
