import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CommandEvent, CommandTracker } from '../../../../src/common/terminal/commandTracker.ts';

function tracker(nonce: string | null = 'N') {
  const commands: CommandEvent[] = [];
  let changes = 0;
  const instance = new CommandTracker({ nonce, initialCwd: '/start', isLocalHost: (host) => host === 'here' });
  instance.onDidFinishCommand((event) => commands.push(event));
  instance.onDidChange(() => changes++);
  return { instance, commands, changes: () => changes };
}

describe('CommandTracker', () => {
  test('a full prompt/command cycle gives a command event with output offsets between C and D', () => {
    const { instance, commands } = tracker();
    instance.handle({ kind: 'cwd', cwd: '/work' }, { start: 0, end: 10 }, 1);
    instance.handle({ kind: 'promptStart', nonce: 'N' }, { start: 10, end: 18 }, 1);
    instance.handle({ kind: 'promptEnd', nonce: 'N' }, { start: 20, end: 28 }, 1);
    assert.equal(instance.shellIntegration, true);
    instance.handle({ kind: 'commandLine', commandLine: 'make', nonce: 'N' }, { start: 40, end: 60 }, 2);
    instance.handle({ kind: 'commandStart', nonce: 'N' }, { start: 60, end: 68 }, 3);
    assert.equal(instance.runningCommand, 'make');
    instance.handle({ kind: 'commandFinished', exitCode: 2, nonce: 'N' }, { start: 100, end: 110 }, 7);
    assert.equal(instance.runningCommand, null);
    assert.deepEqual(commands, [{ commandLine: 'make', cwd: '/work', exitCode: 2, startOffset: 68, endOffset: 100, startedAt: 3, endedAt: 7 }]);
    assert.deepEqual(instance.lastCommand, { commandLine: 'make', cwd: '/work', exitCode: 2, startedAt: 3, endedAt: 7 });
  });

  test('announces each command start and each drawn prompt, and knows when the shell sits at its prompt', () => {
    const { instance } = tracker();
    const starts: string[] = [];
    let prompts = 0;
    instance.onDidStartCommand((start) => starts.push(start.commandLine));
    instance.onDidReachPrompt(() => prompts++);
    assert.equal(instance.atPrompt, false);
    instance.handle({ kind: 'promptStart', nonce: 'N' }, { start: 0, end: 8 }, 1);
    assert.equal(instance.atPrompt, false, 'A: the prompt is being drawn');
    instance.handle({ kind: 'promptEnd', nonce: 'N' }, { start: 10, end: 18 }, 1);
    assert.equal(instance.atPrompt, true);
    // Two commands in a row, each start announced (a change listener alone would see null → null).
    for (const line of ['true', 'true']) {
      instance.handle({ kind: 'commandLine', commandLine: line, nonce: 'N' }, { start: 20, end: 30 }, 2);
      instance.handle({ kind: 'commandStart', nonce: 'N' }, { start: 30, end: 38 }, 2);
      assert.equal(instance.atPrompt, false);
      instance.handle({ kind: 'commandFinished', exitCode: 0, nonce: 'N' }, { start: 40, end: 48 }, 3);
      instance.handle({ kind: 'promptStart', nonce: 'N' }, { start: 50, end: 58 }, 3);
      instance.handle({ kind: 'promptEnd', nonce: 'N' }, { start: 60, end: 68 }, 3);
    }
    assert.deepEqual(starts, ['true', 'true']);
    assert.equal(prompts, 3);
    assert.equal(instance.atPrompt, true);
  });

  test('a command line reported after its start (bash, a line kept out of history) names the running command', () => {
    const { instance, commands, changes } = tracker();
    instance.handle({ kind: 'promptEnd', nonce: 'N' }, { start: 0, end: 8 }, 1);
    instance.handle({ kind: 'commandStart', nonce: 'N' }, { start: 10, end: 18 }, 2);
    assert.equal(instance.runningCommand, '');
    const before = changes();
    instance.handle({ kind: 'commandLine', commandLine: ' echo secret', nonce: 'N' }, { start: 18, end: 40 }, 2);
    assert.equal(instance.runningCommand, ' echo secret');
    assert.equal(changes(), before + 1, 'the sidebar hears of the name');
    instance.handle({ kind: 'commandFinished', exitCode: 0, nonce: 'N' }, { start: 60, end: 68 }, 3);
    assert.deepEqual(
      commands.map((c) => [c.commandLine, c.startOffset, c.endOffset]),
      [[' echo secret', 18, 60]],
    );
    // The next command does not inherit it.
    instance.handle({ kind: 'commandStart', nonce: 'N' }, { start: 70, end: 78 }, 4);
    assert.equal(instance.runningCommand, '');
  });

  test('a command line with the wrong nonce is ignored', () => {
    const { instance, commands } = tracker('N');
    instance.handle({ kind: 'commandLine', commandLine: 'rm -rf /', nonce: 'forged' }, { start: 0, end: 1 }, 1);
    instance.handle({ kind: 'commandStart', nonce: 'N' }, { start: 1, end: 2 }, 1);
    instance.handle({ kind: 'commandFinished', exitCode: 0, nonce: 'N' }, { start: 3, end: 4 }, 1);
    assert.equal(commands[0]?.commandLine, '');
  });

  test('command marks without our nonce are program output and change nothing', () => {
    const { instance, commands } = tracker('N');
    instance.handle({ kind: 'commandLine', commandLine: 'cat build.log', nonce: 'N' }, { start: 0, end: 1 }, 1);
    instance.handle({ kind: 'commandStart', nonce: 'N' }, { start: 1, end: 2 }, 1);
    // `cat` prints a log recorded in another terminal: its marks must not end our command.
    instance.handle({ kind: 'commandFinished', exitCode: 0, nonce: null }, { start: 10, end: 12 }, 2);
    instance.handle({ kind: 'promptStart', nonce: 'other' }, { start: 12, end: 14 }, 2);
    instance.handle({ kind: 'commandStart', nonce: null }, { start: 14, end: 16 }, 2);
    assert.equal(instance.runningCommand, 'cat build.log');
    assert.equal(commands.length, 0);
    instance.handle({ kind: 'commandFinished', exitCode: 1, nonce: 'N' }, { start: 20, end: 24 }, 3);
    assert.deepEqual(commands.map((c) => [c.commandLine, c.exitCode, c.startOffset, c.endOffset]), [['cat build.log', 1, 2, 20]]);
  });

  test('without an injected nonce any command line is taken', () => {
    const { instance, commands } = tracker(null);
    instance.handle({ kind: 'commandLine', commandLine: 'ls', nonce: null }, { start: 0, end: 1 }, 1);
    instance.handle({ kind: 'commandStart', nonce: 'N' }, { start: 1, end: 2 }, 1);
    instance.handle({ kind: 'commandFinished', exitCode: 0, nonce: 'N' }, { start: 3, end: 4 }, 1);
    assert.equal(commands[0]?.commandLine, 'ls');
  });

  test('D without a running command (an empty prompt line) gives no event', () => {
    const { instance, commands } = tracker();
    instance.handle({ kind: 'commandFinished', exitCode: 0, nonce: 'N' }, { start: 0, end: 5 }, 1);
    assert.deepEqual(commands, []);
  });

  test('a new prompt while a command runs ends it without an exit code (shells that skip D)', () => {
    const { instance, commands } = tracker();
    instance.handle({ kind: 'commandStart', nonce: 'N' }, { start: 0, end: 5 }, 1);
    instance.handle({ kind: 'promptStart', nonce: 'N' }, { start: 50, end: 55 }, 2);
    assert.deepEqual(commands.map((c) => [c.exitCode, c.startOffset, c.endOffset]), [[null, 5, 50]]);
  });

  test('the end of the stream ends a running command', () => {
    const { instance, commands } = tracker();
    instance.handle({ kind: 'commandStart', nonce: 'N' }, { start: 0, end: 5 }, 1);
    instance.endOfStream(80, 9);
    assert.deepEqual(commands.map((c) => [c.exitCode, c.endOffset, c.endedAt]), [[null, 80, 9]]);
  });

  test('cwd follows local reports and ignores remote hosts; changes are announced once', () => {
    const { instance, changes } = tracker();
    assert.equal(instance.cwd, '/start');
    instance.handle({ kind: 'cwd', cwd: '/a' }, { start: 0, end: 1 }, 1);
    instance.handle({ kind: 'cwd', cwd: '/a' }, { start: 0, end: 1 }, 1);
    instance.handle({ kind: 'cwd', cwd: '/b', host: 'here' }, { start: 0, end: 1 }, 1);
    instance.handle({ kind: 'cwd', cwd: '/remote', host: 'elsewhere' }, { start: 0, end: 1 }, 1);
    assert.equal(instance.cwd, '/b');
    assert.equal(changes(), 2);
  });
});
