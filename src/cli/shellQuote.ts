/**
 * Turning argv back into one shell command line, for `exec ID -- CMD ARGS…` and `new -- CMD…`.
 * Hand-written because it is five lines and the rule is the product's own: a single argument is a
 * command line already (`exec ID -- 'ls | wc -l'`), several are quoted one by one so that
 * `exec ID -- sh -c 'exit 7'` runs exactly that argv.
 */

/** Characters that never need quoting in sh, bash, zsh or fish. */
const safeWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** POSIX single quoting; `'\''` also works in fish. */
export function quoteShellWord(word: string): string {
  if (safeWord.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export function commandLineFromArgs(args: readonly string[]): string {
  if (args.length === 1) return args[0]!;
  return args.map(quoteShellWord).join(' ');
}
