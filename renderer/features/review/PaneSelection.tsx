/**
 * A pane's selection as Claude Code sees it: reported to the Hub once it settles (so
 * `getLatestSelection` and `selection_changed` include terminal selections), and offered to a
 * connected Claude Code with a "Send to Claude" chip over the pane.
 */
import { useEffect, useState } from 'react';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import type { TerminalSession } from '../terminals/terminalSession.ts';
import { ReviewUiConstants } from './reviewConstants.ts';
import { SendToClaudeButton, useClaudeTargets } from './SendToClaude.tsx';
import './review.css';

/** Reports the pane's selection and returns its text ('' when nothing is selected). */
export function usePaneSelection(session: TerminalSession, terminalId: string): string {
  const workbench = useWorkbench();
  const [text, setText] = useState('');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const subscription = session.onDidChangeSelection(() => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const selected = session.terminal.getSelection();
        setText(selected);
        workbench.review.reportSelection({ source: 'terminal', path: null, terminalId, text: selected, range: null }, selected ? { kind: 'text', text: selected } : null);
      }, ReviewUiConstants.selectionReportDelayMs);
    });
    return () => {
      clearTimeout(timer);
      subscription.dispose();
    };
  }, [session, terminalId, workbench]);
  return text;
}

/** Over a pane with a selection, while some pane has Claude Code connected. */
export function PaneSendToClaude({ selection }: { selection: string }) {
  const targets = useClaudeTargets();
  if (!selection.trim() || targets.length === 0) return null;
  return (
    <div className="pane-send-chip" onMouseDown={(event) => event.stopPropagation()}>
      <SendToClaudeButton payload={{ kind: 'text', text: selection }} className="chip-button" />
    </div>
  );
}
