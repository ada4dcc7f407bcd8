/**
 * The window of the remote view (host `remote`): the machine's terminals in the same tabs and
 * panes as the app, its pending reviews, and nothing the relay cannot carry (History, Activity,
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
import { relayClientOf, useApprovals } from './remoteClient.ts';
import './remote.css';

export function RemoteWorkbenchLayout({ connected }: { connected: boolean }) {
  const workbench = useWorkbench();
  const view = useObservable(workbench.view);
  const dialog = useObservable(workbench.dialog);
  const client = relayClientOf(workbench.client);
  const { pending } = useApprovals(client);
  const machineId = client?.machineId ?? 'remote';
  const reviewing = view === 'review';

  useEffect(() => {
    document.title = `${pending.length > 0 ? `(${pending.length}) ` : ''}${machineId} — Switchboard remote`;
  }, [machineId, pending.length]);

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
