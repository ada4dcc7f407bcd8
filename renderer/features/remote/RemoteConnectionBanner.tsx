/**
 * The remote view's connection banner: the machine offline (its Switchboard is not connected to
 * the relay), the relay out of reach, or this browser signed out. The view reconnects on its own;
 * the banner says what it is waiting for.
 */
import { machineOfflineMessage } from '../../../src/browser/relayHubClient.ts';
import type { ConnectionState } from '../../app/hubConnection.ts';
import { WarningIcon } from '../../app/icons.tsx';
import './remote.css';

export function RemoteConnectionBanner({ machineId, state, onRetry }: { machineId: string; state: ConnectionState; onRetry(): void }) {
  if (state.kind === 'connected' || state.kind === 'connecting') return null;
  const reload = () => window.location.reload();
  if (state.kind === 'unauthorized') {
    return (
      <div className="connection-banner" role="status" data-severity="error" data-remote-state="signed-out">
        <WarningIcon />
        <span>
          {capitalize(state.message)}. Open {machineId}'s viewer link (<code>/m/{machineId}/?token=…</code>) again.
        </span>
        <button type="button" className="banner-button" onClick={reload}>
          Reload
        </button>
      </div>
    );
  }
  const offline = state.lastError === machineOfflineMessage(machineId);
  return (
    <div className="connection-banner" role="status" data-severity="warning" data-remote-state={offline ? 'machine-offline' : 'relay-unreachable'}>
      <span className="spinner" aria-hidden="true" />
      <span>
        {offline ? (
          <>
            <strong>{machineId} is offline</strong> — waiting for its Switchboard to connect to the relay…
            <span className="banner-hint"> Its terminals come back here as soon as it does.</span>
          </>
        ) : state.wasConnected ? (
          <>Lost the connection to {machineId} — reconnecting…</>
        ) : (
          <>Cannot reach the relay — retrying…{state.lastError && <span className="banner-hint"> ({state.lastError})</span>}</>
        )}
      </span>
      <button type="button" className="banner-button" onClick={onRetry}>
        Retry now
      </button>
    </div>
  );
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
