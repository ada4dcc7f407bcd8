/**
 * OpenCode's screen rules against its real screens (test/fixtures/agents/opencode/<version>,
 * captured from the CLI by capture.ts there against a scripted model), replayed from the raw bytes
 * through Switchboard's own mirror; and the screens that must never read as OpenCode waiting.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { opencodeScreen } from '../../../../src/node/agents/agentTable.ts';
import { readAgentScreen } from '../../../../src/node/agents/screenRules.ts';
import { capturedScreens } from './capturedScreens.ts';

const captured = capturedScreens('opencode', opencodeScreen);
const read = (lines: string[]) => readAgentScreen(opencodeScreen, lines);

describe(`OpenCode ${opencodeScreen.capturedFrom} screen rules`, () => {
  it('the command approval is needs-input, with the command as reason and where to click each option', () => {
    const screen = captured.screen('permission-shell');
    const reading = read(screen);
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Shell: touch marker.txt');
    assert.deepEqual(reading.prompt, { kind: 'permission', toolName: 'Shell', options: ['1. Allow once', '2. Allow always', '3. Reject'] });
    assert.deepEqual(reading.answers, { approve: 1, deny: 3 });
    assert.equal(reading.answerBy, 'click');
    // Each click lands on its option's label on the screen (1-based row and column).
    const labels = ['Allow once', 'Allow always', 'Reject'];
    assert.deepEqual(
      reading.clicks!.map((at) => screen[at.row - 1]!.slice(at.column - 1).split(/\s{2,}/)[0]),
      labels,
    );
  });

  it('the edit approval names the file', () => {
    const reading = read(captured.screen('permission-edit'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Edit notes.txt');
    assert.equal(reading.prompt?.toolName, 'Edit');
    assert.deepEqual(reading.answers, { approve: 1, deny: 3 });
  });

  it('its question is needs-input with its numbered choices, without their descriptions, answered by digit', () => {
    const reading = read(captured.screen('question'));
    assert.equal(reading?.state, 'needs-input');
    assert.equal(reading.reason, 'Which colour should the marker be?');
    assert.deepEqual(reading.prompt, { kind: 'question', toolName: null, options: ['1. Red', '2. Blue', '3. Type your own answer'] });
    assert.equal(reading.answerBy, 'digit');
    assert.equal(reading.selected, undefined, 'its selector is only a colour');
  });

  it('"esc interrupt" in the status line is working; the input box over "ctrl+p commands" is idle, at home, after a turn, with a draft', () => {
    assert.equal(read(captured.screen('working'))?.state, 'working');
    for (const name of ['idle-startup', 'idle-after-turn', 'after-deny', 'idle-with-draft']) assert.equal(read(captured.screen(name))?.state, 'idle', name);
  });

  it('the raw bytes, replayed through the mirror, give the captured screens', async () => {
    await captured.assertReplayReadsAlike();
  });

  it('text that quotes the dialog is not the dialog: an echo, a shell', () => {
    const echoed = ['$ cat notes.md', '△ Permission required', '# Shell command', '$ rm -rf build', 'Allow once   Allow always   Reject', '$ '];
    assert.equal(read(echoed), null, 'without its key hints the row is text');
    assert.equal(read(['$ grep -r interrupt docs', 'docs/keys.md: press esc interrupt twice', '$ ']), null, 'the phrase above the status line does not count');
    assert.equal(read(['$ ls', 'a b c', '$ ']), null);
    assert.equal(read([]), null);
  });

  it('an old approval scrolled above the bottom of a tall screen is not read', () => {
    const later = [...captured.screen('permission-shell'), ...Array.from({ length: opencodeScreen.bottomLines }, (_, i) => `output line ${i}`)];
    assert.equal(read(later), null);
  });
});
