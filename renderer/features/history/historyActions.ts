/** What the History browser does to the rest of the window: run a past command again. */
import type { HistoryCommand } from '../../../src/common/api/historyContract.ts';
import { toDisposable } from '../../../src/common/lifecycle.ts';
import type { Workbench } from '../../app/workbench.ts';
import { planCommandTyping } from './commandTyping.ts';
import { HistoryUiConstants } from './historyConstants.ts';

/**
 * "Run again": a new terminal in the command's folder with the command typed at its prompt, not
 * run. The command may come from another day, another machine state or an agent, so the person
 * reads it and presses Enter, as a shell's own history recall (↑, Ctrl+R) leaves it on the line.
 * A command of several lines goes only as a bracketed paste, never typed raw (see commandTyping.ts).
 */
export async function runCommandAgain(workbench: Workbench, command: Pick<HistoryCommand, 'commandLine' | 'cwd'>): Promise<void> {
  const info = await workbench.newTerminal(command.cwd ? { cwd: command.cwd } : {});
  if (!info) return; // the Workbench reported why
  await waitForPrompt(workbench, info.id);
  const session = workbench.sessions.get(info.id);
  const attached = session !== undefined && session.status.value.kind === 'attached';
  // Only an attached pane knows whether the shell asked for bracketed paste.
  const plan = planCommandTyping(command.commandLine, attached ? session.terminal.modes.bracketedPasteMode : null);
  if (plan.kind === 'refuse') {
    workbench.errors.report('Did not type the command into the new terminal', new Error(plan.reason));
    session?.focus();
    return;
  }
  if (attached) {
    // xterm's paste brackets the text when the shell asked for it (as a paste into a pane does).
    session.terminal.paste(plan.text);
    session.focus();
    return;
  }
  try {
    await workbench.client.call('terminal.write', { id: info.id, data: plan.text });
  } catch (error) {
    workbench.errors.report('Could not type the command into the new terminal', error);
  }
}

/**
 * Resolves once the terminal's shell has shown its prompt (shell integration reports itself with
 * it) and its pane is attached, or it exited, or after a while for shells without integration.
 */
export function waitForPrompt(workbench: Workbench, terminalId: string): Promise<void> {
  const ready = () => {
    const info = workbench.terminals.value.get(terminalId);
    const attached = workbench.sessions.get(terminalId)?.status.value.kind === 'attached';
    return !info || info.state === 'exited' || (info.shellIntegration && attached);
  };
  if (ready()) return Promise.resolve();
  return new Promise((resolve) => {
    const subscriptions: { dispose(): void }[] = [];
    const finish = () => {
      for (const subscription of subscriptions) subscription.dispose();
      resolve();
    };
    const check = () => {
      if (ready()) finish();
    };
    const timer = setTimeout(finish, HistoryUiConstants.runAgainPromptWaitMs);
    subscriptions.push(toDisposable(() => clearTimeout(timer)));
    subscriptions.push(workbench.terminals.onDidChange(check));
    // The pane's session appears a render after the terminal, and attaches after that.
    const poll = setInterval(check, HistoryUiConstants.runAgainPollMs);
    subscriptions.push(toDisposable(() => clearInterval(poll)));
  });
}
