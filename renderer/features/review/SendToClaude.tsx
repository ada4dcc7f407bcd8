/**
 * "Send to Claude": a button for a file tab, a diff or a pane selection, and the picker that asks
 * which pane's Claude Code gets it when several are connected.
 */
import { useEffect, useRef, useState } from 'react';
import { Dialog } from '../../app/Dialog.tsx';
import { tooltipFor } from '../../app/keybindings.ts';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { ReviewUiConstants } from './reviewConstants.ts';
import { SendIcon } from './reviewIcons.tsx';
import { claudeTargetsOf, noClaudeMessage, type ClaudeTarget, type SendPayload } from './reviewService.ts';
import './review.css';

export function useClaudeTargets(): ClaudeTarget[] {
  const workbench = useWorkbench();
  const ide = useObservable(workbench.review.ide);
  const terminals = useObservable(workbench.terminals);
  return claudeTargetsOf(ide, terminals);
}

function describe(payload: SendPayload): string {
  if (payload.kind === 'text') {
    const lines = payload.text.split('\n').length;
    return lines > 1 ? `the ${lines} selected lines` : 'the selected text';
  }
  if (payload.lineStart === undefined) return 'a reference to the file';
  const end = payload.lineEnd ?? payload.lineStart;
  return end === payload.lineStart ? `a reference to line ${payload.lineStart + 1}` : `a reference to lines ${payload.lineStart + 1}–${end + 1}`;
}

/**
 * Sends `payload` (null: nothing selected yet) to the connected Claude Code, or offers a menu of
 * panes when several have one. Disabled, saying why, when no pane has Claude Code.
 */
export function SendToClaudeButton({ payload, emptyReason, className = 'toolbar-button' }: { payload: SendPayload | null; emptyReason?: string; className?: string }) {
  const workbench = useWorkbench();
  const targets = useClaudeTargets();
  const [menuOpen, setMenuOpen] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const wrapperRef = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    if (!sent) return;
    const timer = setTimeout(() => setSent(null), ReviewUiConstants.sentFeedbackMs);
    return () => clearTimeout(timer);
  }, [sent]);

  useEffect(() => {
    if (!menuOpen) return;
    const onPointer = (event: MouseEvent) => {
      if (!wrapperRef.current?.contains(event.target as Node)) setMenuOpen(false);
    };
    window.addEventListener('mousedown', onPointer, true);
    return () => window.removeEventListener('mousedown', onPointer, true);
  }, [menuOpen]);

  const disabledReason = targets.length === 0 ? noClaudeMessage : payload === null ? (emptyReason ?? 'Select some text first') : null;
  const send = async (target: ClaudeTarget) => {
    setMenuOpen(false);
    if (!payload) return;
    if (await workbench.review.sendTo(target.terminalId, payload)) setSent(target.terminalName);
  };
  const title =
    disabledReason ??
    (targets.length === 1
      ? tooltipFor('selection.sendToClaude', `Send ${describe(payload!)} to Claude Code in ${targets[0]!.terminalName}`)
      : tooltipFor('selection.sendToClaude', `Send ${describe(payload!)} to Claude Code…`));

  return (
    <span className="send-to-claude" ref={wrapperRef}>
      <button
        type="button"
        className={className}
        // aria-disabled, not disabled: the tooltip saying why must still show on hover.
        aria-disabled={disabledReason !== null || undefined}
        aria-haspopup={targets.length > 1 ? 'menu' : undefined}
        aria-expanded={targets.length > 1 ? menuOpen : undefined}
        data-sent={sent !== null || undefined}
        title={title}
        onClick={() => {
          if (disabledReason !== null) return;
          if (targets.length === 1) void send(targets[0]!);
          else setMenuOpen((open) => !open);
        }}
      >
        <SendIcon width={14} height={14} />
        <span>{sent !== null ? `Sent to ${sent}` : 'Send to Claude'}</span>
      </button>
      {menuOpen && (
        <div
          className="send-menu"
          role="menu"
          aria-label="Send to Claude Code in"
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.stopPropagation();
              setMenuOpen(false);
            }
          }}
        >
          <div className="send-menu-title">Send to Claude Code in</div>
          {targets.map((target) => (
            <button key={target.terminalId} type="button" role="menuitem" className="send-menu-item" onClick={() => void send(target)}>
              <span className="claude-badge-dot" aria-hidden="true" />
              {target.terminalName}
            </button>
          ))}
        </div>
      )}
    </span>
  );
}

/** Ctrl+Alt+K with several Claude Code panes: which one? */
export function SendToClaudePicker() {
  const workbench = useWorkbench();
  const payload = useObservable(workbench.review.sendPicker);
  const targets = useClaudeTargets();
  if (!payload) return null;
  return (
    <Dialog title="Send to Claude Code in…" onClose={() => workbench.review.sendPicker.set(null)}>
      <div className="send-picker">
        <p className="send-picker-what">Sends {describe(payload)}.</p>
        {targets.map((target, index) => (
          <button
            key={target.terminalId}
            type="button"
            className="send-picker-item"
            autoFocus={index === 0}
            onClick={() => void workbench.review.sendTo(target.terminalId, payload)}
          >
            <span className="claude-badge-dot" aria-hidden="true" />
            <span className="send-picker-name">{target.terminalName}</span>
            <span className="send-picker-client">{target.clientName}</span>
          </button>
        ))}
        {targets.length === 0 && <p>{noClaudeMessage}</p>}
      </div>
    </Dialog>
  );
}
