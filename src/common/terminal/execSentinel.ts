/**
 * The sentinel `exec` wraps a command in when it cannot use shell integration (see
 * src/node/control/shellCommandLine.ts). Here so every layer that shows or stores command lines
 * can tell the wrapper apart from commands a person or an agent actually ran.
 */

/** Private OSC number of the exec sentinel; terminals ignore OSCs they do not know. */
export const sentinelOscNumber = 6973;

/**
 * Whether a command line the shell reported is an exec's sentinel wrapper (a shell whose
 * integration started after the wrapper was typed reports the whole wrapper as its command).
 */
export function isExecSentinelLine(commandLine: string): boolean {
  return sentinelLineStart.test(commandLine);
}

/**
 * How every wrapper starts (shellCommandLine.ts sentinelLine): its start marker's printf with a
 * hex nonce. Only that shape: a command that prints such text itself (`printf
 * '\033]6973;S;…'`) is a command of its own, not a wrapper.
 */
const sentinelLineStart = new RegExp(`^\\s*(?:builtin|command) printf '\\\\033\\]${sentinelOscNumber};S;[0-9a-f]+;%s\\\\007' "\\$PWD"`);
