/**
 * Gemini CLI's screen rules against its real screens (test/fixtures/agents/gemini/<version>,
 * captured from the CLI by capture.ts there against a scripted model), replayed from the raw bytes
 * through Switchboard's own mirror; and the screens that must never read as Gemini CLI waiting.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { geminiScreen } from '../../../../src/node/agents/agentTable.ts';
import { readAgentScreen } from '../../../../src/node/agents/screenRules.ts';
import { capturedScreens } from './capturedScreens.ts';

const captured = capturedScreens('gemini', geminiScreen);
const read = (lines: string[]) => readAgentScreen(geminiScreen, lines);

describe(`Gemini CLI ${geminiScreen.capturedFrom} screen rules`, () => {
  it('the shell approval is needs-input, with the command as reason and the options to answer by digit', () => {
    const reading = read(captured.screen('permission-shell'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Shell: touch marker.txt');
    assert.deepEqual(reading.prompt, { kind: 'permission', toolName: 'Shell', options: ['1. Allow once', '2. Allow for this session', '3. No, suggest changes (esc)'] });
    assert.deepEqual(reading.answers, { approve: 1, deny: 3 });
    assert.equal(reading.answerBy, 'digit');
  });

  it('the edit approval names the file', () => {
    const reading = read(captured.screen('permission-edit'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Edit notes.txt');
    assert.equal(reading.prompt?.toolName, 'Edit');
    assert.equal(reading.prompt.options.length, 4);
    assert.deepEqual(reading.answers, { approve: 1, deny: 4 });
  });

  it('the same approval in a narrower pane, its box drawn again, reads as the same prompt', () => {
    const wide = read(captured.screen('permission-edit'));
    const narrow = read(captured.screen('permission-edit-90-cols'));
    assert.ok(captured.screen('permission-edit-90-cols').every((line) => line.length <= 90), 'captured at 90 columns');
    assert.equal(narrow?.state, 'needs-input');
    assert.deepEqual(narrow, wide);
  });

  it('its questions (ask_user, and the first run’s folder trust) are needs-input with their options, without the descriptions', () => {
    const question = read(captured.screen('question'));
    assert.equal(question?.state, 'needs-input');
    assert.equal(question.reason, 'Which colour should the marker be?');
    assert.deepEqual(question.prompt, { kind: 'question', toolName: null, options: ['1. Red', '2. Blue', '3. Enter a custom value'] });
    assert.equal(question.selected, 1);
    assert.equal(question.answerBy, 'digit');
    const trust = read(captured.screen('startup-trust'));
    assert.equal(trust?.state, 'needs-input');
    assert.equal(trust.reason, 'Do you trust the files in this folder?');
    assert.equal(trust.prompt?.kind, 'question');
    assert.equal(trust.prompt.options.length, 3);
    assert.equal(trust.prompt.options[0], '1. Trust folder (project)');
    assert.equal(trust.prompt.options[2], "3. Don't trust");
  });

  it('"(esc to cancel, 0s)" over the input box is working; the input box alone is idle, empty or with a draft', () => {
    assert.equal(read(captured.screen('working'))?.state, 'working');
    for (const name of ['idle-startup', 'idle-after-turn', 'after-deny', 'idle-with-draft']) assert.equal(read(captured.screen(name))?.state, 'idle', name);
  });

  it('the raw bytes, replayed through the mirror, give the captured screens', async () => {
    await captured.assertReplayReadsAlike();
  });

  it('text that quotes the dialog is not the dialog: an echo, a numbered list, a prompt in the transcript', () => {
    const echoed = ['$ cat approval.txt', 'Allow execution of [Shell]?', '1. Allow once', '2. No, suggest changes (esc)', '$ '];
    assert.equal(read(echoed), null);
    const boxed = ['╭────────────────────────╮', '│ Allow execution of [Shell]? │', '│ 1. Allow once          │', '│ 2. No                  │', '╰────────────────────────╯', '$ '];
    assert.equal(read(boxed), null, 'a box printed by a command, with the shell prompt after it');
    assert.equal(read(['Tips for getting started:', '1. Create GEMINI.md files', '2. /help for more information', '', '$ ']), null, 'a numbered list');
    assert.equal(read(['$ grep cancel log', 'Thinking... (esc to cancel)', '$ ']), null, 'the phrase without its elapsed time');
    const scrolled = [...captured.screen('idle-after-turn'), ...Array.from({ length: 8 }, (_, i) => `output line ${i}`)];
    assert.equal(read(scrolled), null, 'an input box scrolled up by later output is not read');
    assert.equal(read([]), null);
  });

  it('an old approval scrolled above the bottom of a tall screen is not read', () => {
    const later = [...captured.screen('permission-shell'), ...Array.from({ length: geminiScreen.bottomLines }, (_, i) => `output line ${i}`)];
    assert.equal(read(later), null);
  });
});
