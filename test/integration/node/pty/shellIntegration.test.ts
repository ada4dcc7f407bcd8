/**
 * Shell integration end to end: real bash, zsh and fish (the latter two where installed) started
 * by PtyHost with our scripts injected, in a temp HOME with the user's own rc files.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { CommandEvent, PtySession } from '../../../../src/node/pty/ptySession.ts';
import { nullLogger } from '../../../../src/node/logger.ts';
import { PtyHost } from '../../../../src/node/pty/ptyHost.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createTestHost, person, waitForOutput, which } from './ptyTestKit.ts';

interface ShellCase {
  name: 'bash' | 'zsh' | 'fish';
  /** The user's startup file, relative to HOME. */
  rcFile: string;
  rcContent: string;
  brokenRc: string;
  /** bash and zsh run the lines before a syntax error; fish parses the whole file first and runs none. */
  runsLinesBeforeSyntaxError: boolean;
}

const shells: ShellCase[] = [
  {
    name: 'bash',
    rcFile: '.bashrc',
    rcContent: "export FROM_RC=loaded\nalias greet='echo hi-from-alias'\n",
    brokenRc: 'export BEFORE_ERROR=1\nif then fi (((\n',
    runsLinesBeforeSyntaxError: true,
  },
  {
    name: 'zsh',
    rcFile: '.zshrc',
    rcContent: "export FROM_RC=loaded\nalias greet='echo hi-from-alias'\n",
    brokenRc: 'export BEFORE_ERROR=1\nif then fi (((\n',
    runsLinesBeforeSyntaxError: true,
  },
  {
    name: 'fish',
    rcFile: '.config/fish/config.fish',
    rcContent: "set -gx FROM_RC loaded\nalias greet 'echo hi-from-alias'\n",
    brokenRc: 'set -gx BEFORE_ERROR 1\nif then (((\n',
    runsLinesBeforeSyntaxError: false,
  },
];

let kit: ReturnType<typeof createTestHost>;
beforeEach(() => {
  kit = createTestHost();
});
afterEach(() => kit.dispose());

function writeHomeFile(relative: string, content: string): void {
  const path = join(kit.temp.home, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

async function startShell(shell: ShellCase, args: string[] = []): Promise<PtySession> {
  const session = await kit.host.create({ file: shell.name, args, env: { ...kit.env, SHELL: which(shell.name)! }, createdBy: person });
  await pollUntil(() => session.info.shellIntegration, { what: `${shell.name} to report its first prompt`, timeoutMs: 15_000 });
  return session;
}

/** Type a command line and resolve with the command event it produces. */
function run(session: PtySession, line: string, timeoutMs = 10_000): Promise<CommandEvent> {
  const events: CommandEvent[] = [];
  const subscription = session.onDidCommand((event) => events.push(event));
  session.write(line + '\r');
  return pollUntil(() => events[0], { what: `command event for ${JSON.stringify(line)}`, timeoutMs }).finally(() => subscription.dispose());
}

function outputOf(session: PtySession, event: CommandEvent): string {
  return session.readRing(event.startOffset, event.endOffset - event.startOffset).data.toString('utf8');
}

for (const shell of shells) {
  const missing = which(shell.name) === null ? `${shell.name} is not installed` : false;
  if (missing) console.log(`# skipping ${shell.name} shell integration tests: ${missing}`);

  describe(`shell integration: ${shell.name}`, { skip: missing, timeout: 60_000 }, () => {
    test('marks a program prints (a recorded log) do not end its command or fake its exit code', async () => {
      const session = await startShell(shell);
      const line = "printf 'log\\033]633;D;0\\007\\033]133;D;0\\007\\033]633;A\\007more\\n'; false";
      const event = await run(session, line);
      assert.equal(event.commandLine, line);
      assert.equal(event.exitCode, 1, 'the exit code of `false`, not the forged 0');
      assert.match(outputOf(session, event), /log[\s\S]*more/);
    });

    test('command events carry the command line, cwd, exit code and the offsets of the output', async () => {
      const session = await startShell(shell);
      const event = await run(session, 'echo one; echo two');
      assert.equal(event.commandLine, 'echo one; echo two');
      assert.equal(event.cwd, kit.temp.workspace);
      assert.equal(event.exitCode, 0);
      assert.ok(event.endedAt >= event.startedAt);
      const output = outputOf(session, event);
      assert.ok(output.includes('one\r\ntwo\r\n'), JSON.stringify(output));
      // The range is the command's output only: not the echoed command line, not the next prompt.
      // (fish puts the command line into the window title, an OSC 0, which is fine.)
      const withoutTitles = output.replace(/\x1b\][012];[^\x07]*\x07/g, '');
      assert.equal(withoutTitles.includes('echo one'), false, JSON.stringify(output));
      assert.equal(output.includes('\x1b]633;'), false, JSON.stringify(output));
      assert.deepEqual(session.info.lastCommand, {
        commandLine: event.commandLine,
        cwd: event.cwd,
        exitCode: 0,
        startedAt: event.startedAt,
        endedAt: event.endedAt,
      });

      assert.equal((await run(session, 'false')).exitCode, 1);
      assert.equal((await run(session, "sh -c 'exit 7'")).exitCode, 7);
      const quoted = await run(session, 'echo "a;b\\c"');
      assert.equal(quoted.commandLine, 'echo "a;b\\c"');
    });

    test('tracks the cwd after cd', async () => {
      mkdirSync(join(kit.temp.workspace, 'sub dir'));
      const session = await startShell(shell);
      await run(session, "cd 'sub dir'");
      await pollUntil(() => session.info.cwd === join(kit.temp.workspace, 'sub dir'), { what: 'cwd to follow cd' });
      const event = await run(session, 'pwd');
      assert.equal(event.cwd, join(kit.temp.workspace, 'sub dir'));
    });

    test('reports the running command until it ends', async () => {
      const session = await startShell(shell);
      const events: CommandEvent[] = [];
      session.onDidCommand((event) => events.push(event));
      session.write('sleep 30\r');
      await pollUntil(() => session.info.runningCommand === 'sleep 30', { what: 'runningCommand' });
      // The mark comes from the shell's preexec hook, a moment before `sleep` starts; interrupt the
      // program itself, not the shell's hook.
      const shellPid = session.info.pid!;
      await pollUntil(() => readdirSync('/proc').some((pid) => /^\d+$/.test(pid) && isChildSleep(pid, shellPid)), { what: 'sleep running' });
      session.write('\x03');
      const event = await pollUntil(() => events[0], { what: 'interrupted command event' });
      assert.equal(event.commandLine, 'sleep 30');
      assert.notEqual(event.exitCode, 0);
      assert.equal(session.info.runningCommand, null);
    });

    test("the user's own rc file still loads", async () => {
      writeHomeFile(shell.rcFile, shell.rcContent);
      const session = await startShell(shell);
      const event = await run(session, 'greet; echo "rc=$FROM_RC"');
      const output = outputOf(session, event);
      assert.ok(output.includes('hi-from-alias'), JSON.stringify(output));
      assert.ok(output.includes('rc=loaded'), JSON.stringify(output));
    });

    test('a broken rc file still gives a working shell with integration', async () => {
      writeHomeFile(shell.rcFile, shell.brokenRc);
      const session = await startShell(shell);
      const event = await run(session, 'echo "works-$BEFORE_ERROR"');
      assert.equal(event.exitCode, 0);
      assert.equal(event.commandLine, 'echo "works-$BEFORE_ERROR"');
      assert.ok(outputOf(session, event).includes(shell.runsLinesBeforeSyntaxError ? 'works-1' : 'works-'));
    });

    test('the nonce is not visible to commands', async () => {
      const session = await startShell(shell);
      const event = await run(session, 'echo "nonce=[$SWITCHBOARD_NONCE]"');
      assert.ok(outputOf(session, event).includes('nonce=[]'));
      assert.equal(event.commandLine, 'echo "nonce=[$SWITCHBOARD_NONCE]"');
    });

    test("the nonce is not visible to the user's rc file nor to the programs it starts", async () => {
      const leak = join(kit.temp.home, 'seen-by-rc.txt');
      // The same lines in all three shells: what the rc file sees, and what a program it starts gets.
      writeHomeFile(shell.rcFile, `echo "nonce=[$SWITCHBOARD_NONCE]" > '${leak}'\nenv >> '${leak}'\n`);
      if (shell.name === 'fish') writeHomeFile('.config/fish/conf.d/early.fish', `env > '${leak}.conf.d'\n`);
      const session = await startShell(shell);
      const event = await run(session, 'echo integration-works');
      assert.equal(event.exitCode, 0);
      assert.equal(event.commandLine, 'echo integration-works');
      // The nonce this shell marks its prompts with, from the raw output.
      const raw = session.readRing(0).data.toString('utf8');
      const nonce = /\x1b\]633;A;([0-9a-f]{32})\x07/.exec(raw)?.[1];
      assert.ok(nonce, 'prompts are marked with the nonce');
      const seen = readFileSync(leak, 'utf8');
      assert.ok(seen.startsWith('nonce=[]\n'), seen.slice(0, 200));
      assert.ok(seen.includes(`SWITCHBOARD_TERMINAL_ID=${session.info.id}`), 'env ran from the rc file');
      assert.equal(seen.includes(nonce), false, 'the rc file and its programs never see the nonce');
      assert.equal(seen.includes('SWITCHBOARD_NONCE'), false);
      // Nor is it in the environment the shell was started with (programs of the same user can read that).
      const pid = session.info.pid!;
      assert.equal(readFileSync(`/proc/${pid}/environ`, 'utf8').includes(nonce), shell.name !== 'fish', 'bash and zsh get it there and unset it before any rc file; fish never gets it there');
      if (shell.name === 'fish') {
        assert.equal(readFileSync(`${leak}.conf.d`, 'utf8').includes(nonce), false, 'nor do conf.d snippets');
        // It came in a private file, deleted as soon as our script read it; its directory goes with the shell.
        const nonceFile = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').match(/'([^']*sb-nonce-[^']*)'/)?.[1];
        assert.ok(nonceFile, 'fish is told where the nonce file is');
        assert.equal(existsSync(nonceFile), false, 'deleted once read');
        session.write('exit\r');
        await session.exited;
        await pollUntil(() => !existsSync(dirname(nonceFile)), { what: 'the nonce directory to be removed after exit' });
      }
    });

    test('exiting the shell ends the terminal with its exit code', async () => {
      const session = await startShell(shell);
      session.write('exit 5\r');
      assert.deepEqual(await session.exited, { exitCode: 5, signal: null });
    });
  });
}

describe('shell integration: bash specifics', { timeout: 60_000 }, () => {
  test('a login bash reads the profile files and is integrated', async () => {
    writeHomeFile('.bash_profile', 'export FROM_PROFILE=yes\n');
    const session = await startShell(shells[0]!, ['-l']);
    const event = await run(session, 'echo "profile=$FROM_PROFILE"');
    assert.ok(outputOf(session, event).includes('profile=yes'));
  });

  test('commands hidden from history (leading space) still get a command line', async () => {
    writeHomeFile('.bashrc', 'HISTCONTROL=ignoreboth\n');
    const session = await startShell(shells[0]!);
    assert.equal((await run(session, 'echo first')).commandLine, 'echo first');
    assert.equal((await run(session, ' echo hidden')).commandLine, 'echo hidden');
    assert.equal((await run(session, 'echo first')).commandLine, 'echo first');
    assert.equal((await run(session, 'echo first')).commandLine, 'echo first');
  });

  test('a line that starts with a subshell is a command, with its output, exit code and line', async () => {
    writeHomeFile('.bashrc', 'HISTCONTROL=ignoreboth\n');
    const session = await startShell(shells[0]!);
    const failed = await run(session, '(exit 5)');
    assert.deepEqual([failed.commandLine, failed.exitCode], ['(exit 5)', 5]);
    const inSubfolder = await run(session, '(cd / && pwd)');
    assert.deepEqual([inSubfolder.commandLine, inSubfolder.exitCode, outputOf(session, inSubfolder)], ['(cd / && pwd)', 0, '/\r\n']);
    // Kept out of history (leading space), and a repeat that ignoredups keeps out.
    const hidden = await run(session, ' (exit 3)');
    assert.equal(hidden.exitCode, 3);
    // No shell code runs for such a line that could name it: the Hub reads it from its echo.
    const again = await run(session, '(cd / && pwd)');
    assert.deepEqual([again.commandLine, again.exitCode, outputOf(session, again)], ['(cd / && pwd)', 0, '/\r\n']);
    const hiddenList = await run(session, ' echo a && echo b');
    assert.equal(hiddenList.commandLine, 'echo a && echo b', 'the whole line, not only its first command');
  });

  test("the user's own PS0 still shows, also when PROMPT_COMMAND rebuilds it", async () => {
    writeHomeFile('.bashrc', "PS0='[ps0-static]'\nPROMPT_COMMAND='PS0=\"[ps0-\\$((1+1))]\"'\n");
    const session = await startShell(shells[0]!);
    const event = await run(session, '(echo inside)');
    assert.equal(event.exitCode, 0);
    assert.equal(outputOf(session, event), 'inside\r\n');
    // PS0 is printed before the command's output begins, so it sits just before the C mark.
    const before = session.readRing(Math.max(0, event.startOffset - 200), Math.min(200, event.startOffset)).data.toString('utf8');
    assert.ok(before.includes('[ps0-2]'), JSON.stringify(before));
  });

  test('with promptvars off (no PS0 of ours) a subshell line still reports its exit code', async () => {
    writeHomeFile('.bashrc', 'shopt -u promptvars\n');
    const session = await startShell(shells[0]!);
    const event = await run(session, '(exit 6)');
    assert.deepEqual([event.commandLine, event.exitCode], ['(exit 6)', 6]);
    const plain = await run(session, 'echo plain');
    assert.deepEqual([plain.commandLine, plain.exitCode, outputOf(session, plain)], ['echo plain', 0, 'plain\r\n']);
    assert.equal(session.readRing(0).data.toString().includes('__sb_'), false, 'no literal PS0 of ours is printed');
  });

  test('a user PROMPT_COMMAND and DEBUG trap keep working and still see $?', async () => {
    writeHomeFile('.bashrc', "PROMPT_COMMAND='LAST_STATUS=$?'\ntrap 'DEBUG_RAN=1' DEBUG\n");
    const session = await startShell(shells[0]!);
    await run(session, "sh -c 'exit 4'");
    const event = await run(session, 'echo "last=$LAST_STATUS debug=$DEBUG_RAN"');
    assert.ok(outputOf(session, event).includes('last=4 debug=1'), outputOf(session, event));
  });

  test('a PROMPT_COMMAND array (as bash-preexec and bash 5.1 set up) keeps every entry, in order, after ours', async () => {
    writeHomeFile('.bashrc', "PROMPT_COMMAND=('HOOKS=first' 'HOOKS=\"$HOOKS second status=$?\"')\n");
    const session = await startShell(shells[0]!);
    await run(session, "sh -c 'exit 3'");
    const event = await run(session, 'echo "hooks=$HOOKS"');
    assert.ok(outputOf(session, event).includes('hooks=first second status=3'), outputOf(session, event));
    assert.equal(event.exitCode, 0);
  });

  test('when the integration scripts are missing the shell starts plainly, with the user rc', async () => {
    writeHomeFile('.bashrc', 'export FROM_RC=loaded\n');
    const host = new PtyHost({ logger: nullLogger, defaultCwd: kit.temp.workspace, shellIntegrationDir: join(kit.temp.home, 'nowhere') });
    try {
      const session = await host.create({ file: 'bash', env: kit.env, createdBy: person });
      session.write('echo "rc=$FROM_RC"\r');
      await waitForOutput(session, 'rc=loaded');
      assert.equal(session.info.shellIntegration, false);
    } finally {
      host.dispose();
    }
  });

  test('without integration (bash --norc) no marks are emitted and the terminal still works', async () => {
    const session = await kit.host.create({ file: 'bash', args: ['--norc', '--noprofile'], env: kit.env, createdBy: person });
    session.write('echo plain-$((2+2))\r');
    await waitForOutput(session, 'plain-4');
    assert.equal(session.info.shellIntegration, false);
    assert.equal(session.readRing(0).data.toString().includes('\x1b]633;'), false);
  });
});

/** Whether /proc/<pid> is a `sleep` whose parent is `parentPid`. */
function isChildSleep(pid: string, parentPid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const parent = Number(stat.slice(close + 2).split(' ')[1]);
    return name === 'sleep' && parent === parentPid;
  } catch {
    return false;
  }
}
