import type { ConnectionState } from './hubConnection.ts';
import { WarningIcon } from './icons.tsx';

/**
 * Says, at the top of the window, when the Hub is out of reach and what is being done about it.
 * `dataDir`: the data directory of the last connection, if there was one (where serve.json is).
 */
export function ConnectionBanner({ state, onRetry, dataDir }: { state: ConnectionState; onRetry(): void; dataDir?: string | undefined }) {
  if (state.kind === 'connected' || state.kind === 'connecting') return null;
  const reload = () => window.location.reload();
  if (state.kind === 'unauthorized') {
    // No Reload button: this address has no token any more (the server traded it for a cookie the
    // new server does not know), so a reload only gets the server's 401 page. The way back in is
    // the new server's address, which only its terminal and serve.json know.
    return (
      <div className="connection-banner" role="status" data-severity="error" data-reason="unauthorized">
        <WarningIcon />
        <span>
          Switchboard refused this window ({state.message}).{' '}
          <span className="banner-hint">
            Open the address <code className="banner-nowrap">switchboard serve</code> printed when it started (<code className="banner-nowrap">http://…/?token=…</code>, also the{' '}
            <code>url</code> in <code className="banner-path">{serveJsonPath(dataDir)}</code>) in this tab: reloading this one cannot get back in.
          </span>
        </span>
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

/** Where `switchboard serve` writes its address (DESIGN.md §3), in the separator style of the data dir. */
function serveJsonPath(dataDir: string | undefined): string {
  if (!dataDir) return '$SWITCHBOARD_HOME/serve.json';
  const separator = dataDir.includes('\\') && !dataDir.includes('/') ? '\\' : '/';
  return `${dataDir.replace(/[\\/]+$/, '')}${separator}serve.json`;
}
