/**
 * "Run and hand to agent": run one command (in a new terminal beside the agent's pane, or in a
 * terminal the person picks) and, once it has ended, hand the agent a pointer to its recorded
 * output and exit code: one gesture instead of run, wait, open History, reference.
 *
 * It is typed into the terminal through the Hub's exec runner (`terminal.run`): after the shell's
 * first prompt, never into a line a person left half typed there; what it printed and how it
 * ended come from History (the shell integration's command marks), the same record that
 * "Reference in agent" hands over. A terminal without shell integration records no commands, so
 * it is refused up front rather than waited on forever.
 */
import type { HistoryCommand, HistoryReferenceResult } from '../../../src/common/api/historyContract.ts';
import type { Workbench } from '../../app/workbench.ts';
import { waitForPrompt } from './historyActions.ts';
import { HistoryUiConstants } from './historyConstants.ts';

export interface RunAndHandRequest {
  command: string;
  /** The terminal to run it in; null: a new terminal beside the agent's pane. */
  runIn: string | null;
  /** The agent's terminal: the pointer is typed there, without Enter. */
  handTo: string;
  notes: string;
}

export type RunAndHandStage = { kind: 'starting' } | { kind: 'typing'; terminalName: string } | { kind: 'running'; terminalName: string } | { kind: 'handing' };

export async function runAndHand(
  workbench: Workbench,
  request: RunAndHandRequest,
  onStage: (stage: RunAndHandStage) => void,
  signal: AbortSignal,
): Promise<HistoryReferenceResult> {
  const command = request.command.trim();
  if (!command) throw new Error('Type the command to run.');
  // Typed lines run one by one in a shell: only one command can be followed to its end.
  if (/[\r\n]/.test(command)) throw new Error('One command line only (join several with && or ;).');
  if (request.runIn === request.handTo) throw new Error("Run it in another terminal than the agent's: the pointer is typed into the agent's prompt.");
  const agent = workbench.terminals.value.get(request.handTo);
  if (!agent || agent.state !== 'running') throw new Error('The agent\'s terminal is not running.');

  onStage({ kind: 'starting' });
  let terminalId = request.runIn;
  if (terminalId === null) {
    const info = await workbench.newTerminal({ cwd: agent.cwd, split: { targetId: request.handTo, direction: 'right' }, throwErrors: true });
    if (!info) throw new Error('Could not start a terminal.');
    terminalId = info.id;
    await waitForPrompt(workbench, terminalId);
  }
  signal.throwIfAborted();
  const info = workbench.terminals.value.get(terminalId);
  if (!info || info.state !== 'running') throw new Error('That terminal is not running.');
  if (!info.shellIntegration) throw new Error(`${info.name} has no shell integration, so its commands are not recorded: run the command in a new terminal.`);
  if (info.runningCommand) throw new Error(`${info.name} is busy running ${info.runningCommand}: wait for it, or run the command in a new terminal.`);

  const client = workbench.client;
  const sessionId = await pollUntil(
    async () => (await client.call('history.list', { limit: 50 })).sessions.find((session) => session.terminalId === terminalId && session.live)?.id,
    signal,
    HistoryUiConstants.runAndHandSessionWaitMs,
    `${info.name} is not being recorded in History (recording may be off for it): nothing to hand over.`,
  );
  // The command is the first one recorded after these.
  const earlier = new Set((await client.call('history.commands', { sessionId, limit: 50 })).commands.map((entry) => entry.id));
  onStage({ kind: 'typing', terminalName: info.name });
  // Typed the way an agent's exec is: in its turn, never joined to a line someone left half typed
  // there (that is refused, and said, with nothing typed).
  // "Stop waiting" before it was typed: then it is never typed.
  const runTerminal = terminalId;
  const cancelRun = () => void client.call('terminal.cancelRun', { id: runTerminal }).catch(() => {});
  signal.addEventListener('abort', cancelRun, { once: true });
  try {
    await client.call('terminal.run', { id: runTerminal, command });
  } finally {
    signal.removeEventListener('abort', cancelRun);
  }
  onStage({ kind: 'running', terminalName: info.name });
  const ended = await pollUntil<HistoryCommand | 'exited'>(
    async () => {
      const { commands } = await client.call('history.commands', { sessionId, limit: 10 });
      const found = commands.filter((entry) => !earlier.has(entry.id)).at(-1);
      if (found && found.endedAt !== null) return found;
      // `exit 3` ends the shell before its end mark: the session then holds the whole story.
      if (workbench.terminals.value.get(runTerminal)?.state !== 'running') return 'exited';
      return undefined;
    },
    signal,
    Number.POSITIVE_INFINITY,
    '',
  );
  onStage({ kind: 'handing' });
  return await client.call('history.reference', {
    items: [ended === 'exited' ? { sessionId } : { sessionId, commandId: ended.id }],
    ...(request.notes.trim() ? { notes: request.notes } : {}),
    terminalId: request.handTo,
  });
}

async function pollUntil<T>(check: () => Promise<T | undefined>, signal: AbortSignal, timeoutMs: number, timeoutMessage: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal.throwIfAborted();
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(timeoutMessage);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, HistoryUiConstants.runAndHandPollMs);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
