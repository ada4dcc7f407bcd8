import { useEffect, useId, useRef, useState } from 'react';
import type { HistoryReferenceResult } from '../../../src/common/api/historyContract.ts';
import { Dialog } from '../../app/Dialog.tsx';
import { AgentIcon } from '../../app/icons.tsx';
import { tooltipFor } from '../../app/keybindings.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { type RunAndHandStage, runAndHand } from './runAndHand.ts';

type State = { kind: 'editing'; error: string | null } | { kind: 'working'; stage: RunAndHandStage } | { kind: 'done'; result: HistoryReferenceResult; agentName: string };

const newTerminal = '';

/**
 * "Run and hand to agent…" (pane toolbar, Ctrl+Shift+Y): a command, where it runs, which agent
 * gets the pointer to its output and exit code, and optional notes; then one button.
 */
export function RunAndHandDialog() {
  const workbench = useWorkbench();
  const terminals = useObservable(workbench.terminals);
  const running = [...terminals.values()].filter((info) => info.state === 'running').sort((a, b) => b.createdAt - a.createdAt);
  // The pane the dialog was opened from is the agent's, unless the person picks another.
  const [handTo, setHandTo] = useState(() => workbench.focusedTerminalId ?? running[0]?.id ?? '');
  const [runIn, setRunIn] = useState(newTerminal);
  const [command, setCommand] = useState('');
  const [notes, setNotes] = useState('');
  const [state, setState] = useState<State>({ kind: 'editing', error: null });
  const abort = useRef<AbortController | null>(null);
  const ids = { command: useId(), runIn: useId(), handTo: useId(), notes: useId() };

  // Closing the dialog stops waiting (the command itself keeps running in its terminal).
  useEffect(() => () => abort.current?.abort(), []);

  const close = () => {
    abort.current?.abort();
    workbench.closeDialog();
  };

  const start = async () => {
    const controller = (abort.current = new AbortController());
    setState({ kind: 'working', stage: { kind: 'starting' } });
    try {
      const result = await runAndHand(workbench, { command, runIn: runIn === newTerminal ? null : runIn, handTo, notes }, (stage) => setState({ kind: 'working', stage }), controller.signal);
      setState({ kind: 'done', result, agentName: terminals.get(handTo)?.name ?? handTo });
    } catch (error) {
      if (controller.signal.aborted) return;
      setState({ kind: 'editing', error: error instanceof Error ? error.message : String(error) });
    }
  };

  return (
    <Dialog title="Run and hand to agent" onClose={close} wide>
      {state.kind === 'done' ? (
        <div className="dialog-form history-reference">
          <p className="history-reference-done" role="status">
            Typed into <strong>{state.agentName}</strong> (not sent: press Enter there to send it).
          </p>
          <pre className="history-pointer" aria-label="Pointer">
            {state.result.pointer}
          </pre>
          <div className="dialog-actions">
            <button type="button" className="primary-button" onClick={close} autoFocus>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form
          className="dialog-form run-and-hand"
          onSubmit={(event) => {
            event.preventDefault();
            if (state.kind === 'editing') void start();
          }}
        >
          <p className="history-reference-intro">
            Runs the command, waits for it to end, then types a pointer to its recorded output and exit code into the agent&apos;s terminal (without Enter).
          </p>
          <label className="field" htmlFor={ids.command}>
            <span className="field-label">Command</span>
            <input
              id={ids.command}
              autoFocus
              spellCheck={false}
              autoComplete="off"
              placeholder="npm test"
              value={command}
              disabled={state.kind === 'working'}
              onChange={(event) => setCommand(event.target.value)}
            />
          </label>
          <label className="field" htmlFor={ids.runIn}>
            <span className="field-label">Run in</span>
            <select id={ids.runIn} value={runIn} disabled={state.kind === 'working'} onChange={(event) => setRunIn(event.target.value)}>
              <option value={newTerminal}>A new terminal, beside the agent</option>
              {running
                .filter((info) => info.id !== handTo)
                .map((info) => (
                  <option key={info.id} value={info.id} disabled={!info.shellIntegration || info.runningCommand !== null}>
                    {info.name}
                    {!info.shellIntegration ? ' (no shell integration: not recorded)' : info.runningCommand ? ` (busy: ${info.runningCommand})` : ''}
                  </option>
                ))}
            </select>
          </label>
          <label className="field" htmlFor={ids.handTo}>
            <span className="field-label">Hand to (the agent&apos;s terminal)</span>
            <select id={ids.handTo} value={handTo} disabled={state.kind === 'working'} onChange={(event) => setHandTo(event.target.value)}>
              {running.map((info) => (
                <option key={info.id} value={info.id}>
                  {info.name}
                  {info.runningCommand ? ` — ${info.runningCommand}` : ''}
                </option>
              ))}
            </select>
          </label>
          <label className="field" htmlFor={ids.notes}>
            <span className="field-label">Notes for the agent (optional)</span>
            <textarea
              id={ids.notes}
              className="history-reference-notes"
              rows={2}
              value={notes}
              disabled={state.kind === 'working'}
              placeholder="What should the agent do with it?"
              onChange={(event) => setNotes(event.target.value)}
            />
          </label>
          {state.kind === 'editing' && state.error && (
            <p className="history-inline-error" role="alert">
              {state.error}
            </p>
          )}
          {state.kind === 'working' && (
            <p className="run-and-hand-progress" role="status">
              {stageText(state.stage)}
            </p>
          )}
          <div className="dialog-actions">
            <button type="button" className="secondary-button" onClick={close}>
              {state.kind === 'working' ? 'Stop waiting' : 'Cancel'}
            </button>
            <button type="submit" className="primary-button" disabled={state.kind === 'working' || !command.trim() || !handTo}>
              Run and hand over
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

function stageText(stage: RunAndHandStage): string {
  switch (stage.kind) {
    case 'starting':
      return 'Starting…';
    case 'typing':
      return `Typing it into ${stage.terminalName} at its prompt (never into a line someone left half typed there)…`;
    case 'running':
      return `Running in ${stage.terminalName}; the pointer goes to the agent when it ends.`;
    case 'handing':
      return 'Handing over…';
  }
}

/** The pane toolbar's entry; shown while History records (it hands over what History recorded). */
export function RunAndHandButton() {
  const workbench = useWorkbench();
  const status = useObservable(workbench.history.status);
  if (status?.state !== 'recording') return null;
  return (
    <button
      type="button"
      className="icon-button"
      aria-label="Run and hand to agent…"
      title={tooltipFor('terminal.runAndHand')}
      onClick={() => workbench.runCommand('terminal.runAndHand')}
    >
      <AgentIcon />
    </button>
  );
}
