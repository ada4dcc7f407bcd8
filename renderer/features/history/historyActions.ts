/** What the History browser does to the rest of the window: run a past command again. */
import type { HistoryCommand } from '../../../src/common/api/historyContract.ts';
import { toDisposable } from '../../../src/common/lifecycle.ts';
import type { Workbench } from '../../app/workbench.ts';
import { HistoryUiConstants } from './historyConstants.ts';

/**
 * "Run again": a new terminal in the command's folder with the command typed at its prompt, not
 * run. The command may come from another day, another machine state or an agent, so the person
 * reads it and presses Enter, as a shell's own history recall (↑, Ctrl+R) leaves it on the line.
 * It is typed the way a paste is (bracketed when the shell asks for it), so a multi-line command
 * is not run line by line either.
 */
export async function runCommandAgain(workbench: Workbench, command: Pick<HistoryCommand, 'commandLine' | 'cwd'>): Promise<void> {
  const info = await workbench.newTerminal(command.cwd ? { cwd: command.cwd } : {});
  if (!info) return; // the Workbench reported why
  await waitForPrompt(workbench, info.id);
  const session = workbench.sessions.get(info.id);
  if (session && session.status.value.kind === 'attached') {
    session.terminal.paste(command.commandLine);
    session.focus();
    return;
  }
  try {
    await workbench.client.call('terminal.write', { id: info.id, data: command.commandLine });
  } catch (error) {
    workbench.errors.report('Could not type the command into the new terminal', error);
  }
}

/**
 * Resolves once the terminal's shell has shown its prompt (shell integration reports itself with
 * it) and its pane is attached, or it exited, or after a while for shells without integration.
 */
function waitForPrompt(workbench: Workbench, terminalId: string): Promise<void> {
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
