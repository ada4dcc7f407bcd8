/**
 * The window of the remote view (host `remote`): the machine's terminals in the same tabs and
 * panes as the app (an agent's prompt floats over its pane with its answers, as in the app), what
 * waits for the person, its pending reviews, and nothing the relay cannot carry (History, Activity,
 * Settings and file tabs are not offered).
 */
import { useEffect } from 'react';
import { useObservable } from '../../app/observable.ts';
import { useWorkbench } from '../../app/WorkbenchContext.tsx';
import { ConfirmCloseDialog } from '../terminals/ConfirmCloseDialog.tsx';
import { NewTerminalDialog } from '../terminals/NewTerminalDialog.tsx';
import { TerminalWorkspace } from '../terminals/TerminalWorkspace.tsx';
import { ShortcutsDialog } from '../shortcuts/ShortcutsDialog.tsx';
import { RemoteReviewView } from './RemoteReviewView.tsx';
import { RemoteSidebar } from './RemoteSidebar.tsx';
import { relayClientOf } from './remoteClient.ts';
import { useRemoteWaiting } from './RemoteWaitingForYou.tsx';
import './remote.css';

export function RemoteWorkbenchLayout({ connected }: { connected: boolean }) {
  const workbench = useWorkbench();
  const view = useObservable(workbench.view);
  const dialog = useObservable(workbench.dialog);
  const client = relayClientOf(workbench.client);
  // The title counts what waits for the person, as the app's does: agents that wait and pending reviews.
  const waiting = useRemoteWaiting(client).length;
  const machineId = client?.machineId ?? 'remote';
  const reviewing = view === 'review';

  useEffect(() => {
    document.title = `${waiting > 0 ? `(${waiting}) ` : ''}${machineId} — Switchboard remote`;
  }, [machineId, waiting]);

  return (
    <div className="shell remote-shell" data-connection={connected ? 'live' : 'lost'} data-remote-machine={machineId}>
      <RemoteSidebar client={client} connected={connected} />
      <main className="main-area">
        <TerminalWorkspace hidden={reviewing} />
        {reviewing && <RemoteReviewView client={client} />}
      </main>
      {dialog === 'newTerminal' && <NewTerminalDialog />}
      {dialog === 'shortcuts' && <ShortcutsDialog />}
      <ConfirmCloseDialog />
    </div>
  );
}
