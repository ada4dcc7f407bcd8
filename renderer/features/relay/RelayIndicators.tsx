/**
 * Remote access outside the Settings view: the sidebar's status line (connected / reconnecting in
 * N s / refused: why), the tab bar's "Share to relay" toggle for the focused pane, and a mark on
 * tabs whose panes remote viewers can see. All stay hidden until remote access is set up.
 */
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { relayStatusWords, useNow } from './relayFormat.ts';
import { BroadcastIcon, GlobeIcon } from './relayIcons.tsx';
import { isRelayConfigured } from './relayState.ts';
import './relay.css';

/** The sidebar's remote access line; a click opens Settings. */
export function RelayStatusIndicator() {
  const workbench = useWorkbench();
  const view = useObservable(workbench.relay.view);
  const now = useNow(view?.retryAt != null);
  if (!view || !isRelayConfigured(view.status)) return null;
  const words = relayStatusWords(view, now);
  const shared = view.status.shared.length;
  const title = [`Remote access: ${words.label}`, words.detail, view.status.state === 'connected' ? `${shared} pane${shared === 1 ? '' : 's'} shared` : null]
    .filter(Boolean)
    .join('\n');
  return (
    <button
      type="button"
      className="nav-button relay-indicator"
      data-relay-state={view.status.state}
      data-tone={words.tone}
      title={title}
      aria-label={`Remote access: ${words.label}${words.detail && words.tone !== 'ok' ? `: ${words.detail}` : ''}`}
      onClick={() => workbench.showView('settings')}
    >
      <GlobeIcon />
      <span className="relay-indicator-text">
        <span className="relay-indicator-line">
          <span>Remote</span>
          <span className="relay-indicator-state">
            <span className="relay-dot" data-tone={words.tone} aria-hidden="true" />
            {words.label}
          </span>
        </span>
        {words.detail && words.tone !== 'ok' && words.tone !== 'busy' && <span className="relay-indicator-detail">{words.detail}</span>}
      </span>
    </button>
  );
}

/** Toggle for the focused pane: remote viewers of the relay can see and drive it, or not. */
export function RelayShareToggle({ terminalId }: { terminalId: string | null }) {
  const workbench = useWorkbench();
  const view = useObservable(workbench.relay.view);
  if (!view || !isRelayConfigured(view.status)) return null;
  const shared = terminalId !== null && view.status.shared.includes(terminalId);
  const connected = view.status.state === 'connected';
  return (
    <button
      type="button"
      className="icon-button relay-share-toggle"
      aria-label="Share to relay"
      aria-pressed={shared}
      data-shared={shared || undefined}
      disabled={terminalId === null}
      title={
        shared
          ? `Shared: remote viewers${connected ? '' : ' (once connected)'} can see and type into this terminal. Click to stop sharing it.`
          : 'Not shared. Click to let remote viewers of the relay see and type into this terminal.'
      }
      onClick={() => terminalId && void workbench.relay.setShared(terminalId, !shared)}
    >
      <BroadcastIcon off={!shared} />
    </button>
  );
}

/** A small mark on a tab with a pane remote viewers can see. */
export function SharedMark({ terminalIds }: { terminalIds: readonly string[] }) {
  const workbench = useWorkbench();
  const view = useObservable(workbench.relay.view);
  if (!view || !terminalIds.some((id) => view.status.shared.includes(id))) return null;
  return (
    <span className="relay-shared-mark" title="Shared to the relay: remote viewers can see this terminal" data-relay-shared>
      <BroadcastIcon width={12} height={12} />
    </span>
  );
}
