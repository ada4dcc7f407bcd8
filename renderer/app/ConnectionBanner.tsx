import type { ConnectionState } from './hubConnection.ts';
import { WarningIcon } from './icons.tsx';

/** Says, at the top of the window, when the Hub is out of reach and what is being done about it. */
export function ConnectionBanner({ state, onRetry }: { state: ConnectionState; onRetry(): void }) {
  if (state.kind === 'connected' || state.kind === 'connecting') return null;
  const reload = () => window.location.reload();
  if (state.kind === 'unauthorized') {
    return (
      <div className="connection-banner" role="status" data-severity="error">
        <WarningIcon />
        <span>
          Switchboard refused this window ({state.message}). Open the address that <code>switchboard serve</code> printed, with its token.
        </span>
        <button type="button" className="banner-button" onClick={reload}>
          Reload
        </button>
      </div>
    );
  }
  return (
    <div className="connection-banner" role="status" data-severity="warning">
      <span className="spinner" aria-hidden="true" />
      <span>
        {state.wasConnected ? 'Disconnected from Switchboard — reconnecting…' : 'Cannot reach Switchboard — retrying…'}
        {state.attempt > 3 && <span className="banner-hint"> If the server was restarted with a new token, reload with its new address.</span>}
      </span>
      <button type="button" className="banner-button" onClick={onRetry}>
        Retry now
      </button>
      <button type="button" className="banner-button" onClick={reload}>
        Reload
      </button>
    </div>
  );
}
