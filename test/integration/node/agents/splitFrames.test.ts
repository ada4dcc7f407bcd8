/**
 * An agent's frame that reaches the Hub in two reads (the PTY hands over what it holds; a busy
 * machine makes the gap longer): the Claude Code stand-in writes each screen in two pieces, its last
 * three lines second. A permission dialog seen without its footer is no prompt yet — it once read
 * as a question "Do you want to proceed?", replaced a moment later by the real prompt, so an answer
 * to the first was refused (found by CI in the remote view's e2e test). A question whose last option
 * came late is the same prompt once it has: its `since` holds and an answer to it is taken. And a
 * frame whose pieces come close together is read whole: the screen is read once output pauses.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalHubClient, type LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { startTestHub, type TestHub } from '../../control/controlTestKit.ts';
import { startStandInPane } from './standInPane.ts';

describe('an agent frame that arrives in two pieces', () => {
  let t: TestHub;
  let person: LocalHubClient;

  before(async () => {
    t = await startTestHub({ clawsCompatSockets: false });
    person = createLocalHubClient(t.hub, { kind: 'person', name: 'you' });
  });
  after(async () => {
    person?.dispose();
    await t?.dispose();
  });

  /** A stand-in whose frames come in two pieces `splitMs` apart. */
  const splitAgent = (splitMs: number) => startStandInPane(t, person, { STAND_IN_SPLIT_FRAMES_MS: String(splitMs) });

  it('a permission dialog without its last lines is not read as a question; the prompt, once whole, is answered', async () => {
    const { id, states, screen } = await splitAgent(40);
    await person.call('terminal.write', { id, data: 'run touch split.txt\r' });
    // The screen the Hub holds between the two pieces: the dialog's ask and options, no footer.
    await pollUntil(async () => {
      const text = (await screen()).join('\n');
      return text.includes('Do you want to proceed?') && !text.includes('Esc to cancel');
    }, { what: 'the dialog without its footer on the mirror', intervalMs: 2 });
    const asking = await pollUntil(() => (states.at(-1)?.state === 'needs-input' ? states.at(-1) : null), { what: 'the permission prompt' });
    const prompts = states.filter((state) => state.state === 'needs-input');
    assert.deepEqual(
      prompts.map((state) => [state.reason, state.prompt?.kind]),
      prompts.map(() => ['Bash: touch split.txt', 'permission']),
      'every reading of the dialog is the permission prompt, never a question',
    );
    await person.call('agent.answer', { terminalId: id, answer: 'approve', expectSince: asking.since });
    await pollUntil(() => existsSync(join(t.workspace, 'split.txt')), { what: 'the approved command to run' });
  });

  it('a question whose last option came late keeps its since, and an answer made before it came is taken', async () => {
    const { id, states, screen } = await splitAgent(40);
    await person.call('terminal.write', { id, data: 'ask Which colour? | Red | Green | Blue\r' });
    const first = await pollUntil(() => states.find((state) => state.state === 'needs-input'), { what: 'the question' });
    await pollUntil(() => states.at(-1)?.prompt?.options.length === 3 || undefined, { what: 'all three options' });
    const asked = states.filter((state) => state.state === 'needs-input');
    assert.deepEqual(new Set(asked.map((state) => state.since)), new Set([first.since]), 'one prompt, however many readings');
    assert.deepEqual(states.at(-1)?.prompt?.options, ['1. Red', '2. Green', '3. Blue']);
    await person.call('agent.answer', { terminalId: id, answer: { option: 3 }, expectSince: first.since });
    await pollUntil(async () => (await screen()).some((line) => line.includes('You picked: Blue')), { what: 'the answer taken' });
  });

  it('a frame whose two pieces come close together is read whole', async () => {
    // Whether the pieces reached the Hub close together is the machine's; a round where they did
    // not (a late timer in the stand-in) says nothing and is done again.
    let conclusive = 0;
    for (let round = 0; round < 5 && conclusive < 2; round++) {
      const { id, states } = await splitAgent(3);
      const pieces: number[] = [];
      const output = t.hub.ptyHost.require(id).onDidOutput(({ data }) => {
        // The first piece ends with the second option; the second brings the footer.
        if (data.includes('Enter to select')) pieces[1] ??= Date.now();
        else if (data.includes('2. Green')) pieces[0] ??= Date.now();
      });
      try {
        await person.call('terminal.write', { id, data: 'ask Which colour? | Red | Green | Blue\r' });
        const first = await pollUntil(() => states.find((state) => state.state === 'needs-input'), { what: 'the question' });
        if (pieces[0] === undefined || pieces[1] === undefined || pieces[1] - pieces[0] > 10) continue;
        conclusive++;
        assert.deepEqual(first.prompt?.options, ['1. Red', '2. Green', '3. Blue'], `the pieces came ${pieces[1] - pieces[0]} ms apart`);
      } finally {
        output.dispose();
        await person.call('terminal.close', { id });
      }
    }
    assert.ok(conclusive > 0, 'in no round did the two pieces reach the Hub within 10 ms of each other');
  });
});
