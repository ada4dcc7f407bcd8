import { useId, useState } from 'react';
import { HistoryReferenceLimits, type HistoryReferenceResult } from '../../../src/common/api/historyContract.ts';
import { utf8ByteLength } from '../../../src/common/protocol/relay/frameLimits.ts';
import { Dialog } from '../../app/Dialog.tsx';
import { useObservable } from '../../app/observable.ts';
import { compactPath, shortenPath } from '../../app/paths.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { StatusDot } from '../sidebar/StatusDot.tsx';
import { formatBytes } from './historyFormat.ts';

/** What "Reference in agent" hands over: a whole session, or one command of it. */
export interface ReferenceSubject {
  sessionId: string;
  sessionName: string;
  commandId?: number;
  commandLine?: string;
}

/** One key per subject: a session, or one command of it (selections are kept by it). */
export function subjectKey(subject: Pick<ReferenceSubject, 'sessionId' | 'commandId'>): string {
  return subject.commandId === undefined ? subject.sessionId : `${subject.sessionId}:${subject.commandId}`;
}

type ReferenceState = { kind: 'choosing' } | { kind: 'sending' } | { kind: 'sent'; result: HistoryReferenceResult; terminalName: string } | { kind: 'failed'; message: string };

/**
 * Hand sessions and commands to an agent in one message: the person adds notes and picks the
 * running terminal the agent works in. The Hub writes each transcript to a private file and types
 * a pointer (paths, commands, exit codes, times and the notes) into that terminal, without Enter.
 * It is always typed as text, also into a pane whose Claude Code is connected over the IDE bridge:
 * an `at_mentioned` makes Claude Code attach the whole file to the next message, and a transcript
 * should only enter the agent's context when the agent decides to read it.
 */
export function ReferenceDialog({ subjects, onClose, onSent }: { subjects: readonly ReferenceSubject[]; onClose(): void; onSent?(): void }) {
  const workbench = useWorkbench();
  const terminals = useObservable(workbench.terminals);
  const running = [...terminals.values()].filter((info) => info.state === 'running').sort((a, b) => b.createdAt - a.createdAt);
  const [state, setState] = useState<ReferenceState>({ kind: 'choosing' });
  const [notes, setNotes] = useState('');
  const notesId = useId();
  const homeDir = workbench.appState.homeDir;
  const notesBytes = utf8ByteLength(notes);
  const notesTooLong = notesBytes > HistoryReferenceLimits.maxNotesBytes;
  const tooMany = subjects.length > HistoryReferenceLimits.maxItems;

  const send = async (terminalId: string, terminalName: string) => {
    setState({ kind: 'sending' });
    try {
      const result = await workbench.client.call('history.reference', {
        items: subjects.map((subject) => ({ sessionId: subject.sessionId, ...(subject.commandId !== undefined ? { commandId: subject.commandId } : {}) })),
        ...(notes.trim() ? { notes } : {}),
        terminalId,
      });
      setState({ kind: 'sent', result, terminalName });
      onSent?.();
    } catch (error) {
      setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  };

  const single = subjects.length === 1 ? subjects[0] : undefined;
  const what = single ? single.commandLine !== undefined ? <code>{single.commandLine}</code> : <strong>{single.sessionName}</strong> : <strong>{subjects.length} items</strong>;

  return (
    <Dialog title={single ? 'Reference in agent' : `Reference ${subjects.length} items in agent`} onClose={onClose} wide>
      <div className="dialog-form history-reference">
        {state.kind === 'sent' ? (
          <>
            <p className="history-reference-done" role="status">
              Typed into <strong>{state.terminalName}</strong> (not sent: press Enter there to send it).
            </p>
            <pre className="history-pointer" aria-label="Pointer">
              {state.result.pointer}
            </pre>
            {state.result.warnings.map((warning) => (
              <p key={warning} className="history-reference-warning">
                {warning}
              </p>
            ))}
            <ul className="history-reference-files" aria-label="Transcript files">
              {state.result.files.map((file) => (
                <li key={file.path} title={file.path}>
                  <code>{shortenPath(file.path, homeDir)}</code> <span className="history-reference-size">{formatBytes(file.bytes)}</span>
                </li>
              ))}
            </ul>
            <div className="dialog-actions">
              <button type="button" className="primary-button" onClick={onClose} autoFocus>
                Done
              </button>
            </div>
          </>
        ) : (
          <>
            <p className="history-reference-intro">
              Give {what} to an agent: each transcript is saved as a file and one message pointing to them (paths, commands, exit codes, times and
              your notes) is typed into the terminal you choose, without Enter. The transcripts themselves are never pasted.
            </p>
            {!single && (
              <ul className="history-reference-items" aria-label="Items to hand over">
                {subjects.map((subject) => (
                  <li key={subjectKey(subject)}>
                    {subject.commandLine !== undefined ? (
                      <>
                        <code>{subject.commandLine}</code> <span className="history-reference-size">in {subject.sessionName}</span>
                      </>
                    ) : (
                      <>
                        <span className="history-reference-kind">session</span> <strong>{subject.sessionName}</strong>
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
            <label className="field" htmlFor={notesId}>
              <span className="field-label">Notes for the agent (optional)</span>
              <textarea
                id={notesId}
                className="history-reference-notes"
                rows={3}
                spellCheck
                placeholder="What should the agent look at?"
                value={notes}
                aria-invalid={notesTooLong || undefined}
                onChange={(event) => setNotes(event.target.value)}
              />
            </label>
            {notesTooLong && (
              <p className="field-error" role="alert">
                Notes are {formatBytes(notesBytes)}; at most 16 KiB.
              </p>
            )}
            {tooMany && (
              <p className="field-error" role="alert">
                At most {HistoryReferenceLimits.maxItems} items at once; {subjects.length} are selected.
              </p>
            )}
            {state.kind === 'failed' && (
              <p className="history-inline-error" role="alert">
                {state.message}
              </p>
            )}
            <span className="field-label">Hand to</span>
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
                      disabled={state.kind === 'sending' || notesTooLong || tooMany}
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
