import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  evalCommand,
  isTypeableAsIs,
  printfEncode,
  runsAShell,
  sentinelLine,
  sentinelMarkers,
  shellFlavorOf,
  type ShellFlavor,
} from '../../../../src/node/control/shellCommandLine.ts';
import { isReportOfTypedLine } from '../../../../src/node/control/commandLog.ts';

const tricky = [
  'echo plain',
  `echo "it's" 'a "quoted" test' \\back\\slash`,
  'echo one\necho two',
  'printf "%s\\t%s\\n" tab\tseparated',
  'echo a!b # a comment',
  "cat <<'EOF'\nheredoc $HOME\nEOF",
  'echo ünïcødé ✓',
];

/** Run a line in a non-interactive shell; the line must reproduce exactly what the command prints. */
function run(flavor: ShellFlavor, line: string): string {
  const program = flavor === 'sh' ? 'dash' : flavor;
  return stdoutOf(program, ['-c', line]);
}

/** What a program prints, whatever its exit status (a wrapper may end with the command's). */
function stdoutOf(program: string, args: string[]): string {
  const result = spawnSync(program, args, { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/tmp' }, stdio: ['ignore', 'pipe', 'ignore'] });
  if (result.error) throw result.error;
  return result.stdout;
}

describe('shellFlavorOf', () => {
  it('takes the terminal program, or a shell the running command started', () => {
    assert.equal(shellFlavorOf('/usr/bin/fish', null), 'fish');
    assert.equal(shellFlavorOf('/bin/dash', null), 'sh');
    assert.equal(shellFlavorOf('/usr/local/bin/python3', null), 'sh');
    assert.equal(shellFlavorOf('/usr/bin/fish', 'bash --norc'), 'bash');
    assert.equal(shellFlavorOf('/usr/bin/bash', 'vim x'), 'bash');
  });
});

describe('isTypeableAsIs', () => {
  it('accepts complete printable lines', () => {
    for (const command of ['ls -la', 'echo "a b" | wc -c', 'for x in 1 2; do echo $x; done', 'test -f x && echo y', 'echo it\\\'s']) {
      assert.equal(isTypeableAsIs(command, 'bash'), true, command);
    }
  });

  it('refuses what would leave the shell waiting or rewrite the line', () => {
    for (const command of ['echo "open', "echo 'open", 'echo a \\', 'ls |', 'true &&', 'for x in 1; do', 'echo a\nb', 'echo\ttab', 'echo hi!', '^a^b', 'cat <<EOF', '(echo', '']) {
      assert.equal(isTypeableAsIs(command, 'bash'), false, JSON.stringify(command));
    }
    assert.equal(isTypeableAsIs('echo hi!', 'fish'), true, 'fish has no history expansion');
    assert.equal(isTypeableAsIs('begin; echo x', 'fish'), false);
  });
});

describe('evalCommand and sentinelLine run the exact command in every shell', () => {
  for (const flavor of ['bash', 'zsh', 'fish', 'sh'] as const) {
    it(flavor, () => {
      for (const command of tricky) {
        if (flavor === 'fish' && command.includes('<<')) continue; // fish has no heredocs
        const expected = run(flavor, command);
        assert.equal(run(flavor, evalCommand(command, flavor)), expected, `eval of ${JSON.stringify(command)}`);
        const output = run(flavor, sentinelLine(command, flavor, 'abc123'));
        const { start, end } = sentinelMarkers('abc123');
        const startAt = output.indexOf(start.toString('latin1'));
        const endAt = output.indexOf(end.toString('latin1'));
        assert.ok(startAt >= 0 && endAt > startAt, `markers in ${JSON.stringify(output)}`);
        const afterStart = output.indexOf('\x07', startAt) + 1;
        assert.equal(output.substring(afterStart, endAt), expected, `sentinel of ${JSON.stringify(command)}`);
        assert.match(output.substring(endAt), /;0\x07$/);
      }
    });
  }

  it('reports the exit status after the command', () => {
    for (const flavor of ['bash', 'zsh', 'fish', 'sh'] as const) {
      const output = run(flavor, sentinelLine('sh -c "exit 7"', flavor, 'n1'));
      assert.match(output, /\x1b\]6973;E;n1;7\x07$/, flavor);
    }
  });

  it('prints the end marker after an error that makes an interactive shell abandon the rest of the line', () => {
    // -i: dash and zsh abandon a typed line on these errors only when interactive, as in a pane.
    const interactive: Record<ShellFlavor, string[]> = {
      bash: ['bash', '--norc', '--noprofile', '-i', '-c'],
      zsh: ['zsh', '-f', '-i', '-c'],
      sh: ['dash', '-i', '-c'],
      fish: ['fish', '--no-config', '-i', '-c'],
    };
    const posixErrors: [command: string, codes: Record<Exclude<ShellFlavor, 'fish'>, number>][] = [
      ['echo (', { bash: 2, zsh: 1, sh: 2 }],
      ['fi', { bash: 2, zsh: 1, sh: 2 }],
      ['echo ${SB_UNSET_SB?gone}', { bash: 1, zsh: 1, sh: 2 }],
      ['echo $((1+))', { bash: 1, zsh: 1, sh: 2 }],
      ['readonly sb_ro=1; sb_ro=2', { bash: 1, zsh: 1, sh: 2 }],
    ];
    const cases: [ShellFlavor, string, number][] = [
      ...posixErrors.flatMap(([command, codes]) => (['bash', 'zsh', 'sh'] as const).map((flavor): [ShellFlavor, string, number] => [flavor, command, codes[flavor]])),
      ['fish', 'echo (', 123],
      ['fish', 'echo $?', 121],
    ];
    for (const [flavor, command, code] of cases) {
      const [program, ...args] = interactive[flavor];
      const output = stdoutOf(program!, [...args, sentinelLine(command, flavor, 'n2')]);
      assert.ok(output.includes('\x1b]6973;E;n2;'), `${flavor}: no end marker after ${JSON.stringify(command)}: ${JSON.stringify(output)}`);
      assert.match(output, new RegExp(`\\x1b\\]6973;E;n2;${code}\\x07`), `${flavor}: ${JSON.stringify(command)}`);
    }
  });

  it('keeps the typed line free of the marker bytes and on one line', () => {
    const line = sentinelLine('echo one\necho two', 'bash', 'feedface');
    assert.equal(line.includes('\n'), false);
    assert.equal(line.includes('\x1b'), false);
    assert.equal(printfEncode("a'b\\c\nd"), 'a\\0047b\\0134c\\0012d');
  });
});

describe('lines that run nothing', () => {
  it('are never typed as-is (the shell would report no command)', () => {
    for (const command of ['   ', '# just a comment', '  # indented comment']) assert.equal(isTypeableAsIs(command, 'bash'), false, JSON.stringify(command));
  });
});

describe('runsAShell: whether exec may type into what a terminal runs', () => {
  it('types into nested shells and logins elsewhere', () => {
    for (const command of ['bash', 'sh', 'zsh -l', '/usr/bin/fish', 'ssh build-host', 'mosh me@box', 'su - deploy', 'sudo -i', 'sudo -u deploy bash', 'docker exec -it app sh', 'FOO=1 bash']) {
      assert.equal(runsAShell(command), true, command);
    }
  });
  it('waits for other programs, which would take the line as their input', () => {
    for (const command of ['python3', 'cat', 'sleep 30', 'npm run build', 'sudo apt upgrade', 'node', 'FOO=1 make', '']) {
      assert.equal(runsAShell(command), false, command);
    }
  });
});

describe("isReportOfTypedLine: which shell-reported command is an exec's", () => {
  it('matches the line as typed, bash\'s first simple command, or an unknown line', () => {
    assert.equal(isReportOfTypedLine('echo mine; false', 'echo mine; false'), true);
    assert.equal(isReportOfTypedLine(' echo mine; false ', 'echo mine; false'), true);
    assert.equal(isReportOfTypedLine('echo mine', 'echo mine; false'), true);
    assert.equal(isReportOfTypedLine('', 'echo mine'), true);
  });
  it('does not take the report of another line', () => {
    assert.equal(isReportOfTypedLine('echo created-0', 'echo exec-0; false'), false);
    assert.equal(isReportOfTypedLine('echo mi', 'echo mine'), false);
    assert.equal(isReportOfTypedLine('echo mine; false', 'echo mine'), false);
  });
});
