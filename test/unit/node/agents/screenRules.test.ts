/**
 * Claude Code's screen rules against its real screens (test/fixtures/agents/claude-code/<version>,
 * captured from the CLI by capture.ts there), replayed from the raw bytes through Switchboard's own
 * mirror; and the screens that must never read as an agent waiting.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { claudeCodeScreen } from '../../../../src/node/agents/agentTable.ts';
import { readAgentScreen } from '../../../../src/node/agents/screenRules.ts';
import { capturedScreens } from './capturedScreens.ts';

const version = claudeCodeScreen.capturedFrom;
const captured = capturedScreens('claude-code', claudeCodeScreen);
const screen = captured.screen;
const read = (lines: string[]) => readAgentScreen(claudeCodeScreen, lines);

describe(`Claude Code ${version} screen rules`, () => {
  it('the Bash permission dialog is needs-input, with the command as reason and the options to answer', () => {
    const reading = read(screen('permission-bash'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Bash: touch marker.txt');
    assert.equal(reading.prompt?.kind, 'permission');
    assert.equal(reading.prompt.toolName, 'Bash');
    assert.equal(reading.prompt.options.length, 4);
    assert.equal(reading.prompt.options[0], '1. Yes');
    assert.equal(reading.prompt.options[3], '4. No');
    assert.deepEqual(reading.answers, { approve: 1, deny: 4 });
    assert.equal(reading.answerBy, 'digit');
  });

  it('the same dialog in a narrow pane, its long option wrapped, reads as the same prompt', () => {
    const wide = read(screen('permission-bash'));
    const narrow = read(screen('permission-bash-90-cols'));
    assert.equal(narrow?.state, 'needs-input');
    assert.equal(narrow.reason, 'Bash: touch marker.txt');
    assert.equal(narrow.prompt?.kind, 'permission');
    assert.equal(narrow.prompt.options.length, 4);
    assert.match(narrow.prompt.options[1]!, /^2\. Yes, and always allow access to \/tmp\/\S+ from this project$/);
    assert.deepEqual(narrow.answers, wide?.answers);
  });

  it('a long compound command that wraps at 80 columns, beside the dialog\'s left bar, reads as the command alone on one line', () => {
    const lines = screen('permission-bash-wrapped-80-cols');
    assert.ok(lines.every((line) => line.length <= 80) && lines.some((line) => /^ │ .*"Raise$/.test(line)), 'the screen is the one meant: wrapped, beside a bar');
    const reading = read(lines);
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Bash: echo "timeout = 30" >> config.txt && git add -A && git commit -qm "Raise login timeout"');
    assert.equal(reading.prompt?.toolName, 'Bash');
    assert.deepEqual(reading.answers, { approve: 1, deny: 4 });
  });

  it('the Edit permission dialog names the file', () => {
    const reading = read(screen('permission-edit'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Edit notes.txt');
    assert.equal(reading.prompt?.toolName, 'Edit');
    assert.deepEqual(reading.answers, { approve: 1, deny: 3 });
  });

  it('the Write permission dialog names the file, also when the diff is open in the IDE (its title then says so)', () => {
    const reading = read(screen('permission-write'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Write hello.txt');
    assert.equal(reading.prompt?.toolName, 'Write');
    assert.deepEqual(reading.answers, { approve: 1, deny: 3 });
    const ide = screen('permission-write-ide');
    assert.ok(ide.some((line) => /^ Opened changes in Switchboard ⧉$/.test(line)), 'the screen is the one meant');
    const inIde = read(ide);
    assert.equal(inIde?.reason, 'Write hello.txt');
    assert.equal(inIde.prompt?.toolName, 'Write');
    assert.deepEqual(inIde.answers, { approve: 1, deny: 3 });
    // Write's other titles (an existing file), and an edit whose diff is in the IDE.
    const dialog = (title: string, ask: string) => ['● Write(a.txt)', '', '─'.repeat(60), ` ${title}`, ' src/a.txt', ` ${ask}`, ' ❯ 1. Yes', '   2. No', '', ' Esc to cancel · Tab to amend'];
    assert.equal(read(dialog('Overwrite file', 'Do you want to overwrite a.txt?'))?.reason, 'Write src/a.txt');
    assert.equal(read(dialog('Write file', 'Do you want to write to a.txt?'))?.reason, 'Write src/a.txt');
    assert.equal(read(dialog('Opened changes in Switchboard ⧉', 'Do you want to make this edit to a.txt?'))?.reason, 'Edit src/a.txt');
  });

  it('"esc to interrupt" in the status line is working; the empty input box is idle', () => {
    assert.equal(read(screen('working'))?.state, 'working');
    assert.equal(read(screen('idle-after-turn'))?.state, 'idle');
    assert.equal(read(screen('after-deny-edit'))?.state, 'idle', 'a rejected edit in the transcript is not a prompt');
  });

  it('a turn cut short is idle with "Interrupted" as reason, not done: refused with Esc, or resumed after the CLI ended while it asked', () => {
    const asked = 'Bash: echo "timeout = 30" >> config.txt && git add -A && git commit -qm "Raise login timeout"';
    const refused = read(screen('interrupted-at-permission'));
    assert.equal(refused?.state, 'idle');
    assert.equal(refused.reason, `Interrupted — it was asking: ${asked}`);
    const resumed = read(screen('resumed-after-permission'));
    assert.ok(screen('resumed-after-permission').some((line) => /No result recorded for 1 call/.test(line)), 'the screen is the one meant');
    assert.equal(resumed?.state, 'idle');
    assert.equal(resumed.reason, `Interrupted — it was asking: ${asked}`);
    assert.equal(read(screen('idle-after-turn'))?.reason, null, 'a finished turn has no reason');
    assert.equal(read(screen('after-deny-edit'))?.reason, null, 'a refused edit says so itself ("Rejected update"), no mark');
    const rule = '─'.repeat(60);
    const box = [rule, '❯ ', rule, '  ⏸ manual mode on · ? for shortcuts'];
    assert.equal(read(['❯ do the thing', '', '● Working on it', '  ⎿  Interrupted · What should Claude do instead?', '', ...box])?.reason, 'Interrupted', 'interrupted while it worked: no call it asked for');
    assert.equal(read(['❯ do the thing', '  ⎿  Interrupted · What should Claude do instead?', '', '❯ go on', '', '● Done.', '', ...box])?.reason, null, 'an earlier turn cut short, the last one finished');
  });

  it('a request typed ahead while a turn runs leaves it working (the spinner says so); the turn over, the draft waits in an idle box', () => {
    // Claude Code drops "esc to interrupt" from its status line while the box holds a draft.
    const typingAhead = screen('working-with-draft');
    assert.ok(!typingAhead.some((line) => /esc to interrupt/.test(line)) && typingAhead.some((line) => /^❯\s+tell me more/.test(line)), 'the screen is the one meant');
    assert.equal(read(typingAhead)?.state, 'working');
    assert.equal(read(screen('idle-with-draft'))?.state, 'idle');
    const rule = '─'.repeat(60);
    const box = [rule, '❯ next', rule, '  ⏸ manual mode on'];
    assert.equal(read(['✢ Nebulizing…', '  ⎿  Tip: a tip', '                 ctrl+y to paste deleted text', ...box])?.state, 'working', 'indented lines under the spinner are passed over');
    assert.equal(read(['✢ Nebulizing…', '● Done.', '✻ Churned for 2s · done 3:42 PM', ...box])?.state, 'idle', 'a spinner line higher up is the past');
    assert.equal(read(['● Here is the plan:', '✢ Step one…', '', '● Done.', ...box])?.state, 'idle', 'only the last line in the first column counts');
  });

  it('the first-run question is needs-input with its options and the selected one', () => {
    const reading = read(screen('startup-question'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Make auto mode your default permission mode?');
    assert.deepEqual(reading.prompt, { kind: 'question', toolName: null, options: ['1. Yes, set auto mode as my default permission mode', '2. No, keep manual mode'] });
    assert.equal(reading.selected, 1);
    assert.equal(reading.answerBy, 'selector', 'its options are not numbered: the selector is moved to one');
  });

  it('a permission dialog read before its last lines came is no prompt yet, not a question', () => {
    const full = screen('permission-bash');
    const footer = full.findIndex((line) => line.includes('Esc to cancel'));
    // A frame that reached the Hub in two reads: the first ends before the footer, or before the last option.
    for (const cut of [footer, footer - 1, footer - 2]) {
      const partial = [...full.slice(0, cut), ...full.slice(cut).map(() => '')];
      assert.equal(read(partial), null, `cut before ${JSON.stringify(full[cut]!.trim())}`);
    }
    // A question that asks the same words, without a tool's header above it, is still a question.
    const rule = '─'.repeat(60);
    const question = ['❯ set up the project', '', rule, '  Do you want to use TypeScript?', '  ❯ Yes', '    No', '', '', ''];
    assert.deepEqual(read(question)?.prompt, { kind: 'question', toolName: null, options: ['1. Yes', '2. No'] });
  });

  it('the raw bytes, replayed through the mirror, give the captured screens', async () => {
    await captured.assertReplayReadsAlike();
  });

  it('text that quotes the dialog is not the dialog: an echo, a file, a shell', () => {
    const echoed = ['$ echo "Do you want to proceed?"; echo " 1. Yes"; echo " 2. No"', 'Do you want to proceed?', ' 1. Yes', ' 2. No', '$ '];
    assert.equal(read(echoed), null);
    const rule = '─'.repeat(60);
    const quoted = ['● Read(notes.md)', '  ⎿  Do you want to proceed?', '  ❯ 1. Yes', '     2. No', '', rule, '❯ ', rule, '  ? for shortcuts'];
    assert.equal(read(quoted)?.state, 'idle', 'a file quoted in the transcript, under the input box: not a prompt');
    assert.equal(read(['$ make', 'gcc -c main.c', 'esc to interrupt is a phrase', 'linking…', '', '', '', '$ ']), null, 'the phrase above the status lines does not count');
    assert.equal(read(['~', '~', '"notes.txt" 3L, 20C']), null, 'vim');
    assert.equal(read([]), null);
  });

  it('an old permission dialog scrolled above the bottom of a tall screen is not read', () => {
    const old = screen('permission-bash');
    const later = [...old, ...Array.from({ length: claudeCodeScreen.bottomLines }, (_, i) => `output line ${i}`)];
    assert.equal(read(later), null);
  });
});
