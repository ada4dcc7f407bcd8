import { useEffect, useState } from 'react';
import type { AppState } from '../../src/common/api/contract.ts';
import type { IHubClient } from '../../src/common/api/hubClient.ts';
import { Sidebar } from '../features/sidebar/Sidebar.tsx';
import { TerminalWorkspace } from '../features/terminals/TerminalWorkspace.tsx';
import { NewTerminalDialog } from '../features/terminals/NewTerminalDialog.tsx';
import { ConfirmCloseDialog } from '../features/terminals/ConfirmCloseDialog.tsx';
import { SettingsView } from '../features/settings/SettingsView.tsx';
import { HistoryView } from '../features/history/HistoryView.tsx';
import { RunAndHandDialog } from '../features/history/RunAndHandDialog.tsx';
import { NewAgentDialog } from '../features/workspaces/NewAgentDialog.tsx';
import { ReviewView } from '../features/review/ReviewView.tsx';
import { ActivityView } from '../features/activity/ActivityView.tsx';
import { ShortcutsDialog } from '../features/shortcuts/ShortcutsDialog.tsx';
import { SendToClaudePicker } from '../features/review/SendToClaude.tsx';
import { RemoteConnectionBanner } from '../features/remote/RemoteConnectionBanner.tsx';
import { RemoteWorkbenchLayout } from '../features/remote/RemoteWorkbenchLayout.tsx';
import { remoteViewTarget } from '../../src/browser/remoteViewLocation.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { ConnectionBanner } from './ConnectionBanner.tsx';
import { ErrorToasts } from './ErrorToasts.tsx';
import type { ErrorList } from './errorList.ts';
import type { HubConnection } from './hubConnection.ts';
import { commandForEvent } from './keybindings.ts';
import { useObservable } from './observable.ts';
import { installTestHook } from './testHook.ts';
import { Workbench } from './workbench.ts';
import type { TypeAheadStore } from '../features/terminals/typeAhead.ts';
import type { UnsavedLayout } from './unsavedLayout.ts';
import { WorkbenchContext, useWorkbench } from './WorkbenchContext.tsx';

/** Set when `switchboard relay` served this page as a machine's remote view (`/m/<machineId>/`). */
const remoteMachineId = remoteViewTarget()?.machineId;

export function App({
  connection,
  errors,
  typeAhead,
  unsavedLayout,
}: {
  connection: HubConnection;
  errors: ErrorList;
  typeAhead: TypeAheadStore;
  unsavedLayout: UnsavedLayout;
}) {
  const state = useObservable(connection.state);
  const live = useObservable(connection.live);
  return (
    <div className="app">
      {remoteMachineId !== undefined ? (
        <RemoteConnectionBanner machineId={remoteMachineId} state={state} onRetry={() => connection.retryNow()} />
      ) : (
        <ConnectionBanner state={state} onRetry={() => connection.retryNow()} dataDir={live?.appState.dataDir} />
      )}
      {live ? (
        <WorkbenchHost
          key={live.generation}
          client={live.client}
          appState={live.appState}
          errors={errors}
          typeAhead={typeAhead}
          unsavedLayout={unsavedLayout}
          connected={state.kind === 'connected'}
        />
      ) : (
        <StartupScreen failed={state.kind === 'reconnecting' || state.kind === 'unauthorized'} />
      )}
      <ErrorToasts errors={errors} />
    </div>
  );
}

function StartupScreen({ failed }: { failed: boolean }) {
  return (
    <div className="startup" aria-busy={!failed}>
      <div className="startup-logo" aria-hidden="true" />
      <p>{failed ? 'Switchboard is not reachable.' : 'Connecting to Switchboard…'}</p>
    </div>
  );
}

/** One Workbench per connection: built here, started once mounted, disposed when replaced. */
function WorkbenchHost({
  client,
  appState,
  errors,
  typeAhead,
  unsavedLayout,
  connected,
}: {
  client: IHubClient;
  appState: AppState;
  errors: ErrorList;
  typeAhead: TypeAheadStore;
  unsavedLayout: UnsavedLayout;
  /** False while reconnecting: the last screens stay visible, and only the focused pane takes keys (held until it is back). */
  connected: boolean;
}) {
  const [workbench] = useState(() => new Workbench(client, appState, errors, typeAhead, unsavedLayout));
  useEffect(() => {
    workbench.start().catch((error: unknown) => errors.report('Could not load the terminals', error));
    const testHook = installTestHook(workbench);
    const onKeyDown = (event: KeyboardEvent) => {
      const command = commandForEvent(event);
      if (!command) return;
      // In text fields, copy and paste keep their native meaning.
      const target = event.target as HTMLElement | null;
      const inTextField = !!target && target.matches('input, textarea, [contenteditable="true"]') && !target.classList.contains('xterm-helper-textarea');
      if (inTextField && (command === 'terminal.copy' || command === 'terminal.paste')) return;
      event.preventDefault();
      event.stopPropagation();
      workbench.runCommand(command);
    };
    // Capture phase: the window sees shortcuts before xterm's textarea would type them.
    window.addEventListener('keydown', onKeyDown, true);
    return () => {
      window.removeEventListener('keydown', onKeyDown, true);
      testHook.dispose();
      // Replaced by a reconnect's Workbench: keys typed until one of its panes takes focus go to
      // the terminal typed into now (its textarea focused, or nothing focused and it the focused pane).
      const active = document.activeElement;
      const typedInto = active?.classList.contains('xterm-helper-textarea')
        ? active.closest('[data-terminal-id]')?.getAttribute('data-terminal-id')
        : active === null || active === document.body
          ? workbench.focusedTerminalId
          : null;
      if (typedInto) typeAhead.holdKeysUntilFocus(typedInto);
      workbench.dispose();
    };
  }, [workbench, errors, typeAhead]);

  return (
    <WorkbenchContext.Provider value={workbench}>
      <WorkbenchLayout connected={connected} />
    </WorkbenchContext.Provider>
  );
}

function WorkbenchLayout({ connected }: { connected: boolean }) {
  const workbench = useWorkbench();
  const view = useObservable(workbench.view);
  const dialog = useObservable(workbench.dialog);
  const sidebar = useObservable(workbench.sidebar);
  if (workbench.appState.host === 'remote') return <RemoteWorkbenchLayout connected={connected} />;
  // A lost connection makes the window inert except the focused pane's terminal (app.css), whose keys are held for the reconnect.
  return (
    <div
      className="shell"
      data-connection={connected ? 'live' : 'lost'}
      data-sidebar={sidebar.hidden ? 'hidden' : 'shown'}
      style={{ gridTemplateColumns: sidebar.hidden ? 'minmax(0, 1fr)' : `${sidebar.width}px minmax(0, 1fr)` }}
    >
      {!sidebar.hidden && <Sidebar />}
      <main className="main-area">
        <TerminalWorkspace hidden={view !== 'terminals'} />
        {view === 'settings' && <SettingsView />}
        {view === 'activity' && <ActivityView />}
        {view === 'history' && <HistoryView />}
        {view === 'review' && <ReviewView />}
      </main>
      {dialog === 'newTerminal' && <NewTerminalDialog />}
      {dialog === 'newAgent' && <NewAgentDialog />}
      {dialog === 'shortcuts' && <ShortcutsDialog />}
      {dialog === 'runAndHand' && <RunAndHandDialog />}
      <ConfirmCloseDialog />
      <ConfirmDialog />
      <SendToClaudePicker />
    </div>
  );
}
