/**
 * GitHub Copilot CLI's screen rules against its real screens (test/fixtures/agents/copilot/<version>,
 * captured from the CLI by capture.ts there against a scripted model), replayed from the raw bytes
 * through Switchboard's own mirror; and the screens that must never read as Copilot waiting.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copilotScreen } from '../../../../src/node/agents/agentTable.ts';
import { readAgentScreen } from '../../../../src/node/agents/screenRules.ts';
import { capturedScreens } from './capturedScreens.ts';

const captured = capturedScreens('copilot', copilotScreen);
const read = (lines: string[]) => readAgentScreen(copilotScreen, lines);

describe(`GitHub Copilot CLI ${copilotScreen.capturedFrom} screen rules`, () => {
  it('the command approval is needs-input, with the boxed command as reason and the options to answer by digit', () => {
    const reading = read(captured.screen('permission-shell'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Shell: touch marker.txt');
    assert.equal(reading.prompt?.kind, 'permission');
    assert.equal(reading.prompt.toolName, 'Shell');
    assert.equal(reading.prompt.options.length, 3);
    assert.equal(reading.prompt.options[0], '1. Yes');
    assert.equal(reading.prompt.options[2], '3. No, and tell Copilot what to do differently (Esc to stop)');
    assert.deepEqual(reading.answers, { approve: 1, deny: null }, 'its No option wants a text next: deny is Esc');
    assert.equal(reading.answerBy, 'digit');
  });

  it('the edit approval names the file it asks about', () => {
    const reading = read(captured.screen('permission-edit'));
    assert.equal(reading?.state, 'needs-input');
    assert.match(reading.reason!, /^Edit \/tmp\/\S+\/project\/notes\.txt$/);
    assert.equal(reading.prompt?.toolName, 'Edit');
    assert.deepEqual(reading.answers, { approve: 1, deny: null });
  });

  it('its question (ask_user) lists unnumbered choices under a selector; the folder-trust question numbers them', () => {
    const question = read(captured.screen('question'));
    assert.equal(question?.state, 'needs-input');
    assert.equal(question.reason, 'Which colour should the marker be?');
    assert.deepEqual(question.prompt, { kind: 'question', toolName: null, options: ['1. Red', '2. Blue', '3. Other (type your answer)'] });
    assert.equal(question.selected, 1);
    assert.equal(question.answerBy, 'selector');
    const trust = read(captured.screen('startup-trust'));
    assert.equal(trust?.state, 'needs-input');
    assert.equal(trust.reason, 'Do you trust the files in this folder?');
    assert.deepEqual(trust.prompt, { kind: 'question', toolName: null, options: ['1. Yes', '2. Yes, and remember this folder for future sessions', '3. No (Esc)'] });
    assert.equal(trust.answerBy, 'digit');
  });

  it('"Working" under the input box is working; the input box with its footer is idle, empty or with a draft', () => {
    assert.equal(read(captured.screen('working'))?.state, 'working');
    for (const name of ['idle-startup', 'idle-after-turn', 'after-deny', 'idle-with-draft']) assert.equal(read(captured.screen(name))?.state, 'idle', name);
  });

  it('the raw bytes, replayed through the mirror, give the captured screens', async () => {
    await captured.assertReplayReadsAlike();
  });

  it('text that quotes the dialog is not the dialog: an echo, a box printed by a command, a shell', () => {
    const echoed = ['$ cat approval.txt', 'Do you want to run this command?', '❯ 1. Yes', '  2. No', '', '↑/↓ to navigate · enter to select · esc to cancel', '$ '];
    assert.equal(read(echoed), null);
    const rule = '─'.repeat(60);
    const quoted = [' ● Read notes.md', '   Do you want to run this command?', '   ❯ 1. Yes', '     2. No', '', rule, '❯ ', rule, ' Interactive · Manual Approval'];
    assert.equal(read(quoted)?.state, 'idle', 'a file quoted in the transcript, over the input box: not a prompt');
    assert.equal(read(['$ grep -r Working notes', ' ◎ Working on it', '', '', '$ ']), null, 'the word above the status line does not count');
    assert.equal(read([]), null);
  });

  it('an old approval scrolled above the bottom of a tall screen is not read', () => {
    const later = [...captured.screen('permission-shell'), ...Array.from({ length: copilotScreen.bottomLines }, (_, i) => `output line ${i}`)];
    assert.equal(read(later), null);
  });
});
