/**
 * What the real-agent tests (claudeCode, codexCli, geminiCli, copilotCli, opencodeCli) watch in
 * their agent's pane: the states it went through (for failure messages), the state now, waiting for
 * a state, the screen, and typing a line the way a person does — text, a pause, Enter, because
 * these CLIs take an Enter that follows fast text as part of a paste (a newline, not a submit).
 */
import type { AgentStatus } from '../../../../src/common/api/agentContract.ts';
import type { LocalHubClient } from '../../../../src/node/api/localHubClient.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import type { TestHub } from '../../control/controlTestKit.ts';

export class AgentPaneProbe {
  /** Each state entered, with its reason (`needs-input (Bash: touch marker.txt)`), repeats dropped. */
  readonly states: string[] = [];
  readonly #pane: () => { t: TestHub; person: LocalHubClient; terminalId: string };
  readonly #enterAfterMs: number;

  /** `pane` is read when used: the tests make their Hub, client and terminal in `before`. */
  constructor(pane: () => { t: TestHub; person: LocalHubClient; terminalId: string }, options: { enterAfterMs: number }) {
    this.#pane = pane;
    this.#enterAfterMs = options.enterAfterMs;
  }

  /** Start recording the pane's states (once the client exists; the terminal may come later). */
  follow(person: LocalHubClient): void {
    person.on('terminal.changed', (info) => {
      if (info.id !== this.#pane().terminalId || !info.agent) return;
      const label = `${info.agent.state}${info.agent.reason ? ` (${info.agent.reason})` : ''}`;
      if (this.states.at(-1) !== label) this.states.push(label);
    });
  }

  readonly agent = (): AgentStatus | null => {
    const { t, terminalId } = this.#pane();
    return t.hub.ptyHost.get(terminalId)?.info.agent ?? null;
  };

  readonly until = (what: string, test: (status: AgentStatus) => boolean, timeoutMs = 30_000): Promise<AgentStatus> =>
    pollUntil(
      () => {
        const status = this.agent();
        return status && test(status) ? status : null;
      },
      { what: `${what} (states so far: ${this.states.join(' → ')})`, timeoutMs },
    );

  readonly screenHas = async (pattern: RegExp): Promise<boolean> => {
    const { t, terminalId } = this.#pane();
    const screen = await t.hub.ptyHost.require(terminalId).readScreen();
    return screen.lines.some((line) => pattern.test(line));
  };

  readonly type = async (text: string): Promise<void> => {
    const { person, terminalId } = this.#pane();
    await person.call('terminal.write', { id: terminalId, data: text });
    await new Promise((resolve) => setTimeout(resolve, this.#enterAfterMs));
    await person.call('terminal.write', { id: terminalId, data: '\r' });
  };
}
