/**
 * What an agent reads back from a terminal is what the terminal showed: text a program erased on
 * its line (npm's spinner: a glyph, then `ESC[1G ESC[0K`) is not in `exec`'s output nor in a
 * stripped `readLog`; and a line a person left half typed is reported as they typed it, without
 * fish's grey autosuggestion or zsh's RPROMPT drawn after it. Real Hub, real PTYs and shells.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalHubClient, type LocalHubClient } from '../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { which } from '../node/pty/ptyTestKit.ts';
import { createTerminal, type NdjsonClient, shells, startTestHub, type TestHub, waitForIntegration } from './controlTestKit.ts';

/** npm's spinner as it draws and erases itself on the line after `running tests`. */
const spinnerCommand = "printf 'running tests\\n\\342\\240\\231\\033[1G\\033[0K\\342\\240\\271\\033[1G\\033[0K'";

describe('exec and readLog show erased text as the terminal does', () => {
  let t: TestHub;
  let agent: NdjsonClient;
  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    agent = await t.connect();
  });
  after(async () => {
    await t.dispose();
  });

  for (const shell of ['bashIntegrated', 'zshIntegrated', 'fishIntegrated', 'bashPlain'] as const) {
    const name = shell.replace(/Integrated|Plain/, '');
    it(`a spinner erased with ESC[1G ESC[0K leaves no glyph in the output (${shell})`, { skip: which(name) === null ? `${name} is not installed` : false }, async () => {
      const id = await createTerminal(agent, t.env, shells[shell]);
      if (shell !== 'bashPlain') await waitForIntegration(agent, id);
      const response = await agent.request({ cmd: 'exec', terminalId: id, command: spinnerCommand, timeoutMs: 20_000 }, 30_000);
      assert.equal(response.ok, true, response.error);
      assert.equal(response.event.output, 'running tests\n');
      // Progress drawn over itself with CR keeps its last state; ordinary lines stay whole.
      const progress = await agent.request({ cmd: 'exec', terminalId: id, command: "printf 'a\\n10%%\\r55%%\\r100%%\\nb\\n'", timeoutMs: 20_000 }, 30_000);
      assert.equal(progress.event.output, 'a\n100%\nb\n');
      // readLog's stripped text agrees (its line ends stay as the terminal sent them).
      const slice = await agent.request({ cmd: 'readLog', terminalId: id, offset: response.event.startOffset, limit: response.event.endOffset - response.event.startOffset });
      assert.match(slice.bytes, /running tests\r\n/);
      assert.doesNotMatch(slice.bytes, /[⠙⠹]/);
      await agent.request({ cmd: 'close', terminalId: id });
    });
  }
});

/** One Hub for the tests where a person types beside the agent (zsh with a right prompt). */
describe('a person at the keyboard beside the agent', () => {
  let t: TestHub;
  let agent: NdjsonClient;
  let person: LocalHubClient;
  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    writeFileSync(join(t.home, '.zshrc'), 'RPROMPT="[rp %~]"\n');
    agent = await t.connect();
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
  });
  after(async () => {
    person.dispose();
    await t.dispose();
  });

  describe('the unsent line reported is what the person typed', () => {
    /** The send refused once the person counts as idle: its `unsentInput`. */
    async function refusedLine(id: string): Promise<string> {
      const frame = await pollUntil(
        async () => {
          const frame = await agent.request({ cmd: 'send', terminalId: id, text: 'echo agent', wait: false });
          return frame.unsentInput === undefined ? undefined : frame;
        },
        { timeoutMs: 5_000, intervalMs: 100, what: 'the unsent-input refusal' },
      );
      assert.equal(frame.ok, false);
      return frame.unsentInput as string;
    }

    async function typeAndSettle(id: string, data: string): Promise<void> {
      await person.call('terminal.write', { id, data });
      await new Promise((resolve) => setTimeout(resolve, 300));
    }

    for (const shell of ['bashIntegrated', 'zshIntegrated', 'fishIntegrated'] as const) {
      const name = shell.replace('Integrated', '');
      it(`without the autosuggestion or the right prompt; with the text after a cursor moved back (${name})`, { skip: which(name) === null ? `${name} is not installed` : false }, async () => {
        const id = await createTerminal(agent, t.env, shells[shell]);
        await waitForIntegration(agent, id);
        // History that fish suggests from.
        const ran = await agent.request({ cmd: 'exec', terminalId: id, command: 'echo agent-suggest-me', timeoutMs: 20_000 }, 30_000);
        assert.equal(ran.ok, true, ran.error);
        await typeAndSettle(id, 'echo ag');
        assert.equal(await refusedLine(id), 'echo ag');
        // Cursor moved back into the line (Left ×2): what stands after it is still the person's.
        await typeAndSettle(id, '\x1b[D\x1b[D');
        assert.equal(await refusedLine(id), 'echo ag');
        // All the way back to the start: the line is still there, so still refused.
        await typeAndSettle(id, '\x01');
        assert.equal(await refusedLine(id), 'echo ag');
        // Cleared: nothing of the person's is left (zsh's right prompt alone does not count), so the send goes.
        await typeAndSettle(id, '\x05\x15');
        const accepted = await pollUntil(
          async () => {
            const frame = await agent.request({ cmd: 'send', terminalId: id, text: 'echo accepted-now', wait: false });
            return frame.ok ? frame : undefined;
          },
          { timeoutMs: 5_000, intervalMs: 100, what: 'the send to be accepted' },
        );
        assert.equal(accepted.ok, true);
        await agent.request({ cmd: 'close', terminalId: id });
      });
    }
  });

  describe('an exec says when a person typed into the terminal while it ran', () => {

    for (const shell of ['bashIntegrated', 'bashPlain'] as const) {
      it(`personTyped beside the output the keys were echoed into, and only then (${shell})`, async () => {
        const id = await createTerminal(agent, t.env, shells[shell]);
        if (shell === 'bashIntegrated') await waitForIntegration(agent, id);
        const quiet = await agent.request({ cmd: 'exec', terminalId: id, command: 'echo nobody-typed', timeoutMs: 20_000 }, 30_000);
        assert.equal(quiet.ok, true, quiet.error);
        assert.equal(quiet.personTyped, undefined, 'no field when nobody typed');

        const running = agent.request({ cmd: 'exec', terminalId: id, command: 'sleep 1.5; echo finished-$((6*7))', timeoutMs: 20_000 }, 30_000);
        // Once the command is on the screen (typed), the person types into the pane while it sleeps.
        await pollUntil(async () => ((await agent.request({ cmd: 'readScreen', terminalId: id })).lines as string[]).some((line) => line.includes('finished-$((6*7))')) || undefined, {
          what: 'the command typed',
        });
        await person.call('terminal.write', { id, data: 'zq' });
        const answer = await running;
        assert.equal(answer.ok, true, answer.error);
        assert.match(answer.event.output, /zq/, 'the echo of the keys is in the output');
        assert.equal(answer.personTyped, true);
        await agent.request({ cmd: 'close', terminalId: id });
      });
    }
  });
});
