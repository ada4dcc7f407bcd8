import { useState } from 'react';
import type { MethodResult } from '../../../src/common/api/contract.ts';
import { Dialog } from '../../app/Dialog.tsx';
import { useObservable } from '../../app/observable.ts';
import { compactPath, shortenPath } from '../../app/paths.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { StatusDot } from '../sidebar/StatusDot.tsx';

/** What "Reference in agent" hands over: a whole session, or one command of it. */
export interface ReferenceSubject {
  sessionId: string;
  sessionName: string;
  commandId?: number;
  commandLine?: string;
}

type ReferenceState = { kind: 'choosing' } | { kind: 'sending' } | { kind: 'sent'; result: MethodResult<'history.reference'>; terminalName: string } | { kind: 'failed'; message: string };

/**
 * Pick a running terminal (where an agent works) and hand it the transcript: the Hub writes it
 * to a file and pastes a short pointer (or sends it to Claude Code over the IDE bridge). The
 * dialog then shows exactly what was delivered.
 */
export function ReferenceDialog({ subject, onClose }: { subject: ReferenceSubject; onClose(): void }) {
  const workbench = useWorkbench();
  const terminals = useObservable(workbench.terminals);
  const running = [...terminals.values()].filter((info) => info.state === 'running').sort((a, b) => b.createdAt - a.createdAt);
  const [state, setState] = useState<ReferenceState>({ kind: 'choosing' });
  const homeDir = workbench.appState.homeDir;

  const send = async (terminalId: string, terminalName: string) => {
    setState({ kind: 'sending' });
    try {
      const result = await workbench.client.call('history.reference', {
        id: subject.sessionId,
        terminalId,
        ...(subject.commandId !== undefined ? { commandId: subject.commandId } : {}),
      });
      setState({ kind: 'sent', result, terminalName });
    } catch (error) {
      setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  };

  const what = subject.commandLine !== undefined ? <code>{subject.commandLine}</code> : <strong>{subject.sessionName}</strong>;

  return (
    <Dialog title="Reference in agent" onClose={onClose} wide>
      <div className="dialog-form history-reference">
        {state.kind === 'sent' ? (
          <>
            <p className="history-reference-done" role="status">
              {state.result.deliveredAs === 'at_mentioned' ? (
                <>
                  Sent to Claude Code in <strong>{state.terminalName}</strong> (through the IDE bridge).
                </>
              ) : (
                <>
                  Pasted into <strong>{state.terminalName}</strong> (not sent: press Enter there to send it).
                </>
              )}
            </p>
            <pre className="history-pointer" aria-label="Pointer">
              {state.result.pointer}
            </pre>
            <p className="history-reference-path">
              Transcript file: <code>{state.result.path}</code>
            </p>
            <div className="dialog-actions">
              <button type="button" className="primary-button" onClick={onClose} autoFocus>
                Done
              </button>
            </div>
          </>
        ) : (
          <>
            <p className="history-reference-intro">
              Give {what} to an agent: the transcript is saved as a file and a short pointer to it (path, command, exit code, time) is pasted into the
              terminal you choose. The transcript itself is never pasted.
            </p>
            {state.kind === 'failed' && (
              <p className="history-inline-error" role="alert">
                {state.message}
              </p>
            )}
            {running.length === 0 ? (
              <p className="history-status-line">No terminal is running. Start the agent in a terminal first.</p>
            ) : (
              <ul className="history-terminal-choices" aria-label="Running terminals">
                {running.map((info) => (
                  <li key={info.id}>
                    <button
                      type="button"
                      className="history-terminal-choice"
                      data-terminal-choice={info.id}
                      disabled={state.kind === 'sending'}
                      onClick={() => void send(info.id, info.name)}
                    >
                      <StatusDot info={info} />
                      <span className="history-choice-name">{info.name}</span>
                      {info.runningCommand && <code className="history-choice-command">{info.runningCommand}</code>}
                      <span className="history-choice-cwd">{compactPath(shortenPath(info.cwd, homeDir), 30)}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>
    </Dialog>
  );
}

/** "Delete this session?" with what goes: its output, its commands and its search entries. */
export function DeleteSessionDialog({
  sessions,
  onClose,
  onDeleted,
}: {
  sessions: readonly { id: string; name: string }[];
  onClose(): void;
  onDeleted(ids: string[]): void;
}) {
  const workbench = useWorkbench();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const single = sessions.length === 1 ? sessions[0] : undefined;

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      const ids = sessions.map((session) => session.id);
      await workbench.client.call('history.delete', { ids });
      onDeleted(ids);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      setBusy(false);
    }
  };

  return (
    <Dialog title={single ? 'Delete session' : `Delete ${sessions.length} sessions`} onClose={onClose}>
      <div className="dialog-form">
        <p className="history-confirm-text">
          {single ? (
            <>
              Delete <strong>{single.name}</strong> from History?
            </>
          ) : (
            <>Delete these {sessions.length} sessions from History?</>
          )}{' '}
          The recorded output, its commands and its search entries are removed. This cannot be undone.
        </p>
        {error && (
          <p className="history-inline-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          {/* Focus starts on Cancel: Enter right after the Delete key must not delete. */}
          <button type="button" className="secondary-button" onClick={onClose} autoFocus>
            Cancel
          </button>
          <button type="button" className="danger-button" disabled={busy} onClick={() => void confirm()}>
            {busy ? 'Deleting…' : 'Delete'}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
