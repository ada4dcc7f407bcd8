/**
 * An agent's input and a person's, in one pane, in real Chromium: an agent's `exec`/`send` never
 * joins a line the person has half typed, and an agent that creates a terminal and runs a command
 * at once — into shells whose rc files take a moment — leaves a clean pane (the command as typed,
 * its output; no wrapper, nothing mixed into the rc's output).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ControlClient, ControlClientError } from '../../src/cli/controlClient.ts';
import { which } from '../integration/node/pty/ptyTestKit.ts';
import { pollUntil } from '../helpers/poll.ts';
import { openFreshApp, useSharedBrowser, waitForPaneText, waitForPanes } from '../helpers/servedApp.ts';

const browser = useSharedBrowser();

describe("an agent's input next to a person's", () => {
  it("exec and send never join the line a person has half typed; the person's line runs as typed", async (t) => {
    const { app, page, firstPane } = await openFreshApp(browser(), t);
    const agent = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
    t.after(() => agent.dispose());

    // The person starts a line and stops, without Enter.
    await page.locator(`[data-terminal-id="${firstPane}"] .pane-body`).click();
    await page.keyboard.type('echo user-half-typed ');
    await waitForPaneText(page, firstPane, '$ echo user-half-typed');

    const timedOut = await agent.exec(firstPane, 'echo agent-cmd', 3_000).then(
      () => assert.fail('the exec must not run into the person\'s line'),
      (error: unknown) => error as ControlClientError,
    );
    assert.ok(timedOut instanceof ControlClientError);
    assert.match(timedOut.message, /was waiting for the person to send or clear the line they typed at the prompt \("echo user-half-typed"\); the command was not typed$/);
    const refused = await agent.request('send', { terminalId: firstPane, text: 'echo from-agent', wait: false }).then(
      () => assert.fail('the send must be refused'),
      (error: unknown) => error as Error,
    );
    assert.match(refused.message, /has unsent input at the prompt: "echo user-half-typed"/);

    // The person finishes their line; it runs exactly as they typed it, and the agent's next
    // exec runs after it, on its own line.
    await page.keyboard.type('done');
    await page.keyboard.press('Enter');
    const result = await agent.exec(firstPane, 'echo agent-$((40+2))', 20_000);
    assert.equal(result.output, 'agent-42\n');
    // The exec answers once the Hub has the output; the pane draws it a moment later.
    const screen = await waitForPaneText(page, firstPane, /^agent-42$/m);
    assert.match(screen, /^user-half-typed done$/m);
    assert.doesNotMatch(screen, /user-half-typed (done )?echo/, 'never joined');
    assert.doesNotMatch(screen, /agent-cmd|from-agent/, 'the refused input was never typed');
  });

  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    it(`create then exec at once leaves a clean pane (${shell}, an rc that takes half a second)`, { skip: which(shell) === null ? `${shell} is not installed` : false }, async (t) => {
      const { app, page } = await openFreshApp(browser(), t);
      // Read by shells started from now on: the first pane's bash has already started.
      writeFileSync(join(app.home, '.bashrc'), "sleep 0.5\necho rc-says-hello\nPS1='$ '\n");
      writeFileSync(join(app.home, '.zshrc'), "sleep 0.5\necho rc-says-hello\nPROMPT='$ '\n");
      mkdirSync(join(app.home, '.config', 'fish'), { recursive: true });
      writeFileSync(join(app.home, '.config', 'fish', 'config.fish'), 'sleep 0.5\necho rc-says-hello\n');
      const agent = new ControlClient({ socketPath: join(app.dataDir, 'control.sock'), clientName: 'e2e-agent' });
      t.after(() => agent.dispose());

      const created = await agent.request('create', { name: `agent-${shell}`, shellPath: shell, show: true });
      const id = String(created.id);
      const command = shell === 'fish' ? 'echo "clean-"(math 6 \\* 7)' : 'echo "clean-$((6*7))"';
      const result = await agent.exec(id, command, 30_000);
      assert.deepEqual([result.output, result.exitCode], ['clean-42\n', 0]);

      await waitForPanes(page, 2);
      const screen = await waitForPaneText(page, id, /^clean-42$/m);
      assert.doesNotMatch(screen, /6973|builtin printf|command printf|trap : INT/, 'no exec wrapper in the pane');
      const lines = screen.split('\n');
      const rc = lines.findIndex((line) => line.includes('rc-says-hello'));
      const typed = lines.findIndex((line) => line.includes(command));
      assert.ok(rc !== -1 && typed > rc, `the command was typed after the rc ran:\n${screen}`);
      assert.equal(lines.filter((line) => line.includes(command)).length, 1, `typed once:\n${screen}`);
      await pollUntil(async () => (await agent.list()).find((terminal) => terminal.id === id)?.hasShellIntegration === true, { what: 'integration' });
    });
  }
});
