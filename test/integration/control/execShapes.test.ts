/**
 * Conformance (issue 16): `exec` answers for every command shape, in every shell, with the exact
 * output and exit code. A table of shapes (subshells, groups, pipelines, here-docs, multi-line
 * lines, `$(…)`, background jobs, functions, `set -e`, traps, `exec` redirections, very long
 * lines, Unicode, output that imitates our marks, stderr, large output, quoting of every kind,
 * `!`, tabs, CRLF, syntax errors, …) runs through the real control socket in real PTYs:
 *
 * - with shell integration (the marks path, `source: "shell"`): bash, zsh, fish as Switchboard
 *   starts them;
 * - without it (the sentinel path, `source: "exec"`): `bash --norc`, `zsh -f`, `fish --no-config`,
 *   `sh` (dash), and a `bash --norc` started inside an integrated fish (a nested shell).
 *
 * What `output` is compared with, exactly (docs/protocol.md § exec, terminalOutput.ts): the raw
 * bytes the terminal printed between the command's start and end, with ANSI/OSC/DCS sequences and
 * control chars other than tab, CR and LF removed (not rendered: `abc ESC[2D x` stays `abcx`),
 * every run of CRs before a LF turned into that LF (the tty's own LF → CRLF included, so a
 * program's CRLF is LF too), each line as the terminal shows it (a CR or `ESC[1G` goes back over the
 * line and what follows overwrites it; `ESC[K` erases), and the shells' redraw noise at the two edges trimmed:
 * leading CRs (fish moves to column 0 first — a command's own leading CR goes with them) and zsh's
 * PROMPT_SP at the end. The echo of the typed line is never part of it. Output past 256 KiB keeps
 * its tail (`truncated: true`), cut at a byte of the raw stream.
 *
 * Besides an event (output, exit code, `truncated`, the command line as given, `source`), a shape
 * may expect the documented failures: the shell exits (`exits`), or the shell refuses the line as
 * typed (`refused`, with what it said).
 *
 * Each shape gives its command and expectation per shell: once for all shells, once for the POSIX
 * ones (bash, zsh, sh), or per shell, and a suite id (`bash-norc`) or a shell without integration
 * (`zsh+sentinel`) may override where only that way of running differs. A shell in which a shape
 * does not exist says so with `absent(why)` — the table refuses a shape that forgets a shell.
 * Shapes run one after another in one terminal per suite (a few set state that the next one uses,
 * said where they do), each followed by a probe exec that the terminal must still answer the
 * ordinary way. A shape that ends its shell runs in a terminal of its own, and after any failure
 * the suite goes on in a new terminal, so one failure does not fail the shapes after it. Every
 * exec has 10 s: a hang fails fast.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from '../../helpers/poll.ts';
import { createTerminal, type Frame, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

type Flavor = 'bash' | 'zsh' | 'fish' | 'sh';

/** What an expectation may depend on: where the suite's terminal runs. */
interface Context {
  workspace: string;
  home: string;
  terminalId: string;
}

/** Exact text, text computed from the context, or a template where only `{pid}` and `{job}` vary. */
type Output = string | ((context: Context) => string) | JobTemplate;

class JobTemplate {
  readonly text: string;
  readonly pattern: RegExp;
  constructor(text: string) {
    this.text = text;
    const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.pattern = new RegExp(`^${escaped.replace(/\\\{pid\\\}/g, '[1-9][0-9]*').replace(/\\\{job\\\}/g, '[1-9][0-9]*')}$`);
  }
}

/**
 * Job control messages carry the job's pid, and its number where the shell keeps jobs of earlier
 * commands in its table (zsh): the only parts of an output that are not fixed.
 */
const jobMessages = (text: string) => new JobTemplate(text);

interface Expectation {
  command: string;
  output: Output;
  /** The exit code; for `exits`, the shell's. */
  exitCode: number;
  /** Large output: only its tail is returned. */
  truncated?: boolean;
  /** The shell ends with the command: exec fails with "… exited while running the command …". */
  exits?: boolean;
  /**
   * The shell refuses the line as typed (a syntax error) and runs nothing: exec fails with "the
   * shell in terminal X did not run the command (a syntax error?); it said: <this>".
   */
  refused?: string;
}

/** A shape that does not exist in a shell, and why. */
interface Absent {
  absent: string;
}

type Entry = [command: string, output: Output, exitCode?: number] | Expectation | Absent;

interface Variants {
  all?: Entry;
  posix?: Entry;
  bash?: Entry;
  zsh?: Entry;
  sh?: Entry;
  fish?: Entry;
  /**
   * Overrides where only one way of running a shell differs: a suite id (`bash-norc`), or a shell
   * run without integration (`zsh+sentinel`: the command runs inside the wrapper's eval).
   */
  [suiteOrWay: string]: Entry | undefined;
}

interface Shape {
  name: string;
  variants: Variants;
  /** It ends or damages its shell: run it in a terminal of its own. */
  fresh?: boolean;
}

const absent = (why: string): Absent => ({ absent: why });
const exits = (command: string, exitCode: number, output = ''): Expectation => ({ command, output, exitCode, exits: true });
const refused = (command: string, said: string): Expectation => ({ command, output: '', exitCode: 0, refused: said });
const noSubshellsInFish = absent('fish has no subshells: ( ) is a command substitution, refused in command position (see "bash syntax typed into fish")');
const noHeredocsInFish = absent('fish has no here-documents');

const shapes: Shape[] = [];
function shape(name: string, variants: Variants, options: { fresh?: boolean } = {}): void {
  shapes.push({ name, variants, ...options });
}

// ------------------------------------------------------------------------------------------------
// The table. Commands are String.raw where they hold backslashes, so what is read is what is typed.
// ------------------------------------------------------------------------------------------------

const x3000 = 'x'.repeat(3000);
const x5000 = 'y'.repeat(5000);
const x10000 = 'z'.repeat(10_000);
const cjk1000 = '界'.repeat(1000);
const hundredEchoes = Array.from({ length: 100 }, (_, index) => `echo line-${index + 1}`).join('\n');
const hundredLines = Array.from({ length: 100 }, (_, index) => `line-${index + 1}\n`).join('');
const seqOutput = (to: number) => Array.from({ length: to }, (_, index) => `${index + 1}\n`).join('');

/**
 * The tail exec returns of output larger than execMaxOutputBytes: the last 256 KiB of the raw
 * stream (where every LF the program printed is CRLF), then normalized. `raw` is what the program
 * printed, with LF line ends; `trailing` is how many bytes the shell drew after it inside the
 * command's range (they take part of the 256 KiB and are trimmed afterwards).
 */
function tailOf(raw: string, trailing = 0): string {
  const stream = Buffer.from(raw.replace(/\n/g, '\r\n'));
  const tail = stream.subarray(stream.length - (256 * 1024 - trailing)).toString('utf8');
  return tail.replace(/\r+\n/g, '\n').replace(/^\r+(?!\n)/, '');
}

/**
 * zsh's PROMPT_SP in an 80-column terminal, drawn before the precmd hook that marks the command's
 * end: bold reverse `#` (the end-of-line mark of root), SGR resets, 79 spaces, CR, space, CR.
 */
const zshPromptSpBytes = 22 + 79 + 3;

// --- basics --------------------------------------------------------------------------------------
shape('echo', { all: ['echo hello', 'hello\n'] });
shape('printf without a final newline', { all: ["printf 'no newline'", 'no newline'] });
shape('true: empty output', { all: ['true', ''] });
shape('false: exit 1', { all: ['false', '', 1] });
shape('the colon builtin', { all: [':', ''] });
shape('bare echo: one empty line', { all: ['echo', '\n'] });
shape('word splitting of unquoted spaces', { all: ['echo a b   c', 'a b c\n'] });
shape('spaces kept inside quotes', { all: ['echo "a   b"', 'a   b\n'] });
shape('printf reuses its format', { all: [String.raw`printf '%s\n' one two three`, 'one\ntwo\nthree\n'] });
shape('printf numbers', { all: [String.raw`printf '%d+%d=%d\n' 1 2 3`, '1+2=3\n'] });
shape('arithmetic', { posix: ['echo $((6*7))', '42\n'], fish: [String.raw`math 6 \* 7`, '42\n'] });
shape('pwd is the workspace', { all: ['pwd', (c) => `${c.workspace}\n`] });
shape('$HOME', { all: ['echo $HOME', (c) => `${c.home}\n`] });
shape('the terminal id is in the environment', { all: [String.raw`printf '%s\n' "$SWITCHBOARD_TERMINAL_ID"`, (c) => `${c.terminalId}\n`] });
shape('TERM', { all: ['echo $TERM', 'xterm-256color\n'] });
shape('stdin is the terminal', { all: ['test -t 0 && echo stdin-is-a-tty', 'stdin-is-a-tty\n'] });
shape('stdout is the terminal', { all: ['test -t 1 && echo stdout-is-a-tty', 'stdout-is-a-tty\n'] });
shape('the terminal size', { all: ['stty size', '24 80\n'] });
shape('seq', { all: ['seq 3', '1\n2\n3\n'] });
shape('a tty device', { all: ['tty | grep -c /dev/pts/', '1\n'] });
shape('the per-terminal nonce never reaches programs', {
  posix: ['echo "nonce=${SWITCHBOARD_NONCE:-unset}"', 'nonce=unset\n'],
  fish: ['set -q SWITCHBOARD_NONCE; or echo nonce=unset', 'nonce=unset\n'],
});

// --- exit codes ----------------------------------------------------------------------------------
shape('child exit 3', { all: ["sh -c 'exit 3'", '', 3] });
shape('child exit 255', { all: ["sh -c 'exit 255'", '', 255] });
shape('child exit 256 wraps to 0', { all: ["sh -c 'exit 256'", '', 0] });
shape('child killed by SIGTERM', {
  posix: ["sh -c 'kill -TERM $$'", 'Terminated\n', 143],
  zsh: ["sh -c 'kill -TERM $$'", "zsh: terminated  sh -c 'kill -TERM $$'\n", 143],
  'zsh+sentinel': ["sh -c 'kill -TERM $$'", '', 143],
  fish: ["sh -c 'kill -TERM $$'", "fish: Job 1, 'sh -c 'kill -TERM $$'' terminated by signal SIGTERM (Polite quit request)\n", 143],
  'fish+sentinel': ["sh -c 'kill -TERM $$'", '', 143],
});
shape('child killed by SIGKILL', {
  posix: ["sh -c 'kill -KILL $$'", 'Killed\n', 137],
  zsh: ["sh -c 'kill -KILL $$'", "zsh: killed     sh -c 'kill -KILL $$'\n", 137],
  'zsh+sentinel': ["sh -c 'kill -KILL $$'", '', 137],
  fish: ["sh -c 'kill -KILL $$'", "fish: Job 1, 'sh -c 'kill -KILL $$'' terminated by signal SIGKILL (Forced quit)\n", 137],
  'fish+sentinel': ["sh -c 'kill -KILL $$'", '', 137],
});
shape('child killed by SIGINT', {
  // bash moves to a new line, as after a Ctrl-C.
  bash: ["sh -c 'kill -INT $$'", '\n', 130],
  zsh: ["sh -c 'kill -INT $$'", '\n', 130],
  'zsh+sentinel': ["sh -c 'kill -INT $$'", '', 130],
  posix: ["sh -c 'kill -INT $$'", '', 130],
  // fish does not report a job ended by SIGINT: it is what Ctrl-C does.
  fish: ["sh -c 'kill -INT $$'", '', 130],
});
shape('command not found', {
  bash: ['nosuchcommand_sb', 'bash: nosuchcommand_sb: command not found\n', 127],
  zsh: ['nosuchcommand_sb', 'zsh: command not found: nosuchcommand_sb\n', 127],
  sh: ['nosuchcommand_sb', '/usr/bin/sh: 1: eval: nosuchcommand_sb: not found\n', 127],
  fish: ['nosuchcommand_sb', 'fish: Unknown command: nosuchcommand_sb\n', 127],
});
shape('a file that is not executable', {
  bash: ['./noexec.sh', 'bash: ./noexec.sh: Permission denied\n', 126],
  zsh: ['./noexec.sh', 'zsh: permission denied: ./noexec.sh\n', 126],
  sh: ['./noexec.sh', '/usr/bin/sh: 1: eval: ./noexec.sh: Permission denied\n', 126],
  fish: ['./noexec.sh', "fish: Unknown command. './noexec.sh' exists but is not an executable file.\n", 126],
});
shape('a script with arguments and an exit code', { all: ['./script.sh a b', 'args: a b\n', 3] });
shape('a script run by sh', { all: ["sh script.sh 'c d'", 'args: c d\n', 3] });
shape('negation of true', { all: ['! true', '', 1] });
shape('negation of false', { all: ['! false', '', 0] });
shape('negation of a pipeline', { all: ['! echo x | grep -q y', '', 0] });

// --- subshells -----------------------------------------------------------------------------------
shape('subshell exit 5', { posix: ['(exit 5)', '', 5], fish: noSubshellsInFish });
shape('subshell exit 0', { posix: ['(exit 0)', '', 0], fish: noSubshellsInFish });
shape('subshell exit 1', { posix: ['(exit 1)', '', 1], fish: noSubshellsInFish });
shape('subshell exit 255', { posix: ['(exit 255)', '', 255], fish: noSubshellsInFish });
shape('subshell exit 300 wraps to 44', { posix: ['(exit 300)', '', 44], fish: noSubshellsInFish });
shape('subshell with inner spaces', { posix: ['( exit 6 )', '', 6], fish: noSubshellsInFish });
shape('subshell then a semicolon', { posix: ['(exit 5);', '', 5], fish: noSubshellsInFish });
shape('subshell then a trailing space', { posix: ['(exit 7) ', '', 7], fish: noSubshellsInFish });
shape('subshell after a leading space', { posix: [' (exit 8)', '', 8], fish: noSubshellsInFish });
shape('subshell cd /tmp && echo', { posix: ['(cd /tmp && echo x)', 'x\n'], fish: noSubshellsInFish });
shape('subshell cd /tmp && pwd', { posix: ['(cd /tmp && pwd)', '/tmp\n'], fish: noSubshellsInFish });
shape('subshell cd sub && printf of a file', { posix: [String.raw`(cd sub && printf '%s\n' "$(cat file.txt)")`, 'in sub\n'], fish: noSubshellsInFish });
shape('subshell cd sub && printf of $PWD', { posix: ['(cd sub && printf "in %s\\n" "${PWD##*/}")', 'in sub\n'], fish: noSubshellsInFish });
shape('subshell cd into a missing directory', {
  bash: ['(cd missing_dir_sb && echo never)', 'bash: cd: missing_dir_sb: No such file or directory\n', 1],
  zsh: ['(cd missing_dir_sb && echo never)', 'cd: no such file or directory: missing_dir_sb\n', 1],
  sh: ['(cd missing_dir_sb && echo never)', "/usr/bin/sh: 1: cd: can't cd to missing_dir_sb\n", 2],
  fish: noSubshellsInFish,
});
shape("a subshell's cd does not leak", { posix: ['(cd sub; pwd); pwd', (c) => `${c.workspace}/sub\n${c.workspace}\n`], fish: noSubshellsInFish });
shape('subshell of two commands', { posix: ['(echo a; echo b)', 'a\nb\n'], fish: noSubshellsInFish });
shape('subshell exits early', { posix: ['(echo a; exit 3; echo b)', 'a\n', 3], fish: noSubshellsInFish });
shape('nested subshells', { posix: ['( (exit 4) )', '', 4], fish: noSubshellsInFish });
shape('three levels of subshells', { posix: ['(echo a; (echo b; (echo c)))', 'a\nb\nc\n'], fish: noSubshellsInFish });
shape('subshell || echo', { posix: ['(exit 5) || echo failed', 'failed\n'], fish: noSubshellsInFish });
shape('subshell && echo', { posix: ['(exit 5) && echo never', '', 5], fish: noSubshellsInFish });
shape('subshell; echo $?', { posix: ['(false); echo $?', '1\n'], fish: noSubshellsInFish });
shape('subshell; echo "after $?"', { posix: ['(exit 5) ; echo "after $?"', 'after 5\n'], fish: noSubshellsInFish });
shape('subshell into a pipe', { posix: ['(echo sub) | tr a-z A-Z', 'SUB\n'], fish: noSubshellsInFish });
shape('a pipe into a subshell', { posix: ['echo in | (read x; echo "got $x")', 'got in\n'], fish: noSubshellsInFish });
shape('subshell redirected to a file', { posix: ['(echo a) > sub-out.txt; cat sub-out.txt; rm sub-out.txt', 'a\n'], fish: noSubshellsInFish });
shape('subshell stderr into stdout', { posix: ['(echo to-err >&2) 2>&1', 'to-err\n'], fish: noSubshellsInFish });
shape('subshell output discarded', { posix: ['(echo hidden) >/dev/null; echo shown', 'shown\n'], fish: noSubshellsInFish });
shape('subshell variables stay inside', { posix: ['(x=inner; echo $x); echo "${x:-unset}"', 'inner\nunset\n'], fish: noSubshellsInFish });
shape('subshell export stays inside', { posix: ['(export SB_SUB_EXPORT=1); echo "${SB_SUB_EXPORT:-unset}"', 'unset\n'], fish: noSubshellsInFish });
shape('subshell umask', { posix: ['(umask 077; umask)', '0077\n'], zsh: ['(umask 077; umask)', '077\n'], fish: noSubshellsInFish });
shape('subshell sleep then echo', { posix: ['(sleep 0.1; echo slept)', 'slept\n'], fish: noSubshellsInFish });
shape('subshell defines and calls a function', { posix: ['(f() { echo inner-fn; }; f)', 'inner-fn\n'], fish: noSubshellsInFish });
shape('exit inside a function inside a subshell', { posix: ['(f() { exit 3; }; f; echo never)', '', 3], fish: noSubshellsInFish });
shape('subshell printf without newline', { posix: ["(printf 'no-nl')", 'no-nl'], fish: noSubshellsInFish });
shape('multi-line subshell', { posix: ['(\necho multi\necho line\n)', 'multi\nline\n'], fish: noSubshellsInFish });
shape('subshells in a subshell with cd', { posix: ['( cd sub && ( cd .. && pwd ) )', (c) => `${c.workspace}\n`], fish: noSubshellsInFish });
shape('two subshells with &&', { posix: ['(echo a) && (echo b)', 'a\nb\n'], fish: noSubshellsInFish });
shape('subshell with a background job and wait', { posix: ['(sleep 0.1 & wait; echo waited)', 'waited\n'], fish: noSubshellsInFish });
shape('arithmetic-looking double parenthesis', {
  bash: ['((1 + 1))', '', 0],
  zsh: ['((1 + 1))', '', 0],
  sh: ['((echo dash-nests))', 'dash-nests\n', 0],
  fish: noSubshellsInFish,
});

// --- set -e, set -u, pipefail in subshells ----------------------------------------------------------
shape('set -e stops a subshell', { posix: ['(set -e; false; echo not-reached)', '', 1], fish: absent('fish has no set -e') });
shape('set -e lets success through', { posix: ['(set -e; true; echo reached)', 'reached\n'], fish: absent('fish has no set -e') });
shape('set -e ignores a tested failure', { posix: ['(set -e; false || true; echo ok)', 'ok\n'], fish: absent('fish has no set -e') });
shape('set -e and a nested subshell', { posix: ['(set -e; (exit 3); echo no)', '', 3], fish: absent('fish has no set -e') });
shape('set -u on an unset variable', {
  bash: [String.raw`(set -u; echo "$SB_UNSET_VAR")`, 'bash: SB_UNSET_VAR: unbound variable\n', 1],
  zsh: [String.raw`(set -u; echo "$SB_UNSET_VAR")`, 'zsh: SB_UNSET_VAR: parameter not set\n', 1],
  sh: [String.raw`(set -u; echo "$SB_UNSET_VAR")`, '/usr/bin/sh: 1: eval: SB_UNSET_VAR: parameter not set\n', 2],
  fish: absent('fish has no set -u'),
});
shape('pipefail in a subshell', {
  posix: ['(set -o pipefail; false | true)', '', 1],
  sh: ['(set -o pipefail; false | true)', '/usr/bin/sh: 1: set: Illegal option -o pipefail\n', 2],
  fish: absent('fish has no pipefail; $pipestatus is its way (see "pipe status")'),
});

// --- traps ---------------------------------------------------------------------------------------
shape('EXIT trap in a subshell', { posix: ["(trap 'echo bye' EXIT; echo hi)", 'hi\nbye\n'], fish: noSubshellsInFish });
shape('EXIT trap keeps the exit code', { posix: ["(trap 'echo bye' EXIT; exit 4)", 'bye\n', 4], fish: noSubshellsInFish });
shape('ERR trap in a subshell', {
  posix: ["(trap 'echo err-trap' ERR; false; true)", 'err-trap\n'],
  sh: ["(trap 'echo err-trap' ERR; false; true)", 'trap: ERR: bad trap\n', 0],
  fish: noSubshellsInFish,
});
shape('a signal trap in a child shell', { all: [`sh -c 'trap "echo got-usr1" USR1; kill -USR1 $$; echo after'`, 'got-usr1\nafter\n'] });
shape("a signal trap in the terminal's own shell", {
  posix: ["trap 'echo got-usr2' USR2; kill -USR2 $$; trap - USR2", 'got-usr2\n'],
  fish: absent("fish runs signal handlers (--on-signal) between commands, at a time of its choosing: not a fixed output"),
});
shape('trap -p lists a trap', {
  bash: ["(trap 'echo x' USR1; trap -p USR1)", "trap -- 'echo x' SIGUSR1\n"],
  zsh: ["(trap 'echo x' USR1; trap)", "trap -- 'echo x' USR1\n"],
  sh: ["(trap 'echo x' USR1; trap)", "trap -- 'echo x' USR1\n"],
  fish: noSubshellsInFish,
});
shape('removing the DEBUG trap in a subshell leaves the shell alone', {
  posix: ['(trap - DEBUG; echo x)', 'x\n'],
  sh: ['(trap - DEBUG; echo x)', 'trap: DEBUG: bad trap\nx\n'],
  fish: noSubshellsInFish,
});

// --- exec redirections inside subshells ----------------------------------------------------------------
shape('exec 2>&1 in a subshell', {
  posix: ['(exec 2>&1; ls /nonexistent_sb)', "ls: cannot access '/nonexistent_sb': No such file or directory\n", 2],
  fish: noSubshellsInFish,
});
shape('exec >/dev/null in a subshell', { posix: ['(exec >/dev/null; echo gone); echo here', 'here\n'], fish: noSubshellsInFish });
shape('exec 3>&1 in a subshell', { posix: ['(exec 3>&1; echo via-fd3 >&3)', 'via-fd3\n'], fish: noSubshellsInFish });
shape('exec </dev/null in a subshell', { posix: ['(exec </dev/null; cat; echo eof)', 'eof\n'], fish: noSubshellsInFish });
shape('exec of a command replaces the subshell', { posix: ['(exec echo replaced; echo never)', 'replaced\n'], fish: noSubshellsInFish });
shape("exec'd child's exit code", { posix: [`(exec sh -c 'exit 9')`, '', 9], fish: noSubshellsInFish });
shape('exec 2>/dev/null in a subshell', { posix: ['(exec 2>/dev/null; ls /nonexistent_sb; echo "rc=$?")', 'rc=2\n'], fish: noSubshellsInFish });
shape('cd && exec in a subshell', { posix: ['(cd sub && exec cat file.txt)', 'in sub\n'], fish: noSubshellsInFish });

// --- groups --------------------------------------------------------------------------------------
shape('group', { posix: ['{ echo a; }', 'a\n'], fish: ['begin; echo a; end', 'a\n'] });
shape('group into a pipe', { posix: ['{ echo a; echo b; } | cat', 'a\nb\n'], fish: ['begin; echo a; echo b; end | cat', 'a\nb\n'] });
shape('group exit code', { posix: ['{ false; }', '', 1], fish: ['begin; false; end', '', 1] });
shape('group of a subshell', { posix: ['{ (exit 6); }', '', 6], fish: noSubshellsInFish });
shape('group stderr discarded', {
  posix: ['{ echo out; echo err >&2; } 2>/dev/null', 'out\n'],
  fish: ['begin; echo out; echo err >&2; end 2>/dev/null', 'out\n'],
});
shape('group into a file', {
  posix: ['{ echo a; } > grp.txt; cat grp.txt; rm grp.txt', 'a\n'],
  fish: ['begin; echo a; end > grp.txt; cat grp.txt; rm grp.txt', 'a\n'],
});
shape('group || recovery', { posix: ['{ echo x; false; } || echo recovered', 'x\nrecovered\n'], fish: ['begin; echo x; false; end || echo recovered', 'x\nrecovered\n'] });
shape('multi-line group', { posix: ['{\necho g1\necho g2\n}', 'g1\ng2\n'], fish: ['begin\necho g1\necho g2\nend', 'g1\ng2\n'] });
shape('group && group', { posix: ['{ echo a; } && { echo b; }', 'a\nb\n'], fish: ['begin; echo a; end && begin; echo b; end', 'a\nb\n'] });
shape('stdout and stderr of a group merged and sorted', {
  posix: ['{ echo 2; echo 1 >&2; } 2>&1 | sort', '1\n2\n'],
  fish: ['begin; echo 2; echo 1 >&2; end 2>&1 | sort', '1\n2\n'],
});

// --- pipelines -----------------------------------------------------------------------------------
shape('pipe', { all: ['echo a | cat', 'a\n'] });
shape('sort', { all: [String.raw`printf 'b\na\nc\n' | sort`, 'a\nb\nc\n'] });
shape('three-stage pipeline', { all: [String.raw`printf 'b\na\n' | sort | head -1`, 'a\n'] });
shape('tr and rev', { all: ['echo hello | tr a-z A-Z | rev', 'OLLEH\n'] });
shape('false | true', { all: ['false | true', '', 0] });
shape('true | false', { all: ['true | false', '', 1] });
shape('tail of seq', { all: ['seq 5 | tail -2', '4\n5\n'] });
shape('yes | head (SIGPIPE is not a failure)', { all: ['yes | head -3', 'y\ny\ny\n'] });
shape('while read loop', {
  posix: ['seq 3 | while read x; do echo "<$x>"; done', '<1>\n<2>\n<3>\n'],
  fish: ['seq 3 | while read x; echo "<$x>"; end', '<1>\n<2>\n<3>\n'],
});
shape('grep -o', { all: ['echo abc | grep -o b', 'b\n'] });
shape('grep -q that fails', { all: ['echo abc | grep -q z', '', 1] });
shape('awk sum', { all: [`seq 100 | awk '{s+=$1} END {print s}'`, '5050\n'] });
shape('xargs', { all: ['echo one two | xargs -n1', 'one\ntwo\n'] });
shape('tee to /dev/null', { all: ['echo tee-me | tee /dev/null', 'tee-me\n'] });
shape('tee to stderr', { all: ['echo both | tee /dev/stderr', 'both\nboth\n'] });
shape('pipe status', {
  bash: ['false | true; echo "${PIPESTATUS[@]}"', '1 0\n'],
  zsh: ['false | true; echo $pipestatus', '1 0\n'],
  sh: absent('dash has no pipe status'),
  fish: ['false | true; echo $pipestatus', '1 0\n'],
});
shape('pipe of stdout and stderr', {
  bash: ['ls /nonexistent_sb |& cat', "ls: cannot access '/nonexistent_sb': No such file or directory\n"],
  zsh: ['ls /nonexistent_sb |& cat', "ls: cannot access '/nonexistent_sb': No such file or directory\n"],
  sh: ['ls /nonexistent_sb 2>&1 | cat', "ls: cannot access '/nonexistent_sb': No such file or directory\n"],
  fish: ['ls /nonexistent_sb &| cat', "ls: cannot access '/nonexistent_sb': No such file or directory\n"],
});
shape('stderr counted through a pipe', { all: ['ls /nonexistent_sb 2>&1 | wc -l', '1\n'] });
shape('pipefail with three stages', {
  bash: ['(set -o pipefail; true | false | true)', '', 1],
  zsh: ['(set -o pipefail; true | false | true)', '', 1],
  sh: absent('dash has no pipefail'),
  fish: absent('fish has no pipefail'),
});

// --- && and || -----------------------------------------------------------------------------------
shape('true && echo', { all: ['true && echo yes', 'yes\n'] });
shape('false && echo', { all: ['false && echo yes', '', 1] });
shape('false || echo', { all: ['false || echo no', 'no\n'] });
shape('true || echo', { all: ['true || echo no', '', 0] });
shape('false || false', { all: ['false || false', '', 1] });
shape('&& then ||', { all: ['true && false || echo fallback', 'fallback\n'] });
shape('a chain of &&', { all: ['echo a && echo b && echo c', 'a\nb\nc\n'] });
shape('false && a || b', { all: ['false && echo a || echo b', 'b\n'] });
shape('&& into a failing subshell || caught', { posix: ['true && (exit 3) || echo caught', 'caught\n'], fish: ['true && false || echo caught', 'caught\n'] });
shape("fish's and", { posix: absent('`; and` is fish syntax (see "&&")'), fish: ['true; and echo yes', 'yes\n'] });
shape("fish's or", { posix: absent('`; or` is fish syntax (see "||")'), fish: ['false; or echo no', 'no\n'] });
shape('[ ] && echo', { all: ['[ 1 -lt 2 ] && echo less', 'less\n'] });
shape('test -d && echo', { all: ['test -d sub && echo dir', 'dir\n'] });
shape('test -f || echo', { all: ['test -f missing_sb || echo missing', 'missing\n'] });
shape('[ ! -e ] && echo', { all: ['[ ! -e /nonexistent_sb ] && echo absent', 'absent\n'] });

// --- here-documents ------------------------------------------------------------------------------
shape('here-doc', { posix: ['cat <<EOF\nline one\nline two\nEOF', 'line one\nline two\n'], fish: noHeredocsInFish });
shape('quoted here-doc is literal', { posix: ["cat <<'EOF'\n$HOME $(echo no)\nEOF", '$HOME $(echo no)\n'], fish: noHeredocsInFish });
shape('here-doc expands variables', { posix: ['cat <<EOF\nhome=$HOME\nEOF', (c) => `home=${c.home}\n`], fish: noHeredocsInFish });
shape('here-doc expands $(…)', { posix: ['cat <<EOF\n$(echo computed)\nEOF', 'computed\n'], fish: noHeredocsInFish });
shape('<<- strips leading tabs', { posix: ['cat <<-EOF\n\tindented\n\tEOF', 'indented\n'], fish: noHeredocsInFish });
shape('here-doc into a pipe', { posix: ['cat <<EOF | tr a-z A-Z\nshout\nEOF', 'SHOUT\n'], fish: noHeredocsInFish });
shape('empty here-doc', { posix: ['cat <<EOF\nEOF', ''], fish: noHeredocsInFish });
shape('two here-docs on one line', { posix: ['cat <<A; cat <<B\nfirst\nA\nsecond\nB', 'first\nsecond\n'], fish: noHeredocsInFish });
shape('here-doc in a subshell', { posix: ['(cat <<EOF\nin subshell\nEOF\n)', 'in subshell\n'], fish: noHeredocsInFish });
shape('here-doc into a file, then more lines', { posix: ['cat <<EOF > hd.txt\nsaved\nEOF\ncat hd.txt; rm hd.txt', 'saved\n'], fish: noHeredocsInFish });
shape('here-doc of Unicode', { posix: ['cat <<EOF\nünïcödé ✓ 日本 😀\nEOF', 'ünïcödé ✓ 日本 😀\n'], fish: noHeredocsInFish });
shape('here-doc counted', { posix: ['wc -l <<EOF\n1\n2\n3\nEOF', '3\n'], fish: noHeredocsInFish });
shape('quoted here-doc of quotes and backslashes', {
  posix: ["cat <<'EOF'\n'single' \"double\" `tick` \\ $x\nEOF", '\'single\' "double" `tick` \\ $x\n'],
  fish: noHeredocsInFish,
});
shape('here-doc with an indented look-alike end', { posix: ['cat <<EOF\n EOF\nEOF', ' EOF\n'], fish: noHeredocsInFish });
shape('here-doc of 100 lines', { posix: [`cat <<EOF\n${hundredLines}EOF`, hundredLines], fish: noHeredocsInFish });
shape('here-doc keeps tabs without <<-', { posix: ['cat <<EOF\n\tkept\nEOF', '\tkept\n'], fish: noHeredocsInFish });
shape('here-string', {
  bash: ['cat <<< "here string"', 'here string\n'],
  zsh: ['cat <<< "here string"', 'here string\n'],
  sh: absent('dash has no here-strings'),
  fish: noHeredocsInFish,
});
shape('read from a here-string', {
  bash: ['read -r a b <<< "x y"; echo "$b$a"', 'yx\n'],
  zsh: ['read -r a b <<< "x y"; echo "$b$a"', 'yx\n'],
  sh: absent('dash has no here-strings'),
  fish: noHeredocsInFish,
});
shape('here-doc to sed', { posix: ['sed -n 2p <<EOF\nfirst\nsecond\nEOF', 'second\n'], fish: noHeredocsInFish });

// --- multi-line commands --------------------------------------------------------------------------------
shape('two lines', { all: ['echo one\necho two', 'one\ntwo\n'] });
shape('a blank line between', { all: ['echo one\n\necho three', 'one\nthree\n'] });
shape('if/then/fi over lines', { posix: ['if true\nthen\n  echo yes\nfi', 'yes\n'], fish: ['if true\n  echo yes\nend', 'yes\n'] });
shape('if/else over lines', { posix: ['if false\nthen echo a\nelse echo b\nfi', 'b\n'], fish: ['if false\n  echo a\nelse\n  echo b\nend', 'b\n'] });
shape('for loop over lines', {
  posix: ['for i in 1 2 3\ndo\n  echo "i=$i"\ndone', 'i=1\ni=2\ni=3\n'],
  fish: ['for i in 1 2 3\n  echo "i=$i"\nend', 'i=1\ni=2\ni=3\n'],
});
shape('while loop over lines', {
  posix: ['i=0\nwhile [ $i -lt 3 ]\ndo\n  i=$((i+1))\n  echo $i\ndone', '1\n2\n3\n'],
  fish: ['set i 0\nwhile test $i -lt 3\n  set i (math $i + 1)\n  echo $i\nend', '1\n2\n3\n'],
});
shape('case over lines', {
  posix: ['case abc in\n  a*) echo starts-with-a ;;\n  *) echo other ;;\nesac', 'starts-with-a\n'],
  fish: ["switch abc\n  case 'a*'\n    echo starts-with-a\n  case '*'\n    echo other\nend", 'starts-with-a\n'],
});
shape('backslash line continuation', { all: ['echo a \\\n  b', 'a b\n'] });
shape('newline inside single quotes', { all: ["echo 'multi\nline'", 'multi\nline\n'] });
shape('newline inside double quotes', { all: ['echo "x\ny"', 'x\ny\n'] });
shape('function over lines', { posix: ['f() {\n  echo in-f\n}\nf', 'in-f\n'], fish: ['function f\n  echo in-f\nend\nf', 'in-f\n'] });
shape('a trailing newline', { all: ['echo last\n', 'last\n'] });
shape('a leading newline', { all: ['\necho leading-newline', 'leading-newline\n'] });
shape('a comment line first', { all: ['# comment\necho after-comment', 'after-comment\n'] });
shape('a trailing comment', {
  all: ['echo a # trailing comment', 'a\n'],
  // Typed at zsh's prompt, # starts no comment (INTERACTIVE_COMMENTS is off); eval's text does.
  zsh: ['echo a # trailing comment', 'a # trailing comment\n'],
  'zsh+sentinel': ['echo a # trailing comment', 'a\n'],
});
shape('&& at the end of a line', { all: ['echo a &&\necho b', 'a\nb\n'] });
shape('| at the end of a line', { all: ['echo a |\ncat', 'a\n'] });
shape('$(…) over lines', { posix: ['x=$(\necho inner\n)\necho "$x"', 'inner\n'], fish: ['set x (\necho inner\n)\necho $x', 'inner\n'] });
shape('100 lines', { all: [hundredEchoes, hundredLines] });
shape('a small script with nested blocks', {
  posix: ['for i in 1 2 3 4\ndo\n  if [ $((i % 2)) -eq 0 ]\n  then\n    echo "$i even"\n  else\n    echo "$i odd"\n  fi\ndone', '1 odd\n2 even\n3 odd\n4 even\n'],
  fish: ['for i in 1 2 3 4\n  if test (math $i % 2) -eq 0\n    echo "$i even"\n  else\n    echo "$i odd"\n  end\nend', '1 odd\n2 even\n3 odd\n4 even\n'],
});
shape('until loop', {
  posix: ['n=0; until [ $n -ge 2 ]; do n=$((n+1)); echo "n$n"; done', 'n1\nn2\n'],
  fish: absent('fish has no until (see "while loop over lines")'),
});
shape('one-line for loop', { posix: ['for w in a b; do echo "[$w]"; done', '[a]\n[b]\n'], fish: ['for w in a b; echo "[$w]"; end', '[a]\n[b]\n'] });
shape('break out of a loop', {
  posix: ['for i in 1 2 3; do [ $i = 2 ] && break; echo $i; done', '1\n'],
  fish: ['for i in 1 2 3; test $i = 2; and break; echo $i; end', '1\n'],
});
shape('continue in a loop', {
  posix: ['for i in 1 2 3; do [ $i = 2 ] && continue; echo $i; done', '1\n3\n'],
  fish: ['for i in 1 2 3; test $i = 2; and continue; echo $i; end', '1\n3\n'],
});

// --- command substitution ------------------------------------------------------------------------
shape('$(…)', { posix: ['echo $(echo a)', 'a\n'], fish: ['echo (echo a)', 'a\n'] });
shape('"$(…)" keeps newlines', { posix: [String.raw`echo "$(printf 'a\nb')"`, 'a\nb\n'], fish: [String.raw`echo "$(printf 'a\nb')"`, 'a\nb\n'] });
shape('nested $(…)', { posix: ['echo $(echo $(echo deep))', 'deep\n'], fish: ['echo (echo (echo deep))', 'deep\n'] });
shape('backticks', { posix: ['echo `echo backtick`', 'backtick\n'], fish: ['echo `echo backtick`', '`echo backtick`\n'] });
shape('a line that is only $(exit 3)', { posix: ['$(exit 3)', '', 3], fish: absent('fish refuses a command substitution as a command (see "bash syntax typed into fish")') });
shape('$? of an assignment from $(false)', { posix: ['x=$(false); echo $?', '1\n'], fish: ['set x (false); echo $status', '1\n'] });
shape('empty $(…) in brackets', { posix: [`echo "[$(printf '')]"`, '[]\n'], fish: [`echo "[$(printf '')]"`, '[]\n'] });
shape('a command built by $(…)', { posix: ['$(echo echo via-subst)', 'via-subst\n'], fish: ['eval (echo echo via-subst)', 'via-subst\n'] });
shape('$(…) is split into words', { posix: ['echo $(seq 3)', '1 2 3\n'], fish: ['echo (seq 3)', '1 2 3\n'] });
shape('quotes inside $(…) inside quotes', { posix: [String.raw`echo "$(echo "nested \"quotes\"")"`, 'nested "quotes"\n'], fish: [String.raw`echo "$(echo "nested \"quotes\"")"`, 'nested "quotes"\n'] });
shape('$(…) inside arithmetic', { posix: ['echo $(( $(echo 2) * 3 ))', '6\n'], fish: [String.raw`math (echo 2) \* 3`, '6\n'] });
shape("a $(…)'s cd does not leak", { posix: ['echo "$(cd sub && pwd)"; pwd', (c) => `${c.workspace}/sub\n${c.workspace}\n`], fish: absent('a fish command substitution runs in the shell itself: its cd leaks') });

// --- background jobs -----------------------------------------------------------------------------
shape('sleep & wait', {
  bash: ['sleep 0.1 & wait', jobMessages('[1] {pid}\n[1]+  Done                    sleep 0.1\n')],
  zsh: ['sleep 0.1 & wait', jobMessages('[{job}] {pid}\n[{job}]  + done       sleep 0.1\n')],
  sh: ['sleep 0.1 & wait', ''],
  fish: ['sleep 0.1 & wait', "\nfish: Job 1, 'sleep 0.1 &' has ended\n"],
});
// The job prints after a pause: its output cannot race the shell's "[1] pid" line.
shape('a background group with output, and wait', {
  bash: ['{ sleep 0.1; echo a; } & wait', jobMessages('[1] {pid}\na\n[1]+  Done                    { sleep 0.1; echo a; }\n')],
  zsh: ['{ sleep 0.1; echo a; } & wait', jobMessages('[{job}] {pid}\na\n[{job}]  + done       { sleep 0.1; echo a; }\n')],
  sh: ['{ sleep 0.1; echo a; } & wait', 'a\n'],
  // fish announces the end of a backgrounded command, not of a backgrounded block.
  fish: ['begin; sleep 0.1; echo a; end & wait', 'a\n'],
});
shape('background job in a subshell: no job messages', { posix: ['(sleep 0.1 & wait); echo waited', 'waited\n'], fish: noSubshellsInFish });
shape("wait for a background job's exit code", {
  posix: ['(sh -c "exit 7" & wait $!)', '', 7],
  fish: noSubshellsInFish,
});
shape('two background jobs', {
  posix: ["(sh -c 'sleep 0.2; echo slow' & sh -c 'echo fast' & wait)", 'fast\nslow\n'],
  fish: noSubshellsInFish,
});
shape('a background group', {
  posix: ['({ sleep 0.1; echo from-bg; } & wait)', 'from-bg\n'],
  fish: noSubshellsInFish,
});

// --- functions -----------------------------------------------------------------------------------
shape('return 3 from a function', { posix: ['f(){ return 3; }; f', '', 3], fish: ['function f; return 3; end; f', '', 3] });
shape('a function that echoes', { posix: ['f(){ echo in-f; }; f', 'in-f\n'], fish: ['function f; echo in-f; end; f', 'in-f\n'] });
shape('function arguments', {
  posix: [`f(){ echo "$#:$1:$2"; }; f a 'b c'`, '2:a:b c\n'],
  fish: [`function f; echo (count $argv):$argv[1]:$argv[2]; end; f a 'b c'`, '2:a:b c\n'],
});
shape('local variables', {
  posix: ['f(){ local sb_local=loc; echo $sb_local; }; f; echo "${sb_local:-unset}"', 'loc\nunset\n'],
  fish: ['function f; set -l sb_local loc; echo $sb_local; end; f; set -q sb_local; or echo unset', 'loc\nunset\n'],
});
shape('a failing function || caught', { posix: ['f(){ false; }; f || echo caught', 'caught\n'], fish: ['function f; false; end; f || echo caught', 'caught\n'] });
shape('a function ending in a subshell', { posix: ['f(){ (exit 4); }; f', '', 4], fish: noSubshellsInFish });
shape('a recursive function', {
  posix: ['fact(){ if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 5', '120\n'],
  fish: ['function fact; if test $argv[1] -le 1; echo 1; else; math $argv[1] \\* (fact (math $argv[1] - 1)); end; end; fact 5', '120\n'],
});
shape('exit inside a function, called in a subshell', { posix: ['f(){ exit 3; }; (f)', '', 3], fish: noSubshellsInFish });
shape('"$@" in a function', { posix: ['f(){ echo "$@"; }; f x y z', 'x y z\n'], fish: ['function f; echo $argv; end; f x y z', 'x y z\n'] });
shape("a function's cd changes the shell's cwd", {
  posix: ['f() { cd sub; }; f; pwd; cd ..', (c) => `${c.workspace}/sub\n`],
  fish: ['function f; cd sub; end; f; pwd; cd ..', (c) => `${c.workspace}/sub\n`],
});
// The next two run in order: a function defined by one exec is called by the next.
shape('define a function for the next exec', { posix: ['sbf() { echo from-sbf; }', ''], fish: ['function sbf; echo from-sbf; end', ''] });
shape('call the function the previous exec defined', { all: ['sbf', 'from-sbf\n'] });
// And an alias the same way.
shape('define an alias for the next exec', {
  posix: ["alias sbll='echo aliased'", ''],
  fish: ["alias sbll 'echo aliased'", ''],
});
shape('use the alias the previous exec defined', { all: ['sbll', 'aliased\n'] });
// And the working directory.
shape('cd for the next exec', { all: ['cd sub', ''] });
shape('pwd after the previous exec changed it', { all: ['pwd', (c) => `${c.workspace}/sub\n`] });
shape('cd back', { all: ['cd ..', ''] });
// And an exported variable.
shape('export for the next exec', { posix: ['export SB_EXPORTED=yes', ''], fish: ['set -gx SB_EXPORTED yes', ''] });
shape('a child sees the variable the previous exec exported', { all: [`sh -c 'echo "$SB_EXPORTED"'`, 'yes\n'] });

// --- exit, and other things that end or damage a shell (each in a terminal of its own) ------------
// An interactive bash says "exit" as it leaves by `exit`.
shape('exit inside a function', { posix: exits('f(){ exit 3; }; f', 3), bash: exits('f(){ exit 3; }; f', 3, 'exit\n'), fish: exits('function f; exit 3; end; f', 3) }, { fresh: true });
shape('exit', { all: exits('exit 0', 0), bash: exits('exit 0', 0, 'exit\n') }, { fresh: true });
shape('exit with a code after output', { all: exits('echo bye; exit 4', 4, 'bye\n'), bash: exits('echo bye; exit 4', 4, 'bye\nexit\n') }, { fresh: true });
shape('set -e in the shell itself, then a failure', {
  posix: exits('set -e; false', 1),
  fish: absent('fish has no set -e'),
}, { fresh: true });
shape("exec 2>/dev/null in the shell itself", {
  posix: ['exec 2>/dev/null; echo stdout-only; echo gone >&2', 'stdout-only\n'],
  fish: absent('fish cannot redirect its own stderr with exec'),
}, { fresh: true });
shape('return at the top level', {
  bash: ['return 3', 'bash: return: can only `return\' from a function or sourced script\n', 2],
  // zsh takes return at its top level as the status of the line.
  zsh: ['return 3', '', 3],
  sh: exits('return 3', 3),
  fish: ['return 3', '', 3],
}, { fresh: true });

// --- long lines ------------------------------------------------------------------------------------
shape('a 3000-character line', { all: [`echo ${x3000}`, `${x3000}\n`] });
shape('a 5000-character line', { all: [`echo ${x5000}`, `${x5000}\n`], sh: absent('sh (dash) has no line editor: the kernel takes at most 4095 bytes of a typed line (docs/protocol.md)') });
shape('a 10000-character line', { all: [`echo ${x10000}`, `${x10000}\n`], sh: absent('sh (dash) has no line editor: the kernel takes at most 4095 bytes of a typed line (docs/protocol.md)') });
shape('1000 wide characters (3000 bytes)', { all: [`echo ${cjk1000}`, `${cjk1000}\n`] });
shape('a 5000-character output line', { all: [String.raw`head -c 5000 /dev/zero | tr '\0' o; echo`, `${'o'.repeat(5000)}\n`] });
shape('a long line of many words', {
  all: [`echo ${Array.from({ length: 600 }, (_, index) => `w${index}`).join(' ')}`, `${Array.from({ length: 600 }, (_, index) => `w${index}`).join(' ')}\n`],
});

// --- Unicode ---------------------------------------------------------------------------------------
shape('emoji', { all: ['echo 😀', '😀\n'] });
shape('CJK', { all: ['echo 日本語テキスト', '日本語テキスト\n'] });
shape('a combining accent printed', { all: [String.raw`printf 'e\314\201\n'`, 'e\u0301\n'] });
shape('a combining accent typed', { all: ['echo e\u0301te\u0301', 'e\u0301te\u0301\n'] });
shape('Latin with diacritics', { all: ["echo 'Ünïcödé ß'", 'Ünïcödé ß\n'] });
shape('a ZWJ emoji sequence', { all: ['echo 👨‍👩‍👧', '👨‍👩‍👧\n'] });
shape('a flag', { all: ['echo 🇫🇷', '🇫🇷\n'] });
shape('right-to-left text', { all: ['echo שלום', 'שלום\n'] });
shape('characters counted', { all: ["printf '中文' | wc -m", '2\n'] });
shape('a Unicode directory name', {
  posix: ['mkdir -p ünï && (cd ünï && pwd) && rmdir ünï', (c) => `${c.workspace}/ünï\n`],
  fish: ['mkdir -p ünï && cd ünï && pwd && cd .. && rmdir ünï', (c) => `${c.workspace}/ünï\n`],
});
shape('invalid UTF-8 becomes U+FFFD', { all: [String.raw`printf '\377\376\n'`, '\ufffd\ufffd\n'] });
shape('Unicode inside quotes of both kinds', { all: [`echo "emoji 🎉 and 'single' ✓"`, "emoji 🎉 and 'single' ✓\n"] });
shape('a 4-byte character without a newline', { all: [String.raw`printf '𝄞'`, '𝄞'] });

// --- output without a final newline ----------------------------------------------------------------
shape('printf abc', { all: ['printf abc', 'abc'] });
shape('two lines, the last unterminated', { all: [String.raw`printf 'a\nb'`, 'a\nb'] });
shape('echo -n', { all: ['echo -n x', 'x'] });
shape('printf of nothing', { all: ["printf ''", ''] });
shape('a single newline', { all: [String.raw`printf '\n'`, '\n'] });
shape('three newlines', { all: [String.raw`printf '\n\n\n'`, '\n\n\n'] });
shape('trailing spaces without a newline', { all: ["printf 'trailing spaces   '", 'trailing spaces   '] });
shape('ends with a percent sign', { all: ["printf 'ends with %%'", 'ends with %'] });
shape('ends with a hash sign', { all: ["printf 'ends with #'", 'ends with #'] });
shape('output in two parts', { all: ["printf 'partial'; sleep 0.1; printf ' line'", 'partial line'] });

// --- output that imitates marks, and other escapes ---------------------------------------------------
shape('a fake end mark', { all: [String.raw`printf '\033]633;D;0\a'; echo after-fake-d`, 'after-fake-d\n'] });
shape('a fake end mark with another exit code', {
  posix: [String.raw`printf '\033]633;D;7\a'; (exit 2)`, '', 2],
  fish: [String.raw`printf '\033]633;D;7\a'; false`, '', 1],
});
shape('a fake start mark', { all: [String.raw`printf '\033]633;C\a'; echo after-fake-c`, 'after-fake-c\n'] });
shape('fake prompt marks', { all: [String.raw`printf '\033]633;A\a\033]633;B\a'; echo prompt-fake`, 'prompt-fake\n'] });
shape('a fake command line mark', { all: [String.raw`printf '\033]633;E;rm -rf /\a'; echo e-fake`, 'e-fake\n'] });
shape('a fake cwd mark', { all: [String.raw`printf '\033]633;P;Cwd=/etc\a'; echo cwd-fake`, 'cwd-fake\n'] });
shape('fake OSC 133 marks', { all: [String.raw`printf '\033]133;A\a\033]133;B\a\033]133;C\a\033]133;D;5\a'; echo osc133`, 'osc133\n'] });
shape('a fake sentinel end', { all: [String.raw`printf '\033]6973;E;0123456789abcdef;0\a'; echo after-fake-e`, 'after-fake-e\n'] });
shape('a fake sentinel pair', { all: [String.raw`printf '\033]6973;S;x;/\a\033]6973;E;x;3\a'; echo z`, 'z\n'] });
shape('fake marks from a subshell', { posix: [String.raw`(printf '\033]633;D;0\a'; exit 4)`, '', 4], fish: noSubshellsInFish });
shape('fake marks with ST terminators', { all: [String.raw`printf '\033]633;D;0\033\\'; echo st`, 'st\n'] });
shape('an unterminated fake mark swallows the rest, as a terminal does', { all: [String.raw`printf '\033]633;D;0'; echo swallowed`, ''] });
shape('colors', { all: [String.raw`printf '\033[31mred\033[0m\n'`, 'red\n'] });
shape('bold green and plain', { all: [String.raw`printf '\033[1;32mbold green\033[0m plain\n'`, 'bold green plain\n'] });
shape('cursor movement is removed, not applied', { all: [String.raw`printf 'abc\033[2Dx\n'`, 'abcx\n'] });
shape('a window title', { all: [String.raw`printf '\033]0;title\a'; echo titled`, 'titled\n'] });
shape('a hyperlink', { all: [String.raw`printf '\033]8;;http://example.com\ahyperlink\033]8;;\a\n'`, 'hyperlink\n'] });
shape('a DCS string', { all: [String.raw`printf '\033P1;2|data\033\\'; echo dcs`, 'dcs\n'] });
shape('a bell', { all: [String.raw`printf 'bell\a\n'`, 'bell\n'] });
shape('a backspace', { all: [String.raw`printf 'back\bspace\n'`, 'backspace\n'] });
shape('a lone CR goes back over the line', { all: [String.raw`printf 'ab\rc\n'`, 'cb\n'] });
shape('a progress line reads as its last state', { all: [String.raw`printf '10%%\r20%%\rdone\n'`, 'done\n'] });
shape('a spinner glyph erased with ESC[1G ESC[0K', { all: [String.raw`printf 'running tests\n\342\240\231\033[1G\033[0K'`, 'running tests\n'] });
shape('a leading CR is trimmed', { all: [String.raw`printf '\rleading-cr\n'`, 'leading-cr\n'] });
shape('a NUL byte', { all: [String.raw`printf 'x\0y\n'`, 'xy\n'] });
shape('the alternate screen entered and left', { all: [String.raw`printf '\033[?1049h\033[?1049l'; echo alt-toggled`, 'alt-toggled\n'] });
shape('bracketed paste turned off', { all: [String.raw`printf '\033[?2004l'; echo bp-off`, 'bp-off\n'] });
shape('a full terminal reset', { all: [String.raw`printf '\033c'; echo reset-done`, 'reset-done\n'] });

// --- stderr ------------------------------------------------------------------------------------------
shape('stderr', { all: ['echo err >&2', 'err\n'] });
shape('stdout and stderr interleaved', { all: ['echo out; echo err >&2; echo out2', 'out\nerr\nout2\n'] });
shape("a program's error", { all: ['ls /nonexistent_sb', "ls: cannot access '/nonexistent_sb': No such file or directory\n", 2] });
shape('stderr discarded', { all: ['cat /nonexistent_sb 2>/dev/null', '', 1] });
shape('stderr without a newline', { all: ["printf 'no-nl-err' >&2", 'no-nl-err'] });
shape('stderr past a pipe', {
  all: ['echo to-err 1>&2 | cat', 'to-err\n'],
  // zsh's MULTIOS: a redirected stdout that is also piped goes to both.
  zsh: ['echo to-err 1>&2 | cat', 'to-err\nto-err\n'],
});
shape('stderr and an exit code from a child', { all: [`sh -c 'echo e >&2; exit 3'`, 'e\n', 3] });
shape('/dev/stderr', { all: ['echo err >/dev/stderr', 'err\n'] });

// --- large output ------------------------------------------------------------------------------------
shape('seq 1 20000 in full', { all: ['seq 1 20000', seqOutput(20_000)] });
shape('seq 1 100000: the last 256 KiB', {
  all: { command: 'seq 1 100000', output: tailOf(seqOutput(100_000)), exitCode: 0, truncated: true },
  zsh: { command: 'seq 1 100000', output: tailOf(seqOutput(100_000), zshPromptSpBytes), exitCode: 0, truncated: true },
  'zsh+sentinel': { command: 'seq 1 100000', output: tailOf(seqOutput(100_000)), exitCode: 0, truncated: true },
});
shape('300000 characters on one line: the last 256 KiB', {
  all: { command: String.raw`head -c 300000 /dev/zero | tr '\0' a`, output: tailOf('a'.repeat(300_000)), exitCode: 0, truncated: true },
  zsh: { command: String.raw`head -c 300000 /dev/zero | tr '\0' a`, output: tailOf('a'.repeat(300_000), zshPromptSpBytes), exitCode: 0, truncated: true },
  'zsh+sentinel': { command: String.raw`head -c 300000 /dev/zero | tr '\0' a`, output: tailOf('a'.repeat(300_000)), exitCode: 0, truncated: true },
});
shape('large output and an exit code', {
  posix: { command: 'seq 1 50000; (exit 3)', output: tailOf(seqOutput(50_000)), exitCode: 3, truncated: true },
  zsh: { command: 'seq 1 50000; (exit 3)', output: tailOf(seqOutput(50_000), zshPromptSpBytes), exitCode: 3, truncated: true },
  'zsh+sentinel': { command: 'seq 1 50000; (exit 3)', output: tailOf(seqOutput(50_000)), exitCode: 3, truncated: true },
  fish: { command: 'seq 1 50000; false', output: tailOf(seqOutput(50_000)), exitCode: 1, truncated: true },
});
shape('the last line of a large output', { all: ['seq 1 20000 | tail -1', '20000\n'] });

// --- empty output -------------------------------------------------------------------------------------
shape('output to /dev/null', { all: ['echo x >/dev/null', ''] });
shape('only a comment', { all: ['# only a comment', ''] });
shape('only spaces', { all: ['   ', ''] });
shape('cd .', { all: ['cd .', ''] });
shape('an assignment', { posix: ['sb_assigned=1', ''], fish: ['set sb_assigned 1', ''] });
shape('unset of an unset variable', { posix: ['unset SB_NEVER_SET', ''], fish: ['set -e SB_NEVER_SET', '', 4] });
shape('cat of /dev/null', { all: ['cat </dev/null', ''] });
shape('read at end of file', { posix: ['read -r x </dev/null; echo "rc=$?"', 'rc=1\n'], fish: ['read x </dev/null; echo rc=$status', 'rc=1\n'] });

// --- quotes ------------------------------------------------------------------------------------------
shape('single quotes', { all: ["echo 'single quoted'", 'single quoted\n'] });
shape('double quotes', { all: ['echo "double quoted"', 'double quoted\n'] });
shape('an apostrophe in double quotes', { all: [`echo "it's"`, "it's\n"] });
shape('double quotes in single quotes', { all: [`echo 'say "hi"'`, 'say "hi"\n'] });
shape("the '\\'' idiom", { all: [String.raw`echo 'it'\''s'`, "it's\n"] });
shape('an escaped double quote', { all: [String.raw`echo "a\"b"`, 'a"b\n'] });
shape('a backslash in single quotes', { all: [String.raw`printf '%s\n' 'back\slash'`, 'back\\slash\n'] });
shape('an escaped dollar in double quotes', { all: [String.raw`printf '%s\n' "\$HOME"`, '$HOME\n'] });
shape('a dollar in single quotes', { all: [String.raw`printf '%s\n' '$HOME'`, '$HOME\n'] });
shape('a variable in double quotes', { all: ['echo "$HOME"', (c) => `${c.home}\n`] });
shape('empty quotes', { all: ["echo ''", '\n'] });
shape('empty arguments', { all: [`echo '' "" x`, '  x\n'] });
shape('a quoted opening parenthesis', { all: ["echo '('", '(\n'] });
shape('a quoted closing parenthesis', { all: ['echo ")"', ')\n'] });
shape('a quoted opening brace', { all: ['echo "{"', '{\n'] });
shape('a quoted closing brace', { all: ["echo '}'", '}\n'] });
shape('a quoted hash', { all: ["echo '#not-a-comment'", '#not-a-comment\n'] });
shape('a hash inside a word', { all: ['echo a#b', 'a#b\n'] });
shape('a hash in double quotes', { all: ['echo "a # b"', 'a # b\n'] });
shape('an escaped single quote', { all: [String.raw`echo \'`, "'\n"] });
shape('an escaped double quote alone', { all: [String.raw`echo \"`, '"\n'] });
shape('a backtick in single quotes', { all: ["echo '`'", '`\n'] });
shape('$(…) in single quotes', { all: ["echo '$(echo no)'", '$(echo no)\n'] });
shape('a quoted star', { all: [String.raw`printf '%s\n' "*"`, '*\n'] });
shape('a glob', { all: ['echo su*', 'sub\n'] });
shape('parameter expansion with a default', { posix: ['echo "${HOME:+set}"', 'set\n'], fish: absent('fish has no ${…} expansions') });
shape('ANSI-C quoting', {
  bash: [String.raw`echo $'tab\there'`, 'tab\there\n'],
  zsh: [String.raw`echo $'tab\there'`, 'tab\there\n'],
  sh: [String.raw`echo $'tab\there'`, '$tab\there\n'],
  fish: absent('fish has no $\'…\' quoting'),
});
shape('mixed quotes in double quotes', { all: [String.raw`echo "a'b\"c"`, `a'b"c\n`] });
shape('adjacent quoted parts', { all: [`echo 'x'"y"'z'`, 'xyz\n'] });
shape('a quote at the end of double quotes', { all: [String.raw`echo "quote at end\""`, 'quote at end"\n'] });
shape('an escaped space', { all: [String.raw`echo a\ b`, 'a b\n'] });
shape('several quoted arguments', { all: [`printf '[%s]' "multi word" 'args here'; echo`, '[multi word][args here]\n'] });
shape('an empty argument to printf', { all: [String.raw`printf '[%s]\n' ""`, '[]\n'] });
shape('a double quote from $(…)', { posix: [`echo "$(echo '"')"`, '"\n'], fish: [`echo (echo '"')`, '"\n'] });
shape("echo of '\\n' is the shell's business", {
  bash: [String.raw`echo '\n'`, '\\n\n'],
  zsh: [String.raw`echo '\n'`, '\n\n'],
  sh: [String.raw`echo '\n'`, '\n\n'],
  fish: [String.raw`echo '\n'`, '\\n\n'],
});
shape('echo -e', {
  bash: [String.raw`echo -e 'a\tb'`, 'a\tb\n'],
  zsh: [String.raw`echo -e 'a\tb'`, 'a\tb\n'],
  sh: [String.raw`echo -e 'a\tb'`, '-e a\tb\n'],
  fish: [String.raw`echo -e 'a\tb'`, 'a\tb\n'],
});
shape('Unicode in escaped double quotes', { all: [String.raw`echo "unicode ✓ in \"quotes\""`, 'unicode ✓ in "quotes"\n'] });
shape('a tilde', { all: ['echo ~', (c) => `${c.home}\n`] });
shape("root's home", { all: ['echo ~root', '/root\n'] });
shape('brace expansion', { bash: ['echo {a,b}{1,2}', 'a1 a2 b1 b2\n'], zsh: ['echo {a,b}{1,2}', 'a1 a2 b1 b2\n'], sh: ['echo {a,b}{1,2}', '{a,b}{1,2}\n'], fish: ['echo {a,b}{1,2}', 'a1 b1 a2 b2\n'] });
shape('a brace range', { bash: ['echo {1..3}', '1 2 3\n'], zsh: ['echo {1..3}', '1 2 3\n'], sh: ['echo {1..3}', '{1..3}\n'], fish: ['echo {1..3}', '{1..3}\n'] });

// --- ! (history expansion in bash and zsh) -----------------------------------------------------------------
shape('! at the end of a word', { all: ['echo hi!', 'hi!\n'] });
shape('! inside double quotes', { all: ['echo "a!b"', 'a!b\n'] });
shape('!! in single quotes', { all: ["echo '!!'", '!!\n'] });
shape('!! in double quotes', { all: ['echo "!!"', '!!\n'] });
shape('!$ bare', { posix: ['echo !$', '!$\n'], fish: absent('in fish $ must name a variable (see "$? typed into fish")') });
shape('!echo bare', { all: ['echo !echo', '!echo\n'] });
shape('! in three kinds of words', { all: [`echo "wow!" 'single!' bare!`, 'wow! single! bare!\n'] });
shape('[[ ! … ]]', { bash: ['x=1; [[ ! $x == 2 ]] && echo ne', 'ne\n'], zsh: ['x=1; [[ ! $x == 2 ]] && echo ne', 'ne\n'], sh: absent('dash has no [[ ]]'), fish: absent('fish has no [[ ]]') });
shape('a quick substitution at the start', {
  bash: ['^old^new', 'bash: ^old^new: command not found\n', 127],
  zsh: ['^old^new', 'zsh: command not found: ^old^new\n', 127],
  sh: ['^old^new', '/usr/bin/sh: 1: eval: ^old^new: not found\n', 127],
  fish: ['^old^new', 'fish: Unknown command: ^old^new\n', 127],
});

// --- tabs ---------------------------------------------------------------------------------------------
shape('a tab printed', { all: [String.raw`printf 'a\tb\n'`, 'a\tb\n'] });
shape('a tab inside quotes', { all: ['echo "a\tb"', 'a\tb\n'] });
shape('a tab between words', { all: ['echo a\tb', 'a b\n'] });
shape('a leading tab', { all: ['\techo leading-tab', 'leading-tab\n'] });
shape('a trailing tab', { all: ['echo x\t', 'x\n'] });
shape('printf of columns', { all: [String.raw`printf '%s\t%s\n' col1 col2`, 'col1\tcol2\n'] });
shape('a tab that would complete', { all: ['ech\to tab-not-completed', '', 127], bash: ['ech\to tab-not-completed', 'bash: ech: command not found\n', 127], zsh: ['ech\to tab-not-completed', 'zsh: command not found: ech\n', 127], sh: ['ech\to tab-not-completed', '/usr/bin/sh: 1: eval: ech: not found\n', 127], fish: ['ech\to tab-not-completed', 'fish: Unknown command: ech\n', 127] });

// --- CRLF ---------------------------------------------------------------------------------------------
shape('a command with CRLF line ends', { posix: ['echo a\r\necho b\r\n', 'a\nb\n'], fish: ['echo a\r\necho b\r\n', 'a\nb\n'] });
shape('CRLF output', { all: [String.raw`printf 'a\r\nb\r\n'`, 'a\nb\n'] });
shape('CR CR LF output', { all: [String.raw`printf 'x\r\r\n'`, 'x\n'] });
shape('output ending in a lone CR', { all: [String.raw`printf 'only-cr\r'`, 'only-cr'] });
shape('a command ending in CR', { all: ['echo cr-at-end\r', 'cr-at-end\n'] });

// --- syntax errors and other lines a shell refuses: exec still answers -----------------------------------
// A line exec cannot type as it is (unbalanced, an open block) runs inside eval, whose syntax error
// is the command's output. A complete-looking line the shell refuses when typed (`echo a;;`) is
// refused with integration; the sentinel runs every command inside eval, where it is output again.
const bashSyntax = (token: string) => `bash: syntax error near unexpected token \`${token}'`;
const zshParse = (token: string) => `zsh: parse error near \`${token}'`;
shape('an unclosed parenthesis', {
  bash: ['echo (', `${bashSyntax('newline')}\n`, 2],
  zsh: ['echo (', 'zsh: bad pattern: (\n', 1],
  sh: ['echo (', '/usr/bin/sh: 1: eval: Syntax error: end of file unexpected (expecting ")")\n', 2],
  fish: ['echo (', "fish: Unexpected end of string, expecting ')'\necho (\n     ^\n\n", 123],
});
shape('an if without its end', {
  bash: ['if true; then', 'bash: syntax error: unexpected end of file\n', 2],
  zsh: ['if true; then', `${zshParse('then')}\n`, 1],
  sh: ['if true; then', '/usr/bin/sh: 1: eval: Syntax error: end of file unexpected (expecting "fi")\n', 2],
  fish: ['if true; then', 'fish: Missing end to balance this if statement\n\n', 123],
});
shape('a stray fi', {
  bash: ['fi', `${bashSyntax('fi')}\n`, 2],
  zsh: ['fi', `${zshParse('fi')}\n`, 1],
  sh: ['fi', '/usr/bin/sh: 1: eval: Syntax error: "fi" unexpected\n', 2],
  fish: ['fi', 'fish: Unknown command: fi\n', 127],
});
shape('an unclosed double quote', {
  bash: ['echo "unclosed', "bash: unexpected EOF while looking for matching `\"'\n", 2],
  zsh: ['echo "unclosed', 'zsh: unmatched "\n', 1],
  sh: ['echo "unclosed', '/usr/bin/sh: 1: eval: Syntax error: Unterminated quoted string\n', 2],
  fish: ['echo "unclosed', 'fish: Unexpected end of string, quotes are not balanced\necho "unclosed\n     ^\n\n', 123],
});
shape('a stray closing parenthesis', {
  bash: [')', `${bashSyntax(')')}\n`, 2],
  zsh: [')', `${zshParse(')')}\n`, 1],
  sh: [')', '/usr/bin/sh: 1: eval: Syntax error: ")" unexpected\n', 2],
  fish: [')', "fish: Unexpected ')' for unopened parenthesis\n\n", 123],
});
shape('a double semicolon', {
  bash: refused('echo a;;', bashSyntax(';;')),
  'bash+sentinel': ['echo a;;', `${bashSyntax(';;')}\n`, 2],
  zsh: refused('echo a;;', zshParse(';;')),
  'zsh+sentinel': ['echo a;;', `${zshParse(';;')}\n`, 1],
  sh: ['echo a;;', '/usr/bin/sh: 1: eval: Syntax error: ";;" unexpected\n', 2],
  fish: ['echo a;;', 'a\n', 0],
});
shape('two pipes in a row', {
  bash: refused('echo a | | cat', bashSyntax('|')),
  'bash+sentinel': ['echo a | | cat', `${bashSyntax('|')}\n`, 2],
  zsh: refused('echo a | | cat', zshParse('|')),
  'zsh+sentinel': ['echo a | | cat', `${zshParse('|')}\n`, 1],
  sh: ['echo a | | cat', '/usr/bin/sh: 1: eval: Syntax error: "|" unexpected\n', 2],
  fish: refused('echo a | | cat', 'fish: Expected a command, but found a pipe echo a | | cat ^'),
  'fish+sentinel': ['echo a | | cat', 'fish: Expected a command, but found a pipe\necho a | | cat\n         ^\n\n', 123],
});
shape('a line that starts with &&', {
  bash: refused('&& echo x', bashSyntax('&&')),
  'bash+sentinel': ['&& echo x', `${bashSyntax('&&')}\n`, 2],
  zsh: refused('&& echo x', zshParse('&&')),
  'zsh+sentinel': ['&& echo x', `${zshParse('&&')}\n`, 1],
  sh: ['&& echo x', '/usr/bin/sh: 1: eval: Syntax error: "&&" unexpected\n', 2],
  fish: refused('&& echo x', "fish: Expected a string, but found '&&'"),
  'fish+sentinel': ['&& echo x', "fish: Expected a string, but found '&&'\n\n", 123],
});
shape('a stray done', {
  bash: ['done', `${bashSyntax('done')}\n`, 2],
  zsh: ['done', `${zshParse('done')}\n`, 1],
  sh: ['done', '/usr/bin/sh: 1: eval: Syntax error: "done" unexpected\n', 2],
  fish: ['done', 'fish: Unknown command: done\n', 127],
});
shape('a bad substitution', {
  bash: ['echo ${', "bash: unexpected EOF while looking for matching `}'\n", 2],
  zsh: ['echo ${', 'zsh: closing brace expected\n', 1],
  sh: ['echo ${', "/usr/bin/sh: 1: eval: Syntax error: Missing '}'\n", 2],
  fish: ['echo ${', 'fish: Unexpected end of string, incomplete parameter expansion\necho ${\n      ^\n\n', 123],
});
shape('an arithmetic error', {
  bash: ['echo $((1+))', 'bash: 1+: syntax error: operand expected (error token is "+")\n', 1],
  zsh: ['echo $((1+))', 'zsh: bad math expression: operand expected at end of string\n', 1],
  sh: ['echo $((1+))', '/usr/bin/sh: 1: eval: arithmetic expression: expecting primary: "1+"\n', 2],
  fish: absent('fish has no $((…)); math is a command (see "arithmetic")'),
});
shape('a failed ${…?} expansion', {
  bash: ['echo ${SB_UNSET_SB?gone}; echo not-reached', 'bash: SB_UNSET_SB: gone\n', 1],
  zsh: ['echo ${SB_UNSET_SB?gone}; echo not-reached', 'zsh: SB_UNSET_SB: gone\n', 1],
  sh: ['echo ${SB_UNSET_SB?gone}; echo not-reached', '/usr/bin/sh: 1: eval: SB_UNSET_SB: gone\n', 2],
  fish: absent('fish has no ${…} expansions'),
});
shape('an assignment to a readonly variable', {
  bash: ['(readonly sb_ro=1; sb_ro=2)', 'bash: sb_ro: readonly variable\n', 1],
  zsh: ['(readonly sb_ro=1; sb_ro=2)', 'zsh: read-only variable: sb_ro\n', 1],
  sh: ['(readonly sb_ro=1; sb_ro=2)', '/usr/bin/sh: 1: eval: sb_ro: is read only\n', 2],
  fish: absent('fish has no readonly variables'),
});

// --- bash syntax typed into fish: fish refuses such a line as typed -------------------------------------------------
shape('a subshell typed into fish', {
  posix: absent('valid POSIX (see "subshell exit 5")'),
  fish: refused('(exit 5)', 'fish: command substitutions not allowed here'),
  'fish+sentinel': ['(exit 5)', 'fish: command substitutions not allowed here\n', 123],
});
shape('$? typed into fish', {
  posix: absent('valid POSIX (see "subshell; echo $?")'),
  fish: refused('echo $?', 'fish: $? is not the exit status. In fish, please use $status. echo $? ^'),
  'fish+sentinel': ['echo $?', 'fish: $? is not the exit status. In fish, please use $status.\necho $?\n      ^\n', 121],
});
shape('$$ typed into fish', {
  posix: absent('valid POSIX'),
  fish: refused('echo $$', 'fish: $$ is not the pid. In fish, please use $fish_pid. echo $$ ^'),
  'fish+sentinel': ['echo $$', 'fish: Expected a variable name after this $.\necho $$\n      ^\n', 121],
});
shape('${VAR} typed into fish', {
  posix: absent('valid POSIX'),
  fish: refused('echo ${HOME}', 'fish: Variables cannot be bracketed. In fish, please use {$HOME}. echo ${HOME} ^'),
  'fish+sentinel': ['echo ${HOME}', 'fish: Variables cannot be bracketed. In fish, please use {$HOME}.\necho ${HOME}\n      ^\n', 121],
});
shape('NAME=value alone typed into fish', {
  posix: absent('valid POSIX (see "an assignment")'),
  // Not a syntax error to fish: it runs the line and fails it.
  fish: ['SB_X=1', "fish: Unsupported use of '='. In fish, please use 'set SB_X 1'.\n\n", 123],
});
shape('a POSIX for loop typed into fish', {
  posix: absent('valid POSIX (see "one-line for loop")'),
  fish: ['for w in a b; do echo "$w"; done', 'fish: Missing end to balance this for loop\n\n', 123],
});
shape('a here-doc typed into fish', {
  posix: absent('valid POSIX (see "here-doc")'),
  fish: ['cat <<EOF\nx\nEOF', 'fish: Expected a string, but found a redirection\ncat <<EOF\n     ^\n\n', 123],
});
shape('a POSIX function typed into fish', {
  posix: absent('valid POSIX (see "a function that echoes")'),
  fish: refused('f() { echo x; }', 'fish: command substitutions not allowed here f() { echo x; } ^^'),
  'fish+sentinel': ['f() { echo x; }', 'fish: command substitutions not allowed here\nf() { echo x; }\n ^^\n', 123],
});

// --- more shell features --------------------------------------------------------------------------------
shape('type of a builtin', {
  bash: ['type cd', 'cd is a shell builtin\n'],
  zsh: ['type cd', 'cd is a shell builtin\n'],
  sh: ['type cd', 'cd is a shell builtin\n'],
  fish: ['type -t cd', 'function\n'],
});
shape('printf -v', { bash: [`printf -v v '%03d' 7; echo $v`, '007\n'], zsh: [`printf -v v '%03d' 7; echo $v`, '007\n'], sh: absent('dash has no printf -v'), fish: absent('fish has no printf -v') });
shape('an array', {
  bash: ['a=(x y z); echo ${#a[@]} ${a[1]}', '3 y\n'],
  zsh: ['a=(x y z); echo ${#a[@]} ${a[1]}', '3 x\n'],
  sh: absent('dash has no arrays'),
  fish: ['set a x y z; echo (count $a) $a[2]', '3 y\n'],
});
shape('[[ glob match ]]', { bash: ['[[ abc == a* ]] && echo glob-match', 'glob-match\n'], zsh: ['[[ abc == a* ]] && echo glob-match', 'glob-match\n'], sh: absent('dash has no [[ ]]'), fish: absent('fish has no [[ ]]') });
shape('C-style for', { bash: ['for ((i=0;i<3;i++)); do echo $i; done', '0\n1\n2\n'], zsh: ['for ((i=0;i<3;i++)); do echo $i; done', '0\n1\n2\n'], sh: absent('dash has no (( ))'), fish: absent('fish has no C-style for') });
shape('source a file', { posix: ['. ./lib.sh; echo $sb_lib_var', 'sourced\nfrom-lib\n'], fish: ['source lib.fish; echo $sb_lib_var', 'sourced\nfrom-lib\n'] });
shape('make in a directory', { all: ['make -s -C sub', 'built\n'] });
shape('awk', { all: [`awk 'BEGIN { printf "awk %d\\n", 7 }'`, 'awk 7\n'] });
shape('perl', { all: [`perl -e 'print "perl\\n"'`, 'perl\n'] });
shape('od of zero bytes', { all: ['head -c 3 /dev/zero | od -An -tx1', ' 00 00 00\n'] });
shape('a clean environment', { all: [`env -i PATH=/usr/bin:/bin sh -c 'echo "clean:$HOME"'`, 'clean:\n'] });
shape('stty -echo and back', { all: ['stty -echo; echo hidden-echo; stty echo', 'hidden-echo\n'] });
shape('a slow command', { all: ['sleep 0.3; echo slow', 'slow\n'] });
shape('noclobber in a subshell', {
  bash: ['(set -o noclobber; echo a > sub/file.txt)', 'bash: sub/file.txt: cannot overwrite existing file\n', 1],
  zsh: ['(set -o noclobber; echo a > sub/file.txt)', 'zsh: file exists: sub/file.txt\n', 1],
  sh: ['(set -o noclobber; echo a > sub/file.txt)', '/usr/bin/sh: 1: eval: cannot create sub/file.txt: File exists\n', 2],
  fish: noSubshellsInFish,
});
shape('process substitution', {
  bash: ['cat <(echo from-procsub)', 'from-procsub\n'],
  zsh: ['cat <(echo from-procsub)', 'from-procsub\n'],
  sh: absent('dash has no process substitution'),
  fish: ['cat (echo from-procsub | psub)', 'from-procsub\n'],
});
shape('an fd redirection to a file and back', {
  posix: ['exec 3>fd3.txt; echo via3 >&3; exec 3>&-; cat fd3.txt; rm fd3.txt', 'via3\n'],
  fish: ['echo via3 3>fd3.txt >&3; cat fd3.txt; rm fd3.txt', 'via3\n'],
});
shape('exec of a builtin-free child that reads nothing', { all: ['head -1 </dev/null', ''] });

// ------------------------------------------------------------------------------------------------
// Running the table.
// ------------------------------------------------------------------------------------------------

interface Suite {
  id: string;
  flavor: Flavor;
  /** Whether exec goes through the shell's own marks (`source: "shell"`) or the sentinel. */
  integrated: boolean;
  create: Frame;
  /** A shell started inside the terminal's shell: the line that starts it. */
  nested?: string;
}

const suites: Suite[] = [
  { id: 'bash', flavor: 'bash', integrated: true, create: shells.bashIntegrated },
  { id: 'bash-norc', flavor: 'bash', integrated: false, create: shells.bashPlain },
  { id: 'bash-in-fish', flavor: 'bash', integrated: false, create: shells.fishIntegrated, nested: 'bash --norc --noprofile' },
  { id: 'zsh', flavor: 'zsh', integrated: true, create: shells.zshIntegrated },
  { id: 'zsh-f', flavor: 'zsh', integrated: false, create: shells.zshPlain },
  { id: 'fish', flavor: 'fish', integrated: true, create: shells.fishIntegrated },
  { id: 'fish-noconfig', flavor: 'fish', integrated: false, create: shells.fishPlain },
  { id: 'sh', flavor: 'sh', integrated: false, create: shells.sh },
];

/**
 * A shape's expectation in a suite: the suite's own, else its shell's without integration
 * (`bash+sentinel`) for a sentinel suite, else its shell's, else POSIX's, else all's.
 */
function expectationFor(shapeEntry: Shape, suite: Suite): Expectation | Absent {
  const variants = shapeEntry.variants;
  const entry =
    variants[suite.id] ??
    (suite.integrated ? undefined : variants[`${suite.flavor}+sentinel`]) ??
    variants[suite.flavor] ??
    (suite.flavor === 'fish' ? undefined : variants.posix) ??
    variants.all;
  if (entry === undefined) throw new Error(`shape "${shapeEntry.name}" says nothing for ${suite.flavor}: give its command there or say why it is absent`);
  if (Array.isArray(entry)) return { command: entry[0], output: entry[1], exitCode: entry[2] ?? 0 };
  return entry;
}

function describeCommand(command: string): string {
  const shown = JSON.stringify(command);
  return shown.length > 70 ? `${shown.slice(0, 60)}…(${command.length} chars)` : shown;
}

/** Per exec: a hang fails in seconds, not after exec's default of 3 minutes. */
const execTimeoutMs = 10_000;

/** Run after every shape: the terminal must still take a command the ordinary way. */
const probe = 'echo probe-ok';

describe('exec answers for every command shape', () => {
  let t: TestHub;
  let client: NdjsonClient;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    client = await t.connect();
    const workspace = t.workspace;
    mkdirSync(join(workspace, 'sub'));
    writeFileSync(join(workspace, 'sub', 'file.txt'), 'in sub\n');
    writeFileSync(join(workspace, 'sub', 'Makefile'), 'all:\n\t@echo built\n');
    writeFileSync(join(workspace, 'script.sh'), '#!/bin/sh\necho "args: $*"\nexit 3\n');
    chmodSync(join(workspace, 'script.sh'), 0o755);
    writeFileSync(join(workspace, 'noexec.sh'), '#!/bin/sh\necho never\n');
    chmodSync(join(workspace, 'noexec.sh'), 0o644);
    writeFileSync(join(workspace, 'lib.sh'), 'sb_lib_var=from-lib\necho sourced\n');
    writeFileSync(join(workspace, 'lib.fish'), 'set sb_lib_var from-lib\necho sourced\n');
  });

  after(async () => {
    await t?.dispose();
  });

  async function list(): Promise<Frame[]> {
    return (await client.request({ cmd: 'list' })).terminals as Frame[];
  }

  /** A terminal of the suite, ready for exec: integration up, or the nested shell running. */
  async function openTerminal(suite: Suite): Promise<string> {
    const id = await createTerminal(client, t.env, suite.create);
    if (suite.create.shellIntegration) await waitForIntegration(client, id);
    if (suite.nested !== undefined) {
      const sent = await client.request({ cmd: 'send', terminalId: id, text: suite.nested });
      assert.equal(sent.ok, true, sent.error);
      await pollUntil(async () => (await list()).find((terminal) => terminal.id === id)?.runningCommand === suite.nested, { timeoutMs: 15_000, what: `${suite.nested} in ${id}` });
    }
    return id;
  }

  async function exec(terminalId: string, command: string, timeoutMs = execTimeoutMs): Promise<Frame> {
    return client.request({ cmd: 'exec', terminalId, command, timeoutMs }, timeoutMs + 5_000);
  }

  for (const suite of suites) {
    describe(`in ${suite.id} (${suite.integrated ? 'shell integration' : 'sentinel'})`, () => {
      let shared: string | null = null;

      after(async () => {
        if (shared !== null) await client.request({ cmd: 'close', terminalId: shared });
      });

      for (const entry of shapes) {
        const expected = expectationFor(entry, suite);
        if ('absent' in expected) continue;
        it(`${entry.name}: ${describeCommand(expected.command)}`, async () => {
          const id = entry.fresh ? await openTerminal(suite) : (shared ??= await openTerminal(suite));
          // Whatever happens below, a terminal that failed an exec is not used again: it may be
          // left mid-line or mid-command, and the next shape must not fail for this one.
          let usable = false;
          try {
            await checkShape(suite, expected, id);
            if (!expected.exits) {
              // What the Hub believes of the terminal now. With our integration, output cannot
              // change it (its marks carry the terminal's nonce). Without, the Hub takes marks
              // from anyone (a shell may emit OSC 133 on its own), so only the next exec tells
              // whether the command left the terminal usable; a changed state is its diagnosis,
              // and gives that exec less time, as it will likely wait for marks that never come.
              const info = (await list()).find((terminal) => terminal.id === id);
              const state = { hasShellIntegration: info?.hasShellIntegration, runningCommand: info?.runningCommand };
              const before = { hasShellIntegration: suite.create.shellIntegration === true, runningCommand: suite.nested ?? null };
              if (suite.integrated) assert.deepEqual(state, before, 'the terminal is as it was before the command');
              const changed = JSON.stringify(state) !== JSON.stringify(before);
              const after = await exec(id, probe, changed ? 3_000 : execTimeoutMs);
              const diagnosis = changed ? ` (the Hub now sees ${JSON.stringify(state)})` : '';
              assert.equal(after.ok, true, `the terminal no longer takes a command after this one: ${after.error}${diagnosis}`);
              assert.deepEqual(
                { output: after.event.output, exitCode: after.event.exitCode, source: after.event.source },
                { output: 'probe-ok\n', exitCode: 0, source: suite.integrated ? 'shell' : 'exec' },
                'the terminal takes the next command as before',
              );
            }
            usable = true;
          } finally {
            if (entry.fresh || !usable) {
              await client.request({ cmd: 'close', terminalId: id });
              if (id === shared) shared = null;
            }
          }
        });
      }
    });
  }

  async function checkShape(suite: Suite, expected: Expectation, id: string): Promise<void> {
    const response = await exec(id, expected.command);
    const context: Context = { workspace: t.workspace, home: t.home, terminalId: id };
    const output = typeof expected.output === 'function' ? expected.output(context) : expected.output;
    if (expected.exits) {
      assert.equal(response.ok, false, `the shell should have ended, got ${JSON.stringify(response.event)}`);
      // A shell started inside the terminal's own ends alone: the terminal lives on.
      const error =
        suite.nested === undefined
          ? `terminal ${id} exited while running the command (its shell exited with code ${expected.exitCode})`
          : `the shell running in terminal ${id} (\`${suite.nested}\`) exited while running the command`;
      // The output of a nested shell's last command is not promised (docs/protocol.md).
      const seen = { error: response.error, code: response.code, exitCode: response.exitCode, output: suite.nested === undefined ? response.output : output };
      assert.deepEqual(seen, { error, code: 'TERMINAL_EXITED', exitCode: expected.exitCode, output });
      return;
    }
    if (expected.refused !== undefined) {
      assert.equal(response.ok, false, `the shell should have refused the line, got ${JSON.stringify(response.event)}`);
      assert.equal(response.error, `the shell in terminal ${id} did not run the command (a syntax error?); it said: ${JSON.stringify(expected.refused)}`);
      return;
    }
    assert.equal(response.ok, true, `exec failed: ${response.error}`);
    const event = response.event as Frame;
    if (output instanceof JobTemplate) {
      assert.match(event.output, output.pattern, `output ${JSON.stringify(event.output)} is not ${JSON.stringify(output.text)}`);
    } else {
      assert.equal(event.output, output);
    }
    assert.equal(event.exitCode, expected.exitCode, 'exit code');
    assert.equal(event.truncated, expected.truncated ?? false, 'truncated');
    assert.equal(event.commandLine, expected.command, 'the event names the command as given');
    assert.equal(event.source, suite.integrated ? 'shell' : 'exec', 'the way exec ran it');
    assert.equal(event.terminalId, id);
  }
});
