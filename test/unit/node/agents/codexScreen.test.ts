/**
 * Codex CLI's screen rules against its real screens (test/fixtures/agents/codex/<version>,
 * captured from the CLI by capture.ts there against a scripted model), replayed from the raw bytes
 * through Switchboard's own mirror; and the screens that must never read as Codex waiting.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { codexScreen } from '../../../../src/node/agents/agentTable.ts';
import { readAgentScreen } from '../../../../src/node/agents/screenRules.ts';
import { capturedScreens } from './capturedScreens.ts';

const captured = capturedScreens('codex', codexScreen);
const read = (lines: string[]) => readAgentScreen(codexScreen, lines);

describe(`Codex ${codexScreen.capturedFrom} screen rules`, () => {
  it('the command approval is needs-input, with the command as reason and the options to answer by digit', () => {
    const reading = read(captured.screen('permission-shell'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Shell: touch marker.txt');
    assert.deepEqual(reading.prompt, {
      kind: 'permission',
      toolName: 'Shell',
      options: ['1. Yes, proceed (y)', "2. Yes, and don't ask again for commands that start with `touch marker.txt` (p)", '3. No, and tell Codex what to do differently (esc)'],
    });
    assert.deepEqual(reading.answers, { approve: 1, deny: 3 });
    assert.equal(reading.answerBy, 'digit');
    const edit = read(captured.screen('permission-shell-edit'));
    assert.equal(edit?.reason, 'Shell: sed -i s/hello/world/ notes.txt', 'the latest approval, not the earlier turns above it');
  });

  it('the same approval in a narrower pane, its long option wrapped, reads as the same prompt', () => {
    const wide = read(captured.screen('permission-shell-edit'));
    const narrow = read(captured.screen('permission-shell-edit-90-cols'));
    assert.ok(captured.screen('permission-shell-edit-90-cols').every((line) => line.length <= 90), 'captured at 90 columns');
    assert.equal(narrow?.state, 'needs-input');
    assert.deepEqual(narrow, wide);
  });

  it('its question (request_user_input) is needs-input with the options, without their descriptions', () => {
    const reading = read(captured.screen('question'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Which colour should the marker be?');
    assert.deepEqual(reading.prompt, { kind: 'question', toolName: null, options: ['1. Red (Recommended)', '2. Blue', '3. None of the above'] });
    assert.equal(reading.selected, 1);
    assert.equal(reading.answerBy, 'digit');
  });

  it('"Working (… • esc to interrupt)" over the input box is working; the input box alone is idle, empty or with a draft', () => {
    assert.equal(read(captured.screen('working'))?.state, 'working');
    for (const name of ['starting', 'idle-startup', 'idle-after-turn', 'after-deny', 'idle-with-draft']) assert.equal(read(captured.screen(name))?.state, 'idle', name);
  });

  it('the raw bytes, replayed through the mirror, give the captured screens', async () => {
    await captured.assertReplayReadsAlike();
  });

  it('text that quotes the dialog is not the dialog: an echo, a shell, a prompt in the transcript', () => {
    const echoed = ['$ printf "Would you like to run the following command?\\n$ rm x\\n1. Yes, proceed (y)\\n2. No (esc)\\n"', 'Would you like to run the following command?', '$ rm x', '1. Yes, proceed (y)', '2. No (esc)', '$ '];
    assert.equal(read(echoed), null);
    assert.equal(read(['$ grep -r interrupt docs', 'docs/keys.md: press esc to interrupt (Codex shows "Working (4s • esc to interrupt)")', '$ ']), null, 'the phrase quoted, not the status line');
    const working = ['• Working (4s • esc to interrupt)', ...Array.from({ length: codexScreen.statusLines }, (_, i) => `output line ${i}`)];
    assert.equal(read(working), null, 'the status line above the status area does not count');
    assert.equal(read(['$ echo "› Ask Codex to do anything"', '› Ask Codex to do anything', '$ ']), null, 'no agent frame: the shell prompt is last, not the footer');
    const screen = captured.screen('idle-after-turn');
    const scrolled = [...screen, ...Array.from({ length: 8 }, (_, i) => `output line ${i}`)];
    assert.equal(read(scrolled), null, 'an input box scrolled up by later output is not read');
    assert.equal(read(['~', '~', '"notes.txt" 3L, 20C']), null, 'vim');
    assert.equal(read([]), null);
  });

  it('an old approval scrolled above the bottom of a tall screen is not read', () => {
    const later = [...captured.screen('permission-shell'), ...Array.from({ length: codexScreen.bottomLines }, (_, i) => `output line ${i}`)];
    assert.equal(read(later), null);
  });
});
